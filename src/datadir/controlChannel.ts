// The data directory's control channel: how the lock holder listens for requests (`reviews retry` asks a running
// sidecar to re-queue) and how another process asks it, one JSON line each way. Where it listens: the socket file
// in the directory when that path fits a unix socket, else a random abstract name (Linux), a socket in a private
// temp directory (macOS) or a random named pipe (Windows), written down only in the 0600 lock file.
// Must never answer a request that does not quote the lock file's token (the lock checks it), never trust a channel
// whose lock is not held (askHolder probes first), and never read an unbounded line.

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { createConnection, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isErrnoCode } from '../reviews/durableFiles.js';

/** The holder's control socket in the data directory, when its path fits a unix socket address. */
export const CONTROL_SOCKET_FILE = 'gsa-bridge.sock';
/** Longest unix socket path: sun_path is 108 bytes on Linux, 104 on macOS and the BSDs, both with a NUL. */
const MAX_SOCKET_PATH = process.platform === 'linux' ? 107 : 103;
/** A control line longer than this is not ours. */
export const MAX_LINE_BYTES = 64 * 1024;
/**
 * An answer may be longer than a request: `mutes` lists up to 10 000 players (about 1.5 KB each at most, with a
 * name and GSA's alert). It still has a bound: the holder is trusted only as far as the lock file says.
 */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** How long a peer may take to send its request line. */
export const REQUEST_LINE_MS = 5000;
/** How long a control request may take by default (a re-queue of thousands of reviews fsyncs a few times). */
export const DEFAULT_ANSWER_MS = 60_000;

/** A request on the control socket; `op` picks the handler. It carries the token from the lock file. */
export interface ControlRequest {
  readonly op: string;
  readonly token?: string;
  readonly [key: string]: unknown;
}

export type ControlReply = { readonly ok: true; readonly [key: string]: unknown } | { readonly ok: false; readonly error: string };

export type ControlHandler = (request: ControlRequest) => Promise<ControlReply>;

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
export interface ControlEndpoint {
  readonly address: string;
  readonly remove: () => Promise<void>;
}

/**
 * Listens for control requests: on the socket file in the directory (a stale one, left by a holder that was
 * killed, is removed first; only the lock holder may), or where a path that long cannot be bound, elsewhere.
 */
export async function listenForControl(server: Server, real: string): Promise<ControlEndpoint> {
  const inDirectory = path.join(real, CONTROL_SOCKET_FILE);
  if (process.platform !== 'win32') {
    await unlink(inDirectory).catch((error: unknown) => {
      if (!isErrnoCode(error, 'ENOENT')) throw error;
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
export function exchange(address: string, request: ControlRequest, timeoutMs: number): Promise<unknown> {
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
        if (buffer.length > MAX_ANSWER_BYTES) finish(new Error('the lock holder sent an answer that is too long'));
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
