// The chat filter's strikes: counted per player, forgotten after strikeMemoryMs (an injected clock, no sleeps),
// durable across a reopen (expired ones gone), bounded, compacted, and a corrupt line skipped with a warning.
import { appendFile, readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STRIKES_FILE, StrikeBook, type ModerationLogger } from '../../src/moderation/strikeBook.js';
import { tempDir } from '../fixtures/tempDir.js';

const HOUR = 3_600_000;

function quietLogger(): ModerationLogger & { warnings: string[]; errors: string[] } {
  const warnings: string[] = [];
  const errors: string[] = [];
  return { warnings, errors, info: () => undefined, warn: (_object, message) => warnings.push(message), error: (_object, message) => errors.push(message) };
}

function clockAt(start: number): { now: () => number; advance: (ms: number) => void } {
  let now = start;
  return { now: () => now, advance: (ms) => (now += ms) };
}

describe('StrikeBook', () => {
  it('counts strikes per player and forgets them after strikeMemoryMs', async () => {
    const clock = clockAt(1_700_000_000_000);
    const book = await StrikeBook.open({ dataDir: await tempDir('strikes'), memoryMs: HOUR, clock, logger: quietLogger() });
    expect(book.strike('76561198000000001', 0)).toBe(1);
    clock.advance(HOUR / 2);
    expect(book.strike('76561198000000001', 2)).toBe(2);
    expect(book.strike('76561198000000002', 0)).toBe(1);
    clock.advance(HOUR / 2);
    // The first strike is now exactly strikeMemoryMs old: forgotten.
    expect(book.count('76561198000000001')).toBe(1);
    clock.advance(HOUR / 2);
    expect(book.count('76561198000000001')).toBe(0);
    expect(book.strike('76561198000000001', 1)).toBe(1);
    await book.settled();
  });

  it('keeps strikes across a reopen, without the expired ones', async () => {
    const dataDir = await tempDir('strikes');
    const clock = clockAt(1_700_000_000_000);
    const logger = quietLogger();
    const first = await StrikeBook.open({ dataDir, memoryMs: HOUR, clock, logger });
    first.strike('76561198000000001', 0);
    clock.advance(HOUR - 1000);
    first.strike('76561198000000001', 0);
    first.strike('0123456789abcdef0123456789abcdef', 3);
    await first.settled();

    clock.advance(2000);
    const reopened = await StrikeBook.open({ dataDir, memoryMs: HOUR, clock, logger });
    expect(reopened.count('76561198000000001')).toBe(1);
    expect(reopened.count('0123456789abcdef0123456789abcdef')).toBe(1);
    expect(reopened.strike('76561198000000001', 0)).toBe(2);
    await reopened.settled();
    expect(logger.warnings).toEqual([]);
    expect(logger.errors).toEqual([]);
  });

  it('restores no expired strike at open: not held, not counted among the players, and compacted out of the file', async () => {
    const dataDir = await tempDir('strikes');
    const file = join(dataDir, STRIKES_FILE);
    const clock = clockAt(1_700_000_000_000);
    // 150 strikes of 150 players, all older than strikeMemoryMs, then one live strike.
    const expired = Array.from({ length: 150 }, (_, index) => JSON.stringify({ p: `7656119800000${String(index).padStart(4, '0')}`, at: clock.now() - 2 * HOUR + index, r: 0 }));
    const live = JSON.stringify({ p: '76561198000009999', at: clock.now() - 1000, r: 1 });
    await mkdir(join(dataDir, 'moderation'), { recursive: true });
    await writeFile(file, `${[...expired, live].join('\n')}\n`);
    const logger = quietLogger();
    const book = await StrikeBook.open({ dataDir, memoryMs: HOUR, clock, logger });
    expect(book.players).toBe(1);
    expect(book.live).toBe(1);
    expect(book.count('76561198000009999')).toBe(1);
    expect((await readFile(file, 'utf8')).trim().split('\n')).toEqual([live]);
    expect(logger.warnings).toEqual([]);
  });

  it('forgets the least recently struck player first: a strike makes a player the most recent again', async () => {
    const clock = clockAt(1_700_000_000_000);
    const book = await StrikeBook.open({ dataDir: await tempDir('strikes'), memoryMs: HOUR, clock, logger: quietLogger(), maxPlayers: 2 });
    book.strike('76561198000000001', 0);
    clock.advance(1000);
    book.strike('76561198000000002', 0);
    clock.advance(1000);
    // The first player struck again: now the second is the least recent.
    book.strike('76561198000000001', 0);
    clock.advance(1000);
    book.strike('76561198000000003', 0);
    expect(book.players).toBe(2);
    expect(book.count('76561198000000001')).toBe(2);
    expect(book.count('76561198000000002')).toBe(0);
    expect(book.count('76561198000000003')).toBe(1);
    await book.settled();
  });

  it('skips a corrupt line with a warning and compacts it away', async () => {
    const dataDir = await tempDir('strikes');
    const file = join(dataDir, STRIKES_FILE);
    const clock = clockAt(1_700_000_000_000);
    await mkdir(join(dataDir, 'moderation'), { recursive: true });
    await writeFile(file, `${JSON.stringify({ p: '76561198000000001', at: clock.now(), r: 0 })}\nnot json\n{"p":5}\n`);
    await appendFile(file, '{"p":"76561198000000001","at":'); // a torn last line
    const logger = quietLogger();
    const book = await StrikeBook.open({ dataDir, memoryMs: HOUR, clock, logger });
    expect(book.count('76561198000000001')).toBe(1);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain('skipped 3');
    const lines = (await readFile(file, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(1);
  });

  it('is bounded: players, strikes per player, and the file through compactions', async () => {
    const dataDir = await tempDir('strikes');
    const clock = clockAt(1_700_000_000_000);
    const book = await StrikeBook.open({ dataDir, memoryMs: HOUR, clock, logger: quietLogger(), maxPlayers: 3, maxStrikes: 4, compactAfter: 5 });
    for (let i = 0; i < 10; i++) book.strike('76561198000000001', 0);
    expect(book.count('76561198000000001')).toBe(4);
    for (let i = 2; i <= 5; i++) book.strike(`7656119800000000${i}`, 0);
    expect(book.players).toBe(3);
    expect(book.count('76561198000000001')).toBe(0);
    await book.settled();
    const lines = (await readFile(join(dataDir, STRIKES_FILE), 'utf8')).trim().split('\n');
    expect(lines.length).toBeLessThanOrEqual(book.live + 5);
  });

  it('logs a write that fails and keeps counting', async () => {
    const dataDir = await tempDir('strikes');
    const logger = quietLogger();
    const book = await StrikeBook.open({ dataDir, memoryMs: HOUR, logger });
    // A file where the moderation directory should be: every write fails.
    await writeFile(join(dataDir, 'moderation'), 'in the way');
    expect(book.strike('76561198000000001', 0)).toBe(1);
    await book.settled();
    expect(logger.errors.length).toBeGreaterThan(0);
  });
});
