// Reads the journal's bytes into what it says: the reviews without a fate, the finished ones kept for the cooldown,
// the delivered history, and what was wrong with the file. Pure over a buffer; the caller reads and repairs the file.
// Must never throw on a bad file: a bad line is reported and skipped, never fatal, and never counted as acknowledged.
//
// Reading: a tail after the last good record (a torn write: no newline, or not a valid record) is dropped,
// logged with its size and byte offset, and truncated away so new appends never glue onto it. A bad line in
// the middle is skipped with a warning naming its line number; every other record is kept. Bad middle lines stay
// in the file (a person may want to see them) until the next compaction drops them.

import type { Logger } from 'pino';
import {
  deliveredEntry,
  deliveredOf,
  parseLine,
  remember,
  toReview,
  type AcceptedRecord,
  type DeliveredEntry,
  type FailureReason,
  type HeldReview,
  type LetterKind,
  type OutboxReview,
  type QueuedRecord,
} from './journalRecords.js';

/** Bad middle lines get one warning each up to this many; the rest are summed up in one line. */
const MAX_LINE_WARNINGS = 20;

export interface BadLine {
  readonly lineNumber: number;
  readonly offset: number;
  readonly reason: string;
}

/** A held review's fate, and its `held` line (kept by a compaction). */
export interface HeldFate {
  readonly kind: LetterKind;
  readonly reason: FailureReason;
  readonly at: number;
  readonly line: string;
}

/**
 * A review without a fate: its exact `queued` line and its record, the `sending` line of an attempt with no outcome
 * yet, and its `held` fate: what a compaction keeps.
 */
export interface LiveReview {
  readonly line: string;
  readonly record: QueuedRecord;
  sending: string | undefined;
  held: HeldFate | undefined;
}

export function liveLines(entry: LiveReview): string {
  return entry.line + (entry.sending ?? '') + (entry.held?.line ?? '');
}

export function liveLineCount(entry: LiveReview): number {
  return 1 + (entry.sending === undefined ? 0 : 1) + (entry.held === undefined ? 0 : 1);
}

function heldOf(entry: LiveReview): HeldReview | undefined {
  return entry.held === undefined ? undefined : { kind: entry.held.kind, review: toReview(entry.record), reason: entry.held.reason };
}

export interface ScanResult {
  /** id → the review without a fate, in file order. */
  readonly live: Map<string, LiveReview>;
  /** id → finished reviews' acceptance (and `accepted` records), for the cooldown. */
  readonly finished: Map<string, QueuedRecord | AcceptedRecord>;
  /** id → the last DELIVERED_HISTORY delivered reviews, in delivery order. */
  readonly delivered: Map<string, DeliveredEntry>;
  /** Live reviews not held, oldest first: to be sent. */
  readonly pending: OutboxReview[];
  readonly inFlight: Set<string>;
  readonly held: HeldReview[];
  readonly validLines: number;
  readonly finishedReviews: number;
  /** Byte offset just past the last good record: everything after it is a torn tail. */
  readonly goodEnd: number;
  readonly tailLines: number;
  readonly middleBad: readonly BadLine[];
  readonly duplicates: readonly BadLine[];
}

export function scanJournal(data: Buffer): ScanResult {
  const live = new Map<string, LiveReview>();
  const finished = new Map<string, QueuedRecord | AcceptedRecord>();
  const delivered = new Map<string, DeliveredEntry>();
  const bad: BadLine[] = [];
  const duplicates: BadLine[] = [];
  let validLines = 0;
  let finishedReviews = 0;
  let goodEnd = 0;
  let lineNumber = 0;
  let tailLines = 0;
  for (let offset = 0; offset < data.length; ) {
    lineNumber += 1;
    const newline = data.indexOf(0x0a, offset);
    if (newline === -1) {
      // An unterminated last line never finished its write, so it was never acknowledged: drop it even if it parses.
      tailLines += 1;
      break;
    }
    const parsed = parseLine(data.subarray(offset, newline));
    if (!parsed.ok) {
      bad.push({ lineNumber, offset, reason: parsed.reason });
    } else {
      validLines += 1;
      goodEnd = newline + 1;
      const { record } = parsed;
      if (record.op === 'queued') {
        if (live.has(record.id)) {
          duplicates.push({ lineNumber, offset, reason: `a second 'queued' record for review ${record.id}` });
        } else {
          // After a fate, a `queued` record with the same id is a person's re-queue (`reviews retry`).
          finished.delete(record.id);
          live.set(record.id, { line: data.toString('utf8', offset, newline + 1), record, sending: undefined, held: undefined });
        }
      } else if (record.op === 'accepted') {
        if (!live.has(record.id)) finished.set(record.id, record);
      } else if (record.op === 'sending' || record.op === 'not_sent' || record.op === 'held') {
        const entry = live.get(record.id);
        if (entry !== undefined) {
          const line = data.toString('utf8', offset, newline + 1);
          entry.sending = record.op === 'sending' ? line : undefined;
          if (record.op === 'held') entry.held = { kind: record.kind, reason: record.error, at: record.at, line };
        }
      } else {
        const ended = live.get(record.id);
        if (ended !== undefined) {
          live.delete(record.id);
          finished.set(record.id, ended.record);
          finishedReviews += 1;
          if (record.op === 'delivered') remember(delivered, record.id, deliveredEntry(ended.record, record.at, record.receipt));
        } else if (record.op === 'delivered') {
          // Kept by a compaction for the delivered history; an older bare one names no review and is left over.
          const review = deliveredOf(record);
          if (review !== undefined) remember(delivered, record.id, { line: data.toString('utf8', offset, newline + 1), review });
        }
      }
      // Any other fate without a live review is left over from a compaction or a repeat; it changes nothing.
    }
    offset = newline + 1;
  }
  const middleBad = bad.filter((line) => line.offset < goodEnd);
  tailLines += bad.length - middleBad.length;
  const entries = [...live.values()];
  const pending = entries.filter((entry) => entry.held === undefined).map((entry) => toReview(entry.record));
  const inFlight = new Set(entries.filter((entry) => entry.held === undefined && entry.sending !== undefined).map((entry) => entry.record.id));
  const held = entries.flatMap((entry) => heldOf(entry) ?? []);
  return { live, finished, delivered, pending, inFlight, held, validLines, finishedReviews, goodEnd, tailLines, middleBad, duplicates };
}

export function logScanProblems(logger: Logger, file: string, fileSize: number, scan: ScanResult): void {
  scan.middleBad.slice(0, MAX_LINE_WARNINGS).forEach((line) => {
    logger.warn(
      { file, line: line.lineNumber, offset: line.offset, reason: line.reason },
      `skipped line ${line.lineNumber} of ${file} (byte offset ${line.offset}): ${line.reason}; every other record was kept`,
    );
  });
  const unlisted = scan.middleBad.length - MAX_LINE_WARNINGS;
  if (unlisted > 0) logger.warn({ file, lines: unlisted }, `skipped ${unlisted} more bad lines of ${file}`);
  for (const line of scan.duplicates) {
    logger.warn({ file, line: line.lineNumber, offset: line.offset }, `ignored line ${line.lineNumber} of ${file}: ${line.reason}`);
  }
  const tornBytes = fileSize - scan.goodEnd;
  if (tornBytes > 0) {
    logger.warn(
      { file, offset: scan.goodEnd, bytes: tornBytes, lines: scan.tailLines },
      `dropped ${tornBytes} bytes (${scan.tailLines} ${scan.tailLines === 1 ? 'line' : 'lines'}) at the end of ${file} from byte offset ${scan.goodEnd}: ` +
        'a write that never finished (its reviews were never acknowledged); the file was cut back to the last whole record',
    );
  }
}
