// How the API budget is shared between the kinds of call: a fixed cycle of grants in which each class owns
// a number of places (its weight). The limiter walks the cycle and gives each free slot to the next place whose
// class has a call waiting, so every waiting class is served within a known number of grants (no strict
// priority, no starvation), and a place whose class has nothing waiting goes to the next class that has
// (work-conserving: no slot idles while anyone waits).
// Pure data and arithmetic: it never queues, waits or reads a clock. docs/api-budget.md turns it into capacity.

/** The classes that share the budget. Mute lookups (first ones and refreshes) are one class. */
export type BudgetClass = 'mute' | 'review' | 'action';

/**
 * What a call is to the budget: `lookup` is a mute check nobody has an answer for yet, `refresh` a mute check that
 * renews an answer already cached (it waits behind every lookup), `review` and `action` the other classes.
 */
export type CallKind = 'lookup' | 'refresh' | 'review' | 'action';

export const CALL_KINDS: readonly CallKind[] = ['lookup', 'refresh', 'review', 'action'];

/** Calls waiting for a start, per kind (counts). */
export type WaitingCalls = Readonly<Record<CallKind, number>>;

/**
 * The kind that takes the place of `budgetClass` in the cycle, given what waits: for the mute class a first lookup
 * before any refresh. Undefined when that class has nothing waiting (the place passes to the next class).
 */
export function kindForPlace(budgetClass: BudgetClass, waiting: WaitingCalls): CallKind | undefined {
  switch (budgetClass) {
    case 'mute':
      return waiting.lookup > 0 ? 'lookup' : waiting.refresh > 0 ? 'refresh' : undefined;
    case 'review':
      return waiting.review > 0 ? 'review' : undefined;
    case 'action':
      return waiting.action > 0 ? 'action' : undefined;
  }
}

export const BUDGET_CLASSES: readonly BudgetClass[] = ['mute', 'review', 'action'];

/**
 * Places per cycle of 10 grants. Mute lookups get 6 (chat is the constant load), reviews 3 (a backlog after an
 * outage drains at 30% of the budget even while everyone chats), server actions 1 (rare, but never starved).
 */
export const BUDGET_WEIGHTS: Readonly<Record<BudgetClass, number>> = Object.freeze({ mute: 6, review: 3, action: 1 });

/**
 * The cycle of places, spread out by smooth weighted round robin (each class's places as evenly apart as the
 * weights allow): for the default weights, mute review mute mute review mute action mute review mute.
 */
export function shareCycle(weights: Readonly<Record<BudgetClass, number>> = BUDGET_WEIGHTS): readonly BudgetClass[] {
  const total = BUDGET_CLASSES.reduce((sum, budgetClass) => sum + weights[budgetClass], 0);
  const current: Record<BudgetClass, number> = { mute: 0, review: 0, action: 0 };
  const cycle: BudgetClass[] = [];
  for (let place = 0; place < total; place++) {
    let chosen: BudgetClass = 'mute';
    for (const budgetClass of BUDGET_CLASSES) {
      current[budgetClass] += weights[budgetClass];
      if (current[budgetClass] > current[chosen]) chosen = budgetClass;
    }
    current[chosen] -= total;
    cycle.push(chosen);
  }
  return cycle;
}

/**
 * The most grants (of any class) the limiter can make until the `k`-th waiting call of `budgetClass` (k ≥ 1,
 * counted in its queue's service order) has been granted, from any point of the cycle, while that class keeps
 * calls waiting. The walk never skips a place of a class that has calls waiting and each grant uses up at least
 * one place, so grants ≤ places walked; the worst start is the one right after the class's own place.
 */
export function worstCaseGrants(budgetClass: BudgetClass, k: number, cycle: readonly BudgetClass[] = shareCycle()): number {
  let worst = 0;
  for (let start = 0; start < cycle.length; start++) {
    let served = 0;
    let walked = 0;
    while (served < k) {
      if (cycle[(start + walked) % cycle.length] === budgetClass) served += 1;
      walked += 1;
      if (walked > cycle.length * k) throw new RangeError(`${budgetClass} has no place in the cycle`);
    }
    worst = Math.max(worst, walked);
  }
  return worst;
}

/**
 * The longest a call can wait for its start once it is the `k`-th waiting of its class, with `requests` starts
 * allowed per (guarded) window of `spanMs`: every start made before now has left the window one span later, so
 * grant n comes at the latest ⌈n / requests⌉ spans from now. Holds the service asked for (Retry-After, capped)
 * come on top.
 */
export function worstCaseWaitMs(budgetClass: BudgetClass, k: number, requests: number, spanMs: number): number {
  return Math.ceil(worstCaseGrants(budgetClass, k) / requests) * spanMs;
}

/**
 * How many reviews a sender (the review outbox) should keep in flight so the review share is used under full chat
 * load. A saturated sliding window frees its slots in the same bursts in which they were taken, so only the
 * reviews already waiting at a burst get the review places in it: with the default weights a window has
 * ⌈requests · 3/10⌉ of them. At least 4 (the outbox's own default), at most 64 (each one is a promise, not a socket:
 * they wait in the limiter, not on the network).
 */
export function reviewConcurrency(requests: number): number {
  const total = BUDGET_CLASSES.reduce((sum, budgetClass) => sum + BUDGET_WEIGHTS[budgetClass], 0);
  const share = Number.isFinite(requests) ? Math.ceil((requests * BUDGET_WEIGHTS.review) / total) : Infinity;
  return Math.min(64, Math.max(4, share));
}
