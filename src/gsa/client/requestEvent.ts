// What the service client tells an observer after each attempt at a request, answered or not, so that health
// tracking, logging policy and metrics can listen without the client knowing about any of them.
// Plain data: it never carries a credential, a request body or headers.

import type { GsaErrorCode } from '../errors.js';
import type { Endpoint } from '../types.js';

export interface RequestEvent {
  readonly endpoint: Endpoint;
  /** What the call was about: the server's container name (mute, review) or its GAMESERVER_ID (webhook). */
  readonly target: string;
  /** The answer's HTTP status; undefined when there was no answer (network error, timeout). */
  readonly status: number | undefined;
  /** The failure's code; undefined when the attempt succeeded. */
  readonly code: GsaErrorCode | undefined;
  /** The failure's message, with the secret already scrubbed; undefined on success. */
  readonly message: string | undefined;
  /** From sending to the answer (or the failure); time waiting for the rate limit is not included. */
  readonly durationMs: number;
  /** 1 for the first attempt, 2 for the first retry, … */
  readonly attempt: number;
}

/** Told after every attempt. Must return at once and never throw (the client ignores what it throws). */
export type RequestObserver = (event: RequestEvent) => void;
