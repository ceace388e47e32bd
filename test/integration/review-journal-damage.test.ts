// Acknowledged reviews are never deleted: at start, a whole journal line that no longer reads as a record (last or in
// the middle) is moved byte for byte to reviews.damaged.jsonl, warned about by file, line and size (never its
// content: a comment is player text), and the reviews around it are delivered; only a torn tail (a last line with no
// newline) is cut. Real files in a temp dir, a real outbox delivering to the emulator over loopback.
import { appendFile, mkdir, readFile, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ReviewJournal } from '../../src/reviews/reviewJournal.js';
import { ReviewOutbox, type OutboxReview } from '../../src/reviews/reviewOutbox.js';
import type { ReviewOutcome } from '../../src/bridge/port.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient } from '../../src/gsa/index.js';
import { createLogger } from '../../src/log/logger.js';
import { patientMs } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const WAIT = { timeout: patientMs(8000), interval: 10 };
const WARN = 40;
/** The comment of every damaged line: it must never reach a log line. */
const SECRET = 'my password is hunter2';

let emulator: GsaEmulator;
let client: GsaClient;
const outboxes: ReviewOutbox[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }] });
  client = new GsaClient({ baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, timeoutMs: 2000, retry: { retries: 0 } });
});

afterEach(async () => {
  await Promise.all(outboxes.splice(0).map((outbox) => outbox.close()));
  emulator.reset();
});

afterAll(async () => {
  await client.close();
  await emulator.close();
});

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

function capture(): { readonly lines: LogLine[]; readonly raw: string[]; readonly logger: ReturnType<typeof createLogger> } {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: {
      write: (line: string) => {
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      },
    },
  });
  return { lines, raw, logger };
}

function queuedLine(id: string, comment: string): string {
  const record = { v: 1, op: 'queued', id, at: 1_700_000_000_000, server: SERVER, player: { steam_id: '76561198000000001' }, stars: 5, comment, origin: { adapter: 'websocket', ref: 'c' } };
  return `${JSON.stringify(record)}\n`;
}

/** An acknowledged review whose line a flipped byte spoiled: a whole line that no longer parses. */
function damagedLine(id: string): string {
  return queuedLine(id, SECRET).replace('"stars":5', '"stars":5X');
}

async function openAndDeliver(dir: string, expected: number): Promise<{ results: { review: OutboxReview; outcome: ReviewOutcome }[]; log: ReturnType<typeof capture> }> {
  const log = capture();
  const results: { review: OutboxReview; outcome: ReviewOutcome }[] = [];
  const outbox = await ReviewOutbox.open({
    dataDir: dir,
    send: (review) => client.submitReview(review.server, review.player, review.stars, review.comment),
    onResult: (review, outcome) => results.push({ review, outcome }),
    logger: log.logger,
    concurrency: 1,
    retryMinDelayMs: 20,
    retryMaxDelayMs: 50,
  });
  outboxes.push(outbox);
  outbox.start();
  await vi.waitFor(() => {
    expect(results).toHaveLength(expected);
  }, WAIT);
  return { results, log };
}

describe('a whole journal line that no longer reads as a record', () => {
  it.each([
    { where: 'the last line', lines: (bad: string) => queuedLine('g1', 'first') + queuedLine('g2', 'second') + bad, lineNumber: 3 },
    { where: 'a line in the middle', lines: (bad: string) => queuedLine('g1', 'first') + bad + queuedLine('g2', 'second'), lineNumber: 2 },
    { where: 'the first line', lines: (bad: string) => bad + queuedLine('g1', 'first') + queuedLine('g2', 'second'), lineNumber: 1 },
  ])('in $where is moved byte for byte to reviews.damaged.jsonl (0600), warned about by line and size, and the other reviews are delivered', async ({ lines, lineNumber }) => {
    const dir = await tempDir('journal-damage');
    const file = path.join(dir, 'reviews.jsonl');
    const bad = damagedLine('d1');
    await writeFile(file, lines(bad), { mode: 0o600 });

    const { results, log } = await openAndDeliver(dir, 2);
    expect(results.map((result) => result.review.id)).toEqual(['g1', 'g2']);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['first', 'second']);

    const quarantine = path.join(dir, 'reviews.damaged.jsonl');
    expect(await readFile(quarantine)).toEqual(Buffer.from(bad));
    expect((await stat(quarantine)).mode & 0o777).toBe(0o600);
    expect(await readFile(file, 'utf8')).not.toContain('"id":"d1"');

    const bytes = Buffer.byteLength(bad);
    const warnings = log.lines.filter((line) => line.level === WARN);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ file, line: lineNumber, bytes, reason: 'not valid JSON' });
    expect(warnings[0]?.msg).toContain(`line ${lineNumber} of ${file} (${bytes} bytes`);
    expect(warnings[0]?.msg).toContain(quarantine);
    expect(log.raw.join('')).not.toContain('hunter2');
  });

  it('is moved once: a second start, or a start after a crash that left it in both files, adds nothing to the quarantine file', async () => {
    const dir = await tempDir('journal-damage');
    const bad = damagedLine('d1');
    // As a crash between the quarantine's fsync and the journal's rewrite leaves them.
    await writeFile(path.join(dir, 'reviews.damaged.jsonl'), bad, { mode: 0o600 });
    await writeFile(path.join(dir, 'reviews.jsonl'), queuedLine('g1', 'first') + bad, { mode: 0o600 });

    const { journal } = await ReviewJournal.open({ dataDir: dir, logger: capture().logger, compactAfterFinished: 100 });
    await journal.close();
    const again = await ReviewJournal.open({ dataDir: dir, logger: capture().logger, compactAfterFinished: 100 });
    await again.journal.close();

    expect(await readFile(path.join(dir, 'reviews.damaged.jsonl'), 'utf8')).toBe(bad);
    expect(await readFile(path.join(dir, 'reviews.jsonl'), 'utf8')).toBe(queuedLine('g1', 'first'));
    expect(again.damaged).toBe(0);
  });

  it('never glues onto a quarantine file an interrupted move left without its last newline', async () => {
    const dir = await tempDir('journal-damage');
    const bad = damagedLine('d2');
    const interrupted = damagedLine('d1').slice(0, 40);
    await writeFile(path.join(dir, 'reviews.damaged.jsonl'), interrupted, { mode: 0o600 });
    await writeFile(path.join(dir, 'reviews.jsonl'), bad + queuedLine('g1', 'first'), { mode: 0o600 });

    const { journal } = await ReviewJournal.open({ dataDir: dir, logger: capture().logger, compactAfterFinished: 100 });
    await journal.close();
    expect(await readFile(path.join(dir, 'reviews.damaged.jsonl'), 'utf8')).toBe(`${interrupted}\n${bad}`);
  });

  it('stays in the journal through compactions while the quarantine file cannot be written, and is moved at the next start', async () => {
    const dir = await tempDir('journal-damage');
    const file = path.join(dir, 'reviews.jsonl');
    const bad = damagedLine('d1');
    await writeFile(file, queuedLine('g1', 'first') + bad, { mode: 0o600 });
    // A directory where the quarantine file should be: it can be neither read nor appended to.
    const quarantine = path.join(dir, 'reviews.damaged.jsonl');
    await mkdir(quarantine);

    const log = capture();
    const { journal, pending } = await ReviewJournal.open({ dataDir: dir, logger: log.logger, compactAfterFinished: 1 });
    expect(pending.map((review) => review.id)).toEqual(['g1']);
    expect(log.lines.filter((line) => line.level >= 50).map((line) => line.msg)).toEqual([expect.stringContaining(`could not move 1 damaged line of ${file}`)]);
    // A fate makes the journal compact: the damaged line is kept, byte for byte.
    await journal.appendFate('g1', { op: 'delivered' });
    await journal.close();
    expect(log.lines.some((line) => line.msg.startsWith('compacted the review journal'))).toBe(true);
    expect(await readFile(file, 'utf8')).toContain(bad);
    expect(log.raw.join('')).not.toContain('hunter2');

    await rmdir(quarantine);
    const reopened = await ReviewJournal.open({ dataDir: dir, logger: capture().logger, compactAfterFinished: 1 });
    await reopened.journal.close();
    expect(reopened.damaged).toBe(1);
    expect(await readFile(quarantine, 'utf8')).toBe(bad);
    expect(await readFile(file, 'utf8')).not.toContain('"id":"d1"');
  });
});

describe('re-queueing a damaged record by hand, as docs/reviews.md says', () => {
  it('delivers the repaired line appended to the journal, and a line that still does not read goes back to the quarantine file', async () => {
    const dir = await tempDir('journal-damage');
    const file = path.join(dir, 'reviews.jsonl');
    const quarantine = path.join(dir, 'reviews.damaged.jsonl');
    await writeFile(file, queuedLine('g1', 'first') + damagedLine('d1') + damagedLine('d2'), { mode: 0o600 });
    const first = await ReviewJournal.open({ dataDir: dir, logger: capture().logger, compactAfterFinished: 100 });
    await first.journal.close();

    // The person repairs d1, appends it, and leaves d2 as it is; both leave the quarantine file.
    const [d1, d2] = (await readFile(quarantine, 'utf8')).split('\n');
    await appendFile(file, `${d1!.replace('"stars":5X', '"stars":5')}\n${d2!}\n`);
    await writeFile(quarantine, '');

    const { results } = await openAndDeliver(dir, 2);
    expect(results.map((result) => result.review.id)).toEqual(['g1', 'd1']);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['first', SECRET]);
    expect(await readFile(quarantine, 'utf8')).toBe(`${d2!}\n`);
  });
});

describe('a torn tail', () => {
  it('is the only thing cut: a last line with no newline, warned about with its byte count, while a damaged whole line before it is moved', async () => {
    const dir = await tempDir('journal-damage');
    const file = path.join(dir, 'reviews.jsonl');
    const bad = damagedLine('d1');
    const torn = queuedLine('t1', SECRET).slice(0, 57);
    await writeFile(file, queuedLine('g1', 'first') + bad + torn, { mode: 0o600 });

    const { results, log } = await openAndDeliver(dir, 1);
    expect(results.map((result) => result.review.id)).toEqual(['g1']);
    expect(await readFile(path.join(dir, 'reviews.damaged.jsonl'), 'utf8')).toBe(bad);

    const cut = log.lines.filter((line) => line.msg.startsWith('cut '));
    expect(cut).toHaveLength(1);
    expect(cut[0]).toMatchObject({ level: WARN, file, bytes: 57, offset: Buffer.byteLength(queuedLine('g1', 'first') + bad) });
    expect(cut[0]?.msg).toContain('cut 57 bytes at the end of');
    expect(log.raw.join('')).not.toContain('hunter2');
    // The journal holds whole lines only, so the next append starts a line of its own.
    const journal = await readFile(file, 'utf8');
    expect(journal.endsWith('\n')).toBe(true);
    expect(journal).not.toContain('"id":"t1"');
  });
});
