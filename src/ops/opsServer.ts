// The operations endpoints on http.host:http.port, with plain node:http: GET /healthz (200 while the process
// runs), GET /readyz (200 {"ready":true} or 503 {"ready":false,"reasons":[…]}), GET /metrics (Prometheus text).
// Anything else is 404, another method 405. It lives in the long-lived `run` process, outside what a reload
// rebuilds: it reads everything through functions it is given, so it always answers for the current sidecar.
// It never changes the sidecar, never answers with a secret, and a failed bind is the caller's one-line exit 2.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Readiness } from './readiness.js';

export interface OpsServerOptions {
  readonly host: string;
  /** 0: any free port (read it back from `address`). */
  readonly port: number;
  readonly logger: Logger;
  /** The current readiness; called on each GET /readyz. */
  readonly readiness: () => Readiness;
  /** The Prometheus text and its content type; called on each GET /metrics. */
  readonly metrics: () => Promise<{ readonly contentType: string; readonly body: string }>;
}

export interface OpsServer {
  /** The bound address (the real port when 0 was asked for). */
  readonly address: { readonly host: string; readonly port: number };
  /** The base URL of the endpoints, e.g. http://127.0.0.1:9464. */
  readonly url: string;
  /** Stops listening and closes idle and open connections. Idempotent. */
  close(): Promise<void>;
}

const ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

function send(response: ServerResponse, status: number, contentType: string, body: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': contentType, 'cache-control': 'no-store', 'content-length': Buffer.byteLength(body), ...headers });
  response.end(body);
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  send(response, status, 'application/json; charset=utf-8', `${JSON.stringify(body)}\n`, headers);
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

async function answer(request: IncomingMessage, response: ServerResponse, options: OpsServerOptions): Promise<void> {
  // Only the path matters; a query string (a scraper's cache buster) is ignored.
  const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
  if (!ROUTES.has(path)) {
    sendJson(response, 404, { error: 'not found: the endpoints are /healthz, /readyz and /metrics' });
    return;
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    sendJson(response, 405, { error: 'method not allowed: use GET' }, { allow: 'GET, HEAD' });
    return;
  }
  switch (path) {
    case '/healthz':
      sendJson(response, 200, { ok: true });
      return;
    case '/readyz': {
      const readiness = options.readiness();
      sendJson(response, readiness.ready ? 200 : 503, readiness.ready ? { ready: true } : { ready: false, reasons: readiness.reasons });
      return;
    }
    default: {
      const { contentType, body } = await options.metrics();
      send(response, 200, contentType, body);
    }
  }
}

/** Listens and resolves once bound; rejects with the listen error (port in use, …) for listenFailureMessage. */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const server: Server = createServer((request, response) => {
    answer(request, response, options).catch((error: unknown) => {
      options.logger.error({ err: error, path: request.url }, 'an operations endpoint failed');
      if (!response.headersSent) sendJson(response, 500, { error: 'internal error' });
      else response.destroy();
    });
  });
  // A scraper keeps its connection open between scrapes; that must never hold a shutdown.
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: Error): void => {
      reject(error);
    };
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  server.on('error', (error) => {
    options.logger.error({ err: error }, 'the operations endpoint server failed');
  });
  const bound = server.address() as AddressInfo;
  const address = { host: options.host, port: bound.port };
  let closing: Promise<void> | undefined;
  return {
    address,
    url: `http://${hostForUrl(options.host)}:${bound.port}`,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      })),
  };
}
