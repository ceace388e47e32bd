// The moderation files' one format: a JSON object a line, appended durably (reviews/durableFiles.ts: fsynced before
// it is trusted, the directory fsynced when the file appears) and rewritten whole by a compaction (a temporary file,
// fsynced, renamed over, the directory fsynced), so a crash leaves either the old file or the new one.
// Reading skips a line that is not JSON or not a record (a torn last line after a crash, a hand edit) and says how
// many it skipped: it must never throw for a file's content, only for I/O it cannot do.

import { open, readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { FILE_MODE, appendDurably, isErrnoCode, makeDataDir, removeIfPresent, syncDirectory, writeFully } from '../reviews/durableFiles.js';

/** The lines of a file read back: the records that parsed, and how many did not. */
export interface JsonLines<T> {
  readonly records: T[];
  /** Lines that were not a record (skipped). */
  readonly skipped: number;
}

/** Every line that `parse` accepts (it returns undefined for a line that is not a record); a missing file is empty. */
export async function readJsonLines<T>(file: string, parse: (value: unknown) => T | undefined): Promise<JsonLines<T>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return { records: [], skipped: 0 };
    throw error;
  }
  const records: T[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const record = parse(value);
    if (record === undefined) skipped++;
    else records.push(record);
  }
  return { records, skipped };
}

/** Appends one record and fsyncs it; the directory is made (0700) first when missing. */
export async function appendJsonLine(file: string, record: unknown): Promise<void> {
  await appendJsonLines(file, [record]);
}

/** Appends the records in one write and one fsync; the directory is made (0700) first when missing. */
export async function appendJsonLines(file: string, records: readonly unknown[]): Promise<void> {
  await makeDataDir(path.dirname(file));
  await appendDurably(file, toJsonLines(records));
}

/** Replaces the file with these records, durably (temporary file, fsync, rename, directory fsync). */
export async function rewriteJsonLines(file: string, records: readonly unknown[]): Promise<void> {
  await makeDataDir(path.dirname(file));
  const tmp = `${file}.tmp`;
  await removeIfPresent(tmp);
  const handle = await open(tmp, 'wx', FILE_MODE);
  try {
    await writeFully(handle, Buffer.from(toJsonLines(records), 'utf8'));
    await handle.datasync();
  } finally {
    await handle.close();
  }
  await rename(tmp, file);
  await syncDirectory(path.dirname(file));
}

function toJsonLines(records: readonly unknown[]): string {
  let text = '';
  for (const record of records) text += `${JSON.stringify(record)}\n`;
  return text;
}

/** A record field check: a plain object. */
export function isRecordObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
