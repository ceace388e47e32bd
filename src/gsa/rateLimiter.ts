// Keeps every call on one API key inside the service's budget: a strict sliding window (never more than
// `requests` starts in any `intervalMs`), mute checks ahead of reviews ahead of webhooks, and a bounded
// queue that refuses new work at once instead of letting callers wait forever.
// It never decides whether to retry and never looks at what a request does.

import PQueue from 'p-queue';
import { RateLimitedError } from './errors.js';
import type { Endpoint } from './types.js';

export interface RateLimitOptions {
  /** Requests allowed in any window of `intervalMs`. Default 100. `Infinity` lifts the limit (benchmarks). */
  readonly requests: number;
  /** Window length in ms. Default 60 000. */
  readonly intervalMs: number;
  /** Calls allowed to wait for a slot; beyond that a new call fails with `rate_limited` at once. Default 1000. */
  readonly maxQueued: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { requests: 100, intervalMs: 60_000, maxQueued: 1000 };

/** Higher runs first: a player waiting to chat matters more than a review, a review more than a webhook. */
const PRIORITY: Readonly<Record<Endpoint, number>> = { mute: 2, review: 1, webhook: 0 };

/**
 * The service counts requests when they arrive, we count them when they leave. A request that is slow to
 * arrive could otherwise share the service's window with one sent a full interval later; widening our window
 * by 1% (25 ms to 1 s) absorbs that jitter.
 */
export function guardedIntervalMs(intervalMs: number): number {
  return intervalMs + Math.min(1000, Math.max(25, Math.round(intervalMs * 0.01)));
}

export class RateLimiter {
  /** Absent when the limit is lifted: nothing ever waits, so the limiter passes calls straight through. */
  readonly #queue: PQueue | undefined;
  readonly #maxQueued: number;
  #holdTimer: NodeJS.Timeout | undefined;
  #holdUntil = 0;

  constructor(options: RateLimitOptions) {
    this.#maxQueued = options.maxQueued;
    this.#queue = Number.isFinite(options.requests)
      ? new PQueue({ intervalCap: options.requests, interval: guardedIntervalMs(options.intervalMs), strict: true })
      : undefined;
  }

  /** Calls waiting for a slot (not yet sent). */
  get waiting(): number {
    return this.#queue?.size ?? 0;
  }

  /** Throws `rate_limited` when the queue is full, so a new call fails fast instead of waiting. */
  assertRoom(): void {
    if (this.waiting >= this.#maxQueued) {
      throw new RateLimitedError(
        `local request queue is full (${this.#maxQueued} calls waiting for the API rate limit); try again later`,
        undefined,
      );
    }
  }

  /** Runs `task` when the window has room, in priority order. Retries of admitted calls come through here too. */
  schedule<T>(endpoint: Endpoint, task: () => Promise<T>): Promise<T> {
    return this.#queue === undefined ? task() : this.#queue.add(task, { priority: PRIORITY[endpoint] });
  }

  /** The service said "wait": send nothing on this key until then. */
  holdFor(ms: number): void {
    const queue = this.#queue;
    const until = Date.now() + ms;
    if (queue === undefined || until <= this.#holdUntil) return;
    this.#holdUntil = until;
    queue.pause();
    clearTimeout(this.#holdTimer);
    this.#holdTimer = setTimeout(() => {
      this.#holdTimer = undefined;
      queue.start();
    }, ms);
  }

  /** Drops waiting calls' slots and timers; used on shutdown. */
  close(): void {
    clearTimeout(this.#holdTimer);
    this.#queue?.clear();
  }
}
