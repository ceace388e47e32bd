// The log file for hosts without journald (`log.file`): appends each line as it is written (synchronously, like the
// stderr stream beside it, so a crash loses no line), and when the next line would take the file past maxBytes,
// renames it to `<file>.1` (`.1` to `.2` …, the oldest beyond maxFiles overwritten) and starts a new one.
// Kept in-process and synchronous on purpose: pino-roll runs as a worker thread (+16 MB RSS measured, against a
// sidecar that is asked to stay under 65 MB idle), rotating-file-stream buffers asynchronously (+5 MB).
// It never throws into the line's writer: a failed write is reported once (onError) and the line still reaches
// stderr; it never writes anything but the already scrubbed lines it is given.

import { closeSync, fstatSync, openSync, renameSync, writeSync } from 'node:fs';
import type { LogDestination } from './logger.js';

export interface RotatingLogFileOptions {
  /** Absolute path of the current file. */
  readonly path: string;
  /** A file is rotated before a line would take it past this many bytes. @default 10 MiB (log.maxBytes) */
  readonly maxBytes: number;
  /** Rotated files kept, `<file>.1` (newest) … `<file>.<maxFiles>`. @default 5 (log.maxFiles) */
  readonly maxFiles: number;
  /** Told once when writing or rotating starts failing (a full disk, the directory gone), and not again until a write succeeds. */
  readonly onError?: (error: Error) => void;
}

/** Owner read and write only: the lines are scrubbed, but they still name players, servers and addresses. */
const FILE_MODE = 0o600;

function describe(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export class RotatingLogFile implements LogDestination {
  readonly path: string;
  readonly #maxBytes: number;
  readonly #maxFiles: number;
  readonly #onError: ((error: Error) => void) | undefined;
  #fd: number | undefined;
  #size: number;
  /** Rotate before passing this size: maxBytes, or further when a rotation failed (so it is not retried every line). */
  #limit: number;
  #failing = false;
  /** A rotation failed and none succeeded since: told once, not at every later try. */
  #rotationFailing = false;
  #closed = false;

  private constructor(options: RotatingLogFileOptions, fd: number, size: number) {
    this.path = options.path;
    this.#maxBytes = options.maxBytes;
    this.#maxFiles = options.maxFiles;
    this.#onError = options.onError;
    this.#fd = fd;
    this.#size = size;
    this.#limit = options.maxBytes;
  }

  /** Opens (or creates) the file for appending; throws the open's error (EACCES, ENOENT for a missing directory). */
  static open(options: RotatingLogFileOptions): RotatingLogFile {
    const fd = openSync(options.path, 'a', FILE_MODE);
    return new RotatingLogFile(options, fd, fstatSync(fd).size);
  }

  write(line: string): void {
    if (this.#closed) return;
    const bytes = Buffer.byteLength(line);
    try {
      if (this.#size > 0 && this.#size + bytes > this.#limit) this.#rotate();
      this.#fd ??= this.#reopen();
      writeSync(this.#fd, line);
      this.#size += bytes;
      this.#failing = false;
    } catch (error) {
      this.#failed(error);
    }
  }

  /** Closes the file. Lines written after are dropped. */
  close(): void {
    this.#closed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    this.#size = 0;
  }

  #failed(error: unknown): void {
    if (!this.#failing) this.#onError?.(describe(error));
    this.#failing = true;
  }

  #rotate(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    try {
      for (let index = this.#maxFiles - 1; index >= 1; index--) {
        try {
          renameSync(`${this.path}.${String(index)}`, `${this.path}.${String(index + 1)}`);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      renameSync(this.path, `${this.path}.1`);
      this.#limit = this.#maxBytes;
      this.#rotationFailing = false;
    } catch (error) {
      // The lines keep coming into the current file rather than nowhere; the next try is a file's length later.
      if (!this.#rotationFailing) this.#onError?.(describe(error));
      this.#rotationFailing = true;
      this.#limit = this.#size + this.#maxBytes;
    }
  }

  #reopen(): number {
    const fd = openSync(this.path, 'a', FILE_MODE);
    this.#size = fstatSync(fd).size;
    return fd;
  }
}
