// Sends one built request through an undici dispatcher and returns the raw answer, with a per-request
// timeout and, when the caller gives one, its own deadline. It turns transport failures into `network` /
// `timeout` errors, noting whether the request could have reached the service. It does not interpret
// statuses, retry, or rate-limit: callers do.

import type { Dispatcher } from 'undici';
import { NetworkError, TimeoutError, BadResponseError } from './errors.js';
import type { SharedDeadlines } from './deadlines.js';
import type { ApiRequest } from './requests.js';

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

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
  'UND_ERR_CONNECT_TIMEOUT',
]);

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
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
      body: request.body,
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
    const notSent = code !== undefined && NOT_SENT_CODES.has(code);
    const reason = error instanceof Error ? error.message : String(error);
    throw new NetworkError(`could not reach the service at ${origin}: ${code ?? reason}`, {
      maybeProcessed: !notSent,
      cause: error,
    });
  }
}
