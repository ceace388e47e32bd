// One process per review data directory, enforced: the holder listens on a local socket named after the
// directory's real path, and the kernel frees that name the moment the process dies (SIGKILL included), so there is
// never a stale lock to clean by hand and no pid file to misread after pid reuse. Linux uses the abstract socket
// namespace (no file at all), Windows a named pipe; elsewhere a socket file in the directory, removed when a
// connect() finds nobody behind it. The same socket answers a tiny JSON-lines protocol: "who are you" (pid,
// version, start time) for the refusal message, and control requests such as `reviews retry`, which must prove
// they may touch the directory by quoting the token the holder wrote into it (0600).
// It must never touch a file in the directory before the lock is held, and never block the process from exiting.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, realpath, rm, unlink, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { tmpdir } from 'node:os';
import { makeDataDir } from './reviewJournal.js';

/** Written into the data directory by the holder; a control request quotes it. */
export const CONTROL_TOKEN_FILE = 'control-token';
/** The socket file on platforms without abstract sockets or named pipes. */
const SOCKET_FILE = '.gsa-bridge.sock';
/** Unix socket paths are limited to about 104 bytes (macOS); a longer one goes to the temp directory. */
const MAX_SOCKET_PATH = 100;
/** A control line longer than this is not ours. */
const MAX_LINE_BYTES = 64 * 1024;
/** How long a peer may take to send its request line. */
const REQUEST_LINE_MS = 5000;
/** How long "who are you" may take: a holder that does not answer in this time still holds the lock. */
const WHO_ANSWER_MS = 1000;
/** How long a control request may take by default (a re-queue of thousands of reviews fsyncs a few times). */
const DEFAULT_ANSWER_MS = 60_000;

/** Who holds a data directory, as the holder itself says. */
export interface LockHolder {
  readonly pid: number;
  readonly version: string;
  /** Wall-clock ms when the holder took the lock. */
  readonly startedAt: number;
  readonly dataDir: string;
}

/** A request on the lock socket; `op` picks the handler. Control requests carry the directory's token. */
export interface ControlRequest {
  readonly op: string;
  readonly token?: string;
  readonly [key: string]: unknown;
}

export type ControlReply = { readonly ok: true; readonly [key: string]: unknown } | { readonly ok: false; readonly error: string };

export type ControlHandler = (request: ControlRequest) => Promise<ControlReply>;

export { DataDirLockError, DataDirLockedError, DataDirUnavailableError, type DataDirLockErrorCode } from './errors.js';
import { DataDirLockedError, DataDirUnavailableError } from './errors.js';

/** "pid 1234, gsa-bridge 0.1.0, started 2026-11-21T11:00:00.000Z", or a note that it did not answer. */
export function describeHolder(holder: LockHolder | undefined): string {
  if (holder === undefined) return 'a process that did not say who it is';
  return `pid ${holder.pid}, version ${holder.version}, started ${new Date(holder.startedAt).toISOString()}`;
}

function isErrno(error: unknown, ...codes: string[]): boolean {
  return error instanceof Error && codes.includes((error as NodeJS.ErrnoException).code ?? '');
}

/** The lock's address for a directory that exists: derived from its real path, so two spellings of one directory collide. */
async function lockAddress(dataDir: string): Promise<{ readonly address: string; readonly file: string | undefined; readonly real: string }> {
  const real = await realpath(dataDir);
  // Windows paths are case-insensitive: C:\Data and c:\data are one directory, so one lock.
  const hash = createHash('sha256').update(process.platform === 'win32' ? real.toLowerCase() : real).digest('hex');
  if (process.platform === 'linux') return { address: `\0gsa-bridge-${hash}`, file: undefined, real };
  if (process.platform === 'win32') return { address: `\\\\.\\pipe\\gsa-bridge-${hash}`, file: undefined, real };
  const inDir = path.join(real, SOCKET_FILE);
  const file = Buffer.byteLength(inDir) <= MAX_SOCKET_PATH ? inDir : path.join(tmpdir(), `gsa-bridge-${hash.slice(0, 32)}.sock`);
  return { address: file, file, real };
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

function asHolder(value: unknown): LockHolder | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { pid, version, startedAt, dataDir } = value as Record<string, unknown>;
  if (typeof pid !== 'number' || typeof version !== 'string' || typeof startedAt !== 'number' || typeof dataDir !== 'string') return undefined;
  return { pid, version, startedAt, dataDir };
}

export interface AcquireOptions {
  /** The holder's version, for "who are you". */
  readonly version: string;
  /** Wall-clock ms of the start; default now. */
  readonly startedAt?: number;
}

export class DataDirLock {
  readonly holder: LockHolder;
  readonly #server: Server;
  readonly #file: string | undefined;
  readonly #token: string;
  readonly #sockets = new Set<Socket>();
  #handler: ControlHandler | undefined;
  #released: Promise<void> | undefined;

  private constructor(server: Server, holder: LockHolder, file: string | undefined, token: string) {
    this.#server = server;
    this.holder = holder;
    this.#file = file;
    this.#token = token;
  }

  /**
   * Creates the directory if needed (0700, nothing inside it), then takes its lock, or throws DataDirLockError
   * ('locked', naming the holder) when a live process has it. Only after that may anything in it be read or written.
   */
  static async acquire(dataDir: string, options: AcquireOptions): Promise<DataDirLock> {
    try {
      await makeDataDir(dataDir);
    } catch (error) {
      throw new DataDirUnavailableError(`could not create the data directory ${path.resolve(dataDir)}: ${(error as Error).message}`, undefined, { cause: error });
    }
    const { address, file, real } = await lockAddress(dataDir);
    const holder: LockHolder = { pid: process.pid, version: options.version, startedAt: options.startedAt ?? Date.now(), dataDir: real };
    for (let attempt = 0; ; attempt++) {
      const server = createServer();
      try {
        await listen(server, address);
      } catch (error) {
        server.close();
        if (!isErrno(error, 'EADDRINUSE')) {
          throw new DataDirUnavailableError(`could not lock the data directory ${real}: ${(error as Error).message}`, undefined, { cause: error });
        }
        const other = await askWho(address);
        if (other.alive || file === undefined || attempt > 0) {
          throw new DataDirLockedError(
            `the data directory ${real} is in use by another gsa-bridge (${describeHolder(other.holder)}); ` +
              'stop that one first, or give this one its own data directory. Nothing was changed.',
            other.holder,
          );
        }
        // A socket file nobody listens on was left by a process that died: it is stale, so it goes.
        await unlink(file).catch(() => undefined);
        continue;
      }
      server.unref();
      const token = randomBytes(32).toString('hex');
      const lock = new DataDirLock(server, holder, file, token);
      server.on('connection', (socket) => {
        lock.#serve(socket);
      });
      try {
        await writeFile(path.join(real, CONTROL_TOKEN_FILE), `${token}\n`, { mode: 0o600 });
      } catch (error) {
        await lock.release();
        throw new DataDirUnavailableError(`could not write ${path.join(real, CONTROL_TOKEN_FILE)}: ${(error as Error).message}`, undefined, { cause: error });
      }
      return lock;
    }
  }

  /** Handles control requests (other than "who") from now on; `undefined` refuses them again. */
  serve(handler: ControlHandler | undefined): void {
    this.#handler = handler;
  }

  /** Stops listening (the name is free again) and removes the token. Idempotent. */
  release(): Promise<void> {
    this.#released ??= (async () => {
      this.#handler = undefined;
      for (const socket of this.#sockets) socket.destroy();
      await new Promise<void>((resolve) => this.#server.close(() => { resolve(); }));
      await rm(path.join(this.holder.dataDir, CONTROL_TOKEN_FILE), { force: true }).catch(() => undefined);
      if (this.#file !== undefined) await unlink(this.#file).catch(() => undefined);
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
    const answer = (reply: ControlReply | LockHolder & { ok: true }): void => {
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
    if (control.op === 'who') return { ok: true, ...this.holder };
    if (!this.#tokenMatches(control.token)) return { ok: false, error: `the request must quote the token in ${path.join(this.holder.dataDir, CONTROL_TOKEN_FILE)}` };
    const handler = this.#handler;
    if (handler === undefined) return { ok: false, error: 'the sidecar is starting or reloading; try again in a moment' };
    try {
      return await handler(control);
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }

  #tokenMatches(token: unknown): boolean {
    if (typeof token !== 'string') return false;
    const given = Buffer.from(token);
    const expected = Buffer.from(this.#token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

/** Whether somebody answers on the lock's address, and what it says about itself. */
async function askWho(address: string): Promise<{ readonly alive: boolean; readonly holder: LockHolder | undefined }> {
  try {
    return { alive: true, holder: asHolder(await exchange(address, { op: 'who' }, WHO_ANSWER_MS)) };
  } catch (error) {
    // Nobody behind the name: a stale socket file. Anything else (a holder too busy to answer) counts as alive.
    return { alive: !isErrno(error, 'ECONNREFUSED', 'ENOENT'), holder: undefined };
  }
}

/** Who holds the data directory, or undefined when nobody does (or it does not exist). Takes nothing. */
export async function lockHolder(dataDir: string): Promise<LockHolder | undefined> {
  let address: string;
  try {
    ({ address } = await lockAddress(dataDir));
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
  const who = await askWho(address);
  return who.alive ? (who.holder ?? { pid: 0, version: 'unknown', startedAt: 0, dataDir }) : undefined;
}

/**
 * Sends a control request to the process holding the data directory, quoting the directory's token.
 * Rejects with DataDirLockError('unavailable') when nobody holds it or the token cannot be read.
 */
export async function askHolder(dataDir: string, request: ControlRequest, timeoutMs = DEFAULT_ANSWER_MS): Promise<ControlReply> {
  const { address, real } = await lockAddress(dataDir);
  let token: string;
  try {
    token = (await readFile(path.join(real, CONTROL_TOKEN_FILE), 'utf8')).trim();
  } catch (error) {
    throw new DataDirUnavailableError(`could not read ${path.join(real, CONTROL_TOKEN_FILE)}: ${(error as Error).message}`, undefined, { cause: error });
  }
  let reply: unknown;
  try {
    reply = await exchange(address, { ...request, token }, timeoutMs);
  } catch (error) {
    throw new DataDirUnavailableError(`could not ask the process holding ${real}: ${(error as Error).message}`, undefined, { cause: error });
  }
  if (typeof reply !== 'object' || reply === null || typeof (reply as { ok?: unknown }).ok !== 'boolean') {
    return { ok: false, error: 'the lock holder sent an answer this version does not understand' };
  }
  return reply as ControlReply;
}
