// The API budget as a port: the one place that says when the next call on an API key may start, and of which kind.
// The rate limiter (rateLimiter.ts) keeps the waiting calls and asks the budget; the budget keeps the window, the
// class shares (the 6/3/1 cycle, first lookups before refreshes), the Retry-After hold and what the service said is
// left. It is injected into the client the way undici's dispatcher is: LocalBudget (this file, one process, the
// default) or a shared one (redisBudget.ts: every sidecar on the key, through Redis).
// A budget never queues calls, never sends anything and never looks at what a call does.

import { systemClock, type Clock } from '../../time/clock.js';
import { steadyClock } from '../../time/steadyClock.js';
import { clampTimerMs } from '../../time/timerLimit.js';
import { kindForPlace, shareCycle, type BudgetClass, type CallKind, type WaitingCalls } from './budgetShares.js';
import { guardedIntervalMs, SlidingWindow } from './slidingWindow.js';

/** A Retry-After hold longer than this gets a warning line when it starts (a host must hear of a key held that long). */
export const LONG_HOLD_MS = 60_000;

/** One decision: a call of `start`'s kind may leave now (its start is counted already), or nothing may for `waitMs`. */
export type BudgetDecision = { readonly start: CallKind; readonly waitMs?: undefined } | { readonly start?: undefined; readonly waitMs: number };

export interface ApiBudget {
  /**
   * Decides the next start on the key, given what this process has waiting (at least one call of some kind).
   * `{ start }`: one call of that kind leaves now, and the start is counted. `{ waitMs }`: nothing may start now; ask
   * again after that long, or sooner when a kind that had nothing waiting gets a call.
   * A local budget answers at once (a plain value), a shared one with a promise. Never rejects: a shared budget that
   * cannot reach its store decides on its local fallback.
   */
  decide(waiting: WaitingCalls): BudgetDecision | Promise<BudgetDecision>;
  /** The service said "wait" (a Retry-After, already capped by the caller): no start on the key for `ms`. */
  holdFor(ms: number): void;
  /**
   * An answer carried the service's own count (X-RateLimit-Limit / X-RateLimit-Remaining): from now on the budget
   * never believes it has more starts left than `remaining`. Other tools on the key spend the budget too.
   * `unseen` (default 0): this process's starts the service cannot have counted when it answered (started after the
   * answered call, or still on the wire then); they are on top of what it counted, not among it.
   */
  observeServiceCount(limit: number, remaining: number, unseen?: number): void;
  /** Ms the Retry-After hold in force still runs (this process's own, or one shared and believed); 0 when none. */
  readonly heldForMs: number;
  /**
   * Starts the window has room for now, as this process sees it (for gsa_bridge_budget_window_free; nothing decides
   * on it). Absent when the budget cannot tell.
   */
  readonly freeStarts?: number | undefined;
  /** Lets go of what the budget holds (timers, a connection). Idempotent. */
  close(): Promise<void>;
}

export interface LocalBudgetOptions {
  /** Starts allowed in any window of `intervalMs`: a whole number of 1 or more. */
  readonly requests: number;
  readonly intervalMs: number;
  /** Time source; default the system clock (made steady: a wall clock set back never stalls the window). */
  readonly clock?: Clock | undefined;
  /** The places of each class; default shareCycle() (6 mute, 3 review, 1 action in every 10). */
  readonly cycle?: readonly BudgetClass[] | undefined;
}

/**
 * The budget of one process: a strict sliding window (widened a little, see guardedIntervalMs), a fixed cycle of
 * places per class, and a hold. Each free start goes to the next place of the cycle whose class has a call waiting,
 * so no class starves and no start idles while anyone waits (budgetShares.ts).
 */
export class LocalBudget implements ApiBudget {
  readonly #window: SlidingWindow;
  readonly #clock: Clock;
  readonly #cycle: readonly BudgetClass[];
  readonly #requests: number;
  /** The next place in the cycle to offer a start to. */
  #place = 0;
  #holdUntil = 0;

  constructor(options: LocalBudgetOptions) {
    this.#clock = steadyClock(options.clock ?? systemClock);
    this.#requests = options.requests;
    this.#window = new SlidingWindow(options.requests, guardedIntervalMs(options.intervalMs), this.#clock);
    this.#cycle = options.cycle ?? shareCycle();
  }

  /** The window as enforced (the interval, guarded). */
  get spanMs(): number {
    return this.#window.spanMs;
  }

  /** Starts counted in the window now (the service's own count included, see observeServiceCount). */
  get used(): number {
    return this.#window.used;
  }

  decide(waiting: WaitingCalls): BudgetDecision {
    const held = this.#holdUntil - this.#clock.now();
    if (held > 0) return { waitMs: held };
    const delay = this.#window.delayMs();
    if (delay > 0) return { waitMs: delay };
    const kind = this.#nextKind(waiting);
    if (kind === undefined) return { waitMs: 0 };
    this.#window.record();
    return { start: kind };
  }

  /**
   * Counts starts this process made through another budget (a shared one, before it fell back to this one), each
   * `agesMs[i]` ms ago, oldest first, so the fallback window knows what this process already spent.
   */
  recordStarts(agesMs: readonly number[]): void {
    const now = this.#clock.now();
    for (const age of agesMs) this.#window.recordAt(now - Math.max(0, age));
  }

  holdFor(ms: number): void {
    const until = this.#clock.now() + clampTimerMs(ms);
    if (until > this.#holdUntil) this.#holdUntil = until;
  }

  /** Ms the hold still has to run; 0 when none. */
  get heldForMs(): number {
    return Math.max(0, this.#holdUntil - this.#clock.now());
  }

  /** Starts left in the window now (the service's own count included). */
  get freeStarts(): number {
    return Math.max(0, this.#requests - this.#window.used);
  }

  observeServiceCount(limit: number, remaining: number, unseen = 0): void {
    if (!(limit >= 0) || !(remaining >= 0)) return;
    // Left here = requests - used, and must stay at most what the service says is left once our starts it had not
    // counted yet arrive too: used >= (requests - remaining) + unseen. The starts missing for that were seen by the
    // service and not here (other tools on the key, or a window it counts differently): count them now. They leave
    // the window one span from now, later than they really happened: the safe side. A higher `remaining` later
    // never takes them back.
    const unknown = this.#requests - remaining + Math.max(0, unseen) - this.#window.used;
    if (unknown > 0) this.#window.record(Math.min(unknown, this.#requests));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /** The kind whose place it is: the next place of the cycle whose class has a call waiting. */
  #nextKind(waiting: WaitingCalls): CallKind | undefined {
    for (let step = 0; step < this.#cycle.length; step++) {
      const budgetClass = this.#cycle[this.#place] ?? 'mute';
      this.#place = (this.#place + 1) % this.#cycle.length;
      const kind = kindForPlace(budgetClass, waiting);
      if (kind !== undefined) return kind;
    }
    return undefined;
  }
}
