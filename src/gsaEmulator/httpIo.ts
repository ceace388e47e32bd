/**
 * The emulator's edge with node:http: reads request bodies under a size cap and writes JSON replies.
 * Must never throw on a client's misbehaviour (oversized or aborted bodies, vanished sockets).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** Request bodies above this are refused with 413; nothing the service takes comes near it. */
export const MAX_BODY_BYTES = 64 * 1024;

/** An answer decided by a handler, not yet written. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type BodyRead = { readonly kind: 'ok'; readonly body: Buffer } | { readonly kind: 'too-large' } | { readonly kind: 'aborted' };

export function jsonReply(status: number, body: unknown, headers?: Readonly<Record<string, string>>): Reply {
  return headers === undefined ? { status, body } : { status, body, headers };
}

/** The Laravel-style `{"message": …}` error most answers use. */
export function messageReply(status: number, message: string, headers?: Readonly<Record<string, string>>): Reply {
  return jsonReply(status, { message }, headers);
}

/** 413 and close: the rest of the body is discarded, and the connection cannot be trusted for another request. */
export const TOO_LARGE_REPLY = messageReply(413, `The request body is larger than ${MAX_BODY_BYTES} bytes.`, { connection: 'close' });

/**
 * Buffers the body up to `limit` bytes. Past the limit it stops buffering but keeps draining, so the
 * 413 can still be written on a socket that is being read.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      resolve({ kind: 'too-large' });
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        resolve({ kind: 'too-large' });
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      resolve({ kind: 'ok', body: Buffer.concat(chunks) });
    });
    // A promise settles once, so whichever of end/error/close comes first decides.
    req.on('error', () => {
      resolve({ kind: 'aborted' });
    });
    req.on('close', () => {
      resolve({ kind: 'aborted' });
    });
  });
}

/** Writes the reply unless the socket is already gone; returns whether it was written. */
export function sendReply(res: ServerResponse, reply: Reply): boolean {
  if (res.destroyed || res.writableEnded || res.headersSent) return false;
  const payload = Buffer.from(JSON.stringify(reply.body), 'utf8');
  res.writeHead(reply.status, {
    ...reply.headers,
    'content-type': 'application/json',
    'content-length': String(payload.length),
  });
  res.end(payload);
  return true;
}

/** Writes a non-JSON page (an `html` fault) unless the socket is already gone; returns whether it was written. */
export function sendHtml(res: ServerResponse, status: number, html: string): boolean {
  if (res.destroyed || res.writableEnded || res.headersSent) return false;
  const payload = Buffer.from(html, 'utf8');
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(payload.length) });
  res.end(payload);
  return true;
}

/** A header's value; a repeated header counts by its first occurrence. */
export function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
