// Reads the journal's bytes into what it says: the reviews without a fate, the finished ones kept for the cooldown,
// the delivered history, and what was wrong with the file. Pure over a buffer; the caller reads and repairs the file.
// Must never throw on a bad file: a bad line is reported and skipped, never fatal, and never counted as acknowledged.
//
// Reading: only a torn tail (a last line with no newline: a write that never finished, so never acknowledged) may
// be cut; it is logged with its size and byte offset, and the caller truncates it away so new appends never glue
// onto it. A whole line that does not read as a record, wherever it is, may hold an acknowledged review: it is
// listed in `damaged` (never its content in a log: comments are player text) for the caller to move byte for byte
// to the quarantine file (journalRepair.ts); every other record is kept. A blank line holds nothing and is skipped.

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

export interface BadLine {
  readonly lineNumber: number;
  readonly offset: number;
  readonly reason: string;
}

/** A whole line (newline included) that does not read as a record. */
export interface DamagedLine extends BadLine {
  /** Its bytes, its newline included. */
  readonly bytes: number;
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
  /** Byte offset just past the last whole line: everything after it is a torn tail (no newline). */
  readonly goodEnd: number;
  /** Whole lines that do not read as a record, in file order. */
  readonly damaged: readonly DamagedLine[];
  readonly duplicates: readonly BadLine[];
}

export function scanJournal(data: Buffer): ScanResult {
  const live = new Map<string, LiveReview>();
  const finished = new Map<string, QueuedRecord | AcceptedRecord>();
  const delivered = new Map<string, DeliveredEntry>();
  const damaged: DamagedLine[] = [];
  const duplicates: BadLine[] = [];
  let validLines = 0;
  let finishedReviews = 0;
  let goodEnd = 0;
  let lineNumber = 0;
  for (let offset = 0; offset < data.length; ) {
    lineNumber += 1;
    const newline = data.indexOf(0x0a, offset);
    if (newline === -1) {
      // An unterminated last line never finished its write, so it was never acknowledged: drop it even if it parses.
      break;
    }
    goodEnd = newline + 1;
    const bytes = data.subarray(offset, newline);
    const parsed = parseLine(bytes);
    if (!parsed.ok) {
      if (!isBlank(bytes)) damaged.push({ lineNumber, offset, bytes: goodEnd - offset, reason: parsed.reason });
    } else {
      validLines += 1;
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
  const entries = [...live.values()];
  const pending = entries.filter((entry) => entry.held === undefined).map((entry) => toReview(entry.record));
  const inFlight = new Set(entries.filter((entry) => entry.held === undefined && entry.sending !== undefined).map((entry) => entry.record.id));
  const held = entries.flatMap((entry) => heldOf(entry) ?? []);
  return { live, finished, delivered, pending, inFlight, held, validLines, finishedReviews, goodEnd, damaged, duplicates };
}

/** Spaces, tabs and a carriage return only: a person's stray blank line, which holds no record. */
export function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0d);
}

/** Warns about what the scan set aside and what a start cuts off; the damaged lines are the caller's (journalRepair.ts). */
export function logScanProblems(logger: Logger, file: string, fileSize: number, scan: ScanResult): void {
  for (const line of scan.duplicates) {
    logger.warn({ file, line: line.lineNumber, offset: line.offset }, `ignored line ${line.lineNumber} of ${file}: ${line.reason}`);
  }
  const tornBytes = fileSize - scan.goodEnd;
  if (tornBytes > 0) {
    logger.warn(
      { file, offset: scan.goodEnd, bytes: tornBytes },
      `cut ${tornBytes} bytes at the end of ${file} from byte offset ${scan.goodEnd}: a torn last line (no newline), a write ` +
        'that never finished, so its review was never acknowledged; the file was cut back to its last whole line',
    );
  }
}
