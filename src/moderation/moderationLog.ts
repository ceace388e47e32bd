// What `moderation list` shows: every step the chat filter took (a block's warn or mute, or what a dry run would
// have done) and every `mute`/`unmute` command, one record a line in `moderation/actions.jsonl` under the data
// directory: when, server, player id and name, the listed word's index, action, period, result, and the service's
// answer. Appended durably; the sidecar keeps it bounded under any burst (compacted to the last KEPT_RECORDS before
// it would hold twice that, and at most that many records waiting in memory). A command appends with appendModerationRecord and never compacts, so two writers never rewrite one file.
// It must never store chat text, and a corrupt line is skipped, never fatal.

import path from 'node:path';
import { describeError } from '../reviews/durableFiles.js';
import { BatchedWrites } from './batchedWrites.js';
import { appendJsonLine, appendJsonLines, isRecordObject, readJsonLines, rewriteJsonLines, type JsonLines } from './jsonLinesFile.js';
import type { ModerationLogger } from './strikeBook.js';

export const MODERATION_FILE = path.join('moderation', 'actions.jsonl');

/** Records `moderation list` shows (and the file keeps after a compaction). */
export const KEPT_RECORDS = 1_000;

export const MODERATION_ACTIONS = ['block', 'warn', 'mute', 'unmute'] as const;
export type ModerationAction = (typeof MODERATION_ACTIONS)[number];

/**
 * ok: done (GSA accepted, the player was told); refused: GSA said no (its answer kept); failed: no answer or an
 * error of ours; dry_run: moderation.filter.dryRun, nothing done; not_supported: the game cannot (no private message,
 * no System API).
 */
export const MODERATION_RESULTS = ['ok', 'refused', 'failed', 'dry_run', 'not_supported'] as const;
export type ModerationResult = (typeof MODERATION_RESULTS)[number];

/** Codes of an outcome where GSA gave no answer (the service client's, and a rejected step's `failed`). */
const NO_ANSWER_CODES: ReadonlySet<string> = new Set(['network', 'timeout', 'unavailable', 'server_error', 'bad_response', 'failed']);

/** A refused or failed step's result by its error code: `failed` when GSA gave no answer, else `refused`. */
export function resultOfCode(code: string): 'failed' | 'refused' {
  return NO_ANSWER_CODES.has(code) ? 'failed' : 'refused';
}

/** One step, as stored (snake_case: it is read by scripts through `moderation list --json`). */
export interface ModerationRecord {
  /** ISO date-time. */
  readonly at: string;
  /** The GSA container name; null for a command that acts on every server (mute/unmute). */
  readonly server: string | null;
  /** The player's id as the game gave it (Steam64, EOS) or the GSA uuid the command named. */
  readonly player: string;
  readonly player_name?: string | undefined;
  /** The listed word's index in moderation.filter.words; null for a command. */
  readonly rule: number | null;
  /** The strike this step answered (1-based); null for a command. */
  readonly strike?: number | null | undefined;
  readonly action: ModerationAction;
  /** A mute's period code (or `permanent`, an end date); null otherwise. */
  readonly period: string | null;
  readonly result: ModerationResult;
  /** The service's words (or why it could not be asked); null when nothing was asked. */
  readonly answer: string | null;
  /** Who took the step: the chat filter or a command. */
  readonly by: 'filter' | 'command';
}

function optionalString(value: unknown): value is string | null | undefined {
  return value === undefined || value === null || typeof value === 'string';
}

export function parseModerationRecord(value: unknown): ModerationRecord | undefined {
  if (!isRecordObject(value)) return undefined;
  const { at, server, player, player_name: name, rule, strike, action, period, result, answer, by } = value;
  if (typeof at !== 'string' || typeof player !== 'string') return undefined;
  if (!optionalString(server) || !optionalString(name) || !optionalString(period) || !optionalString(answer)) return undefined;
  if (!(rule === null || rule === undefined || (typeof rule === 'number' && Number.isInteger(rule)))) return undefined;
  if (!(strike === null || strike === undefined || (typeof strike === 'number' && Number.isInteger(strike)))) return undefined;
  if (!MODERATION_ACTIONS.includes(action as ModerationAction) || !MODERATION_RESULTS.includes(result as ModerationResult)) return undefined;
  return {
    at,
    server: server ?? null,
    player,
    ...(name === undefined || name === null ? {} : { player_name: name }),
    rule: rule ?? null,
    ...(strike === undefined ? {} : { strike }),
    action: action as ModerationAction,
    period: period ?? null,
    result: result as ModerationResult,
    answer: answer ?? null,
    by: by === 'command' ? 'command' : 'filter',
  };
}

export function moderationFile(dataDir: string): string {
  return path.join(dataDir, MODERATION_FILE);
}

/**
 * Appends one record durably, for the `mute`/`unmute` commands (another process than the sidecar may hold the
 * directory: this only appends, which is safe beside it). Rejects when the disk refuses.
 */
export async function appendModerationRecord(dataDir: string, record: ModerationRecord): Promise<void> {
  await appendJsonLine(moderationFile(dataDir), record);
}

/** The records, oldest first, at most the last KEPT_RECORDS; a missing file is none. Read-only. */
export async function readModerationRecords(dataDir: string): Promise<JsonLines<ModerationRecord>> {
  const { records, skipped } = await readJsonLines(moderationFile(dataDir), parseModerationRecord);
  return { records: records.slice(-KEPT_RECORDS), skipped };
}

/**
 * The sidecar's writer: appends in order in the background, a burst's records in one write, and compacts the file
 * to the last KEPT_RECORDS instead of letting a write take it to 2 × KEPT_RECORDS. Its count of the file's lines
 * moves only when a write takes records from the queue, so records queued during a compaction are counted by the
 * write that takes them (a count moved at append() time was reset by a compaction under records still queued).
 * At most 2 × KEPT_RECORDS records wait in memory: past that the oldest waiting are dropped down to KEPT_RECORDS, with
 * a warning saying how many (a compaction would have dropped them: the newest KEPT_RECORDS are always kept).
 */
export class ModerationLog {
  readonly #file: string;
  readonly #logger: ModerationLogger;
  /** Lines in the file as this process wrote it (a command's appends are found by the next compaction's read). */
  #lines: number;
  readonly #writes: BatchedWrites<ModerationRecord>;

  private constructor(dataDir: string, logger: ModerationLogger, lines: number) {
    this.#file = moderationFile(dataDir);
    this.#logger = logger;
    this.#lines = lines;
    this.#writes = new BatchedWrites({
      write: (batch) => this.#write(batch),
      maxPending: 2 * KEPT_RECORDS,
      keepNewest: KEPT_RECORDS,
      onDropped: (count) => {
        this.#logger.warn(
          { file: this.#file, dropped: count },
          `a burst of chat filter steps outran the disk: the oldest ${count} waiting step(s) were not written to ${this.#file} (moderation list keeps the last ${KEPT_RECORDS}, and those are kept)`,
        );
      },
      onError: (error, batch) => {
        this.#logger.error({ err: error }, `could not write to ${this.#file} (${describeError(error)}); ${batch.length} step(s) are missing from moderation list`);
      },
    });
  }

  static async open(dataDir: string, logger: ModerationLogger): Promise<ModerationLog> {
    const { records, skipped } = await readJsonLines(moderationFile(dataDir), parseModerationRecord);
    if (skipped > 0) logger.warn({ file: moderationFile(dataDir), skipped }, `skipped ${skipped} unreadable line(s) of ${moderationFile(dataDir)}`);
    return new ModerationLog(dataDir, logger, records.length + skipped);
  }

  /** Queues the record's append (and a compaction when due); never throws, never waits. */
  append(record: ModerationRecord): void {
    this.#writes.push(record);
  }

  /** Resolves when every append started so far has finished. */
  settled(): Promise<void> {
    return this.#writes.settled();
  }

  /** One batch: appended while the file stays under 2 × KEPT_RECORDS lines, else compacted together with it. */
  async #write(batch: readonly ModerationRecord[]): Promise<void> {
    if (this.#lines + batch.length < 2 * KEPT_RECORDS) {
      // Counted before the write: one that fails part way may still have added lines, and the count must never be
      // below the file's, or the file could outgrow the bound.
      this.#lines += batch.length;
      await appendJsonLines(this.#file, batch);
      return;
    }
    const { records } = await readJsonLines(this.#file, parseModerationRecord);
    const kept = [...records.slice(-KEPT_RECORDS), ...batch].slice(-KEPT_RECORDS);
    await rewriteJsonLines(this.#file, kept);
    this.#lines = kept.length;
  }
}
