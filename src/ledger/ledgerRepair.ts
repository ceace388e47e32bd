// A start's repair of a ledger file (reports.jsonl, orders.jsonl): its torn tail is cut, and its damaged lines (whole
// lines that no longer read as a record) are moved byte for byte to the file's quarantine (`reports.damaged.jsonl`,
// `orders.damaged.jsonl`), then the file is rewritten without them. A damaged line may hold an acknowledged report or
// a money request, so none is ever deleted: it leaves the file only once it is fsynced in the quarantine, and when
// the move fails it stays in the file (kept by every compaction) until the next start.
// Must never rewrite a file in a way a crash could leave half-done, and never log a line's content: a line is named
// by its number, byte offset and size.

import { open } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { appendDurably, describeError, replaceByRename, syncDirectory } from '../reviews/durableFiles.js';
import { readIfPresent, type DamagedLine } from './ledgerLines.js';

/** Damaged lines get one warning each up to this many; the rest are summed up in one line. */
const MAX_LINE_WARNINGS = 20;

export interface RepairedLedger {
  /** The file's length on disk now: whole lines only. */
  readonly size: number;
  /** Damaged lines still in the file (their move failed), newlines included: compactions keep them. */
  readonly unmoved: Buffer;
}

function warnEach(logger: Logger, file: string, damaged: readonly DamagedLine[], outcome: string): void {
  for (const line of damaged.slice(0, MAX_LINE_WARNINGS)) {
    logger.warn(
      { file, line: line.lineNumber, offset: line.offset, bytes: line.bytes, reason: line.reason, id: line.id },
      `line ${line.lineNumber} of ${file} (${line.bytes} bytes at byte offset ${line.offset}) does not read as a record (${line.reason}): ${outcome}`,
    );
  }
  const unlisted = damaged.length - MAX_LINE_WARNINGS;
  if (unlisted > 0) logger.warn({ file, lines: unlisted }, `${unlisted} more damaged lines of ${file}: ${outcome}`);
}

/**
 * Appends the lines to the quarantine file, fsynced, leaving out any already there byte for byte (a crash after this
 * and before the rewrite moves them a second time at the next start).
 */
async function quarantine(quarantineFile: string, lines: readonly Buffer[]): Promise<void> {
  const existing = await readIfPresent(quarantineFile);
  const known = new Set(existing.toString('latin1').split('\n'));
  const fresh = lines.filter((line) => !known.has(line.subarray(0, -1).toString('latin1')));
  if (fresh.length === 0) return;
  // A line an interrupted move left without its newline gets one, so nothing is glued onto it.
  const torn = existing.length > 0 && existing[existing.length - 1] !== 0x0a;
  await appendDurably(quarantineFile, Buffer.concat([...(torn ? [Buffer.from('\n')] : []), ...fresh]));
}

/** Cuts the file back to `size` bytes and fsyncs it, so a cut-off line cannot come back after power loss. */
export async function cutTo(file: string, size: number): Promise<void> {
  const handle = await open(file, 'r+');
  try {
    await handle.truncate(size);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Repairs `file` whose bytes are `data` (see the header); throws only when the file cannot be made whole-lined. */
export async function repairLedger(
  file: string,
  quarantineFile: string,
  data: Buffer,
  found: { readonly damaged: readonly DamagedLine[]; readonly goodEnd: number },
  logger: Logger,
): Promise<RepairedLedger> {
  const { damaged, goodEnd } = found;
  const tornBytes = data.length - goodEnd;
  if (tornBytes > 0) {
    logger.warn(
      { file, offset: goodEnd, bytes: tornBytes },
      `cut ${tornBytes} bytes at the end of ${file} from byte offset ${goodEnd}: a torn last line (no newline), a write that never finished, so it was never acknowledged`,
    );
  }
  const lines = damaged.map((line) => data.subarray(line.offset, line.offset + line.bytes));
  let moved = false;
  if (damaged.length > 0) {
    try {
      await quarantine(quarantineFile, lines);
      moved = true;
      warnEach(logger, file, damaged, `moved byte for byte to ${quarantineFile} for a person to read`);
    } catch (error) {
      warnEach(logger, file, damaged, `kept in ${file} for now`);
      logger.error(
        { err: error, file, quarantine: quarantineFile, lines: damaged.length },
        `could not move ${damaged.length} damaged lines of ${file} to ${quarantineFile} (${describeError(error)}): they stay in ${file} and are moved at the next start`,
      );
    }
  }
  const unmoved = moved ? Buffer.alloc(0) : Buffer.concat(lines);
  if (!moved) {
    if (tornBytes > 0) await cutTo(file, goodEnd);
    return { size: goodEnd, unmoved };
  }
  const kept: Buffer[] = [];
  let from = 0;
  for (const line of damaged) {
    kept.push(data.subarray(from, line.offset));
    from = line.offset + line.bytes;
  }
  kept.push(data.subarray(from, goodEnd));
  const rewritten = Buffer.concat(kept);
  try {
    await replaceByRename(file, `${file}.tmp`, rewritten);
  } catch (error) {
    logger.error(
      { err: error, file, quarantine: quarantineFile },
      `moved the damaged lines of ${file} to ${quarantineFile} but could not rewrite ${file} without them (${describeError(error)}): they stay in both until the next start`,
    );
    if (tornBytes > 0) await cutTo(file, goodEnd);
    return { size: goodEnd, unmoved: Buffer.concat(lines) };
  }
  // Until the directory is fsynced, power loss may undo the rename; the lines are in the quarantine either way.
  await syncDirectory(path.dirname(file));
  return { size: rewritten.length, unmoved };
}
