// Sends one built request through an undici dispatcher and returns the raw answer, with a per-request
// timeout. It turns transport failures into `network` / `timeout` errors, noting whether the request could
// have reached the service. It does not interpret statuses, retry, or rate-limit: callers do.

import type { Dispatcher } from 'undici';
import { NetworkError, TimeoutError, BadResponseError } from './errors.js';
import type { ApiRequest } from './requests.js';

export interface RawResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

/** Answers larger than this are not a GSA answer; stop reading rather than buffer them. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

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

async function readLimited(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_RESPONSE_BYTES) {
      body.destroy();
      throw new BadResponseError(`the service sent more than ${MAX_RESPONSE_BYTES} bytes; not a GSA answer`, { maybeProcessed: true });
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function sendRequest(
  dispatcher: Dispatcher,
  origin: string,
  request: ApiRequest,
  timeoutMs: number,
): Promise<RawResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort();
  }, timeoutMs);
  try {
    const response = await dispatcher.request({
      origin,
      path: request.path,
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    const text = await readLimited(response.body);
    return { status: response.statusCode, headers: response.headers, text };
  } catch (error) {
    if (error instanceof BadResponseError) throw error;
    // Only the timer aborts this controller.
    if (controller.signal.aborted) {
      throw new TimeoutError(`the service did not answer within ${timeoutMs} ms (api.timeoutMs)`, { maybeProcessed: true });
    }
    const code = errorCode(error);
    const notSent = code !== undefined && NOT_SENT_CODES.has(code);
    const reason = error instanceof Error ? error.message : String(error);
    throw new NetworkError(`could not reach the service at ${origin}: ${code ?? reason}`, {
      maybeProcessed: !notSent,
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}
