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
// a private temp directory (macOS) or a random named pipe (Windows), found only through the lock file.
// It must never create a file in the directory other than the lock file before the lock is held, never delete the
// lock file (a process that opened the old one would hold a lock nobody else sees), never trust a control socket
// whose lock is not held, and never block the process from exiting.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, constants as fsConstants, fchmodSync, fstatSync, ftruncateSync, open, readSync, writeSync } from 'node:fs';
import { mkdtemp, realpath, rm, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { describeHolder, type LockHolder } from '../datadir/lockRecord.js';
import { makeDataDir } from '../reviews/durableFiles.js';

/** The lock file in the data directory: its lock is the directory's; its text says who holds it. Never deleted. */
export const LOCK_FILE = 'gsa-bridge.lock';
/** The holder's control socket in the data directory, when its path fits a unix socket address. */
export const CONTROL_SOCKET_FILE = 'gsa-bridge.sock';
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
/** A holder writes who it is just after it takes the lock; a reader that finds no text yet waits this long for it. */
const IDENTITY_WAIT_MS = 1000;
const IDENTITY_POLL_MS = 10;
/** More identity text than this is not ours. */
const MAX_IDENTITY_BYTES = 16 * 1024;
/** Longest unix socket path: sun_path is 108 bytes on Linux, 104 on macOS and the BSDs, both with a NUL. */
const MAX_SOCKET_PATH = process.platform === 'linux' ? 107 : 103;
/** A control line longer than this is not ours. */
const MAX_LINE_BYTES = 64 * 1024;
/** How long a peer may take to send its request line. */
const REQUEST_LINE_MS = 5000;
/** How long a control request may take by default (a re-queue of thousands of reviews fsyncs a few times). */
const DEFAULT_ANSWER_MS = 60_000;
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
      `the file lock module fs-native-extensions has no working binary for ${process.platform}-${process.arch} here: ${messageOf(error)}`,
      undefined,
      { cause: error },
    );
  });
  return fileLocks;
}

/** A request on the control socket; `op` picks the handler. It carries the token from the lock file. */
export interface ControlRequest {
  readonly op: string;
  readonly token?: string;
  readonly [key: string]: unknown;
}

export type ControlReply = { readonly ok: true; readonly [key: string]: unknown } | { readonly ok: false; readonly error: string };

export type ControlHandler = (request: ControlRequest) => Promise<ControlReply>;

export { DataDirLockError, DataDirLockedError, DataDirUnavailableError, type DataDirLockErrorCode } from './errors.js';
// Callers found both here before the lock file's record had a module of its own.
export { describeHolder, type LockHolder };
import { DataDirLockedError, DataDirUnavailableError } from './errors.js';

/** What the holder writes into the lock file: who it is, and how to reach it. */
interface LockRecord {
  readonly holder: LockHolder;
  readonly control: string | undefined;
  readonly token: string | undefined;
}

function isErrno(error: unknown, ...codes: string[]): boolean {
  return error instanceof Error && codes.includes((error as NodeJS.ErrnoException).code ?? '');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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

function readRecord(fd: number): LockRecord | undefined {
  const buffer = Buffer.alloc(MAX_IDENTITY_BYTES);
  const length = readSync(fd, buffer, 0, buffer.length, 0);
  return parseRecord(buffer.toString('utf8', 0, length));
}

/** The holder's record; waits a moment when the holder has just taken the lock and not yet written it. */
async function waitForRecord(fd: number): Promise<LockRecord | undefined> {
  for (let waited = 0; ; waited += IDENTITY_POLL_MS) {
    const record = readRecord(fd);
    if (record !== undefined || waited >= IDENTITY_WAIT_MS) return record;
    await delay(IDENTITY_POLL_MS);
  }
}

/** Replaces the lock file's text. The holder emptied it when it took the lock, so a reader sees nothing or all of it. */
function writeRecord(fd: number, record: LockHolder & { readonly control: string; readonly token: string }): void {
  const bytes = Buffer.from(`${JSON.stringify(record)}\n`);
  for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written, bytes.length - written, written);
  ftruncateSync(fd, bytes.length);
}

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
    if (isErrno(error, 'ELOOP')) throw new DataDirUnavailableError(`${file} is a symbolic link; the lock file must be a plain file: remove it`, undefined, { cause: error });
    // A directory cannot be opened for writing: say what it is, as for a FIFO or a socket (fstat below).
    if (isErrno(error, 'EISDIR')) throw new DataDirUnavailableError(`${file} is not a plain file; the lock file must be one: remove it`, undefined, { cause: error });
    throw new DataDirUnavailableError(`could not open the lock file ${file}: ${messageOf(error)}`, undefined, { cause: error });
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
    throw new DataDirUnavailableError(`could not check the lock file ${file}: ${messageOf(error)}`, undefined, { cause: error });
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
      throw new DataDirUnavailableError(`could not lock ${file}: ${messageOf(error)} (does this file system support file locks?)`, undefined, { cause: error });
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
    if (isErrno(error, 'ENOENT')) return { held: false };
    throw new DataDirUnavailableError(`could not open the lock file ${file}: ${messageOf(error)}`, undefined, { cause: error });
  }
  try {
    if (!fstatSync(fd).isFile()) throw new DataDirUnavailableError(`${file} is not a plain file; the lock file must be one: remove it`);
    let free: boolean;
    try {
      free = tryLock(fd, LOCK_OFFSET, LOCK_LENGTH, { shared: true });
    } catch (error) {
      throw new DataDirUnavailableError(`could not test the lock on ${file}: ${messageOf(error)}`, undefined, { cause: error });
    }
    if (free) return { held: false }; // closing it (finally) gives the shared lock back
    return { held: true, record: await waitForRecord(fd) };
  } finally {
    closeSync(fd);
  }
}

function listen(server: Server, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => {
      reject(error);
    };
    server.once('error', onError);
    server.listen(address, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Where the control socket listens, and what to remove when it closes. */
interface ControlEndpoint {
  readonly address: string;
  readonly remove: () => Promise<void>;
}

/**
 * Listens for control requests: on the socket file in the directory (a stale one, left by a holder that was
 * killed, is removed first; only the lock holder may), or where a path that long cannot be bound, elsewhere.
 */
async function listenForControl(server: Server, real: string): Promise<ControlEndpoint> {
  const inDirectory = path.join(real, CONTROL_SOCKET_FILE);
  if (process.platform !== 'win32') {
    await unlink(inDirectory).catch((error: unknown) => {
      if (!isErrno(error, 'ENOENT')) throw error;
    });
    if (Buffer.byteLength(inDirectory) <= MAX_SOCKET_PATH) {
      await listen(server, inDirectory);
      return { address: inDirectory, remove: () => unlink(inDirectory).catch(() => undefined) };
    }
  }
  const name = `gsa-bridge-${randomBytes(16).toString('hex')}`;
  if (process.platform === 'win32') {
    const address = `\\\\.\\pipe\\${name}`;
    await listen(server, address);
    return { address, remove: () => Promise.resolve() };
  }
  if (process.platform === 'linux') {
    // Abstract names are seen by the whole network namespace, but this one is random, bound before it is written
    // down, and a request still has to quote the token from the 0600 lock file.
    const address = `\0${name}`;
    await listen(server, address);
    return { address, remove: () => Promise.resolve() };
  }
  const dir = await mkdtemp(path.join(tmpdir(), 'gsa-bridge-')); // 0700
  const address = path.join(dir, 's');
  const remove = (): Promise<void> => rm(dir, { recursive: true, force: true }).catch(() => undefined);
  try {
    if (Buffer.byteLength(address) > MAX_SOCKET_PATH) throw new Error(`${address} is too long for a unix socket; set TMPDIR to a shorter directory`);
    await listen(server, address);
  } catch (error) {
    await remove();
    throw error;
  }
  return { address, remove };
}

/** Sends one request line and reads one answer line. Rejects when nobody listens (ECONNREFUSED, ENOENT). */
function exchange(address: string, request: ControlRequest, timeoutMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(address);
    let buffer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the lock holder did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const finish = (error: Error | undefined, value?: unknown): void => {
      clearTimeout(timer);
      socket.destroy();
      if (error !== undefined) reject(error);
      else resolve(value);
    };
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline === -1) {
        if (buffer.length > MAX_LINE_BYTES) finish(new Error('the lock holder sent an answer that is too long'));
        return;
      }
      try {
        finish(undefined, JSON.parse(buffer.slice(0, newline)) as unknown);
      } catch {
        finish(new Error('the lock holder sent an answer that is not JSON'));
      }
    });
    socket.on('error', (error) => {
      finish(error);
    });
    socket.on('close', () => {
      finish(new Error('the lock holder closed the connection without answering'));
    });
  });
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
      throw new DataDirUnavailableError(`could not create the data directory ${path.resolve(dataDir)}: ${messageOf(error)}`, undefined, { cause: error });
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
      throw new DataDirUnavailableError(`could not set up the control socket of ${real}: ${messageOf(error)}`, undefined, { cause: error });
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
      return { ok: false, error: messageOf(error) };
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
    if (isErrno(error, 'ENOENT')) return undefined;
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
    throw new DataDirUnavailableError(`could not find ${path.resolve(dataDir)}: ${messageOf(error)}`, undefined, { cause: error });
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
    throw new DataDirUnavailableError(`could not ask the process holding ${real}${elsewhere}: ${messageOf(error)}`, undefined, { cause: error });
  }
  if (typeof reply !== 'object' || reply === null || typeof (reply as { ok?: unknown }).ok !== 'boolean') {
    return { ok: false, error: 'the lock holder sent an answer this version does not understand' };
  }
  return reply as ControlReply;
}
