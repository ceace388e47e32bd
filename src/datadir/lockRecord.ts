// Who holds a data directory, as the holder writes it into the lock file: the record's shape, how it is written and
// read back through the lock file's descriptor, and how a person reads it. It imports nothing of the project, so
// the bridge's errors can name a holder without importing the lock into every adapter that imports the port.
// Must never open, lock or unlink a file itself (the lock does, on the descriptor it holds), and never let text
// from the file reach a terminal or a log line unfiltered.

import { readSync, ftruncateSync, writeSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/** A holder writes who it is just after it takes the lock; a reader that finds no text yet waits this long for it. */
const IDENTITY_WAIT_MS = 1000;
const IDENTITY_POLL_MS = 10;
/** More identity text than this is not ours. */
const MAX_IDENTITY_BYTES = 16 * 1024;

/** Who holds a data directory, as it wrote into the lock file once it held the lock. */
export interface LockHolder {
  readonly pid: number;
  /** The holder's host name: a pid from another container or machine means little without it. */
  readonly hostname: string;
  readonly version: string;
  /** Wall-clock ms when the holder took the lock. */
  readonly startedAt: number;
  readonly dataDir: string;
}

/** "pid 1234, host game-1, version 0.1.0, started 2026-11-21T11:00:00.000Z", or a note that it did not say. */
export function describeHolder(holder: LockHolder | undefined): string {
  if (holder === undefined) return 'a process that did not say who it is';
  return `pid ${holder.pid}, host ${holder.hostname}, version ${holder.version}, started ${new Date(holder.startedAt).toISOString()}`;
}

/** What the holder writes into the lock file: who it is, and how to reach it. */
export interface LockRecord {
  readonly holder: LockHolder;
  readonly control: string | undefined;
  readonly token: string | undefined;
}

/** Text from the lock file goes into terminal and log lines: no control characters, a sane length. */
function printable(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  return value.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').slice(0, 200);
}

function parseRecord(text: string): LockRecord | undefined {
  const newline = text.indexOf('\n');
  if (newline === -1) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text.slice(0, newline));
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { pid, hostname: host, version, startedAt, dataDir, control, token } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(pid) || typeof host !== 'string' || typeof version !== 'string' || typeof dataDir !== 'string') return undefined;
  if (typeof startedAt !== 'number' || Number.isNaN(new Date(startedAt).getTime())) return undefined;
  return {
    holder: { pid: pid as number, hostname: printable(host), version: printable(version), startedAt, dataDir: printable(dataDir) },
    control: typeof control === 'string' && control !== '' ? control : undefined,
    token: typeof token === 'string' && token !== '' ? token : undefined,
  };
}

export function readRecord(fd: number): LockRecord | undefined {
  const buffer = Buffer.alloc(MAX_IDENTITY_BYTES);
  const length = readSync(fd, buffer, 0, buffer.length, 0);
  return parseRecord(buffer.toString('utf8', 0, length));
}

/** The holder's record; waits a moment when the holder has just taken the lock and not yet written it. */
export async function waitForRecord(fd: number): Promise<LockRecord | undefined> {
  for (let waited = 0; ; waited += IDENTITY_POLL_MS) {
    const record = readRecord(fd);
    if (record !== undefined || waited >= IDENTITY_WAIT_MS) return record;
    await delay(IDENTITY_POLL_MS);
  }
}

/** Replaces the lock file's text. The holder emptied it when it took the lock, so a reader sees nothing or all of it. */
export function writeRecord(fd: number, record: LockHolder & { readonly control: string; readonly token: string }): void {
  const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written, written);
  ftruncateSync(fd, bytes.length);
}
