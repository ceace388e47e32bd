// Who holds a data directory, as the holder writes it into the lock file: the record's shape and how a person
// reads it. A leaf, so the bridge's errors can name a holder without importing the lock (and through it the
// journal) into every adapter that imports the port.
// Must never touch a file or the lock itself.

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
