// One process per review data directory, enforced by the kernel: the holder takes an exclusive lock on the file
// `gsa-bridge.lock` inside the directory (fcntl OFD lock on Linux, flock on macOS, LockFileEx on Windows, through
// fs-native-extensions). The lock belongs to the file, not to a name, so every way to reach the directory (a
// symlink, a bind mount, another network namespace or container sharing the volume) meets the same lock; the kernel
// drops it when the holder dies (SIGKILL included), so there is never a stale lock to clean by hand. Only a process
// that can write the directory (0700) can open the lock file (0600), so nobody else can take it, block it, or say
// who holds it.
// Once it holds the lock, the holder writes who it is into the lock file (pid, host, version, start) with where its
// control socket listens and a token: a refused process reads that to say who holds the directory, and
// `reviews retry` uses it to ask the holder, quoting the token, after checking that the lock is really held. The
// control socket is `gsa-bridge.sock` in the directory (protected by the directory's mode, reachable from any
// container sharing it); when that path is too long for a unix socket, a random abstract name (Linux), a socket in
// a private temp directory (macOS) or a random named pipe (Windows), found only through the lock file. The record is
// in lockRecord.ts, the channel's transport in controlChannel.ts; the lock, its token check and its callers' API here.
// It must never create a file in the directory other than the lock file before the lock is held, never delete the
// lock file (a process that opened the old one would hold a lock nobody else sees), never trust a control socket
// whose lock is not held, and never block the process from exiting.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants as fsConstants, fchmodSync, fstatSync, ftruncateSync, open } from 'node:fs';
import { realpath, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { DataDirLockedError, DataDirUnavailableError } from './errors.js';
import { describeError, isErrnoCode, makeDataDir } from '../reviews/durableFiles.js';
import {
  CONTROL_SOCKET_FILE,
  DEFAULT_ANSWER_MS,
  MAX_LINE_BYTES,
  REQUEST_LINE_MS,
  exchange,
  listenForControl,
  type ControlEndpoint,
  type ControlHandler,
  type ControlReply,
  type ControlRequest,
} from './controlChannel.js';
import { describeHolder, waitForRecord, writeRecord, type LockHolder, type LockRecord } from './lockRecord.js';

/** The lock file in the data directory: its lock is the directory's; its text says who holds it. Never deleted. */
export const LOCK_FILE = 'gsa-bridge.lock';
/** Where versions before the file lock kept the control token; removed once the lock is held. */
const LEGACY_TOKEN_FILE = 'control-token';
/**
 * The locked byte, far past the identity text: Windows locks are mandatory, and a lock over the text would stop a
 * refused process from reading who holds it. (flock on macOS locks the whole file whatever the range.)
 */
const LOCK_OFFSET = 2 ** 30;
const LOCK_LENGTH = 1;
/**
 * A lock refused at first is tried again after these pauses: `lockHolder` and `askHolder` hold a shared lock for
 * the few microseconds between taking and closing it, and a start must not be refused (exit 2) because of that.
 */
const BUSY_RETRY_MS = [5, 20, 50] as const;
/** Flags that exist only on POSIX (Node's types say they always do; on Windows they are undefined). */
const O_NOFOLLOW = process.platform === 'win32' ? 0 : fsConstants.O_NOFOLLOW;
const O_NONBLOCK = process.platform === 'win32' ? 0 : fsConstants.O_NONBLOCK;

const openFile = promisify(open);

type FileLocks = typeof import('fs-native-extensions');
let fileLocks: Promise<FileLocks> | undefined;

/**
 * The native lock functions, loaded on first use: a platform without a prebuilt binary (musl, an unusual CPU) then
 * fails only where a lock is needed, with a message saying so, not every command at import.
 */
function loadFileLocks(): Promise<FileLocks> {
  fileLocks ??= import('fs-native-extensions').catch((error: unknown) => {
    fileLocks = undefined;
    throw new DataDirUnavailableError(
      `the file lock module fs-native-extensions has no working binary for ${process.platform}-${process.arch} here: ${describeError(error)}`,
      undefined,
      { cause: error },
    );
  });
  return fileLocks;
}

export { DataDirLockError, DataDirLockedError, DataDirUnavailableError, type DataDirLockErrorCode } from './errors.js';
// Callers import the lock's whole surface from here: the record and the control channel have modules of their own.
export { describeHolder, type LockHolder };
export { CONTROL_SOCKET_FILE, type ControlHandler, type ControlReply, type ControlRequest };

/**
 * Opens (creating, 0600) the lock file for writing, which an exclusive lock needs. A symlink, anything but a plain
 * file, or (unless this process runs as root) a file another user owns is refused; group or other access is
 * removed, since a lock file others can open is a lock others can hold.
 */
async function openLockFile(file: string): Promise<number> {
  let fd: number;
  try {
    fd = await openFile(file, fsConstants.O_RDWR | fsConstants.O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
  } catch (error) {
    if (isErrnoCode(error, 'ELOOP')) throw new DataDirUnavailableError(`${file} is a symbolic link; the lock file must be a plain file: remove it`, undefined, { cause: error });
    // A directory cannot be opened for writing: say what it is, as for a FIFO or a socket (fstat below).
    if (isErrnoCode(error, 'EISDIR')) throw new DataDirUnavailableError(`${file} is not a plain file; the lock file must be one: remove it`, undefined, { cause: error });
    throw new DataDirUnavailableError(`could not open the lock file ${file}: ${describeError(error)}`, undefined, { cause: error });
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) throw new DataDirUnavailableError(`${file} is not a plain file; the lock file must be one: remove it`);
    if (process.platform !== 'win32') {
      const uid = process.geteuid?.();
      if (uid !== undefined && uid !== 0 && info.uid !== uid) {
        throw new DataDirUnavailableError(`the lock file ${file} belongs to uid ${info.uid}, not to this process (uid ${uid}): run gsa-bridge as the user that owns the data directory`);
      }
      if ((info.mode & 0o077) !== 0) fchmodSync(fd, 0o600);
    }
    return fd;
  } catch (error) {
    closeSync(fd);
    if (error instanceof DataDirUnavailableError) throw error;
    throw new DataDirUnavailableError(`could not check the lock file ${file}: ${describeError(error)}`, undefined, { cause: error });
  }
}

/** Tries the exclusive lock a few times (see BUSY_RETRY_MS); once taken, empties the file before anyone reads it. */
async function takeLock(fd: number, file: string): Promise<boolean> {
  const { tryLock } = await loadFileLocks();
  for (const pause of [0, ...BUSY_RETRY_MS]) {
    if (pause > 0) await delay(pause);
    let taken: boolean;
    try {
      taken = tryLock(fd, LOCK_OFFSET, LOCK_LENGTH);
    } catch (error) {
      throw new DataDirUnavailableError(`could not lock ${file}: ${describeError(error)} (does this file system support file locks?)`, undefined, { cause: error });
    }
    if (taken) {
      // Same tick as the lock: a reader never sees the text of a holder that died (it waits for the new one).
      ftruncateSync(fd, 0);
      return true;
    }
  }
  return false;
}

type Probe = { readonly held: false } | { readonly held: true; readonly record: LockRecord | undefined };

/**
 * Whether a process holds the directory's lock, and what it wrote. Takes a shared lock to find out and gives it
 * back at once (in the same tick): the kernel's answer, not anybody's word.
 */
async function probe(real: string): Promise<Probe> {
  const { tryLock } = await loadFileLocks();
  const file = path.join(real, LOCK_FILE);
  let fd: number;
  try {
    fd = await openFile(file, fsConstants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return { held: false };
    throw new DataDirUnavailableError(`could not open the lock file ${file}: ${describeError(error)}`, undefined, { cause: error });
  }
  try {
    if (!fstatSync(fd).isFile()) throw new DataDirUnavailableError(`${file} is not a plain file; the lock file must be one: remove it`);
    let free: boolean;
    try {
      free = tryLock(fd, LOCK_OFFSET, LOCK_LENGTH, { shared: true });
    } catch (error) {
      throw new DataDirUnavailableError(`could not test the lock on ${file}: ${describeError(error)}`, undefined, { cause: error });
    }
    if (free) return { held: false }; // closing it (finally) gives the shared lock back
    return { held: true, record: await waitForRecord(fd) };
  } finally {
    closeSync(fd);
  }
}

export interface AcquireOptions {
  /** The holder's version, written into the lock file. */
  readonly version: string;
  /** Wall-clock ms of the start; default now. */
  readonly startedAt?: number;
}

export class DataDirLock {
  readonly holder: LockHolder;
  /** The lock file, held open (and locked) until release. */
  readonly #fd: number;
  readonly #server: Server;
  readonly #token: string;
  readonly #sockets = new Set<Socket>();
  #control: ControlEndpoint | undefined;
  #handler: ControlHandler | undefined;
  #released: Promise<void> | undefined;

  private constructor(fd: number, server: Server, holder: LockHolder, token: string) {
    this.#fd = fd;
    this.#server = server;
    this.holder = holder;
    this.#token = token;
  }

  /** Where the control socket listens (a path, an abstract name starting with NUL, or a named pipe). */
  get controlAddress(): string | undefined {
    return this.#control?.address;
  }

  /**
   * Creates the directory if needed (0700), then takes its lock, or throws DataDirLockError: 'locked' naming the
   * holder from its lock file when a live process has it, 'unavailable' when the lock file cannot be used. Only
   * the lock file is touched before the lock is held.
   */
  static async acquire(dataDir: string, options: AcquireOptions): Promise<DataDirLock> {
    let real: string;
    try {
      await makeDataDir(dataDir);
      real = await realpath(dataDir);
    } catch (error) {
      throw new DataDirUnavailableError(`could not create the data directory ${path.resolve(dataDir)}: ${describeError(error)}`, undefined, { cause: error });
    }
    const file = path.join(real, LOCK_FILE);
    const fd = await openLockFile(file);
    try {
      if (!(await takeLock(fd, file))) {
        const record = await waitForRecord(fd);
        throw new DataDirLockedError(
          `the data directory ${real} is in use by another gsa-bridge (${describeHolder(record?.holder)}); ` +
            'stop that one first, or give this one its own data directory. Nothing was changed.',
          record?.holder,
        );
      }
    } catch (error) {
      closeSync(fd);
      throw error;
    }

    const holder: LockHolder = { pid: process.pid, hostname: hostname(), version: options.version, startedAt: options.startedAt ?? Date.now(), dataDir: real };
    const server = createServer();
    server.unref();
    const lock = new DataDirLock(fd, server, holder, randomBytes(32).toString('hex'));
    server.on('connection', (socket) => {
      lock.#serve(socket);
    });
    try {
      await rm(path.join(real, LEGACY_TOKEN_FILE), { force: true });
      lock.#control = await listenForControl(server, real);
      writeRecord(fd, { ...holder, control: lock.#control.address, token: lock.#token });
    } catch (error) {
      await lock.release();
      throw new DataDirUnavailableError(`could not set up the control socket of ${real}: ${describeError(error)}`, undefined, { cause: error });
    }
    return lock;
  }

  /** Handles control requests from now on; `undefined` refuses them again. */
  serve(handler: ControlHandler | undefined): void {
    this.#handler = handler;
  }

  /** Closes the control socket, empties the lock file and closes it: the kernel frees the lock. Idempotent. */
  release(): Promise<void> {
    this.#released ??= (async () => {
      this.#handler = undefined;
      for (const socket of this.#sockets) socket.destroy();
      await new Promise<void>((resolve) => this.#server.close(() => { resolve(); }));
      await this.#control?.remove();
      try {
        ftruncateSync(this.#fd, 0);
      } catch {
        // Only tidiness: the next holder empties it too.
      }
      closeSync(this.#fd);
    })();
    return this.#released;
  }

  #serve(socket: Socket): void {
    this.#sockets.add(socket);
    socket.setEncoding('utf8');
    // Only the request line is timed: the answer to a control request may take a while, and the peer waits for it.
    socket.setTimeout(REQUEST_LINE_MS, () => socket.destroy());
    let buffer = '';
    let answered = false;
    const answer = (reply: ControlReply): void => {
      answered = true;
      socket.end(`${JSON.stringify(reply)}\n`);
    };
    socket.on('data', (chunk: string) => {
      if (answered) return;
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline === -1) {
        if (buffer.length > MAX_LINE_BYTES) answer({ ok: false, error: 'request line too long' });
        return;
      }
      socket.setTimeout(0);
      void this.#answer(buffer.slice(0, newline)).then(answer);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => this.#sockets.delete(socket));
  }

  async #answer(line: string): Promise<ControlReply> {
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      return { ok: false, error: 'not a JSON line' };
    }
    if (typeof request !== 'object' || request === null || typeof (request as { op?: unknown }).op !== 'string') {
      return { ok: false, error: 'a request is a JSON object with an "op"' };
    }
    const control = request as ControlRequest;
    if (!this.#tokenMatches(control.token)) return { ok: false, error: `the request must quote the token in ${path.join(this.holder.dataDir, LOCK_FILE)}` };
    const handler = this.#handler;
    if (handler === undefined) return { ok: false, error: 'the sidecar is starting or reloading; try again in a moment' };
    try {
      return await handler(control);
    } catch (error) {
      return { ok: false, error: describeError(error) };
    }
  }

  #tokenMatches(token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const given = Buffer.from(token);
    const expected = Buffer.from(this.#token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/**
 * Who holds the data directory, from its lock file, or undefined when nobody holds it (or it does not exist).
 * Takes nothing (a shared lock for an instant). Throws DataDirLockError('unavailable') when the lock file cannot
 * be opened (another user's directory).
 */
export async function lockHolder(dataDir: string): Promise<LockHolder | undefined> {
  let real: string;
  try {
    real = await realpath(dataDir);
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return undefined;
    throw error;
  }
  const found = await probe(real);
  if (!found.held) return undefined;
  return found.record?.holder ?? { pid: 0, hostname: 'unknown', version: 'unknown', startedAt: 0, dataDir: real };
}

/**
 * Sends a control request to the process holding the data directory, quoting the token from its lock file, once
 * the kernel confirmed the lock is held. Rejects with DataDirLockError('unavailable') when nobody holds it, the
 * lock file cannot be read, or the holder cannot be reached.
 */
export async function askHolder(dataDir: string, request: ControlRequest, timeoutMs = DEFAULT_ANSWER_MS): Promise<ControlReply> {
  let real: string;
  try {
    real = await realpath(dataDir);
  } catch (error) {
    throw new DataDirUnavailableError(`could not find ${path.resolve(dataDir)}: ${describeError(error)}`, undefined, { cause: error });
  }
  const found = await probe(real);
  if (!found.held) throw new DataDirUnavailableError(`no process holds ${real}`);
  const { record } = found;
  if (record?.control === undefined || record.token === undefined) {
    throw new DataDirUnavailableError(`the process holding ${real} (${describeHolder(record?.holder)}) did not write where it listens into ${path.join(real, LOCK_FILE)}`);
  }
  let reply: unknown;
  try {
    reply = await exchange(record.control, { ...request, token: record.token }, timeoutMs);
  } catch (error) {
    const elsewhere = record.holder.hostname !== hostname() ? ` (it runs on host ${record.holder.hostname}: ask it there)` : '';
    throw new DataDirUnavailableError(`could not ask the process holding ${real}${elsewhere}: ${describeError(error)}`, undefined, { cause: error });
  }
  if (typeof reply !== 'object' || reply === null || typeof (reply as { ok?: unknown }).ok !== 'boolean') {
    return { ok: false, error: 'the lock holder sent an answer this version does not understand' };
  }
  return reply as ControlReply;
}
