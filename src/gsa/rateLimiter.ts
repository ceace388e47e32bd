// Keeps every call on one API key inside the service's budget and shares that budget so nothing starves:
// - a strict sliding window (slidingWindow.ts): never more than `requests` starts in any `intervalMs`;
// - one bounded queue per kind of call, served by a fixed cycle of places (budgetShares.ts): a review or a
//   server action waiting for the budget is started within a known number of grants, whatever the chat load;
// - inside the mute share, a first lookup (a player nobody asked about) goes before a refresh of a stale entry;
//   first lookups wait per chat source (an opaque key from the caller) and the sources take turns (sourceTurns.ts):
//   a busy or hostile source gets its turn, never every turn; inside one source the newest goes first (the player
//   chatting now matters most);
// - a source holds at most `maxQueuedPerSource` first lookups (past that its own oldest gives way); when the mute
//   queue as a whole is full, a refresh gives way first, then the oldest lookup of the source holding the most; a
//   review or an action is never refused because mute lookups filled a queue;
// - a Retry-After from the service holds every start until it has passed (the caller caps it).
// It never decides whether to retry and never looks at what a request does. docs/api-budget.md has the numbers.

import { systemClock, type Clock } from '../time/clock.js';
import { steadyClock } from '../time/steadyClock.js';
import { clampTimerMs } from '../time/timerLimit.js';
import { shareCycle, type BudgetClass } from './budgetShares.js';
import { QueueFullError } from './errors.js';
import { RingDeque } from './ringDeque.js';
import { SourceTurns } from './sourceTurns.js';
import { guardedIntervalMs, SlidingWindow } from './slidingWindow.js';

export { guardedIntervalMs } from './slidingWindow.js';

export interface RateLimitOptions {
  /** Requests allowed in any window of `intervalMs`. Default 100. `Infinity` lifts the limit (benchmarks). */
  readonly requests: number;
  /** Window length in ms. Default 60 000. */
  readonly intervalMs: number;
  /**
   * Calls of one kind (mute lookups, reviews, server actions: each its own queue) allowed to wait for the window.
   * A full mute queue makes its oldest lookup give way to the new one; a full review or action queue refuses the
   * new call at once with `rate_limited`. Default 1000; `Infinity` for no bound.
   */
  readonly maxQueued: number;
  /**
   * First mute lookups one chat source (see `schedule`) may have waiting, inside `maxQueued`. Past it the source's own
   * oldest lookup gives way, so a flood from one source costs memory in proportion to this bound, not to the flood,
   * and never pushes out another source's lookups. Default 250, and never more than `maxQueued`; `Infinity` for no
   * bound of its own.
   */
  readonly maxQueuedPerSource?: number | undefined;
  /**
   * Calls on the wire at once. A start is counted when the limiter lets it go, so it must really leave then: a call
   * let go while every connection is busy would wait in the HTTP pool and could reach the service in a later
   * window than the one it was counted in. GsaClient opens this many pool connections (default 16) and lets no
   * more go; the limiter alone has no bound by default.
   */
  readonly maxInFlight?: number | undefined;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { requests: 100, intervalMs: 60_000, maxQueued: 1000 };

/** `maxQueuedPerSource` when none is given (capped at `maxQueued`): a quarter of the default `maxQueued`. */
export const DEFAULT_MAX_QUEUED_PER_SOURCE = 250;

/** The source of calls scheduled without one: every such caller shares it. */
export const UNNAMED_SOURCE = '';

/**
 * What a call is to the limiter: `lookup` is a mute check nobody has an answer for yet, `refresh` a mute check
 * that renews an answer already cached (it waits behind every lookup), `review` and `action` the other classes.
 */
export type CallKind = 'lookup' | 'refresh' | 'review' | 'action';

interface Waiting {
  readonly start: () => void;
  readonly refuse: (error: QueueFullError) => void;
}

/** Whole and 1 or more, or Infinity (no bound). */
function checkedBound(name: string, value: number): number {
  if (!(value >= 1) || (Number.isFinite(value) && !Number.isSafeInteger(value))) {
    throw new RangeError(`${name} must be a whole number of 1 or more, or Infinity, got ${String(value)}`);
  }
  return value;
}

/** Why a first lookup of a source at its own bound was dropped. */
function sourceRefusal(maxQueuedPerSource: number): string {
  return `mute lookup dropped: its chat source already had ${maxQueuedPerSource} lookups waiting (its own bound) and its newer lookups took its place; nothing was sent`;
}

function refusal(kind: CallKind, maxQueued: number): string {
  switch (kind) {
    case 'lookup':
      return `mute lookup dropped: the mute queue is full (${maxQueued}) and newer lookups took its place; nothing was sent`;
    case 'refresh':
      return `mute refresh dropped: the mute queue is full (${maxQueued}); the cached answer stays in use; nothing was sent`;
    case 'review':
      return `local queue is full (${maxQueued} reviews waiting for the API budget); nothing was sent, try again later`;
    case 'action':
      return `local queue is full (${maxQueued} server actions waiting for the API budget); nothing was sent, try again later`;
  }
}

export class RateLimiter {
  /** Absent when the limit is lifted: nothing ever waits, so the limiter passes calls straight through. */
  readonly #window: SlidingWindow | undefined;
  readonly #maxQueued: number;
  readonly #maxQueuedPerSource: number;
  readonly #maxInFlight: number;
  readonly #clock: Clock;
  readonly #cycle: readonly BudgetClass[];
  /** First lookups, per source, served in turn. */
  readonly #lookups: SourceTurns<Waiting>;
  /**
   * The other kinds, one queue each. Refreshes are one queue, oldest first, not per source: a refresh decides no
   * chat line (the cached answer is served meanwhile) and runs only when no first lookup of any source waits.
   */
  readonly #queues: Readonly<Record<Exclude<CallKind, 'lookup'>, RingDeque<Waiting>>> = {
    refresh: new RingDeque<Waiting>(),
    review: new RingDeque<Waiting>(),
    action: new RingDeque<Waiting>(),
  };
  /** The next place in the cycle to offer a slot to. */
  #place = 0;
  /** Calls let go and not yet settled. */
  #inFlight = 0;
  #holdUntil = 0;
  #timer: NodeJS.Timeout | undefined;
  #timerDueAt = Infinity;
  #pumping = false;
  #closed = false;

  constructor(options: RateLimitOptions, clock: Clock = systemClock) {
    // Infinity (no bound) is allowed, as for `requests`: benchmarks use it.
    this.#maxQueued = checkedBound('maxQueued', options.maxQueued);
    this.#maxQueuedPerSource = Math.min(this.#maxQueued, checkedBound('maxQueuedPerSource', options.maxQueuedPerSource ?? DEFAULT_MAX_QUEUED_PER_SOURCE));
    this.#lookups = new SourceTurns<Waiting>(this.#maxQueuedPerSource);
    this.#maxInFlight = options.maxInFlight ?? Infinity;
    if (!(this.#maxInFlight >= 1)) throw new RangeError(`maxInFlight must be 1 or more, got ${String(options.maxInFlight)}`);
    // Never backward: a wall clock set back must not keep the window full or a hold on for as long as the step.
    this.#clock = steadyClock(clock);
    this.#cycle = shareCycle();
    this.#window = Number.isFinite(options.requests) ? new SlidingWindow(options.requests, guardedIntervalMs(options.intervalMs), this.#clock) : undefined;
  }

  /** Calls waiting for a slot (not yet sent), all kinds together. */
  get waiting(): number {
    return this.#lookups.size + this.#queues.refresh.size + this.#queues.review.size + this.#queues.action.size;
  }

  /** Calls of one kind waiting for a slot. */
  waitingOf(kind: CallKind): number {
    return kind === 'lookup' ? this.#lookups.size : this.#queues[kind].size;
  }

  /** First lookups of one source waiting for a slot. */
  lookupsWaitingFrom(source: string): number {
    return this.#lookups.sizeOf(source);
  }

  /**
   * Runs `task` when the window has room and its class's turn has come. Rejects with a QueueFullError (code
   * `rate_limited`, nothing sent) when its queue is full, when a newer mute lookup takes its place, or on close().
   * Retries of admitted calls come through here too.
   * `source` names where a first lookup comes from (an opaque key chosen by the caller): first
   * lookups of different sources take turns. Ignored for the other kinds. Default UNNAMED_SOURCE.
   */
  schedule<T>(kind: CallKind, task: () => Promise<T>, source: string = UNNAMED_SOURCE): Promise<T> {
    if (this.#closed) return Promise.reject(new QueueFullError('the service client is closed; nothing was sent', undefined));
    if (this.#window === undefined) return task();
    return new Promise<T>((resolve, reject) => {
      const settled = (): void => {
        this.#inFlight -= 1;
        this.#pump();
      };
      const waiting: Waiting = {
        start: () => {
          this.#inFlight += 1;
          try {
            task().then(
              (value) => {
                settled();
                resolve(value);
              },
              (error: unknown) => {
                settled();
                reject(error instanceof Error ? error : new Error(String(error)));
              },
            );
          } catch (error) {
            settled();
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        },
        refuse: reject,
      };
      if (this.#admit(kind, waiting, source)) this.#pump();
    });
  }

  /** The service said "wait": start nothing on this key for `ms` (the caller caps it; timers are clamped too). */
  holdFor(ms: number): void {
    if (this.#window === undefined || this.#closed) return;
    const until = this.#clock.now() + clampTimerMs(ms);
    if (until <= this.#holdUntil) return;
    this.#holdUntil = until;
    this.#pump();
  }

  /** Refuses every waiting call (nothing was sent) and stops the timer; used on shutdown. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const error = new QueueFullError('the service client closed before this call could be sent; nothing was sent', undefined);
    for (const waiting of this.#lookups.drain()) waiting.refuse(error);
    for (const queue of Object.values(this.#queues)) {
      for (let waiting = queue.shift(); waiting !== undefined; waiting = queue.shift()) waiting.refuse(error);
    }
  }

  /** Queues the call, or refuses it (or an older mute lookup) when its queue is full. False when it was refused. */
  #admit(kind: CallKind, waiting: Waiting, source: string): boolean {
    const queues = this.#queues;
    if (kind === 'review' || kind === 'action') {
      if (queues[kind].size >= this.#maxQueued) {
        waiting.refuse(new QueueFullError(refusal(kind, this.#maxQueued), undefined));
        return false;
      }
      queues[kind].push(waiting);
      return true;
    }
    // A source at its own bound makes room itself: its oldest lookup gives way, and the mute class's total is unchanged.
    if (kind === 'lookup' && this.#lookups.sizeOf(source) >= this.#maxQueuedPerSource) {
      this.#lookups.push(source, waiting)?.refuse(new QueueFullError(sourceRefusal(this.#maxQueuedPerSource), undefined));
      return true;
    }
    // One bound for the mute class: refreshes give way first, then the oldest first lookup of the source holding the
    // most (a quiet source never makes room for a busy one). A new refresh never pushes out a first lookup: the
    // player it is about already has an answer in the cache.
    if (this.#lookups.size + queues.refresh.size >= this.#maxQueued) {
      const dropped = (victim: CallKind): QueueFullError => new QueueFullError(refusal(victim, this.#maxQueued), undefined);
      if (queues.refresh.size > 0) {
        queues.refresh.shift()?.refuse(dropped('refresh'));
      } else if (kind === 'refresh') {
        waiting.refuse(dropped('refresh'));
        return false;
      } else {
        this.#lookups.dropOldestOfLongest()?.refuse(dropped('lookup'));
      }
    }
    if (kind === 'lookup') this.#lookups.push(source, waiting);
    else queues[kind].push(waiting);
    return true;
  }

  /** Starts waiting calls while the window has room and no hold is on; otherwise sets one timer for when it will. */
  #pump(): void {
    const window = this.#window;
    if (this.#pumping || this.#closed || window === undefined) return;
    this.#pumping = true;
    try {
      // A full wire is no reason for a timer: the next call to settle pumps again.
      while (this.waiting > 0 && this.#inFlight < this.#maxInFlight) {
        const held = this.#holdUntil - this.#clock.now();
        const delay = held > 0 ? held : window.delayMs();
        if (delay > 0) {
          this.#wakeIn(delay);
          return;
        }
        const next = this.#next();
        if (next === undefined) return;
        window.record();
        next.start();
      }
    } finally {
      this.#pumping = false;
    }
  }

  /** The call whose turn it is: the next place in the cycle whose class has one waiting. */
  #next(): Waiting | undefined {
    for (let step = 0; step < this.#cycle.length; step++) {
      const budgetClass = this.#cycle[this.#place] ?? 'mute';
      this.#place = (this.#place + 1) % this.#cycle.length;
      const waiting = this.#take(budgetClass);
      if (waiting !== undefined) return waiting;
    }
    return undefined;
  }

  #take(budgetClass: BudgetClass): Waiting | undefined {
    switch (budgetClass) {
      case 'mute':
        // The next source in turn, its newest first lookup: under pressure the player chatting now gets the source's
        // slot, and no source gets more than its turn. Refreshes only when no first lookup of any source waits.
        return this.#lookups.next() ?? this.#queues.refresh.shift();
      case 'review':
        return this.#queues.review.shift();
      case 'action':
        return this.#queues.action.shift();
    }
  }

  #wakeIn(delayMs: number): void {
    const dueAt = this.#clock.now() + delayMs;
    // One timer at a time; an earlier one already set will pump again and re-arm if needed.
    if (this.#timer !== undefined && this.#timerDueAt <= dueAt) return;
    clearTimeout(this.#timer);
    this.#timerDueAt = dueAt;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#timerDueAt = Infinity;
      this.#pump();
    }, clampTimerMs(delayMs));
  }
}
