// Decides which failures are worth another attempt and how long to wait, and runs the attempts with
// p-retry. Non-idempotent calls are re-sent only when the service surely did not act on them.
// It never sends anything itself and never changes an error's meaning.

import pRetry, { AbortError } from 'p-retry';
import { GsaError, RetryLaterError } from './errors.js';
import type { Endpoint } from './types.js';

export interface RetryOptions {
  /** Further attempts after the first. Default 5. */
  readonly retries: number;
  /** First backoff delay in ms; doubles each attempt. Default 500. */
  readonly minDelayMs: number;
  /** Longest backoff delay in ms (a service's Retry-After may ask for longer and is honoured). Default 30 000. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 5, minDelayMs: 500, maxDelayMs: 30_000 };

const RETRYABLE_STATUSES = new Set([502, 504]);

/**
 * - mute checks (read-only): network, timeout, 429, 503, 502, 504.
 * - reviews (not idempotent, see gsa-api.md): only when surely not processed: 429, 503, or a connection
 *   that never carried the request.
 * - webhooks: never once the request was sent; only a connection that never carried it.
 */
export function isRetryable(error: unknown, endpoint: Endpoint): boolean {
  if (!(error instanceof GsaError)) return false;
  switch (endpoint) {
    case 'mute':
      return (
        error.code === 'network' ||
        error.code === 'timeout' ||
        error.code === 'rate_limited' ||
        error.code === 'unavailable' ||
        (error.code === 'server_error' && error.status !== undefined && RETRYABLE_STATUSES.has(error.status))
      );
    case 'review':
      return !error.maybeProcessed && (error.code === 'network' || error.code === 'rate_limited' || error.code === 'unavailable');
    case 'webhook':
      return error.code === 'network' && !error.maybeProcessed;
  }
}

/** The service's Retry-After when it gave one, else exponential backoff with jitter (50–100% of the step). */
export function retryDelayMs(error: unknown, attemptNumber: number, options: RetryOptions, random: () => number): number {
  if (error instanceof RetryLaterError && error.retryAfterMs !== undefined) return error.retryAfterMs;
  const step = Math.min(options.maxDelayMs, options.minDelayMs * 2 ** (attemptNumber - 1));
  return Math.round(step * (0.5 + random() * 0.5));
}

export interface RetryHooks {
  readonly random: () => number;
  readonly sleep: (ms: number) => Promise<void>;
  /** Told before each wait, for logging. */
  readonly onRetry?: (error: GsaError, attemptNumber: number, delayMs: number) => void;
}

async function waitBeforeRetry(error: unknown, attemptNumber: number, options: RetryOptions, hooks: RetryHooks): Promise<void> {
  const delayMs = retryDelayMs(error, attemptNumber, options, hooks.random);
  if (error instanceof GsaError) hooks.onRetry?.(error, attemptNumber, delayMs);
  await hooks.sleep(delayMs);
}

/**
 * Runs `attempt` once and, after a retryable failure, up to `options.retries` more times through p-retry.
 * The first attempt runs outside p-retry on purpose: most calls succeed at once, and p-retry's per-call setup
 * measurably cost more than the rest of the client together (bench/mute-check-throughput).
 */
export async function withRetry<T>(attempt: () => Promise<T>, endpoint: Endpoint, options: RetryOptions, hooks: RetryHooks): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (options.retries === 0 || !isRetryable(error, endpoint)) throw error;
    await waitBeforeRetry(error, 1, options, hooks);
  }
  return pRetry(
    async () => {
      try {
        return await attempt();
      } catch (error) {
        // p-retry's idiom for "do not retry": it rethrows the original error without calling the hooks.
        if (!isRetryable(error, endpoint)) throw new AbortError(error as Error);
        throw error;
      }
    },
    {
      retries: options.retries - 1,
      // Waiting happens in onFailedAttempt, where the service's Retry-After is known; p-retry adds none.
      minTimeout: 0,
      maxTimeout: 0,
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft }) => {
        if (retriesLeft > 0) await waitBeforeRetry(error, attemptNumber + 1, options, hooks);
      },
    },
  );
}
