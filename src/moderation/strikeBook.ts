// The chat filter's strikes: how many times each player's lines were filtered within strikeMemoryMs, kept in the
// data directory (`moderation/strikes.jsonl`, one strike a line, appended durably) so a restart does not wipe a
// player's record, and read back at start. A strike older than strikeMemoryMs is forgotten (the clock is injected),
// the book holds at most maxPlayers players (the least recently struck go first) and maxStrikes strikes a player
// (past the ladder's end every strike takes the last step anyway), and the file is compacted to the live strikes.
// Counting is synchronous (the verdict never waits for a disk); the write goes on in the background, in order, the
// strikes of a burst in one write (a write per strike fell minutes behind a flood and held memory all along).
// A corrupt line is skipped with a warning, never a crash; a write that fails is logged, and the count stands.
// It knows nothing of words, ladders or the service, and never stores chat text.

import path from 'node:path';
import { describeError } from '../reviews/durableFiles.js';
import { systemClock, type Clock } from '../time/clock.js';
import { BatchedWrites } from './batchedWrites.js';
import { appendJsonLines, isRecordObject, readJsonLines, rewriteJsonLines } from './jsonLinesFile.js';

/** The structural logger the book warns through (pino satisfies it). */
export interface ModerationLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** One strike as stored: the player's key (ids/playerIds playerKey), when, and the listed word's index. */
interface StrikeLine {
  readonly p: string;
  readonly at: number;
  readonly r: number;
}

export interface StrikeBookOptions {
  /** The data directory (reviews.dataDir); the book is `moderation/strikes.jsonl` in it. */
  readonly dataDir: string;
  /** How long a strike counts (moderation.filter.strikeMemoryMs). */
  readonly memoryMs: number;
  readonly logger: ModerationLogger;
  /** Wall-clock time (strikes are persisted across restarts). @default the system clock */
  readonly clock?: Clock | undefined;
  /** Most players remembered. @default 50000 */
  readonly maxPlayers?: number | undefined;
  /** Most strikes remembered per player. @default 100 */
  readonly maxStrikes?: number | undefined;
  /** Lines appended since the last compaction before the next, at least. @default 1000 */
  readonly compactAfter?: number | undefined;
}

export const STRIKES_FILE = path.join('moderation', 'strikes.jsonl');

function parseStrike(value: unknown): StrikeLine | undefined {
  if (!isRecordObject(value)) return undefined;
  const { p, at, r } = value;
  if (typeof p !== 'string' || p.length === 0 || p.length > 100) return undefined;
  if (typeof at !== 'number' || !Number.isFinite(at)) return undefined;
  if (typeof r !== 'number' || !Number.isInteger(r) || r < 0) return undefined;
  return { p, at, r };
}

export class StrikeBook {
  readonly #file: string;
  readonly #logger: ModerationLogger;
  readonly #clock: Clock;
  readonly #maxPlayers: number;
  readonly #maxStrikes: number;
  readonly #compactAfter: number;
  #memoryMs: number;
  /** player key → the strikes' times and rules, oldest first; Map order: least recently struck first. */
  readonly #strikes = new Map<string, StrikeLine[]>();
  #appendedSinceCompaction = 0;
  /** Appends in order, a batch at a time; a compaction runs inside one, so the two never interleave. */
  readonly #appends: BatchedWrites<StrikeLine>;

  private constructor(options: StrikeBookOptions) {
    this.#file = path.join(options.dataDir, STRIKES_FILE);
    this.#logger = options.logger;
    this.#clock = options.clock ?? systemClock;
    this.#memoryMs = options.memoryMs;
    this.#maxPlayers = options.maxPlayers ?? 50_000;
    this.#maxStrikes = options.maxStrikes ?? 100;
    this.#compactAfter = options.compactAfter ?? 1_000;
    this.#appends = new BatchedWrites({
      write: (batch) => this.#append(batch),
      onError: (error) => {
        this.#writeFailed(error);
      },
    });
  }

  /** Reads the book (skipping corrupt lines with one warning), drops what expired, and compacts when that was much. */
  static async open(options: StrikeBookOptions): Promise<StrikeBook> {
    const book = new StrikeBook(options);
    const { records, skipped } = await readJsonLines(book.#file, parseStrike);
    if (skipped > 0) book.#logger.warn({ file: book.#file, skipped }, `skipped ${skipped} unreadable line(s) of ${book.#file}; the other strikes are kept`);
    const oldestKept = book.#clock.now() - book.#memoryMs;
    for (const record of records.sort((a, b) => a.at - b.at)) {
      if (record.at > oldestKept) book.#remember(record);
    }
    if (skipped > 0 || records.length > book.live + 100) {
      try {
        await book.#compact();
      } catch (error) {
        book.#writeFailed(error);
      }
    }
    return book;
  }

  /** Players with a live strike (expired ones may still count until they are next looked at or compacted). */
  get players(): number {
    return this.#strikes.size;
  }

  /** Strikes held (live or not yet swept). */
  get live(): number {
    let count = 0;
    for (const strikes of this.#strikes.values()) count += strikes.length;
    return count;
  }

  /** A reload changed strikeMemoryMs: applies to every strike from now on, stored ones included. */
  setMemory(memoryMs: number): void {
    this.#memoryMs = memoryMs;
  }

  /** The player's live strikes now. */
  count(player: string): number {
    return this.#sweep(player)?.length ?? 0;
  }

  /**
   * Records a strike for the player (the listed word's index) and returns how many live strikes they have now, this
   * one included. Synchronous: the line is written in the background (settled() waits for it).
   */
  strike(player: string, rule: number): number {
    const line: StrikeLine = { p: player, at: this.#clock.now(), r: rule };
    this.#sweep(player);
    const count = this.#remember(line);
    this.#appends.push(line);
    return count;
  }

  /** Resolves when every write started so far has finished (failures are logged, never thrown). */
  settled(): Promise<void> {
    return this.#appends.settled();
  }

  /**
   * One batch: appended, or when that would take the appends since the last compaction past compactAfter (and past
   * the live strikes), a compaction instead, which holds the batch (its strikes are in memory). The compaction reads
   * memory before its first await, when nothing else waits: a strike made during it is written once, after it.
   */
  async #append(batch: readonly StrikeLine[]): Promise<void> {
    if (this.#appendedSinceCompaction + batch.length >= Math.max(this.#compactAfter, this.live)) {
      await this.#compact();
      return;
    }
    this.#appendedSinceCompaction += batch.length;
    await appendJsonLines(this.#file, batch);
  }

  #remember(line: StrikeLine): number {
    const strikes = this.#strikes.get(line.p) ?? [];
    this.#strikes.delete(line.p);
    strikes.push(line);
    if (strikes.length > this.#maxStrikes) strikes.splice(0, strikes.length - this.#maxStrikes);
    this.#strikes.set(line.p, strikes);
    if (this.#strikes.size > this.#maxPlayers) {
      const leastRecent = this.#strikes.keys().next().value;
      if (leastRecent !== undefined) this.#strikes.delete(leastRecent);
    }
    return strikes.length;
  }

  /** Drops the player's expired strikes; returns what is left. */
  #sweep(player: string): StrikeLine[] | undefined {
    const strikes = this.#strikes.get(player);
    if (strikes === undefined) return undefined;
    const oldestKept = this.#clock.now() - this.#memoryMs;
    let expired = 0;
    while (expired < strikes.length && (strikes[expired]?.at ?? 0) <= oldestKept) expired++;
    if (expired === 0) return strikes;
    if (expired === strikes.length) {
      this.#strikes.delete(player);
      return undefined;
    }
    strikes.splice(0, expired);
    return strikes;
  }

  async #compact(): Promise<void> {
    const oldestKept = this.#clock.now() - this.#memoryMs;
    const kept: StrikeLine[] = [];
    for (const [player, strikes] of [...this.#strikes]) {
      const live = strikes.filter((strike) => strike.at > oldestKept);
      if (live.length === 0) this.#strikes.delete(player);
      else kept.push(...live);
    }
    kept.sort((a, b) => a.at - b.at);
    await rewriteJsonLines(this.#file, kept);
    this.#appendedSinceCompaction = 0;
  }

  #writeFailed(error: unknown): void {
    this.#logger.error({ file: this.#file, err: error }, `could not write the chat filter's strikes to ${this.#file} (${describeError(error)}); they are counted in memory until the sidecar restarts`);
  }
}
