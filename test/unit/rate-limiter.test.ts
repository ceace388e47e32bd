// The API budget's scheduler with fake tasks and fake timers: the strict window, the guaranteed shares and their
// computed bounds, first lookups before refreshes, the per-class queues and who gives way, holds and timer limits.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { reviewConcurrency, shareCycle, worstCaseGrants, worstCaseWaitMs } from '../../src/gsa/budget/budgetShares.js';
import { GsaError, QueueFullError } from '../../src/gsa/errors.js';
import { DEFAULT_MAX_QUEUED_PER_SOURCE, guardedIntervalMs, RateLimiter, type CallKind } from '../../src/gsa/budget/rateLimiter.js';

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
  const add = (kind: CallKind, label: string = kind, source?: string): Promise<void> =>
    limiter
      .schedule(
        kind,
        () => {
          started.push({ kind, label, at: Date.now() });
          return Promise.resolve();
        },
        source,
      )
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
    // They went with the first slots that freed, not after the lookups still waiting (250 of one source, its bound).
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
    // One chat source allowed the whole mute queue, so the top-up below can fill it.
    const limiter = new RateLimiter({ requests, intervalMs: 60_000, maxQueued: 1000, maxQueuedPerSource: 1000 });
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

  it('makes each refusal without stack frames (a flood makes one per lookup), still a QueueFullError with its message', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 60_000, maxQueued: 1 });
    const { refused, add } = harness(limiter);
    for (let index = 0; index < 3; index++) void add('lookup', `l${index}`);
    await vi.advanceTimersByTimeAsync(0);
    expect(refused).toHaveLength(1);
    const error = refused[0]!.error as QueueFullError;
    expect(error).toBeInstanceOf(QueueFullError);
    expect(error).toBeInstanceOf(GsaError);
    expect(error.code).toBe('rate_limited');
    expect(error.message).toMatch(/newer lookups took its place; nothing was sent/);
    // No frame was captured: the stack is the header line alone, which a log line still reads well.
    expect(error.stack).toBe(`QueueFullError: ${error.message}`);
    // The limit is the process's own again: any other error still gets its frames.
    expect(new Error('elsewhere').stack).toMatch(/\n\s+at /);
    // A copy with a lowered Retry-After (the pipeline's cap) is made the same way.
    const copy = new QueueFullError('full', 90_000).withRetryAfterAtMost(1000);
    expect(copy).toBeInstanceOf(QueueFullError);
    expect(copy.retryAfterMs).toBe(1000);
    expect(copy.stack).toBe('QueueFullError: full');
    void limiter.close();
  });
});

describe('first lookups of many chat sources', () => {
  const FLOOD = 'ark-1/rcon-main';
  const FLOOD_2 = 'ark-2/rcon-main';
  const QUIET = 'squad-1/mod';

  /** Index in `started` of each label, from `from` on; -1 when it never started. */
  const positions = (started: readonly Started[], labels: readonly string[], from: number): number[] =>
    labels.map((label) => {
      const index = started.findIndex((entry) => entry.label === label);
      return index < 0 ? -1 : index - from;
    });

  it('starts a quiet source\'s lookups within S mute turns each while another source floods', async () => {
    // Only mute lookups wait, so every grant is a mute turn. 2 starts a second; the flood adds 40 a second.
    const limiter = new RateLimiter({ requests: 2, intervalMs: 1000, maxQueued: 1000 });
    const { started, add } = harness(limiter);
    let flooded = 0;
    const flood = (count: number): void => {
      for (let index = 0; index < count; index++) void add('lookup', `f${flooded++}`, FLOOD);
    };
    flood(300);
    await vi.advanceTimersByTimeAsync(3000);
    const admittedAt = started.length;
    for (let index = 1; index <= 3; index++) void add('lookup', `q${index}`, QUIET);
    for (let tick = 0; tick < 100; tick++) {
      flood(4);
      await vi.advanceTimersByTimeAsync(100);
    }
    // S = 2 sources waiting: the newest quiet lookup (q3) within 2 turns, the j-th newest within j·2. With only the
    // mute class waiting a turn is a grant; budgetShares' worstCaseGrants gives the bound when the other classes wait too.
    const [q1, q2, q3] = positions(started, ['q1', 'q2', 'q3'], admittedAt);
    expect(q3).toBeGreaterThanOrEqual(0);
    expect(q3).toBeLessThan(2);
    expect(q2).toBeLessThan(4);
    expect(q1).toBeLessThan(6);
    // The flood never stopped: it had lookups waiting all along, and took every other turn.
    expect(limiter.lookupsWaitingFrom(FLOOD)).toBe(DEFAULT_MAX_QUEUED_PER_SOURCE);
    const turns = started.slice(admittedAt, admittedAt + 6).map((entry) => entry.label[0]);
    expect(turns.filter((source) => source === 'q')).toHaveLength(3);
    expect(turns.join('')).not.toMatch(/qq/);
  });

  it('keeps the computed bound in grants with three sources and reviews and actions waiting too', async () => {
    const requests = 10;
    const limiter = new RateLimiter({ requests, intervalMs: 1000, maxQueued: 1000 });
    const { started, add } = harness(limiter);
    let serial = 0;
    const load = (): void => {
      for (let index = 0; index < 20; index++) void add('lookup', `a${serial++}`, FLOOD);
      for (let index = 0; index < 20; index++) void add('lookup', `b${serial++}`, FLOOD_2);
      while (limiter.waitingOf('review') < 5) void add('review', `r${serial++}`);
      while (limiter.waitingOf('action') < 2) void add('action', `x${serial++}`);
    };
    load();
    await vi.advanceTimersByTimeAsync(2100);
    const admittedAt = started.length;
    const quiet = ['q1', 'q2', 'q3', 'q4'];
    for (const label of quiet) void add('lookup', label, QUIET);
    for (let tick = 0; tick < 40; tick++) {
      load();
      await vi.advanceTimersByTimeAsync(250);
    }
    // The j-th newest quiet lookup (q4 is the newest) is started within S·j mute turns, S = 3 sources waiting, and
    // those turns come within worstCaseGrants('mute', S·j) grants of any class.
    const found = positions(started, [...quiet].reverse(), admittedAt);
    found.forEach((position, index) => {
      expect(position).toBeGreaterThanOrEqual(0);
      expect(position).toBeLessThan(worstCaseGrants('mute', 3 * (index + 1)));
    });
    // The bounds used: 6, 10, 16 and 20 grants for the newest to the oldest quiet lookup.
    expect([3, 6, 9, 12].map((turns) => worstCaseGrants('mute', turns))).toEqual([6, 10, 16, 20]);
  });

  it('bounds what one source holds: its own oldest lookups give way, never another source\'s', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 60_000, maxQueued: 100, maxQueuedPerSource: 10 });
    const { started, refused, add } = harness(limiter);
    void add('lookup', 'busy', QUIET);
    for (let index = 0; index < 5; index++) void add('lookup', `q${index}`, QUIET);
    for (let index = 0; index < 30; index++) void add('lookup', `f${index}`, FLOOD);
    await vi.advanceTimersByTimeAsync(0);
    expect(refused.map((entry) => entry.label)).toEqual(Array.from({ length: 20 }, (_, index) => `f${index}`));
    for (const { error } of refused) {
      expect(error).toBeInstanceOf(QueueFullError);
      expect((error as GsaError).code).toBe('rate_limited');
      expect((error as Error).message).toMatch(/its chat source already had 10 lookups waiting \(its own bound\).*nothing was sent/);
    }
    expect([limiter.lookupsWaitingFrom(FLOOD), limiter.lookupsWaitingFrom(QUIET), limiter.waitingOf('lookup')]).toEqual([10, 5, 15]);
    await vi.advanceTimersByTimeAsync(15 * guardedIntervalMs(60_000));
    // Turns alternate, the quiet source first (it was waiting first), each source newest first.
    expect(started.map((entry) => entry.label)).toEqual(['busy', 'q4', 'f29', 'q3', 'f28', 'q2', 'f27', 'q1', 'f26', 'q0', 'f25', 'f24', 'f23', 'f22', 'f21', 'f20']);
  });

  it('meets the total bound from the source holding the most, so a quiet source keeps its place', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 60_000, maxQueued: 12, maxQueuedPerSource: 10 });
    const { refused, add } = harness(limiter);
    void add('lookup', 'busy');
    void add('lookup', 'q0', QUIET);
    void add('lookup', 'q1', QUIET);
    for (let index = 0; index < 10; index++) void add('lookup', `f${index}`, FLOOD);
    // 12 waiting: the queue is full. A newer flood lookup displaces the flood's own oldest, not q0.
    void add('lookup', 'f10', FLOOD);
    // A third source's lookup: the flood (10 waiting) makes room, not the quiet source (2).
    void add('lookup', 'o0', FLOOD_2);
    void add('refresh', 'late-refresh', QUIET);
    await vi.advanceTimersByTimeAsync(0);
    expect(refused.map((entry) => entry.label)).toEqual(['f0', 'f1', 'late-refresh']);
    expect([limiter.lookupsWaitingFrom(QUIET), limiter.lookupsWaitingFrom(FLOOD), limiter.lookupsWaitingFrom(FLOOD_2)]).toEqual([2, 9, 1]);
    // On close every source's waiting lookups are refused, nothing sent.
    void limiter.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(refused).toHaveLength(3 + 12);
    expect(limiter.waiting).toBe(0);
  });

  it('holds a flood of 20,000 lookups from one source to its bound', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 60_000, maxQueued: 1000 });
    const { refused, add } = harness(limiter);
    for (let index = 0; index < 20_000; index++) void add('lookup', 'f', FLOOD);
    void add('lookup', 'q', QUIET);
    await vi.advanceTimersByTimeAsync(0);
    expect(limiter.waitingOf('lookup')).toBe(DEFAULT_MAX_QUEUED_PER_SOURCE + 1);
    expect(refused).toHaveLength(20_000 - 1 - DEFAULT_MAX_QUEUED_PER_SOURCE);
    expect(DEFAULT_MAX_QUEUED_PER_SOURCE).toBe(250);
    void limiter.close();
  });

  it('sends refreshes only when no first lookup of any source waits', async () => {
    const limiter = new RateLimiter({ requests: 1, intervalMs: 100, maxQueued: 100 });
    const { started, add } = harness(limiter);
    void add('lookup', 'busy', FLOOD);
    void add('refresh', 'f1', QUIET);
    void add('lookup', 'a1', FLOOD);
    void add('lookup', 'a2', FLOOD);
    void add('refresh', 'f2', FLOOD);
    void add('lookup', 'a3', FLOOD);
    void add('lookup', 'b1', QUIET);
    await vi.advanceTimersByTimeAsync(10_000);
    // b1 is the newest of all, but the flood was waiting first: its turn, then the quiet source's, then the flood's.
    expect(started.map((entry) => entry.label)).toEqual(['busy', 'a3', 'b1', 'a2', 'a1', 'f1', 'f2']);
  });

  it('refuses a per-source bound that is not a whole number of 1 or more', () => {
    expect(() => new RateLimiter({ requests: 1, intervalMs: 1000, maxQueued: 10, maxQueuedPerSource: 0 })).toThrow(/maxQueuedPerSource must be a whole number/);
    expect(() => new RateLimiter({ requests: 1, intervalMs: 1000, maxQueued: 10, maxQueuedPerSource: 2.5 })).toThrow(/maxQueuedPerSource/);
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

  it('keeps the longer hold when a shorter Retry-After comes after it', async () => {
    const limiter = new RateLimiter({ requests: 100, intervalMs: 1000, maxQueued: 10 });
    const { started, add } = harness(limiter);
    limiter.holdFor(10_000);
    limiter.holdFor(2000);
    void add('review');
    await vi.advanceTimersByTimeAsync(9999);
    expect(started).toHaveLength(0);
    expect(limiter.heldForMs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(started).toHaveLength(1);
    expect(limiter.heldForMs).toBe(0);
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
      void limiter.close();
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
    void limiter.close();
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

describe('the state the gauges read', () => {
  it('counts calls waiting per class (mute: lookups and refreshes) and the starts left in the window', async () => {
    const limiter = new RateLimiter({ requests: 3, intervalMs: 1000, maxQueued: 100 }, { now: () => Date.now() });
    const { add } = harness(limiter);
    expect(limiter.state).toEqual({ waiting: { mute: 0, review: 0, action: 0 }, windowFree: 3 });
    void add('lookup', 'a');
    await vi.advanceTimersByTimeAsync(0);
    expect(limiter.state.windowFree).toBe(2);
    for (const label of ['b', 'c', 'd']) void add('lookup', label);
    void add('refresh');
    void add('review');
    void add('action');
    await vi.advanceTimersByTimeAsync(0);
    // b and c took the window's last two starts; d and the refresh (mute), the review and the action wait.
    expect(limiter.state).toEqual({ waiting: { mute: 2, review: 1, action: 1 }, windowFree: 0 });
    await vi.advanceTimersByTimeAsync(guardedIntervalMs(1000));
    // A new window: three more started, one waits.
    const { waiting } = limiter.state;
    expect(waiting.mute + waiting.review + waiting.action).toBe(1);
    await limiter.close();
  });

  it('has room without bound when the limit is lifted', () => {
    const limiter = new RateLimiter({ requests: Infinity, intervalMs: 1000, maxQueued: 100 });
    expect(limiter.state.windowFree).toBe(Infinity);
  });
});
