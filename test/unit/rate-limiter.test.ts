// The API budget's scheduler with fake tasks and fake timers: the strict window, the guaranteed shares and their
// computed bounds, first lookups before refreshes, the per-class queues and who gives way, holds and timer limits.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reviewConcurrency, shareCycle, worstCaseGrants, worstCaseWaitMs } from '../../src/gsa/budgetShares.js';
import { GsaError, QueueFullError } from '../../src/gsa/errors.js';
import { guardedIntervalMs, RateLimiter, type CallKind } from '../../src/gsa/rateLimiter.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

interface Started {
  readonly kind: CallKind;
  readonly label: string;
  readonly at: number;
}

/** Schedules fake tasks that record when they start; refusals are kept, not thrown. */
function harness(limiter: RateLimiter) {
  const started: Started[] = [];
  const refused: { kind: CallKind; label: string; error: unknown }[] = [];
  const add = (kind: CallKind, label: string = kind): Promise<void> =>
    limiter
      .schedule(kind, () => {
        started.push({ kind, label, at: Date.now() });
        return Promise.resolve();
      })
      .catch((error: unknown) => {
        refused.push({ kind, label, error });
      });
  const startOf = (label: string): number | undefined => started.find((entry) => entry.label === label)?.at;
  return { started, refused, add, startOf };
}

describe('the share cycle', () => {
  it('gives mute 6, reviews 3 and actions 1 place in 10, spread out', () => {
    expect(shareCycle().join(' ')).toBe('mute review mute mute review mute action mute review mute');
  });

  it('computes the worst case in grants and in time', () => {
    expect([1, 3, 30, 285].map((k) => worstCaseGrants('review', k))).toEqual([4, 10, 100, 950]);
    expect([1, 10].map((k) => worstCaseGrants('action', k))).toEqual([10, 100]);
    expect(worstCaseWaitMs('review', 1, 100, guardedIntervalMs(60_000))).toBe(60_600);
    expect(worstCaseWaitMs('review', 285, 100, guardedIntervalMs(60_000))).toBe(606_000);
  });
});

describe('the strict window', () => {
  it('never starts more than `requests` in any interval, whatever the mix', async () => {
    const limiter = new RateLimiter({ requests: 5, intervalMs: 1000, maxQueued: 100 });
    const { started, add } = harness(limiter);
    const kinds: CallKind[] = ['lookup', 'review', 'refresh', 'action', 'lookup', 'lookup', 'review'];
    for (let index = 0; index < 40; index++) void add(kinds[index % kinds.length]!);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(started).toHaveLength(40);
    const times = started.map((entry) => entry.at);
    for (let index = 0; index + 5 < times.length; index++) expect(times[index + 5]! - times[index]!).toBeGreaterThanOrEqual(1000);
    // The guard widens the window by 25 ms: the 6th start comes at 1025, not before.
    expect(times.slice(0, 7)).toEqual([0, 0, 0, 0, 0, 1025, 1025]);
  });

  it('lets no more calls go than the wire holds, so each is counted when it really leaves', async () => {
    // Answers take 3 s; the window would allow 10 at once, but only 4 connections exist.
    const limiter = new RateLimiter({ requests: 10, intervalMs: 1000, maxQueued: 100, maxInFlight: 4 });
    const starts: number[] = [];
    const all = Array.from({ length: 12 }, () =>
      limiter.schedule('lookup', () => {
        starts.push(Date.now());
        return new Promise<void>((resolve) => setTimeout(resolve, 3000));
      }),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(starts).toEqual([0, 0, 0, 0]);
    await vi.advanceTimersByTimeAsync(3000);
    expect(starts).toEqual([0, 0, 0, 0, 3000, 3000, 3000, 3000]);
    await vi.advanceTimersByTimeAsync(6000);
    await Promise.all(all);
    expect(starts).toHaveLength(12);
    expect(starts.slice(8)).toEqual([6000, 6000, 6000, 6000]);
  });

  it('frees a place on the wire when a call fails', async () => {
    const limiter = new RateLimiter({ requests: 10, intervalMs: 1000, maxQueued: 100, maxInFlight: 1 });
    const failing = limiter.schedule('review', () => Promise.reject(new Error('no answer')));
    const next = limiter.schedule('review', () => Promise.resolve('sent'));
    await expect(failing).rejects.toThrow('no answer');
    await expect(next).resolves.toBe('sent');
  });

  it('passes calls straight through when the limit is lifted', async () => {
    const limiter = new RateLimiter({ requests: Infinity, intervalMs: 1000, maxQueued: 1 });
    const { started, add } = harness(limiter);
    await Promise.all(Array.from({ length: 50 }, () => add('lookup')));
    expect(started).toHaveLength(50);
  });
});

describe('shares: nothing starves', () => {
  it('starts 5 reviews and 1 action within their computed bounds behind 10,000 queued mute lookups', async () => {
    const requests = 100;
    const intervalMs = 60_000;
    const spanMs = guardedIntervalMs(intervalMs);
    const limiter = new RateLimiter({ requests, intervalMs, maxQueued: 10_000 });
    const { started, add, startOf } = harness(limiter);
    for (let index = 0; index < 10_000; index++) void add('lookup', `m${index}`);
    // The first 100 lookups took the whole window at t=0; the reviews and the action arrive just after.
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toHaveLength(100);
    for (let index = 1; index <= 5; index++) void add('review', `r${index}`);
    void add('action', 'a1');
    await vi.advanceTimersByTimeAsync(10 * spanMs);
    for (let index = 1; index <= 5; index++) {
      const waited = startOf(`r${index}`)! - 1;
      expect(waited).toBeLessThanOrEqual(worstCaseWaitMs('review', index, requests, spanMs));
    }
    expect(startOf('a1')! - 1).toBeLessThanOrEqual(worstCaseWaitMs('action', 1, requests, spanMs));
    // They went with the first slots that freed, not after the 9,900 lookups still waiting.
    expect(startOf('r5')).toBe(spanMs);
    expect(startOf('a1')).toBe(spanMs);
    expect(started.filter((entry) => entry.at === spanMs)).toHaveLength(100);
  });

  it('holds the bound for every review under steady mute pressure and random arrivals', async () => {
    const requests = 20;
    const intervalMs = 2000;
    const spanMs = guardedIntervalMs(intervalMs);
    const limiter = new RateLimiter({ requests, intervalMs, maxQueued: 500 });
    const { add, startOf } = harness(limiter);
    let seed = 7;
    const random = (): number => ((seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647);
    const arrivals: { label: string; at: number; position: number }[] = [];
    for (let tick = 0; tick < 600; tick++) {
      for (let index = 0; index < 5; index++) void add('lookup');
      if (random() < 0.1) {
        const label = `r${tick}`;
        arrivals.push({ label, at: Date.now(), position: limiter.waitingOf('review') + 1 });
        void add('review', label);
      }
      await vi.advanceTimersByTimeAsync(50);
    }
    await vi.advanceTimersByTimeAsync(20 * spanMs);
    expect(arrivals.length).toBeGreaterThan(30);
    for (const arrival of arrivals) {
      expect(startOf(arrival.label)! - arrival.at).toBeLessThanOrEqual(worstCaseWaitMs('review', arrival.position, requests, spanMs));
    }
  });

  it('drains 285 reviews in 10 windows under full chat load when the outbox keeps a window of reviews in flight', async () => {
    const requests = 100;
    const spanMs = guardedIntervalMs(60_000);
    const limiter = new RateLimiter({ requests, intervalMs: 60_000, maxQueued: 1000 });
    const { started, add } = harness(limiter);
    // Chat keeps 1,000 lookups waiting, topped up every second.
    const topUp = (): void => {
      while (limiter.waitingOf('lookup') < 1000) void add('lookup');
    };
    topUp();
    // An outbox with reviewConcurrency(100) sends in flight: each finished send starts the next review.
    let queued = 285;
    const sendNext = async (): Promise<void> => {
      while (queued > 0) {
        queued -= 1;
        await add('review');
      }
    };
    const outbox = Array.from({ length: reviewConcurrency(requests) }, () => sendNext());
    for (let second = 0; second < (10 * spanMs) / 1000; second++) {
      await vi.advanceTimersByTimeAsync(1000);
      topUp();
    }
    await Promise.all(outbox);
    const reviews = started.filter((entry) => entry.kind === 'review');
    expect(reviews).toHaveLength(285);
    expect(Math.max(...reviews.map((entry) => entry.at))).toBeLessThanOrEqual(worstCaseWaitMs('review', 285, requests, spanMs));
    expect(reviewConcurrency(requests)).toBe(30);
  });

  it('gives a backlog of reviews the whole budget when nobody chats, and new players their share when they do', async () => {
    const limiter = new RateLimiter({ requests: 10, intervalMs: 1000, maxQueued: 1000 });
    const { started, add } = harness(limiter);
    for (let index = 0; index < 100; index++) void add('review');
    await vi.advanceTimersByTimeAsync(0);
    expect(started.map((entry) => entry.kind)).toEqual(Array.from({ length: 10 }, () => 'review'));
    for (let index = 0; index < 100; index++) void add('lookup');
    await vi.advanceTimersByTimeAsync(guardedIntervalMs(1000));
    const second = started.slice(10).map((entry) => entry.kind);
    expect(second.filter((kind) => kind === 'lookup')).toHaveLength(7);
    expect(second.filter((kind) => kind === 'review')).toHaveLength(3);
  });
});

describe('mute lookups', () => {
  it('sends first lookups before refreshes, newest first lookup first', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 100, maxQueued: 100 });
    const { started, add } = harness(limiter);
    void add('lookup', 'busy');
    void add('refresh', 'f1');
    void add('lookup', 'l1');
    void add('refresh', 'f2');
    void add('lookup', 'l2');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(started.map((entry) => entry.label)).toEqual(['busy', 'l2', 'l1', 'f1', 'f2']);
  });

  it('makes the oldest waiting lookup give way when the mute queue is full, refreshes first', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 60_000, maxQueued: 3 });
    const { started, refused, add } = harness(limiter);
    void add('lookup', 'busy');
    void add('refresh', 'f1');
    void add('lookup', 'l1');
    void add('lookup', 'l2');
    void add('lookup', 'l3');
    void add('lookup', 'l4');
    void add('refresh', 'f2');
    await vi.advanceTimersByTimeAsync(0);
    expect(refused.map((entry) => entry.label)).toEqual(['f1', 'l1', 'f2']);
    for (const { error } of refused) {
      expect(error).toBeInstanceOf(QueueFullError);
      expect((error as GsaError).code).toBe('rate_limited');
    }
    expect((refused[1]!.error as Error).message).toMatch(/newer lookups took its place; nothing was sent/);
    expect((refused[2]!.error as Error).message).toMatch(/cached answer stays in use/);
    await vi.advanceTimersByTimeAsync(3 * guardedIntervalMs(60_000));
    expect(started.map((entry) => entry.label)).toEqual(['busy', 'l4', 'l3', 'l2']);
  });

  it('never refuses a review or an action because mute lookups filled their queue', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 60_000, maxQueued: 2 });
    const { started, refused, add } = harness(limiter);
    for (let index = 0; index < 50; index++) void add('lookup');
    void add('review', 'review');
    void add('action', 'action');
    await vi.advanceTimersByTimeAsync(4 * guardedIntervalMs(60_000));
    expect(refused.map((entry) => entry.kind)).toEqual(Array.from({ length: 47 }, () => 'lookup'));
    // Places of the cycle: mute review mute mute review(empty) mute(empty) action.
    expect(started.map((entry) => entry.label)).toEqual(['lookup', 'review', 'lookup', 'lookup', 'action']);
  });

  it('refuses a new review at once when the review queue itself is full', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 60_000, maxQueued: 2 });
    const { refused, add } = harness(limiter);
    for (let index = 0; index < 4; index++) void add('review', `r${index}`);
    await vi.advanceTimersByTimeAsync(0);
    expect(refused.map((entry) => entry.label)).toEqual(['r3']);
    expect((refused[0]!.error as Error).message).toMatch(/2 reviews waiting/);
  });
});

describe('a wall clock set back', () => {
  it('stalls neither the window nor a hold for as long as the step', async () => {
    let offset = 0;
    const clock = { now: () => Date.now() + offset };
    const limiter = new RateLimiter({ requests: 2, intervalMs: 1000, maxQueued: 10 }, clock);
    const { started, add } = harness(limiter);
    void add('review');
    void add('review');
    limiter.holdFor(5000);
    void add('review');
    offset = -3_600_000;
    // The step is noticed when the hold's timer fires; the time since the last reading before it is waited again,
    // once: at most one more hold, never the hour.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(started).toHaveLength(3);
  });
});

describe('holds', () => {
  it('starts nothing until a hold has passed', async () => {
    const limiter = new RateLimiter({ requests: 100, intervalMs: 1000, maxQueued: 10 });
    const { started, add } = harness(limiter);
    limiter.holdFor(60_000);
    void add('review');
    await vi.advanceTimersByTimeAsync(59_999);
    expect(started).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toHaveLength(1);
  });

  it('never lets a huge hold overflow the timer into "at once"', async () => {
    const warnings: unknown[] = [];
    const onWarning = (warning: unknown): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const limiter = new RateLimiter({ requests: 100, intervalMs: 1000, maxQueued: 10 });
      const { started, add } = harness(limiter);
      limiter.holdFor(2 ** 40);
      void add('lookup');
      await vi.advanceTimersByTimeAsync(10_000);
      expect(started).toHaveLength(0);
      limiter.close();
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('refuses what still waits on close, with rate_limited and nothing sent', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 60_000, maxQueued: 10 });
    const { started, refused, add } = harness(limiter);
    void add('lookup');
    void add('review');
    limiter.close();
    void add('action');
    await vi.advanceTimersByTimeAsync(0);
    expect(started).toHaveLength(1);
    expect(refused.map((entry) => [entry.kind, (entry.error as GsaError).code])).toEqual([
      ['review', 'rate_limited'],
      ['action', 'rate_limited'],
    ]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
