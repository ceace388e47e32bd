// The project's one backoff rule: an exponential step with jitter, used by the service client's retries,
// the review outbox's delivery rounds and the reference client's reconnects.
// It never sleeps and never reads the clock: callers own their timers, so tests drive them with fake timers.

export interface BackoffOptions {
  /** The first step, in ms. */
  readonly minDelayMs: number;
  /** The longest step, in ms, before jitter. */
  readonly maxDelayMs: number;
}

/**
 * The wait before attempt `attempt + 1` after `attempt` failures (attempt counts from 1):
 * `min(maxDelayMs, minDelayMs · 2^(attempt-1))`, then 50–100% of that, so peers that failed together do not
 * retry in lockstep. `random` returns a number in [0, 1); inject it to make the result exact in tests.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions, random: () => number = Math.random): number {
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  const step = Math.min(options.maxDelayMs, options.minDelayMs * 2 ** Math.min(exponent, 52));
  return Math.round(step * (0.5 + random() * 0.5));
}
