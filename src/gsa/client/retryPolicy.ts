// Decides which failures are worth another attempt and how long to wait, and runs the attempts.
// Non-idempotent calls are re-sent only when the service surely did not act on them. A service's Retry-After is
// honoured up to `maxRetryAfterMs`, and a review never waits inside its send longer than REVIEW_MAX_WAIT_MS: a
// longer wait is handed back to the caller (the review outbox owns review timing) through the error's capped
// `retryAfterMs`. It never sends anything itself and never changes an error's meaning.

import { backoffDelayMs } from '../../time/backoff.js';
import { clampTimerMs } from '../../time/timerLimit.js';
import { GsaError, QueueFullError, RetryLaterError } from '../errors.js';
import type { Endpoint } from '../types.js';

export interface RetryOptions {
  /** Further attempts after the first. Default 5. */
  readonly retries: number;
  /** First backoff delay in ms; doubles each attempt. Default 500. */
  readonly minDelayMs: number;
  /** Longest backoff delay in ms. Default 30 000. */
  readonly maxDelayMs: number;
  /**
   * Longest wait a service's Retry-After can impose, in ms: on retries, on the rate limiter's hold, and on the
   * `retryAfterMs` a caller reads from the error. Default 60 000; at most 2^31-1 (Node's timer limit).
   * @example 120_000 to honour up to two minutes
   */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 5, minDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 };

/**
 * Longest wait between two attempts inside one review send. The review outbox keeps several sends in flight and
 * backs off on its own (from 1 s); a longer in-send sleep would hold its slots, so a longer wait ends the send
 * and the error's capped `retryAfterMs` tells the outbox how long to wait.
 */
export const REVIEW_MAX_WAIT_MS = 1000;

const RETRYABLE_STATUSES = new Set([502, 504]);

/**
 * - mute checks (read-only): network, timeout, 429, 503, 502, 504.
 * - reviews (not idempotent, see gsa-api.md): only when surely not processed: 429, 503, or a connection
 *   that never carried the request.
 * - webhooks and System API actions: never once the request was sent; only a connection that never carried it.
 * - System API reads: as mute checks. A `cooldown` (GSA's per-target 429) is never retried: it holds one target.
 * - the Mod API v2 reads (access, report settings, shop, ui): as mute checks; a report: as a review.
 * - shop orders and token spends: never, not even a connection that surely never carried them. Money moves at most
 *   once, and which failure surely left nothing behind is the caller's to judge (it records the order first).
 * A call the local rate limiter refused (QueueFullError) is never retried here: its queue just said no.
 */
export function isRetryable(error: unknown, endpoint: Endpoint): boolean {
  if (!(error instanceof GsaError) || error instanceof QueueFullError) return false;
  switch (endpoint) {
    case 'mute':
    case 'system-read':
    case 'access':
    case 'report-settings':
    case 'shop':
    case 'ui':
      return (
        error.code === 'network' ||
        error.code === 'timeout' ||
        error.code === 'rate_limited' ||
        error.code === 'unavailable' ||
        (error.code === 'server_error' && error.status !== undefined && RETRYABLE_STATUSES.has(error.status))
      );
    case 'review':
    case 'report':
      return !error.maybeProcessed && (error.code === 'network' || error.code === 'rate_limited' || error.code === 'unavailable');
    case 'webhook':
    case 'system-write':
      return error.code === 'network' && !error.maybeProcessed;
    case 'shop-order':
    case 'tokens':
      return false;
  }
}

/**
 * The service's Retry-After when it gave one, at most `maxRetryAfterMs`; else the project's exponential backoff
 * with jitter (50–100% of the step). Never more than Node's timer limit.
 */
export function retryDelayMs(error: unknown, attemptNumber: number, options: RetryOptions, random: () => number): number {
  if (error instanceof RetryLaterError && error.retryAfterMs !== undefined) {
    return clampTimerMs(Math.min(error.retryAfterMs, options.maxRetryAfterMs));
  }
  return clampTimerMs(backoffDelayMs(attemptNumber, options, random));
}

/** The longest wait between attempts inside one call of this kind; a longer one ends the call with its error. */
export function maxWaitInCallMs(endpoint: Endpoint): number {
  // A report has its durable outbox too, which owns its timing as the review outbox owns a review's.
  return endpoint === 'review' || endpoint === 'report' ? REVIEW_MAX_WAIT_MS : Infinity;
}

export interface RetryHooks {
  readonly random: () => number;
  /** Waits `ms`; rejects when the wait was cancelled (the client closed), which ends the call with its last error. */
  readonly sleep: (ms: number) => Promise<void>;
  /** Told before each wait, for logging. */
  readonly onRetry?: (error: GsaError, attemptNumber: number, delayMs: number) => void;
  /** Once aborted (the client closed, the call's deadline passed), a failure is final: no further attempt. */
  readonly ended?: AbortSignal;
}

/** Runs `attempt` once and, after a retryable failure, up to `options.retries` more times. */
export async function withRetry<T>(attempt: () => Promise<T>, endpoint: Endpoint, options: RetryOptions, hooks: RetryHooks): Promise<T> {
  for (let attemptNumber = 1; ; attemptNumber++) {
    try {
      return await attempt();
    } catch (error) {
      if (attemptNumber > options.retries || hooks.ended?.aborted === true || !isRetryable(error, endpoint)) throw error;
      const delayMs = retryDelayMs(error, attemptNumber, options, hooks.random);
      if (delayMs > maxWaitInCallMs(endpoint)) throw error;
      if (error instanceof GsaError) hooks.onRetry?.(error, attemptNumber, delayMs);
      try {
        await hooks.sleep(delayMs);
      } catch {
        throw error;
      }
    }
  }
}
