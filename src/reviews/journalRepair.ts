// A start's repair of the journal: its damaged lines (whole lines that no longer read as a record) are moved byte for
// byte to the quarantine file `reviews.damaged.jsonl`, then the journal is rewritten without them. Each may be an
// acknowledged review, so none is ever deleted: it is removed from the journal only once it is fsynced in the
// quarantine file, and when the move fails it stays in the journal (kept by every compaction) until the next start.
// Must never rewrite the journal in a way a crash could leave half-done, and never log a line's content (comments are
// player text): a line is named by its number, byte offset and size. The torn tail is the caller's to cut.

import path from 'node:path';
import type { Logger } from 'pino';
import { damagedFilePath, quarantineLines } from './damagedRecords.js';
import { describeError, replaceByRename, syncDirectory } from './durableFiles.js';
import type { DamagedLine, ScanResult } from './journalScan.js';

/** Damaged lines get one warning each up to this many; the rest are summed up in one line. */
const MAX_LINE_WARNINGS = 20;

export interface RepairedJournal {
  /** Bytes of the journal that are whole lines: where appends go once a torn tail is cut. */
  readonly size: number;
  /** The journal's length on disk now: more than `size` by a torn tail still to cut. */
  readonly length: number;
  /** Damaged lines still in the journal (their move failed), newlines included: compactions keep them. */
  readonly unmoved: Buffer;
}

function warnEach(logger: Logger, file: string, damaged: readonly DamagedLine[], outcome: string): void {
  for (const line of damaged.slice(0, MAX_LINE_WARNINGS)) {
    logger.warn(
      { file, line: line.lineNumber, offset: line.offset, bytes: line.bytes, reason: line.reason },
      `line ${line.lineNumber} of ${file} (${line.bytes} bytes at byte offset ${line.offset}) does not read as a record (${line.reason}): ${outcome}`,
    );
  }
  const unlisted = damaged.length - MAX_LINE_WARNINGS;
  if (unlisted > 0) logger.warn({ file, lines: unlisted }, `${unlisted} more damaged lines of ${file}: ${outcome}`);
}

/** Moves the scan's damaged lines of `data` (the journal `file`) to the quarantine file; see the header. */
export async function moveDamagedRecords(file: string, data: Buffer, scan: ScanResult, logger: Logger): Promise<RepairedJournal> {
  const unchanged = { size: scan.goodEnd, length: data.length };
  if (scan.damaged.length === 0) return { ...unchanged, unmoved: Buffer.alloc(0) };
  const quarantine = damagedFilePath(path.dirname(file));
  const lines = scan.damaged.map((line) => data.subarray(line.offset, line.offset + line.bytes));
  const records = `${scan.damaged.length} damaged ${scan.damaged.length === 1 ? 'line' : 'lines'}`;
  try {
    await quarantineLines(path.dirname(file), lines);
  } catch (error) {
    warnEach(logger, file, scan.damaged, `kept in ${file} for now`);
    logger.error(
      { err: error, file, quarantine, lines: scan.damaged.length },
      `could not move ${records} of ${file} to ${quarantine} (${describeError(error)}): they stay in ${file}, kept by every compaction, and are moved at the next start`,
    );
    return { ...unchanged, unmoved: Buffer.concat(lines) };
  }
  warnEach(logger, file, scan.damaged, `moved byte for byte to ${quarantine}; it may be an acknowledged review: see "Damaged records" in docs/reviews.md to re-queue it`);

  const kept: Buffer[] = [];
  let from = 0;
  for (const line of scan.damaged) {
    kept.push(data.subarray(from, line.offset));
    from = line.offset + line.bytes;
  }
  kept.push(data.subarray(from, scan.goodEnd));
  const rewritten = Buffer.concat(kept);
  try {
    await replaceByRename(file, `${file}.tmp`, rewritten);
  } catch (error) {
    logger.error(
      { err: error, file, quarantine, lines: scan.damaged.length },
      `moved ${records} of ${file} to ${quarantine} but could not rewrite ${file} without them (${describeError(error)}): they stay in both until the next start`,
    );
    return { ...unchanged, unmoved: Buffer.concat(lines) };
  }
  // A failure here throws out of the open, like a compaction's: power loss could still undo the rename. Nothing is
  // lost either way: the lines are in the quarantine file, and an old journal brought back has them too.
  await syncDirectory(path.dirname(file));
  return { size: rewritten.length, length: rewritten.length, unmoved: Buffer.alloc(0) };
}
