// Keeps the calls on one API key waiting until the budget (apiBudget.ts) gives them a start, so nothing starves:
// - the budget decides when the next start may go and of which kind: a strict sliding window, a fixed cycle of
//   places per class (budgetShares.ts: a review or a server action waiting is started within a known number of
//   grants, whatever the chat load), first lookups before refreshes, the Retry-After hold; for this process alone
//   (LocalBudget) or for every sidecar on the key (a shared budget);
// - here: one bounded queue per kind of call, and inside the mute share first lookups wait per chat source (an
//   opaque key from the caller) and the sources take turns (sourceTurns.ts):
//   a busy or hostile source gets its turn, never every turn; inside one source the newest goes first (the player
//   chatting now matters most);
// - a source holds at most `maxQueuedPerSource` first lookups (past that its own oldest gives way); when the mute
//   queue as a whole is full, a refresh gives way first, then the oldest lookup of the source holding the most; a
//   review or an action is never refused because mute lookups filled a queue;
// - a Retry-After from the service is passed to the budget, which holds every start until it has passed (the caller
//   caps it).
// It never decides whether to retry and never looks at what a request does. docs/api-budget.md has the numbers.

import { systemClock, type Clock } from '../../time/clock.js';
import { clampTimerMs } from '../../time/timerLimit.js';
import { LocalBudget, type ApiBudget, type BudgetDecision } from './apiBudget.js';
import { CALL_KINDS, type BudgetClass, type CallKind, type WaitingCalls } from './budgetShares.js';
import { QueueFullError } from '../errors.js';
import { RingDeque } from './ringDeque.js';
import { SourceTurns } from './sourceTurns.js';

export { guardedIntervalMs } from './slidingWindow.js';
export type { CallKind } from './budgetShares.js';

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

/**
 * One call's start, handed to its task: `observeServiceCount` uses it to tell which of this process's starts the
 * service cannot have counted yet when it answered that call.
 */
export interface StartTicket {
  /** This process's starts on the key before and including this one. */
  readonly seq: number;
}

/** What the limiter holds and the budget allows now, for the operations side (gauges, log lines); nothing decides on it. */
export interface BudgetState {
  /** Calls waiting for a start, per budget class (mute: first lookups and refreshes together). */
  readonly waiting: Readonly<Record<BudgetClass, number>>;
  /** Starts the window has room for now, as this process sees it; Infinity when the limit is lifted, undefined when the budget cannot tell. */
  readonly windowFree: number | undefined;
}

/** The source of calls scheduled without one: every such caller shares it. */
export const UNNAMED_SOURCE = '';

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

/** A bit per kind, for "which kinds had calls waiting when the budget was last asked". */
const KIND_BIT: Readonly<Record<CallKind, number>> = { lookup: 1, refresh: 2, review: 4, action: 8 };

export class RateLimiter {
  /** Absent when the limit is lifted: nothing ever waits, so the limiter passes calls straight through. */
  readonly #budget: ApiBudget | undefined;
  /** The budget was built here (and is closed here), not injected. */
  readonly #ownsBudget: boolean;
  readonly #maxQueued: number;
  readonly #maxQueuedPerSource: number;
  readonly #maxInFlight: number;
  /** For the timer's due time only: the budget keeps the time that counts. */
  readonly #clock: Clock;
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
  /** Calls let go and not yet settled. */
  #inFlight = 0;
  /** Starts made so far (the last ticket's seq), and the tickets of the calls still on the wire. */
  #starts = 0;
  readonly #onTheWire = new Set<number>();
  #timer: NodeJS.Timeout | undefined;
  #timerDueAt = Infinity;
  #pumping = false;
  /** A shared budget's decision is on its way: one question at a time. */
  #deciding = false;
  /** The kinds that had calls waiting when the budget last said "wait" (KIND_BIT). */
  #askedKinds = 0;
  #closed = false;

  /**
   * `budget`: the budget to ask (a shared one); by default a LocalBudget of `options.requests` per
   * `options.intervalMs` on `clock`, or none when `requests` is Infinity (the limit lifted).
   */
  constructor(options: RateLimitOptions, clock: Clock = systemClock, budget?: ApiBudget) {
    // Infinity (no bound) is allowed, as for `requests`: benchmarks use it.
    this.#maxQueued = checkedBound('maxQueued', options.maxQueued);
    this.#maxQueuedPerSource = Math.min(this.#maxQueued, checkedBound('maxQueuedPerSource', options.maxQueuedPerSource ?? DEFAULT_MAX_QUEUED_PER_SOURCE));
    this.#lookups = new SourceTurns<Waiting>(this.#maxQueuedPerSource);
    this.#maxInFlight = options.maxInFlight ?? Infinity;
    if (!(this.#maxInFlight >= 1)) throw new RangeError(`maxInFlight must be 1 or more, got ${String(options.maxInFlight)}`);
    this.#clock = clock;
    this.#ownsBudget = budget === undefined;
    this.#budget = budget ?? (Number.isFinite(options.requests) ? new LocalBudget({ requests: options.requests, intervalMs: options.intervalMs, clock }) : undefined);
  }

  /** Calls waiting for a slot (not yet sent), all kinds together. */
  get waiting(): number {
    return this.#lookups.size + this.#queues.refresh.size + this.#queues.review.size + this.#queues.action.size;
  }

  /** Ms the budget's Retry-After hold still runs; 0 when none (or when the limit is lifted). */
  get heldForMs(): number {
    return this.#budget?.heldForMs ?? 0;
  }

  /** Calls waiting per class and the window's room, read at once (BudgetState). */
  get state(): BudgetState {
    return {
      waiting: { mute: this.#lookups.size + this.#queues.refresh.size, review: this.#queues.review.size, action: this.#queues.action.size },
      windowFree: this.#budget === undefined ? Infinity : this.#budget.freeStarts,
    };
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
  schedule<T>(kind: CallKind, task: (start: StartTicket) => Promise<T>, source: string = UNNAMED_SOURCE): Promise<T> {
    if (this.#closed) return Promise.reject(new QueueFullError('the service client is closed; nothing was sent', undefined));
    if (this.#budget === undefined) return task({ seq: ++this.#starts });
    return new Promise<T>((resolve, reject) => {
      let ticket: StartTicket | undefined;
      const settled = (): void => {
        this.#inFlight -= 1;
        if (ticket !== undefined) this.#onTheWire.delete(ticket.seq);
        this.#pump();
      };
      const waiting: Waiting = {
        start: () => {
          this.#inFlight += 1;
          ticket = { seq: ++this.#starts };
          this.#onTheWire.add(ticket.seq);
          try {
            task(ticket).then(
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
    if (this.#budget === undefined || this.#closed) return;
    this.#budget.holdFor(ms);
  }

  /**
   * The answer to the call of `ticket` carried the service's X-RateLimit-Limit / -Remaining: the budget never believes
   * more is left. The service counted that call and what arrived before it, not this process's calls that arrive
   * after it: those started since, and those started before it that were still on the wire (they may arrive after it).
   * Without a ticket every other start is taken as counted already.
   */
  observeServiceCount(limit: number, remaining: number, ticket?: StartTicket): void {
    if (this.#budget === undefined || this.#closed) return;
    let unseen = 0;
    if (ticket !== undefined) {
      unseen = this.#starts - ticket.seq;
      for (const seq of this.#onTheWire) if (seq < ticket.seq) unseen += 1;
    }
    this.#budget.observeServiceCount(limit, remaining, unseen);
  }

  /**
   * Refuses every waiting call (nothing was sent) and stops the timer; used on shutdown. Closes the budget when it
   * was built here (an injected one belongs to its owner, who may share it between clients).
   */
  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const error = new QueueFullError('the service client closed before this call could be sent; nothing was sent', undefined);
    for (const waiting of this.#lookups.drain()) waiting.refuse(error);
    for (const queue of Object.values(this.#queues)) {
      for (let waiting = queue.shift(); waiting !== undefined; waiting = queue.shift()) waiting.refuse(error);
    }
    return this.#ownsBudget && this.#budget !== undefined ? this.#budget.close() : Promise.resolve();
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

  /**
   * Starts waiting calls while the budget gives starts; otherwise sets one timer for when it says to ask again.
   * While that timer runs the budget is not asked again, unless a kind that had nothing waiting then has a call now
   * (a shared budget must learn of it, so other sidecars leave that class its places).
   */
  #pump(): void {
    const budget = this.#budget;
    if (this.#pumping || this.#deciding || this.#closed || budget === undefined) return;
    this.#pumping = true;
    try {
      // A full wire is no reason for a timer: the next call to settle pumps again.
      while (this.waiting > 0 && this.#inFlight < this.#maxInFlight) {
        const waiting = this.#waitingCalls();
        const kinds = kindBits(waiting);
        if (this.#timer !== undefined && (kinds & ~this.#askedKinds) === 0) return;
        const decision = budget.decide(waiting);
        if (decision instanceof Promise) {
          this.#deciding = true;
          decision.then(
            (answered) => {
              this.#deciding = false;
              this.#apply(answered, kinds);
              // Also after "wait": a kind that got its first call while the question was on its way was not part of
              // it, and the budget must hear of it now (its claim), not when the timer fires.
              this.#pump();
            },
            () => {
              // A budget never rejects; if one does, ask again shortly rather than stall every call.
              this.#deciding = false;
              this.#wakeIn(100);
            },
          );
          return;
        }
        if (!this.#apply(decision, kinds)) return;
      }
    } finally {
      this.#pumping = false;
    }
  }

  /** Acts on a decision: starts a call of the kind given, or sets the timer. True when a call was started. */
  #apply(decision: BudgetDecision, kinds: number): boolean {
    if (this.#closed) return false;
    if (decision.start === undefined) {
      this.#askedKinds = kinds;
      this.#wakeIn(Math.max(1, decision.waitMs));
      return false;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerDueAt = Infinity;
    // The kind given; if its calls gave way meanwhile (a shared budget answers later), whichever waits, so the
    // counted start is not wasted.
    const next = this.#take(decision.start) ?? this.#takeAny();
    if (next === undefined) return true;
    next.start();
    return true;
  }

  #waitingCalls(): WaitingCalls {
    return { lookup: this.#lookups.size, refresh: this.#queues.refresh.size, review: this.#queues.review.size, action: this.#queues.action.size };
  }

  #take(kind: CallKind): Waiting | undefined {
    // The next source in turn, its newest first lookup: under pressure the player chatting now gets the source's
    // slot, and no source gets more than its turn.
    return kind === 'lookup' ? this.#lookups.next() : this.#queues[kind].shift();
  }

  #takeAny(): Waiting | undefined {
    for (const kind of CALL_KINDS) {
      const waiting = this.#take(kind);
      if (waiting !== undefined) return waiting;
    }
    return undefined;
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

function kindBits(waiting: WaitingCalls): number {
  let bits = 0;
  for (const kind of CALL_KINDS) if (waiting[kind] > 0) bits |= KIND_BIT[kind];
  return bits;
}
