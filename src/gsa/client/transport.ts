// Sends one built request through an undici dispatcher and returns the raw answer, with a per-request
// timeout and, when the caller gives one, its own deadline. It turns transport failures into `network` /
// `timeout` errors, noting whether the request could have reached the service. It does not interpret
// statuses, retry, or rate-limit: callers do.
//
// "Surely not sent" (maybeProcessed false) is decided where it is known: a failure of undici's connect phase
// (DNS, socket creation, TCP connect, TLS handshake) means no byte of the request left. The client's own pool
// uses `notSentMarkingConnector()`, which marks every error its connector reports; for an injected dispatcher
// (a host's agent, a MockAgent) the error's errno says it: a failed connect() or getaddrinfo() syscall, or a
// code that only socket creation gives (EMFILE/ENFILE: this process or the host is out of file descriptors).
// Anything else after dispatch may have reached the service.

import { buildConnector, type Dispatcher } from '../../net/undiciCore.js';
import { NetworkError, TimeoutError, BadResponseError } from '../errors.js';
import type { SharedDeadlines } from './deadlines.js';
import type { ApiRequest } from '../dialects/dialect.js';
import type { RawResponse } from './rawResponse.js';

/** Answers larger than this are not a GSA answer: the client's pool stops reading them (undici maxResponseSize). */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/** Failures that happen before a single byte of the request leaves: the service surely did nothing. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  // No socket could be created: out of file descriptors in this process (EMFILE) or on the host (ENFILE).
  'EMFILE',
  'ENFILE',
  'UND_ERR_CONNECT_TIMEOUT',
  // The dispatcher was closed before this request was handed to it (a reload replaced the client).
  'UND_ERR_CLOSED',
]);

/** System calls whose failure means the connection was never made, so nothing was written to it. */
const NOT_SENT_SYSCALLS = new Set(['connect', 'getaddrinfo', 'socket']);

/** Errors undici's connect phase reported through `notSentMarkingConnector()`: no request was written. */
const connectFailures = new WeakSet<object>();

/**
 * undici's own connector (same defaults as a Pool's), marking every error it reports: a request that fails with
 * one of them never left this process. The client's pool is built with it.
 */
export function notSentMarkingConnector(options: buildConnector.BuildOptions = {}): buildConnector.connector {
  const connect = buildConnector(options);
  return (connectOptions, callback) => {
    try {
      connect(connectOptions, (...args) => {
        if (args[0] !== null) connectFailures.add(args[0]);
        callback(...args);
      });
    } catch (error) {
      if (typeof error === 'object' && error !== null) connectFailures.add(error);
      throw error;
    }
  };
}

function errorChain(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let current: unknown = error; current instanceof Error && chain.length < 4; current = current.cause) chain.push(current);
  return chain;
}

function errorCode(error: unknown): string | undefined {
  for (const link of errorChain(error)) {
    const code = (link as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Whether the failure happened before any byte of the request left this process (see the header). */
export function surelyNotSent(error: unknown): boolean {
  return errorChain(error).some((link) => {
    if (connectFailures.has(link)) return true;
    const { code, syscall } = link as { code?: unknown; syscall?: unknown };
    return (typeof code === 'string' && NOT_SENT_CODES.has(code)) || (typeof syscall === 'string' && NOT_SENT_SYSCALLS.has(syscall));
  });
}

export interface TransportOptions {
  readonly dispatcher: Dispatcher;
  readonly origin: string;
  readonly timeoutMs: number;
  readonly deadlines: SharedDeadlines;
}

/** `callSignal`, when given, also ends the request: the caller's own deadline for the whole call. */
export async function sendRequest(transport: TransportOptions, request: ApiRequest, callSignal?: AbortSignal): Promise<RawResponse> {
  const { dispatcher, origin, timeoutMs } = transport;
  const deadline = transport.deadlines.signal();
  const signal = callSignal === undefined ? deadline : AbortSignal.any([deadline, callSignal]);
  try {
    const response = await dispatcher.request({
      origin,
      path: request.path,
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      signal,
    });
    const text = await response.body.text();
    return { status: response.statusCode, headers: response.headers, text };
  } catch (error) {
    // Only the deadlines abort these signals.
    if (callSignal?.aborted === true) {
      throw new TimeoutError('the call was given up before the service answered (its deadline passed); the request may have reached the service', { maybeProcessed: true });
    }
    if (signal.aborted) {
      throw new TimeoutError(`the service did not answer within ${timeoutMs} ms (the request timeout)`, { maybeProcessed: true });
    }
    const code = errorCode(error);
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
      throw new BadResponseError(`the service sent more than ${MAX_RESPONSE_BYTES} bytes; not a GSA answer`, { maybeProcessed: true });
    }
    const notSent = surelyNotSent(error);
    const reason = error instanceof Error ? error.message : String(error);
    throw new NetworkError(`could not reach the service at ${origin}: ${code ?? reason}`, {
      maybeProcessed: !notSent,
      cause: error,
    });
  }
}
