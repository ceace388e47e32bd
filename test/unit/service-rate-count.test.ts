// The service's own count on the key: reading X-RateLimit-Limit / -Remaining from an answer (serviceRateCount), and
// what the local budget makes of it (LocalBudget.observeServiceCount), on a hand-set clock.
import { describe, expect, it } from 'vitest';
import { LocalBudget } from '../../src/gsa/budget/apiBudget.js';
import { serviceRateCount } from '../../src/gsa/client/responses.js';
import { guardedIntervalMs } from '../../src/gsa/budget/slidingWindow.js';
import type { RawResponse } from '../../src/gsa/client/rawResponse.js';

function answer(headers: RawResponse['headers']): RawResponse {
  return { status: 200, headers, text: '{}' };
}

describe('serviceRateCount', () => {
  it('reads both headers as whole numbers (surrounding spaces allowed)', () => {
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '37' }))).toStrictEqual({ limit: 100, remaining: 37 });
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': ' 60 ', 'x-ratelimit-remaining': '0' }))).toStrictEqual({ limit: 60, remaining: 0 });
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': '0', 'x-ratelimit-remaining': '0' }))).toStrictEqual({ limit: 0, remaining: 0 });
  });

  it('reads nothing when either header is missing', () => {
    expect(serviceRateCount(answer({}))).toBeUndefined();
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': '100' }))).toBeUndefined();
    expect(serviceRateCount(answer({ 'x-ratelimit-remaining': '5' }))).toBeUndefined();
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': undefined, 'x-ratelimit-remaining': '5' }))).toBeUndefined();
  });

  it('reads nothing from a value that is not a whole number of 0 or more', () => {
    for (const bad of ['', ' ', 'abc', '-1', '-0', '+5', '1.5', '1e3', '0x10', '5 5', 'NaN', 'Infinity', '٣']) {
      expect(serviceRateCount(answer({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': bad })), `remaining ${JSON.stringify(bad)}`).toBeUndefined();
      expect(serviceRateCount(answer({ 'x-ratelimit-limit': bad, 'x-ratelimit-remaining': '5' })), `limit ${JSON.stringify(bad)}`).toBeUndefined();
    }
  });

  it('reads nothing from a huge value (over 9 digits), and up to 9 digits exactly', () => {
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': '1000000000', 'x-ratelimit-remaining': '5' }))).toBeUndefined();
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': '99999999999999999999999', 'x-ratelimit-remaining': '5' }))).toBeUndefined();
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': '999999999', 'x-ratelimit-remaining': '999999999' }))).toStrictEqual({ limit: 999_999_999, remaining: 999_999_999 });
  });

  it('reads nothing when more is said to remain than the limit', () => {
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '11' }))).toBeUndefined();
  });

  it('takes the first of a repeated header', () => {
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': ['100', '60'], 'x-ratelimit-remaining': ['3', '50'] }))).toStrictEqual({ limit: 100, remaining: 3 });
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': ['abc', '60'], 'x-ratelimit-remaining': '3' }))).toBeUndefined();
    expect(serviceRateCount(answer({ 'x-ratelimit-limit': [], 'x-ratelimit-remaining': '3' }))).toBeUndefined();
  });
});

describe('LocalBudget.observeServiceCount', () => {
  const REQUESTS = 10;
  const INTERVAL_MS = 1000;
  const SPAN_MS = guardedIntervalMs(INTERVAL_MS);
  const WAITING = { lookup: 1, refresh: 0, review: 0, action: 0 };

  function budgetAt(start: number): { budget: LocalBudget; setNow: (ms: number) => void; left: () => number } {
    let now = start;
    const budget = new LocalBudget({ requests: REQUESTS, intervalMs: INTERVAL_MS, clock: { now: () => now } });
    return {
      budget,
      setNow: (ms) => {
        now = ms;
      },
      left: () => REQUESTS - budget.used,
    };
  }

  function startCalls(budget: LocalBudget, count: number): void {
    for (let i = 0; i < count; i++) expect(budget.decide(WAITING)).toStrictEqual({ start: 'lookup' });
  }

  it('never leaves more than the service says is left, whatever was counted here', () => {
    for (let ours = 0; ours <= REQUESTS; ours++) {
      for (let remaining = 0; remaining <= REQUESTS; remaining++) {
        const { budget, left } = budgetAt(0);
        startCalls(budget, ours);
        budget.observeServiceCount(REQUESTS, remaining);
        expect(left(), `ours ${ours}, remaining ${remaining}`).toBe(Math.min(REQUESTS - ours, remaining));
      }
    }
  });

  it('counts the phantom starts now: they leave the window one span later, not when the other tool made them', () => {
    const { budget, setNow, left } = budgetAt(1_000);
    startCalls(budget, 2);
    setNow(1_400);
    budget.observeServiceCount(REQUESTS, 3); // 5 starts seen by the service, not here
    expect(left()).toBe(3);
    setNow(1_000 + SPAN_MS); // our own two leave
    expect(left()).toBe(5);
    setNow(1_400 + SPAN_MS - 1); // the phantoms are still inside
    expect(left()).toBe(5);
    setNow(1_400 + SPAN_MS);
    expect(left()).toBe(REQUESTS);
    expect(budget.decide(WAITING)).toStrictEqual({ start: 'lookup' });
  });

  it('waits for the phantoms to leave when they fill the window', () => {
    const { budget, setNow } = budgetAt(0);
    startCalls(budget, 1);
    budget.observeServiceCount(REQUESTS, 0);
    expect(budget.decide(WAITING)).toStrictEqual({ waitMs: SPAN_MS });
    setNow(SPAN_MS - 1);
    expect(budget.decide(WAITING)).toStrictEqual({ waitMs: 1 });
    setNow(SPAN_MS);
    expect(budget.decide(WAITING)).toStrictEqual({ start: 'lookup' });
  });

  it('never lets a later, higher remaining raise what is left', () => {
    const { budget, setNow, left } = budgetAt(0);
    startCalls(budget, 1);
    budget.observeServiceCount(REQUESTS, 2);
    expect(left()).toBe(2);
    setNow(500);
    budget.observeServiceCount(REQUESTS, 9); // a fixed window that reset at the service, say
    expect(left()).toBe(2);
    budget.observeServiceCount(REQUESTS, REQUESTS);
    expect(left()).toBe(2);
  });

  it('adds the starts the service had not seen yet on top of its count (unseen)', () => {
    const { budget, left } = budgetAt(0);
    startCalls(budget, 4); // four on the wire; the first one's answer says 4 remain after it
    budget.observeServiceCount(REQUESTS, 4, 3);
    // The service counted 6 (5 of another tool's and our first); our other 3 arrive after: 1 left, not 4.
    expect(left()).toBe(1);
    // Each later answer, with its own unseen, agrees and adds nothing.
    budget.observeServiceCount(REQUESTS, 3, 2);
    budget.observeServiceCount(REQUESTS, 2, 1);
    budget.observeServiceCount(REQUESTS, 1, 0);
    expect(left()).toBe(1);
  });

  it('uses its own requests, not the service limit, for what is left (a host may configure less than the key allows)', () => {
    const { budget, left } = budgetAt(0);
    startCalls(budget, 2);
    budget.observeServiceCount(100, 95); // plenty at the service: our own 10 bound
    expect(left()).toBe(8);
    budget.observeServiceCount(100, 3); // the service has 3 left: so do we
    expect(left()).toBe(3);
  });

  it('ignores a count that is not a number of 0 or more', () => {
    const { budget, left } = budgetAt(0);
    for (const [limit, remaining] of [
      [Number.NaN, 0],
      [10, Number.NaN],
      [-1, 0],
      [10, -1],
    ] as const) {
      budget.observeServiceCount(limit, remaining);
    }
    expect(left()).toBe(REQUESTS);
  });
});
