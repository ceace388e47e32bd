// The quarantine file `reviews.damaged.jsonl`: journal lines that no longer read as a record (a flipped byte, a
// person's edit), moved there byte for byte at start because each may be an acknowledged review. A person reads it
// and re-queues a record by hand (docs/reviews.md); `reviews list` shows each as `damaged`.
// Must never change a line's bytes, never report a move before the fsync, and never put a line's content in an
// error or a log (a comment is player text): lines are named by file, number and size.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { appendDurably, isErrnoCode } from './durableFiles.js';
import { DAMAGED_FILE, parseLine } from './journalRecords.js';
import { isBlank } from './journalScan.js';

/** A damaged record as `reviews list` shows it. */
export interface DamagedRecord {
  /** The file it is in: the quarantine file, or the journal while it could not be moved yet. */
  readonly file: string;
  readonly lineNumber: number;
  /** Its size in bytes, its newline included. */
  readonly bytes: number;
  /** The review id the line still shows, if it does. */
  readonly id: string | undefined;
  /** Why it does not read as a record (never its content). */
  readonly reason: string;
}

/** The id a damaged line still carries, read without parsing it (it does not parse). */
const ID_FIELD = /"id"\s*:\s*"([^"\\\n]{1,200})"/;

export function damagedFilePath(dir: string): string {
  return path.join(dir, DAMAGED_FILE);
}

/** What `reviews list` says of one damaged line: its bytes without the newline, and its size with it (if it has one). */
export function describeDamaged(file: string, lineNumber: number, line: Buffer, bytes: number): DamagedRecord {
  const parsed = parseLine(line);
  return {
    file,
    lineNumber,
    bytes,
    id: ID_FIELD.exec(line.toString('latin1'))?.[1],
    reason: parsed.ok ? 'it reads as a record now: re-queue it by hand (docs/reviews.md)' : parsed.reason,
  };
}

async function readIfPresent(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return Buffer.alloc(0);
    throw error;
  }
}

interface FileLine {
  readonly lineNumber: number;
  /** Without its newline. */
  readonly line: Buffer;
  /** With its newline, if it has one. */
  readonly bytes: number;
}

/** Each line of a file's bytes; blank lines left out. */
function linesOf(data: Buffer): FileLine[] {
  const lines: FileLine[] = [];
  let lineNumber = 0;
  for (let offset = 0; offset < data.length; ) {
    lineNumber += 1;
    const newline = data.indexOf(0x0a, offset);
    const end = newline === -1 ? data.length : newline;
    const line = data.subarray(offset, end);
    if (!isBlank(line)) lines.push({ lineNumber, line, bytes: Math.min(end + 1, data.length) - offset });
    offset = end + 1;
  }
  return lines;
}

/** The records in the quarantine file, in file order. A file that cannot be read throws. */
export async function readDamagedFile(dir: string): Promise<DamagedRecord[]> {
  const file = damagedFilePath(dir);
  return linesOf(await readIfPresent(file)).map(({ lineNumber, line, bytes }) => describeDamaged(file, lineNumber, line, bytes));
}

/**
 * Appends the lines (each with its newline) to the quarantine file and fsyncs it. A line already there, byte for
 * byte, is not appended again: a crash after this fsync and before the journal lost the line moves it a second time.
 * Resolves with how many were appended.
 */
export async function quarantineLines(dir: string, lines: readonly Buffer[]): Promise<number> {
  const file = damagedFilePath(dir);
  const existing = await readIfPresent(file);
  const known = new Set(linesOf(existing).map(({ line }) => line.toString('latin1')));
  const fresh = lines.filter((line) => !known.has(line.subarray(0, -1).toString('latin1')));
  if (fresh.length === 0) return 0;
  // A line an interrupted move left without its newline gets one, so nothing is glued onto it.
  const torn = existing.length > 0 && existing[existing.length - 1] !== 0x0a;
  await appendDurably(file, Buffer.concat([...(torn ? [Buffer.from('\n')] : []), ...fresh]));
  return fresh.length;
}
