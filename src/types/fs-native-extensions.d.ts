// Types for the part of fs-native-extensions (holepunchto, Apache-2.0; ships no types) this project uses: a
// non-blocking kernel lock on a byte range of an open file. Linux: fcntl F_OFD_SETLK (an open-file-description lock,
// so two descriptors in one process conflict too); macOS: flock (the range is ignored, the whole file is locked);
// Windows: LockFileEx. The kernel drops the lock when the descriptor's last reference is closed or the process dies.
// Only what dataDirLock.ts calls is declared; add a function here before using it.
declare module 'fs-native-extensions' {
  export interface LockOptions {
    /** A shared (read) lock instead of an exclusive one. Default false. */
    readonly shared?: boolean;
  }

  /**
   * Takes a lock on `length` bytes at `offset` (0 bytes: to the end of the file, and beyond) without waiting.
   * An exclusive lock needs `fd` open for writing on Linux, a shared one for reading.
   * @returns false when another open file holds a conflicting lock; throws on any other error (EBADF, EINVAL…).
   */
  export function tryLock(fd: number, offset?: number, length?: number, options?: LockOptions): boolean;

  /** Releases what this descriptor holds on the range. Closing the descriptor does too. */
  export function unlock(fd: number, offset?: number, length?: number): void;
}
