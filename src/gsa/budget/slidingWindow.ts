// The API budget as a strict sliding window: never more than `requests` starts in any span of `spanMs`.
// It only counts and answers "how long until the next start may go"; it never waits, never sets a timer and
// never decides who goes next (the rate limiter does).

import type { Clock } from '../../time/clock.js';
import { RingDeque } from './ringDeque.js';

/**
 * The service counts requests when they arrive, we count them when they leave. A request that is slow to
 * arrive could otherwise share the service's window with one sent a full interval later; widening our window
 * by 1% (25 ms to 1 s) absorbs that jitter.
 */
export function guardedIntervalMs(intervalMs: number): number {
  return intervalMs + Math.min(1000, Math.max(25, Math.round(intervalMs * 0.01)));
}

export class SlidingWindow {
  readonly #requests: number;
  readonly #spanMs: number;
  readonly #clock: Clock;
  /** Start times inside the window, oldest first; never more than `requests`. */
  readonly #starts: RingDeque<number>;

  /** `spanMs` is the window as we enforce it (already guarded, see guardedIntervalMs). */
  constructor(requests: number, spanMs: number, clock: Clock) {
    if (!Number.isSafeInteger(requests) || requests < 1) throw new RangeError(`requests must be a whole number of 1 or more, got ${String(requests)}`);
    if (!Number.isFinite(spanMs) || spanMs <= 0) throw new RangeError(`the window must be a positive number of ms, got ${String(spanMs)}`);
    this.#requests = requests;
    this.#spanMs = spanMs;
    this.#clock = clock;
    this.#starts = new RingDeque<number>(Math.min(requests, 1024));
  }

  get spanMs(): number {
    return this.#spanMs;
  }

  /** Starts still inside the window now. */
  get used(): number {
    this.#forgetOld(this.#clock.now());
    return this.#starts.size;
  }

  /** Ms until one more start fits; 0 when it fits now. Never more than the span, even if the clock stepped back. */
  delayMs(): number {
    const now = this.#clock.now();
    this.#forgetOld(now);
    if (this.#starts.size < this.#requests) return 0;
    const oldest = this.#starts.peekOldest() ?? now;
    return Math.min(this.#spanMs, Math.max(0, oldest + this.#spanMs - now));
  }

  /** Counts `count` starts now (default one). The caller checked delayMs() first, or counts starts made elsewhere. */
  record(count = 1): void {
    const now = this.#clock.now();
    for (let i = 0; i < count; i++) this.recordAt(now);
  }

  /**
   * Counts a start made at `at` (not after now). Starts are kept in order: one older than the newest counted is
   * counted as at the newest's time, so it leaves the window later than it really would (the safe side).
   */
  recordAt(at: number): void {
    const now = this.#clock.now();
    this.#forgetOld(now);
    const newest = this.#starts.peekNewest();
    const when = Math.min(now, newest === undefined ? at : Math.max(at, newest));
    if (when + this.#spanMs <= now) return;
    this.#starts.push(when);
    // A clock that stepped back could leave more than `requests` entries: the newest ones decide.
    while (this.#starts.size > this.#requests) this.#starts.shift();
  }

  /** A start at `s` counts while `now < s + span`: two starts exactly one span apart are in different windows. */
  #forgetOld(now: number): void {
    for (let oldest = this.#starts.peekOldest(); oldest !== undefined && oldest + this.#spanMs <= now; oldest = this.#starts.peekOldest()) {
      this.#starts.shift();
    }
  }
}
