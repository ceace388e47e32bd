// The moderation log stays bounded under any burst (real files in a temp dir): records queued while a compaction
// runs are counted by the write that takes them, so the next compaction comes exactly when the file would reach
// 2 × KEPT_RECORDS; a burst larger than the bound keeps the newest records, in order, and says how many it dropped.
// And the strike book's burst: strikes queued while it compacts are written once, never twice.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rewriteJsonLines } from '../../src/moderation/jsonLinesFile.js';
import { KEPT_RECORDS, ModerationLog, moderationFile, type ModerationRecord } from '../../src/moderation/moderationLog.js';
import { STRIKES_FILE, StrikeBook, type ModerationLogger } from '../../src/moderation/strikeBook.js';
import { tempDir } from '../fixtures/tempDir.js';

const BOUND = 2 * KEPT_RECORDS;

function recordingLogger(): ModerationLogger & { warnings: { object: object; message: string }[]; errors: string[] } {
  const warnings: { object: object; message: string }[] = [];
  const errors: string[] = [];
  return { warnings, errors, info: () => undefined, warn: (object, message) => warnings.push({ object, message }), error: (_object, message) => errors.push(message) };
}

/** The n-th record of a test: its strike field carries n, so order and identity can be read back. */
function record(n: number): ModerationRecord {
  return { at: '2026-06-20T21:06:10.000Z', server: 'ovddykvbs', player: '76561198000000001', rule: 0, strike: n, action: 'block', period: null, result: 'ok', answer: null, by: 'filter' };
}

/** The records in the file, by their n, oldest first (every line, not only the last KEPT_RECORDS). */
async function numbersInFile(dataDir: string): Promise<number[]> {
  const text = await readFile(moderationFile(dataDir), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as ModerationRecord).strike ?? -1);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, index) => from + index);
}

describe('ModerationLog under a burst', () => {
  it('counts the appends queued during a compaction, so the next compaction comes exactly at the bound', async () => {
    const dataDir = await tempDir('moderation-bound');
    await rewriteJsonLines(moderationFile(dataDir), range(0, BOUND - 1).map(record));
    const logger = recordingLogger();
    const log = await ModerationLog.open(dataDir, logger);

    // append() starts its write at once: this first record's write is the compaction (the file is one short of the
    // bound), so the 600 after it are queued while that compaction reads and rewrites the file.
    log.append(record(BOUND - 1));
    for (const n of range(BOUND, BOUND + 600)) log.append(record(n));
    await log.settled();
    expect(await numbersInFile(dataDir)).toEqual(range(BOUND - KEPT_RECORDS, BOUND + 600));

    // Counted right: the file fills to one short of the bound with no compaction, and the next record compacts it.
    const fill = BOUND - 1 - (KEPT_RECORDS + 600);
    for (const n of range(BOUND + 600, BOUND + 600 + fill)) log.append(record(n));
    await log.settled();
    expect(await numbersInFile(dataDir)).toHaveLength(BOUND - 1);
    const last = BOUND + 600 + fill;
    log.append(record(last));
    await log.settled();
    expect(await numbersInFile(dataDir)).toEqual(range(last + 1 - KEPT_RECORDS, last + 1));
    expect(logger.warnings).toEqual([]);
    expect(logger.errors).toEqual([]);
  });

  it('keeps at most the bound through a burst ten times larger, the newest records last and in order, and says what it dropped', async () => {
    const dataDir = await tempDir('moderation-bound');
    const logger = recordingLogger();
    const log = await ModerationLog.open(dataDir, logger);
    const burst = 10 * BOUND;
    for (const n of range(0, burst)) log.append(record(n));
    await log.settled();

    const numbers = await numbersInFile(dataDir);
    expect(numbers.length).toBeLessThanOrEqual(BOUND);
    expect(numbers.slice(-KEPT_RECORDS)).toEqual(range(burst - KEPT_RECORDS, burst));
    // Older records may be gone, never reordered.
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    // Not silent: the warnings say how many waiting records were dropped, and they are older than every kept one.
    const dropped = logger.warnings.reduce((sum, warning) => sum + ((warning.object as { dropped?: number }).dropped ?? 0), 0);
    expect(dropped).toBeGreaterThan(0);
    expect(dropped + numbers.length).toBeLessThanOrEqual(burst);
    expect(logger.warnings[0]?.message).toContain('were not written');
    expect(logger.errors).toEqual([]);

    // And the count stays right after it: the next compaction comes when the file would reach the bound.
    const room = BOUND - 1 - numbers.length;
    for (const n of range(burst, burst + room)) log.append(record(n));
    await log.settled();
    expect(await numbersInFile(dataDir)).toHaveLength(BOUND - 1);
  });
});

describe('StrikeBook under a burst', () => {
  it('writes each strike once when a compaction comes in the middle of a burst, so a reopen counts each once', async () => {
    const dataDir = await tempDir('strikes-burst');
    const logger = recordingLogger();
    // A strike lasts 1 s and the player strikes every 100 ms: 10 are live at a time, so the book compacts every 10
    // appends, and a burst of 65 has compactions while strikes made after them still wait to be written.
    let now = 1_700_000_000_000;
    const clock = { now: () => now };
    const options = { dataDir, memoryMs: 1000, clock, logger, compactAfter: 10 };
    const book = await StrikeBook.open(options);
    for (let strike = 1; strike <= 65; strike++) {
      now += 100;
      book.strike('76561198000000001', 0);
    }
    expect(book.count('76561198000000001')).toBe(10);
    await book.settled();

    const lines = (await readFile(join(dataDir, STRIKES_FILE), 'utf8')).split('\n').filter((line) => line !== '');
    expect(lines).toHaveLength(10);
    const reopened = await StrikeBook.open(options);
    expect(reopened.count('76561198000000001')).toBe(10);
    expect(logger.errors).toEqual([]);
  });
});
