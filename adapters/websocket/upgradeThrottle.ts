// Throttles mod token guessing at the WebSocket upgrade, per remote address: after a few wrong tokens an address
// is refused at once (no token comparison, no log line) for a backoff that doubles with each further failure, and
// failures are reported as one summary per interval instead of one log line each.
// Its memory is bounded whatever an attacker does (a fixed number of addresses, oldest forgotten first), and it
// never sees a token: it only counts outcomes.

import { backoffDelayMs } from '../../src/time/backoff.js';
import { systemClock, type Clock } from '../../src/time/clock.js';

export interface UpgradeThrottleOptions {
  /** Wrong tokens an address may present before it is refused without checking. Default 10. */
  readonly freeFailures?: number | undefined;
  /** The first refusal period, doubling with each failure after it. Default 1000 ms. */
  readonly minBlockMs?: number | undefined;
  /** The longest refusal period. Default 60 000 ms. */
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
  /** Jitter for the refusal period, [0, 1); default Math.random. */
  readonly random?: (() => number) | undefined;
}

export interface FailureSummary {
  /** True for the immediate report of the first failure after a quiet interval. */
  readonly first: boolean;
  /** Wrong or missing tokens that were checked. */
  readonly rejected: number;
  /** Upgrades refused without checking, because their address was throttled. */
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
   * How long `address` must still wait, in ms, or 0 when its token may be checked. A refused upgrade is
   * counted for the summary here, so the caller only answers it.
   */
  retryAfterMs(address: string): number {
    const state = this.#addresses.get(address);
    if (state === undefined) return 0;
    const wait = state.blockedUntil - this.#clock.now();
    if (wait <= 0) return 0;
    this.#throttled += 1;
    this.#count(address);
    return wait;
  }

  /** A wrong or missing token from `address`. */
  failed(address: string): void {
    const now = this.#clock.now();
    let state = this.#addresses.get(address);
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
  }

  /** The right token from `address`: it starts afresh. */
  succeeded(address: string): void {
    this.#addresses.delete(address);
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
