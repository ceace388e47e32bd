// The websocket adapter's upgrade gate, as pure pieces: the token a mod presents and its constant-time check,
// refusals written on the raw socket (401, 429 with Retry-After, 503), the handshake deadline's check interval, and
// the log lines that summarize refusals and dropped connections. Must never echo a presented token, and never let
// the comparison's time depend on the token's content or length.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { DroppedConnections } from './unauthenticatedConnections.js';
import type { FailureSummary, UpgradeThrottle } from './upgradeThrottle.js';

export function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * The token from `Authorization: Bearer <token>`, else from `?token=`; a Bearer header wins when both are there.
 * Another kind of Authorization header (some engines add their own) does not hide the query token.
 */
export function presentedToken(request: IncomingMessage): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization?.trim() ?? '')?.[1];
  if (bearer !== undefined) return bearer;
  const url = request.url ?? '/';
  if (!url.includes('token=')) return undefined;
  return new URL(url, 'http://mod.invalid').searchParams.get('token') ?? undefined;
}

/** Whether the request presents the token whose digest is `tokenDigest`; always true without a token. */
export function presentsToken(request: IncomingMessage, tokenDigest: Buffer | undefined): boolean {
  if (tokenDigest === undefined) return true;
  const presented = presentedToken(request);
  // Hashing first gives both sides the same length, so timingSafeEqual cannot leak the token's length either.
  return presented !== undefined && timingSafeEqual(sha256(presented), tokenDigest);
}

/**
 * Answers a wrong or missing token: 401, or 429 with Retry-After once its address has failed too often (a hint
 * to a misconfigured mod to slow down; a right token from the same address is let in all the same). Logged as
 * a summary per interval by the throttle: one line per guess would fill the disk.
 */
export function refuseWrongToken(socket: Duplex, throttle: UpgradeThrottle | undefined, address: string): void {
  const waitMs = throttle?.failed(address) ?? 0;
  if (waitMs > 0) {
    const seconds = String(Math.ceil(waitMs / 1000));
    rejectUpgrade(socket, 429, 'Too Many Requests', `too many wrong tokens from this address; try again in ${seconds} s\n`, { 'Retry-After': seconds });
    return;
  }
  rejectUpgrade(socket, 401, 'Unauthorized', 'wrong or missing token: send "Authorization: Bearer <token>" or ?token=<token>\n', {
    'WWW-Authenticate': 'Bearer',
  });
}

export function logDroppedConnections(logger: Logger, report: DroppedConnections): void {
  const limit = `maxUnauthenticatedConnections (${String(report.max)})`;
  if (report.first) {
    logger.warn(
      { max: report.max },
      `closed the oldest mod connection that had not completed an authenticated upgrade, to stay within ${limit} (further drops are summarized every ${String(report.intervalMs / 1000)} s)`,
    );
    return;
  }
  logger.warn(
    { dropped: report.dropped, max: report.max },
    `closed ${String(report.dropped)} mod connections in the last ${String(report.intervalMs / 1000)} s that had not completed an authenticated upgrade, to stay within ${limit}`,
  );
}

export function logAuthFailures(logger: Logger, summary: FailureSummary): void {
  const addresses = Object.fromEntries(summary.top);
  if (summary.first) {
    const address = summary.top[0]?.[0] ?? '?';
    logger.warn(
      { remote: address, addresses },
      `mod connection refused from ${address}: wrong or missing token (further refusals are summarized every ${String(summary.intervalMs / 1000)} s)`,
    );
    return;
  }
  const top = summary.top.map(([address, failures]) => `${address} ×${String(failures)}`).join(', ');
  const more = summary.otherAddresses > 0 ? ` and ${String(summary.otherAddresses)} more addresses` : '';
  logger.warn(
    { rejected: summary.rejected, throttled: summary.throttled, addresses, otherAddresses: summary.otherAddresses },
    `mod connections refused in the last ${String(summary.intervalMs / 1000)} s: ${String(summary.rejected)} wrong or missing tokens answered 401, ${String(summary.throttled)} answered 429 after repeated failures; from ${top}${more}`,
  );
}

export function rejectUpgrade(socket: Duplex, status: number, reason: string, body: string, headers: Readonly<Record<string, string>> = {}): void {
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once('finish', () => {
    socket.destroy();
  });
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** How often node:http checks the handshake deadline: a fifth of it, between 10 ms and 1 s (5 s closes within 5–6 s). */
export function deadlineCheckIntervalMs(handshakeMs: number): number {
  return Math.min(1000, Math.max(10, Math.floor(handshakeMs / 5)));
}

export function ignoreSocketError(): void {
  // The socket is destroyed anyway; a reset during the handshake is the peer's business.
}

export function remoteOf(request: IncomingMessage): string {
  const { remoteAddress, remotePort } = request.socket;
  return `${remoteAddress ?? '?'}:${remotePort ?? '?'}`;
}
