// What a dialect is: everything one GSA API says differently from another (where its paths start, where the
// credentials go, how bodies are encoded, how answers and failures read), as one object the façades pick by
// flavor. Types only; a dialect never sends, retries, waits or logs: the call pipeline does.
// A built request carries a credential: it must never be logged or attached to an error.

import type { GsaError } from '../errors.js';
import type { RawResponse } from '../client/rawResponse.js';
import type { Endpoint } from '../types.js';

export interface ApiRequest {
  readonly endpoint: Endpoint;
  readonly method: 'POST' | 'GET';
  /** Path and query, relative to the base URL's origin. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Undefined for a request without a body (a GET). */
  readonly body: string | undefined;
}

/** Masks a credential in text that came from the service. */
export type Scrub = (text: string) => string;

/** Reads a non-2xx answer into the error class its status and text mean. `nowMs` dates Retry-After and cooldowns. */
export type ClassifyFailure = (response: RawResponse, scrub: Scrub, nowMs: number) => GsaError;
