// `gsa-bridge reviews list|retry` as a host uses them, in-process (the real CLI entry) on real files: the last
// delivered reviews ("did my players' reviews arrive?"), through compactions and a restart; one vocabulary of refusal
// codes with the mod protocol (GSA's 403 is `not_eligible`, also in files an older version wrote); and what `retry`
// says about ids it does not know. Journals are written through ReviewJournal and the outbox with the emulator.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DELIVERED_HISTORY, type FailureReason } from '../../src/reviews/journalRecords.js';
import { ReviewJournal } from '../../src/reviews/reviewJournal.js';
import { ReviewOutbox, type OutboxReview } from '../../src/reviews/reviewOutbox.js';
import type { ReviewOutcome } from '../../src/bridge/port.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient } from '../../src/gsa/index.js';
import { silentLogger } from '../../src/log/logger.js';
import { tempDir } from '../fixtures/tempDir.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'ovddykvbs';
const ALICE = '76561198000000001';
const BOB = '76561198000000002';
const WAIT = { timeout: patientMs(8000), interval: 10 };

/** The real CLI entry, in-process, with an empty environment. */
const cli = runCliInProcess;

interface Setup {
  readonly configPath: string;
  readonly dataDir: string;
}

/** A config file whose reviews.dataDir is `data` next to it; listing and re-queueing need no credentials. */
async function setup(): Promise<Setup> {
  const dir = await tempDir('reviews-list');
  const configPath = path.join(dir, 'config.json');
  await writeFile(configPath, JSON.stringify({ api: { baseUrl: 'http://127.0.0.1:9' }, servers: [{ name: SERVER, adapters: [] }], reviews: { dataDir: 'data' } }));
  return { configPath, dataDir: path.join(dir, 'data') };
}

async function listJson(configPath: string, ...args: string[]): Promise<Record<string, unknown>[]> {
  const run = await cli(['reviews', 'list', '--json', ...args, '--config', configPath]);
  expect(run.code).toBe(0);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function outboxReview(n: number, overrides: Partial<OutboxReview> = {}): OutboxReview {
  return {
    id: `r-${String(n).padStart(4, '0')}`,
    server: SERVER,
    player: { steamId: `7656119800000${String(n).padStart(4, '0')}`, name: `Player ${n}` },
    stars: 1 + (n % 5),
    comment: `comment ${n} that a delivered entry does not keep`,
    origin: { adapter: 'websocket', ref: 'conn-1' },
    queuedAt: 1_800_000_000_000 + n,
    ...overrides,
  };
}

const REFUSED: FailureReason = { code: 'forbidden', status: 403, message: 'the service refused the request (403): play 2 hours first' };
const NO_ANSWER: FailureReason = { code: 'network', status: null, message: 'the connection dropped after sending' };

describe('reviews list --state delivered', () => {
  it('shows the newest 1,000 of 1,005 delivered reviews through compactions and a restart, with id, server, player, stars, when and receipt', async () => {
    const { configPath, dataDir } = await setup();
    let now = 1_800_000_100_000;
    const clock = { now: () => (now += 1) };
    // Compacting every 100 fates: the 1,005 deliveries go through about ten rewrites of the journal.
    const { journal } = await ReviewJournal.open({ dataDir, logger: silentLogger(), compactAfterFinished: 100, clock });
    const reviews = Array.from({ length: 1005 }, (_, n) => outboxReview(n));
    const refused = outboxReview(2000, { id: 'r-dead' });
    const unsure = outboxReview(2001, { id: 'r-unconfirmed' });
    await Promise.all([...reviews, refused, unsure].map((queued) => journal.appendQueued(queued)));
    const deliveredAt = new Map<string, number>();
    for (const [index, queued] of reviews.entries()) {
      // One at a time, so each has its own time; a dead and an unconfirmed one finish in the middle of them.
      await journal.appendFate(queued.id, { op: 'delivered', receipt: 'Done!' });
      deliveredAt.set(queued.id, now);
      if (index === 1002) {
        await journal.appendFate(refused.id, { op: 'dead', reason: REFUSED });
        await journal.appendFate(unsure.id, { op: 'unconfirmed', reason: NO_ANSWER });
      }
    }
    await journal.close();
    // The bound holds on disk: no more than the history, one compaction interval and nothing pending.
    const lines = (await readFile(path.join(dataDir, 'reviews.jsonl'), 'utf8')).split('\n').filter((line) => line !== '');
    expect(lines.length).toBeLessThanOrEqual(DELIVERED_HISTORY + 100 * 2);
    expect(DELIVERED_HISTORY).toBeGreaterThanOrEqual(1000);

    // A restart: the journal is read, repaired and perhaps compacted again.
    const reopened = await ReviewJournal.open({ dataDir, logger: silentLogger(), compactAfterFinished: 100, clock });
    expect(reopened.pending).toEqual([]);
    await reopened.journal.close();

    const rows = await listJson(configPath, '--state', 'delivered');
    expect(rows).toHaveLength(1000);
    const newest = reviews.slice(5);
    expect(rows.map((row) => row.id)).toEqual(newest.map((queued) => queued.id));
    expect(rows.some((row) => row.id === 'r-dead' || row.id === 'r-unconfirmed')).toBe(false);
    const last = newest.at(-1)!;
    expect(rows.at(-1)).toEqual({
      id: last.id,
      state: 'delivered',
      server: SERVER,
      player: { steam_id: last.player.steamId, name: last.player.name },
      stars: last.stars,
      queued_at: last.queuedAt,
      delivered_at: deliveredAt.get(last.id),
      receipt: 'Done!',
      reason: null,
    });

    const text = await cli(['reviews', 'list', '--state', 'delivered', '--config', configPath]);
    expect(text.code).toBe(0);
    const textLines = text.stdout.split('\n').filter((line) => line !== '');
    expect(textLines).toHaveLength(1000);
    expect(textLines.at(-1)).toBe(
      `${last.id}  delivered    ${SERVER}  ${last.player.steamId ?? ''}  ${last.stars}★  delivered ${new Date(deliveredAt.get(last.id)!).toISOString()}  "Done!"`,
    );
    expect(text.stderr).toBe(`1000 reviews in ${dataDir}\n`);

    // Without --state: what the outbox holds, as before (delivered reviews are no longer the outbox's).
    expect(await listJson(configPath)).toEqual([]);
  });

  it('lists what the outbox delivered, never a dead or unconfirmed review, and reads a delivered record written before this history', async () => {
    const { configPath, dataDir } = await setup();
    const emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }] });
    const client = new GsaClient({ baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, timeoutMs: 2000, retry: { retries: 0 } });
    try {
      emulator.setIneligible(SERVER, BOB, 'Play 2 hours before reviewing.');
      const results: { review: OutboxReview; outcome: ReviewOutcome }[] = [];
      const outbox = await ReviewOutbox.open({
        dataDir,
        send: (review) => client.submitReview(review.server, review.player, review.stars, review.comment),
        onResult: (review, outcome) => results.push({ review, outcome }),
        logger: silentLogger(),
        concurrency: 1,
        retryMinDelayMs: 20,
        retryMaxDelayMs: 50,
      });
      const origin = { adapter: 'websocket', ref: 'conn-1' };
      const delivered = await outbox.enqueue({ server: SERVER, player: { steamId: ALICE, name: 'Alice' }, stars: 4, comment: 'great admins', origin });
      const dead = await outbox.enqueue({ server: SERVER, player: { steamId: BOB }, stars: 2, comment: 'too early', origin });
      outbox.start();
      await vi.waitFor(() => {
        expect(results).toHaveLength(2);
      }, WAIT);
      emulator.injectFault({ kind: 'drop', afterProcessing: true, endpoint: 'review' });
      const unsure = await outbox.enqueue({ server: SERVER, player: { steamId: ALICE }, stars: 5, comment: 'did it arrive?', origin });
      await vi.waitFor(() => {
        expect(results).toHaveLength(3);
      }, WAIT);
      await outbox.close();

      expect(await listJson(configPath, '--state', 'delivered')).toEqual([
        {
          id: delivered.id,
          state: 'delivered',
          server: SERVER,
          player: { steam_id: ALICE, name: 'Alice' },
          stars: 4,
          queued_at: delivered.queuedAt,
          delivered_at: expect.any(Number) as number,
          receipt: 'Done!',
          reason: null,
        },
      ]);
      expect((await listJson(configPath)).map((row) => [row.id, row.state])).toEqual([
        [dead.id, 'dead'],
        [unsure.id, 'unconfirmed'],
      ]);
    } finally {
      await client.close();
      await emulator.close();
    }

    // A journal an older version wrote: `delivered` with only its id and time, after the review's `queued` line.
    const old = [
      { v: 1, op: 'queued', id: 'r-old', at: 1_700_000_000_000, server: SERVER, player: { steam_id: BOB }, stars: 3, comment: 'old', origin: { adapter: 'websocket', connection_id: 'c' } },
      { v: 1, op: 'delivered', id: 'r-old', at: 1_700_000_001_000 },
    ];
    await writeFile(path.join(dataDir, 'reviews.jsonl'), old.map((record) => `${JSON.stringify(record)}\n`).join(''));
    expect(await listJson(configPath, '--state', 'delivered')).toEqual([
      { id: 'r-old', state: 'delivered', server: SERVER, player: { steam_id: BOB }, stars: 3, queued_at: 1_700_000_000_000, delivered_at: 1_700_000_001_000, receipt: null, reason: null },
    ]);
  });

  it('names the new state in its help', async () => {
    const help = await cli(['reviews', 'list', '--help']);
    expect(help.stdout).toContain('--state pending|unconfirmed|dead|damaged|delivered');
  });
});

describe('reviews list: damaged records', () => {
  const queued = (id: string, comment: string): string =>
    `${JSON.stringify({ v: 1, op: 'queued', id, at: 1_800_000_000_000, server: SERVER, player: { steam_id: ALICE }, stars: 5, comment, origin: { adapter: 'websocket', ref: 'c' } })}\n`;
  const damaged = (id: string): string => queued(id, 'a comment the listing does not show').replace('"stars":5', '"stars":5X');

  it('lists a damaged journal line as damaged (id, file, line, size, why), before a start moves it and after, and under --state damaged', async () => {
    const { configPath, dataDir } = await setup();
    const journalFile = path.join(dataDir, 'reviews.jsonl');
    const bad = damaged('r-damaged');
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    await writeFile(journalFile, queued('r-good', 'kept') + bad, { mode: 0o600 });
    const row = (file: string, line: number): Record<string, unknown> => ({
      id: 'r-damaged',
      state: 'damaged',
      server: null,
      player: null,
      stars: null,
      comment: null,
      queued_at: null,
      reason: { code: 'damaged', status: null, message: 'not valid JSON' },
      file,
      line,
      bytes: Buffer.byteLength(bad),
    });

    // No start since the damage: it is still in the journal, listed all the same.
    expect((await listJson(configPath)).map((listed) => listed.state)).toEqual(['pending', 'damaged']);
    expect(await listJson(configPath, '--state', 'damaged')).toEqual([row(journalFile, 2)]);

    // A start moves it to the quarantine file; the listing follows it there.
    const { journal, damaged: found } = await ReviewJournal.open({ dataDir, logger: silentLogger(), compactAfterFinished: 100 });
    await journal.close();
    expect(found).toBe(1);
    const quarantine = path.join(dataDir, 'reviews.damaged.jsonl');
    expect(await listJson(configPath, '--state', 'damaged')).toEqual([row(quarantine, 1)]);
    expect(await listJson(configPath, '--state', 'pending')).toHaveLength(1);

    const text = await cli(['reviews', 'list', '--config', configPath]);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n').filter((line) => line !== '').at(-1)).toBe(`r-damaged  damaged      line 1 of ${quarantine} (${Buffer.byteLength(bad)} bytes): not valid JSON`);
    expect(text.stdout).not.toContain('does not show');
    expect(text.stderr).toBe(`2 reviews in ${dataDir}\n`);
  });
});

describe('one word for GSA\'s 403: not_eligible, as on the wire', () => {
  it('lists a refused review as not_eligible, also from a letter and a held record an older version wrote as forbidden', async () => {
    const { configPath, dataDir } = await setup();
    const { journal } = await ReviewJournal.open({ dataDir, logger: silentLogger(), compactAfterFinished: 1000 });
    const held = outboxReview(1, { id: 'r-held' });
    await journal.appendQueued(held);
    await journal.close();
    // As 0.1 wrote them: the letter and the `held` record carry the client's code, `forbidden`.
    const letter = { v: 1, op: 'dead', id: 'r-letter', at: 1_800_000_000_500, queued_at: 1_800_000_000_000, server: SERVER, player: { steam_id: ALICE }, stars: 1, comment: 'old letter', origin: { adapter: 'websocket', ref: 'c' }, error: REFUSED };
    await writeFile(path.join(dataDir, 'dead-letter.jsonl'), `${JSON.stringify(letter)}\n`);
    const heldLine = { v: 1, op: 'held', id: 'r-held', at: 1_800_000_000_600, kind: 'dead', error: REFUSED };
    await writeFile(path.join(dataDir, 'reviews.jsonl'), `${await readFile(path.join(dataDir, 'reviews.jsonl'), 'utf8')}${JSON.stringify(heldLine)}\n`);

    const rows = await listJson(configPath, '--state', 'dead');
    expect(rows.map((row) => [row.id, row.reason])).toEqual([
      ['r-letter', { ...REFUSED, code: 'not_eligible' }],
      ['r-held', { ...REFUSED, code: 'not_eligible' }],
    ]);
    const text = await cli(['reviews', 'list', '--state', 'dead', '--config', configPath]);
    expect(text.stdout).toContain(`"old letter"  not_eligible 403: ${REFUSED.message}`);
    expect(text.stdout).not.toContain('forbidden');

    // The sidecar writes the held review's letter with today's word.
    const reopened = await ReviewJournal.open({ dataDir, logger: silentLogger(), compactAfterFinished: 1000 });
    expect(reopened.held.map((entry) => entry.reason.code)).toEqual(['not_eligible']);
    await reopened.journal.close();
  });

  it('writes not_eligible for a review GSA refuses with 403 (the letter, the journal and the listing)', async () => {
    const { configPath, dataDir } = await setup();
    const emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }] });
    const client = new GsaClient({ baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, timeoutMs: 2000, retry: { retries: 0 } });
    try {
      emulator.setIneligible(SERVER, BOB, 'Play 2 hours before reviewing.');
      const results: ReviewOutcome[] = [];
      const outbox = await ReviewOutbox.open({
        dataDir,
        send: (review) => client.submitReview(review.server, review.player, review.stars, review.comment),
        onResult: (_review, outcome) => results.push(outcome),
        logger: silentLogger(),
      });
      await outbox.enqueue({ server: SERVER, player: { steamId: BOB }, stars: 2, comment: 'too early', origin: { adapter: 'websocket', ref: 'c' } });
      outbox.start();
      await vi.waitFor(() => {
        expect(results).toHaveLength(1);
      }, WAIT);
      await outbox.close();
      // The mod hears the client's code, mapped by the wire (adapters/websocket/wireCodes.ts) to not_eligible.
      expect(results[0]).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    } finally {
      await client.close();
      await emulator.close();
    }
    const letters = (await readFile(path.join(dataDir, 'dead-letter.jsonl'), 'utf8')).split('\n').filter((line) => line !== '');
    expect(letters.map((line) => (JSON.parse(line) as { error: FailureReason }).error.code)).toEqual(['not_eligible']);
    expect(await readFile(path.join(dataDir, 'reviews.jsonl'), 'utf8')).toContain('"code":"not_eligible"');
    expect((await listJson(configPath, '--state', 'dead')).map((row) => (row.reason as FailureReason).code)).toEqual(['not_eligible']);
  });
});

describe('reviews retry with ids it does not know', () => {
  async function withDeadLetter(): Promise<Setup> {
    const paths = await setup();
    const letter = { v: 1, op: 'dead', id: 'r-known', at: 1_800_000_000_500, queued_at: 1_800_000_000_000, server: SERVER, player: { steam_id: ALICE }, stars: 1, comment: 'refused', origin: { adapter: 'websocket', ref: 'c' }, error: REFUSED };
    const { journal } = await ReviewJournal.open({ dataDir: paths.dataDir, logger: silentLogger(), compactAfterFinished: 1000 });
    await journal.close();
    await writeFile(path.join(paths.dataDir, 'dead-letter.jsonl'), `${JSON.stringify(letter)}\n`);
    return paths;
  }

  it('says in one line which id is unknown, exits 1, and does not claim a re-queue', async () => {
    const { configPath } = await withDeadLetter();
    expect(await cli(['reviews', 'retry', 'no-such-id', '--config', configPath])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: no dead or unconfirmed review with id no-such-id (see gsa-bridge reviews list); nothing was re-queued\n',
    });
    expect(await cli(['reviews', 'retry', 'nope-1', 'nope-2', '--config', configPath])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: no dead or unconfirmed review with ids nope-1, nope-2 (see gsa-bridge reviews list); nothing was re-queued\n',
    });
  });

  it('re-queues the known ids of a mixed request, names the unknown ones, and exits 1', async () => {
    const { configPath } = await withDeadLetter();
    expect(await cli(['reviews', 'retry', 'r-known', 'no-such-id', '--config', configPath])).toEqual({
      code: 1,
      stdout: 're-queued r-known\n',
      stderr:
        '1 review re-queued in the journal; the sidecar delivers it when it next runs\n' +
        'error: no dead or unconfirmed review with id no-such-id (see gsa-bridge reviews list)\n',
    });
  });

  it('says so when a selection finds nothing to re-queue', async () => {
    const { configPath, dataDir } = await setup();
    await (await ReviewJournal.open({ dataDir, logger: silentLogger(), compactAfterFinished: 1000 })).journal.close();
    expect(await cli(['reviews', 'retry', '--all-dead', '--config', configPath])).toEqual({ code: 0, stdout: '', stderr: 'no dead reviews to re-queue\n' });
  });
});
