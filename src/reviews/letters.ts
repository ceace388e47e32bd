// The letter files as a person's tools see them (`reviews list`, `reviews retry`): which letters still wait, and a
// read-only view of the whole data directory, the quarantine file of damaged records included. It reads only, so it is safe while a sidecar appends.
// Must never write, repair or compact a file, and never fail the whole listing because one letter file is unreadable.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describeDamaged, readDamagedFile, type DamagedRecord } from './damagedRecords.js';
import { isErrnoCode, describeError } from './durableFiles.js';
import {
  DAMAGED_FILE,
  DEAD_LETTER_FILE,
  JOURNAL_FILE,
  UNCONFIRMED_FILE,
  letterFileRecord,
  toReview,
  type DeliveredReview,
  type LetterFileRecord,
  type LetterKind,
  type OutboxReview,
  type ReviewLetter,
} from './journalRecords.js';
import { scanJournal } from './journalScan.js';

const letterUtf8 = new TextDecoder('utf-8', { fatal: true });

interface LetterFileLine {
  readonly kind: LetterKind;
  readonly record: LetterFileRecord;
}

/** A letter file that exists but could not be read, and why. */
export interface UnreadableFile {
  readonly file: string;
  readonly reason: string;
}

/**
 * Both letter files, in file order; unreadable lines are skipped (a person may have edited the file). A file that
 * cannot be read throws, unless `unreadable` is given: then it is noted there and the other file is still read.
 */
export async function readLetterFiles(dir: string, unreadable?: UnreadableFile[]): Promise<LetterFileLine[]> {
  const lines: LetterFileLine[] = [];
  for (const kind of ['dead', 'unconfirmed'] as const) {
    let data: Buffer;
    const file = path.join(dir, kind === 'dead' ? DEAD_LETTER_FILE : UNCONFIRMED_FILE);
    try {
      data = await readFile(file);
    } catch (error) {
      if (isErrnoCode(error, 'ENOENT')) continue;
      if (unreadable === undefined) throw error;
      unreadable.push({ file, reason: describeError(error) });
      continue;
    }
    let text: string;
    try {
      text = letterUtf8.decode(data);
    } catch {
      text = data.toString('utf8');
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      const parsed = letterFileRecord.safeParse(value);
      if (parsed.success) lines.push({ kind, record: parsed.data });
    }
  }
  return lines;
}

/** The letters still waiting for a person: the last letter of each id not retried since and not pending again. */
export function currentLetters(lines: readonly LetterFileLine[], pending: ReadonlySet<string>): ReviewLetter[] {
  const current = new Map<string, ReviewLetter>();
  for (const { kind, record } of lines) {
    if (record.op === 'retried') {
      if (current.get(record.id)?.kind === kind) current.delete(record.id);
      continue;
    }
    const { queued_at: queuedAt, error, ...rest } = record;
    const review = toReview({ ...rest, op: 'queued', at: queuedAt });
    current.delete(record.id); // re-inserted, so the map stays in the order letters were written
    current.set(record.id, { kind, review, at: record.at, reason: error });
  }
  return [...current.values()].filter((letter) => !pending.has(letter.review.id));
}

/** What the data directory holds, for `gsa-bridge reviews list`. Reads only: safe while a sidecar runs. */
export interface OutboxContents {
  /** Accepted, no fate yet, oldest first. */
  readonly pending: readonly OutboxReview[];
  /**
   * Dead and unconfirmed letters not re-queued since, in the order they were written, then the held reviews (fate
   * journaled, letter not written yet: `held` true).
   */
  readonly letters: readonly ReviewLetter[];
  /** Letter files that exist but could not be read: their letters are missing from `letters`. */
  readonly unreadable: readonly UnreadableFile[];
  /** The last DELIVERED_HISTORY delivered reviews, in delivery order (the newest last). */
  readonly delivered: readonly DeliveredReview[];
  /**
   * Records that no longer read as one: those in the quarantine file, then any still in the journal (not moved yet:
   * no start since the damage, or the move failed).
   */
  readonly damaged: readonly DamagedRecord[];
}

/**
 * Reads the journal and the letter files without changing anything (no repair, no compaction): a running
 * sidecar may be appending, and an unfinished last line is simply not counted.
 */
export async function readOutboxContents(dataDir: string): Promise<OutboxContents> {
  const dir = path.resolve(dataDir);
  const journalFile = path.join(dir, JOURNAL_FILE);
  let data: Buffer;
  try {
    data = await readFile(journalFile);
  } catch (error) {
    if (!isErrnoCode(error, 'ENOENT')) throw error;
    data = Buffer.alloc(0);
  }
  const scan = scanJournal(data);
  const unreadable: UnreadableFile[] = [];
  // The journal first, then the quarantine file: a start moving lines in between lists them twice, never not at all.
  const damaged: DamagedRecord[] = await readDamagedFile(dir).catch((error: unknown) => {
    unreadable.push({ file: path.join(dir, DAMAGED_FILE), reason: describeError(error) });
    return [];
  });
  for (const line of scan.damaged) {
    damaged.push(describeDamaged(journalFile, line.lineNumber, data.subarray(line.offset, line.offset + line.bytes - 1), line.bytes));
  }
  const letters = currentLetters(await readLetterFiles(dir, unreadable), new Set(scan.live.keys()));
  const held = [...scan.live.values()].flatMap((entry): ReviewLetter[] =>
    entry.held === undefined ? [] : [{ kind: entry.held.kind, review: toReview(entry.record), at: entry.held.at, reason: entry.held.reason, held: true }],
  );
  return { pending: scan.pending, letters: [...letters, ...held], unreadable, delivered: [...scan.delivered.values()].map((entry) => entry.review), damaged };
}
