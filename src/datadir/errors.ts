// The data directory lock's errors: another live process holds the directory, or it cannot be taken at all. Each
// class has a stable `code` that callers branch on, and names the holder when it answered; never a secret.

import type { LockHolder } from './lockRecord.js';

export type DataDirLockErrorCode =
  /** Another live process holds the directory. */
  | 'locked'
  /** The lock could not be taken or asked for another reason (permissions, a path that is not a directory). */
  | 'unavailable';

export abstract class DataDirLockError extends Error {
  abstract readonly code: DataDirLockErrorCode;
  /** What the holder said about itself; undefined when it did not answer. */
  readonly holder: LockHolder | undefined;

  constructor(message: string, holder?: LockHolder, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.holder = holder;
  }
}

/** Another live process holds the directory. */
export class DataDirLockedError extends DataDirLockError {
  readonly code = 'locked';
}

/** The lock could not be taken or asked for another reason (permissions, a path that is not a directory). */
export class DataDirUnavailableError extends DataDirLockError {
  readonly code = 'unavailable';
}
