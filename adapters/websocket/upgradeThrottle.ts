// Bounds what wrong mod tokens cost at the WebSocket upgrade: log lines (the first failure after a quiet interval
// is told at once, the rest as one summary per interval), memory (a fixed number of addresses, the one that failed
// longest ago forgotten first) and the answer a guesser gets (after a few wrong tokens from one address, its wrong
// tokens are answered 429 with a Retry-After that doubles with each further failure, up to a maximum).
// It is only ever told about wrong tokens: it must never refuse, delay or even see the right one. Every local
// process shares 127.0.0.1, so refusing an address would let any of them lock the real mod out; the token
// comparison is constant-time and costs microseconds, so the adapter always makes it. It never sees a token.

import { backoffDelayMs } from '../../src/time/backoff.js';
import { systemClock, type Clock } from '../../src/time/clock.js';

export interface UpgradeThrottleOptions {
  /** Wrong tokens an address may present before its wrong tokens are answered with a wait (429). Default 10. */
  readonly freeFailures?: number | undefined;
  /** The first wait, doubling with each failure after it. Default 1000 ms. */
  readonly minBlockMs?: number | undefined;
  /** The longest wait. Default 60 000 ms. */
  readonly maxBlockMs?: number | undefined;
  /** An address with no failure for this long starts afresh. Default 10 min. */
  readonly forgetAfterMs?: number | undefined;
  /** Most addresses remembered; beyond that the one that failed longest ago is forgotten. Default 10 000. */
  readonly maxAddresses?: number | undefined;
  /** How often failures are summarized, while there are any. Default 60 000 ms. */
  readonly summaryIntervalMs?: number | undefined;
  /** Told once per interval that had failures (and at once for the first failure after a quiet interval). */
  readonly onSummary: (summary: FailureSummary) => void;
  readonly clock?: Clock | undefined;
  /** Jitter for the wait, [0, 1); default Math.random. */
  readonly random?: (() => number) | undefined;
}

export interface FailureSummary {
  /** True for the immediate report of the first failure after a quiet interval. */
  readonly first: boolean;
  /** Wrong or missing tokens answered 401 (the address was not waiting). */
  readonly rejected: number;
  /** Wrong or missing tokens answered 429, because their address was still told to wait. */
  readonly throttled: number;
  /** The addresses with the most failures, most first (at most 5), and how many more there were. */
  readonly top: readonly (readonly [address: string, failures: number])[];
  readonly otherAddresses: number;
  readonly intervalMs: number;
}

interface AddressState {
  /** Failures since the address last started afresh. */
  failures: number;
  lastFailureAt: number;
  blockedUntil: number;
}

const DEFAULT_FREE_FAILURES = 10;
const DEFAULT_MIN_BLOCK_MS = 1000;
const DEFAULT_MAX_BLOCK_MS = 60_000;
const DEFAULT_FORGET_AFTER_MS = 10 * 60_000;
const DEFAULT_MAX_ADDRESSES = 10_000;
const DEFAULT_SUMMARY_INTERVAL_MS = 60_000;
const TOP_ADDRESSES = 5;

export class UpgradeThrottle {
  readonly #freeFailures: number;
  readonly #minBlockMs: number;
  readonly #maxBlockMs: number;
  readonly #forgetAfterMs: number;
  readonly #maxAddresses: number;
  readonly #summaryIntervalMs: number;
  readonly #onSummary: (summary: FailureSummary) => void;
  readonly #clock: Clock;
  readonly #random: () => number;
  /** In order of last failure, oldest first: the first key is the one to forget when full. */
  readonly #addresses = new Map<string, AddressState>();
  /** Failures per address in the current summary interval (bounded like #addresses). */
  #interval = new Map<string, number>();
  #rejected = 0;
  #throttled = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: UpgradeThrottleOptions) {
    this.#freeFailures = options.freeFailures ?? DEFAULT_FREE_FAILURES;
    this.#minBlockMs = options.minBlockMs ?? DEFAULT_MIN_BLOCK_MS;
    this.#maxBlockMs = options.maxBlockMs ?? DEFAULT_MAX_BLOCK_MS;
    this.#forgetAfterMs = options.forgetAfterMs ?? DEFAULT_FORGET_AFTER_MS;
    this.#maxAddresses = options.maxAddresses ?? DEFAULT_MAX_ADDRESSES;
    this.#summaryIntervalMs = options.summaryIntervalMs ?? DEFAULT_SUMMARY_INTERVAL_MS;
    this.#onSummary = options.onSummary;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
  }

  /** Addresses remembered now (for tests of the memory bound). */
  get size(): number {
    return this.#addresses.size;
  }

  /**
   * A wrong or missing token from `address`: 0 when it is to be answered 401, else how long, in ms, the address
   * is told to wait (answered 429 with Retry-After). A wrong token while the address is told to wait does not
   * lengthen the wait: only a failure after it has passed doubles it.
   */
  failed(address: string): number {
    const now = this.#clock.now();
    let state = this.#addresses.get(address);
    const wait = state === undefined ? 0 : state.blockedUntil - now;
    if (state !== undefined && wait > 0) {
      this.#throttled += 1;
      this.#count(address);
      return wait;
    }
    if (state !== undefined && now - state.lastFailureAt >= this.#forgetAfterMs) state = undefined;
    state ??= { failures: 0, lastFailureAt: now, blockedUntil: 0 };
    state.failures += 1;
    state.lastFailureAt = now;
    if (state.failures >= this.#freeFailures) {
      const step = state.failures - this.#freeFailures + 1;
      state.blockedUntil = now + backoffDelayMs(step, { minDelayMs: this.#minBlockMs, maxDelayMs: this.#maxBlockMs }, this.#random);
    }
    // Re-inserted so the map stays in order of last failure.
    this.#addresses.delete(address);
    this.#addresses.set(address, state);
    if (this.#addresses.size > this.#maxAddresses) {
      const oldest = this.#addresses.keys().next().value;
      if (oldest !== undefined) this.#addresses.delete(oldest);
    }
    this.#rejected += 1;
    this.#count(address);
    return 0;
  }

  /** Stops the summary timer, reporting what is left. */
  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#flush(false);
  }

  #count(address: string): void {
    const known = this.#interval.get(address);
    if (known !== undefined || this.#interval.size < this.#maxAddresses) this.#interval.set(address, (known ?? 0) + 1);
    if (this.#timer !== undefined) return;
    // The first failure after a quiet interval is told at once (a host fixing a mod's token wants to see it);
    // the rest of the interval is summed up when it ends.
    this.#flush(true);
    this.#timer = setInterval(() => {
      if (!this.#flush(false)) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    }, this.#summaryIntervalMs);
    // A summary still to come is no reason to keep the process alive.
    this.#timer.unref();
  }

  /** Reports and resets the interval's counts; false when there was nothing to report. */
  #flush(first: boolean): boolean {
    if (this.#rejected === 0 && this.#throttled === 0) return false;
    const ranked = [...this.#interval.entries()].sort((a, b) => b[1] - a[1]);
    const summary: FailureSummary = {
      first,
      rejected: this.#rejected,
      throttled: this.#throttled,
      top: ranked.slice(0, TOP_ADDRESSES),
      otherAddresses: Math.max(0, ranked.length - TOP_ADDRESSES),
      intervalMs: this.#summaryIntervalMs,
    };
    this.#rejected = 0;
    this.#throttled = 0;
    this.#interval = new Map();
    this.#onSummary(summary);
    return true;
  }
}
