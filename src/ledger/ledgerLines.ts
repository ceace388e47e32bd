// Reads a ledger file's bytes (reports.jsonl, orders.jsonl) into its records, its damaged lines and its torn tail.
// Pure over a buffer, beside one read-only file read: the writer (ledgerFile.ts) repairs what this finds, and the
// CLI lists it without touching the file.
// Must never throw on a bad file, never count a torn tail (a last line with no newline: a write that never finished,
// so never acknowledged) as a record, and never put a line's content in a reason (comments are player text).

import { readFile } from 'node:fs/promises';
import type { z } from 'zod';
import { isErrnoCode } from '../reviews/durableFiles.js';

export type LineParse<R> = { readonly ok: true; readonly record: R } | { readonly ok: false; readonly reason: string };

/** A whole line that reads as a record. */
export interface LedgerLine<R> {
  readonly record: R;
  /** The line as it is in the file, its newline included: what a compaction copies. */
  readonly line: string;
  readonly offset: number;
}

/** A whole line (newline included) that does not read as a record: it may hold something acknowledged. */
export interface DamagedLine {
  readonly lineNumber: number;
  readonly offset: number;
  /** Its size in bytes, its newline included. */
  readonly bytes: number;
  /** The record id the line still shows, if it does (read without parsing it). */
  readonly id: string | undefined;
  readonly reason: string;
}

export interface SplitLedger<R> {
  readonly lines: readonly LedgerLine<R>[];
  readonly damaged: readonly DamagedLine[];
  /** Byte offset just past the last whole line: everything after it is the torn tail. */
  readonly goodEnd: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const ID_FIELD = /"id"\s*:\s*"([^"\\\n]{1,200})"/;

/** Spaces, tabs and a carriage return only: a person's stray blank line, which holds no record. */
function isBlank(bytes: Uint8Array): boolean {
  return bytes.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0d);
}

/** A line parser from a record schema: UTF-8, then JSON, then the schema; the reason names the first that failed. */
export function schemaParser<S extends z.ZodType>(schema: S): (bytes: Uint8Array) => LineParse<z.infer<S>> {
  return (bytes) => {
    let value: unknown;
    try {
      value = JSON.parse(utf8.decode(bytes));
    } catch {
      return { ok: false, reason: 'not a JSON line' };
    }
    const parsed = schema.safeParse(value);
    if (parsed.success) return { ok: true, record: parsed.data };
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `not a record: ${issue === undefined ? 'unknown shape' : `${issue.path.join('.') || 'the line'}: ${issue.message}`}` };
  };
}

export function splitLedger<R>(data: Buffer, parse: (bytes: Uint8Array) => LineParse<R>): SplitLedger<R> {
  const lines: LedgerLine<R>[] = [];
  const damaged: DamagedLine[] = [];
  let goodEnd = 0;
  let lineNumber = 0;
  for (let offset = 0; offset < data.length; ) {
    lineNumber += 1;
    const newline = data.indexOf(0x0a, offset);
    if (newline === -1) break;
    goodEnd = newline + 1;
    const bytes = data.subarray(offset, newline);
    if (!isBlank(bytes)) {
      const parsed = parse(bytes);
      if (parsed.ok) lines.push({ record: parsed.record, line: data.toString('utf8', offset, goodEnd), offset });
      else damaged.push({ lineNumber, offset, bytes: goodEnd - offset, id: ID_FIELD.exec(bytes.toString('latin1'))?.[1], reason: parsed.reason });
    }
    offset = goodEnd;
  }
  return { lines, damaged, goodEnd };
}

/** The file's bytes; empty when it does not exist. Other failures throw. */
export async function readIfPresent(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return Buffer.alloc(0);
    throw error;
  }
}

/** How many non-blank lines a file holds (the quarantine file, for the listings); 0 when it does not exist. */
export async function countLines(file: string): Promise<number> {
  const data = await readIfPresent(file);
  let count = 0;
  for (let offset = 0; offset < data.length; ) {
    const newline = data.indexOf(0x0a, offset);
    const end = newline === -1 ? data.length : newline;
    if (!isBlank(data.subarray(offset, end))) count += 1;
    offset = end + 1;
  }
  return count;
}
