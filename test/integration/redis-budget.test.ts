// The API budget shared on a real, private redis-server by several RedisBudget instances (each one a "node", a
// sidecar): the window across all of them, the 6/3/1 cycle and "first lookups before refreshes" across nodes, a
// hold from one holding all, the local fallback when Redis dies and the re-seeded window when it is back, a dead
// node's claims lapsing, and what Redis is allowed to hold.
// Redis's own clock decides the shared window and cannot be faked, so assertions here count starts (read from the
// window itself) instead of timing them; local durations run on an injected clock.
import { afterEach, expect, it } from 'vitest';
import type { CallKind } from '../../src/gsa/budget/budgetShares.js';
import { RateLimiter } from '../../src/gsa/budget/rateLimiter.js';
import { HOLD_RECHECK_MS, RedisBudget, type RedisBudgetOptions } from '../../src/gsa/budget/shared/redisBudget.js';
import { sharedKeyName } from '../../src/gsa/redis/sharedKeyName.js';
import { guardedIntervalMs } from '../../src/gsa/budget/slidingWindow.js';
import { captureLogger, type LogLine } from '../fixtures/capturedLogLines.js';
import { describeWithRedis, startRedis, type PrivateRedis } from '../fixtures/redisServer.js';
import { bulkStrings, integer, trusted, until, waitingOf } from '../fixtures/sharedBudgetProbes.js';

const PREFIX = 'gsa-bridge-test';
const CLIENT_ID = 'client-id-9f3a';
const KEY = sharedKeyName(PREFIX, CLIENT_ID);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Node {
  readonly budget: RedisBudget;
  readonly lines: LogLine[];
  readonly changes: boolean[];
}

function node(redis: PrivateRedis, nodeId: string, options: Partial<RedisBudgetOptions> & { url?: string } = {}): Node {
  const lines: LogLine[] = [];
  const changes: boolean[] = [];
  const budget = new RedisBudget({
    url: redis.url,
    prefix: PREFIX,
    clientId: CLIENT_ID,
    nodes: 3,
    requests: 20,
    intervalMs: 1000,
    nodeId,
    logger: captureLogger(lines),
    onSharedChange: (shared) => changes.push(shared),
    ...options,
  });
  cleanup.push(() => budget.close());
  return { budget, lines, changes };
}

/**
 * Collects every start the window ever held (member → Redis ms), polling faster than a start can leave it (a start
 * stays at least one span), so the whole history of the shared window can be checked afterwards.
 */
function recordWindow(redis: PrivateRedis): { readonly starts: Map<string, number>; stop(): Promise<void> } {
  const starts = new Map<string, number>();
  const stopping = new AbortController();
  const read = async (): Promise<void> => {
    const pairs = bulkStrings(await redis.command('ZRANGE', `${KEY}:window`, '0', '-1', 'WITHSCORES'));
    for (let i = 0; i + 1 < pairs.length; i += 2) starts.set(pairs[i] ?? '', Number(pairs[i + 1]));
  };
  const loop = (async () => {
    while (!stopping.signal.aborted) {
      await read();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    starts,
    // One last read once the loop ended: the latest starts are in, however late a busy machine ran the last poll.
    stop: async () => {
      stopping.abort();
      await loop;
      await read();
    },
  };
}

/** The most starts in any span (a start at s counts in [s, s + span)). */
function mostInAnySpan(times: readonly number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0; i < sorted.length; i++) {
    let count = 0;
    for (let j = i; j < sorted.length && (sorted[j] ?? Infinity) < (sorted[i] ?? 0) + spanMs; j++) count += 1;
    most = Math.max(most, count);
  }
  return most;
}

/** Members of the window in start order (Redis ms, then as listed). */
function inOrder(starts: Map<string, number>): string[] {
  return [...starts.entries()].sort((a, b) => a[1] - b[1]).map(([member]) => member);
}

describeWithRedis('the API budget shared on Redis', () => {
  let redis: PrivateRedis;

  it('never lets three nodes together start more than `requests` calls in any span', async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    const nodes = ['aaaaaaaaaaaa', 'bbbbbbbbbbbb', 'cccccccccccc'].map((id) => node(redis, id));
    const window = recordWindow(redis);
    const limiters = nodes.map(({ budget }) => new RateLimiter({ requests: 20, intervalMs: 1000, maxQueued: 1000 }, undefined, budget));
    cleanup.push(async () => {
      for (const limiter of limiters) await limiter.close();
    });
    const kinds: CallKind[] = ['lookup', 'review', 'action', 'refresh'];
    const calls = limiters.flatMap((limiter, index) =>
      Array.from({ length: 20 }, (_, call) => limiter.schedule(kinds[(call + index) % kinds.length] ?? 'lookup', () => Promise.resolve(call))),
    );
    await Promise.all(calls);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await window.stop();
    expect(window.starts.size).toBe(60);
    expect(mostInAnySpan([...window.starts.values()], guardedIntervalMs(1000))).toBe(20);
    expect(nodes.every(({ budget }) => budget.shared)).toBe(true);
    expect(nodes.flatMap(({ lines }) => lines.filter((line) => line.level === 'warn'))).toEqual([]);
  });

  it("gives another node's reviews and actions their places while one node floods lookups", async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    const flooder = node(redis, 'f10000000000', { requests: 10 });
    const quiet = node(redis, 'q20000000000', { requests: 10 });
    const window = recordWindow(redis);
    const flooding = new RateLimiter({ requests: 10, intervalMs: 1000, maxQueued: 1000 }, undefined, flooder.budget);
    // The quiet node asks far less often than the flooder (one slow call at a time): its places wait for it anyway.
    const other = new RateLimiter({ requests: 10, intervalMs: 1000, maxQueued: 1000, maxInFlight: 1 }, undefined, quiet.budget);
    cleanup.push(() => flooding.close());
    cleanup.push(() => other.close());
    const slowCall = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 150));
    const quietCalls = [
      ...Array.from({ length: 6 }, () => other.schedule('review', slowCall)),
      ...Array.from({ length: 2 }, () => other.schedule('action', slowCall)),
    ];
    await until(() => flooder.budget.shared, 'the flooder shares');
    // The quiet node's claims are in Redis before the flood asks (its first review starts at once).
    await until(async () => bulkStrings(await redis.command('HKEYS', `${KEY}:demand`)).includes('q20000000000:review'), 'the claim is in Redis');
    const flood = Array.from({ length: 60 }, () => flooding.schedule('lookup', () => Promise.resolve()));
    await Promise.all(quietCalls);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const order = inOrder(window.starts);
    await window.stop();
    await flooding.close();
    await Promise.allSettled(flood);
    // The cycle has 3 review and 1 action place in every 10: 6 reviews and 2 actions are in within 20 grants,
    // whatever the other node has waiting and however often it asks (a little slack for starts in the same ms).
    const lastQuiet = Math.max(...order.map((member, index) => (member.startsWith('q2') ? index : -1)));
    expect(order.filter((member) => member.startsWith('q2'))).toHaveLength(8);
    expect(lastQuiet).toBeLessThan(22);
    expect(order.slice(0, 20).filter((member) => member.startsWith('f1')).length).toBeGreaterThanOrEqual(10);
  });

  it('starts every waiting first lookup of every node before any refresh', async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    const looker = node(redis, 'l10000000000', { requests: 5 });
    const refresher = node(redis, 'r20000000000', { requests: 5 });
    const window = recordWindow(redis);
    const lookups = new RateLimiter({ requests: 5, intervalMs: 1000, maxQueued: 1000 }, undefined, looker.budget);
    const refreshes = new RateLimiter({ requests: 5, intervalMs: 1000, maxQueued: 1000 }, undefined, refresher.budget);
    cleanup.push(() => lookups.close());
    cleanup.push(() => refreshes.close());
    const looked = Array.from({ length: 12 }, () => lookups.schedule('lookup', () => Promise.resolve()));
    // The first five lookups fill the window; the refreshes come while seven lookups still wait.
    await until(async () => integer(await redis.command('ZCARD', `${KEY}:window`)) >= 5, 'the first window filled');
    const refreshed = Array.from({ length: 5 }, () => refreshes.schedule('refresh', () => Promise.resolve()));
    await Promise.all([...looked, ...refreshed]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await window.stop();
    const order = inOrder(window.starts);
    expect(order).toHaveLength(17);
    expect(order.slice(0, 12).every((member) => member.startsWith('l1'))).toBe(true);
    expect(order.slice(12).every((member) => member.startsWith('r2'))).toBe(true);
  });

  it('holds every node when one is told to wait', async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    const told = node(redis, 'h10000000000');
    const other = node(redis, 'h20000000000');
    // Shared first (and past a new state's grace): a hold told to a node still connecting stays with that node.
    await trusted(told, other);
    expect((await other.budget.decide(waitingOf('lookup'))).start).toBe('lookup');
    const heldFrom = performance.now();
    told.budget.holdFor(5000);
    await until(async () => integer(await redis.command('EXISTS', `${KEY}:hold`)) === 1, 'the hold is in Redis');
    const held = await other.budget.decide(waitingOf('review'));
    // What is left of the hold: 5 s less the time since it was asked for (however long a busy machine took), and a
    // few ms for the two clocks.
    const sinceHeld = performance.now() - heldFrom;
    expect(held.start).toBeUndefined();
    // It looks at the hold again within HOLD_RECHECK_MS (a hold removed stops holding), and knows how long it runs.
    expect(held.waitMs).toBe(HOLD_RECHECK_MS);
    expect(other.budget.heldForMs).toBeGreaterThan(5000 - sinceHeld - 50);
    expect(other.budget.heldForMs).toBeLessThanOrEqual(5000);
    const ttl = integer(await redis.command('PTTL', `${KEY}:hold`));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5000);
  });

  it("counts the service's own count for every node", async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    const seer = node(redis, 's10000000000');
    const other = node(redis, 's20000000000');
    await trusted(seer, other);
    expect((await other.budget.decide(waitingOf('lookup'))).start).toBe('lookup');
    // The service says 3 of 20 are left: 16 starts it saw that the window does not know of.
    seer.budget.observeServiceCount(20, 3);
    await until(async () => integer(await redis.command('ZCARD', `${KEY}:window`)) === 17, 'the unknown starts are counted');
    let started = 0;
    for (let ask = 0; ask < 6; ask++) if ((await other.budget.decide(waitingOf('lookup'))).start !== undefined) started += 1;
    expect(started).toBe(3);
  });

  it("counts this node's calls the service had not seen yet when it answered (unseen) as taken", async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    const seer = node(redis, 'u10000000000');
    await until(() => seer.budget.shared, 'the node shares');
    // 10 of 20 left, but 4 of this node's calls were still on their way: only 6 are really left.
    seer.budget.observeServiceCount(20, 10, 4);
    await until(async () => integer(await redis.command('ZCARD', `${KEY}:window`)) === 14, 'the unseen calls are counted', 5000);
  });

  it('falls back to floor(R/N) on each node when Redis dies, and shares a re-seeded window when it is back', async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    // A long window and a frozen local clock: nothing leaves any window while the test runs.
    const clock = { now: () => 1_000_000 };
    const nodes = ['k10000000000', 'k20000000000', 'k30000000000'].map((id) => node(redis, id, { intervalMs: 60_000, clock }));
    // Shared first: a node still connecting decides on its local floor(20/3) = 6, and its 7th start would wait.
    await trusted(...nodes);
    const taken = [8, 8, 4];
    for (const [index, { budget }] of nodes.entries()) {
      for (let call = 0; call < (taken[index] ?? 0); call++) expect((await budget.decide(waitingOf('lookup'))).start).toBe('lookup');
    }
    expect((await nodes[0]?.budget.decide(waitingOf('lookup')))?.waitMs).toBeGreaterThan(0);
    await redis.kill();
    // Each node keeps floor(20/3) = 6 a window, counting what it already started: 8 and 8 get none, 4 gets 2.
    const fallbackStarts: number[] = [];
    for (const { budget } of nodes) {
      let started = 0;
      for (let ask = 0; ask < 10; ask++) if ((await budget.decide(waitingOf('lookup'))).start !== undefined) started += 1;
      fallbackStarts.push(started);
    }
    expect(fallbackStarts).toEqual([0, 0, 2]);
    // The bound on a span that straddles the loss: R + (N - 1) · floor(R/N).
    expect(20 + fallbackStarts.reduce((sum, started) => sum + started, 0)).toBeLessThanOrEqual(20 + 2 * 6);
    for (const { budget, lines, changes } of nodes) {
      expect(budget.shared).toBe(false);
      expect(changes).toEqual([true, false]);
      const warnings = lines.filter((line) => line.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toContain(`shared API budget: Redis at ${redis.url} cannot be reached (`);
      expect(warnings[0]?.message).toContain('this sidecar keeps floor(20/3) = 6 calls per window on its own until it is back');
    }
    await redis.restart();
    await until(() => nodes.every(({ budget }) => budget.shared), 'every node shares again');
    for (const { lines, changes } of nodes) {
      expect(changes).toEqual([true, false, true]);
      expect(lines.filter((line) => line.level === 'info' && line.message === `shared API budget: Redis at ${redis.url} is back; sharing the budget again`)).toHaveLength(1);
      expect(lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    }
    // The new Redis knows every start of the last window again (8 + 8 + 6 = 22): nobody starts until some leave.
    expect(integer(await redis.command('ZCARD', `${KEY}:window`))).toBe(22);
    for (const { budget } of nodes) expect((await budget.decide(waitingOf('review'))).waitMs).toBeGreaterThan(0);
  });

  it('starts on its fallback when Redis is down at start, and shares once it comes up', async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    await redis.kill();
    const late = node(redis, 'g10000000000', { clock: { now: () => 7_000 } });
    let started = 0;
    for (let ask = 0; ask < 8; ask++) if ((await late.budget.decide(waitingOf('lookup'))).start !== undefined) started += 1;
    expect(started).toBe(6);
    expect(late.budget.shared).toBe(false);
    expect(late.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    await redis.restart();
    await until(() => late.budget.shared, 'the node shares');
    expect(late.changes).toEqual([false, true]);
    // Its six fallback starts are in the shared window.
    expect(integer(await redis.command('ZCARD', `${KEY}:window`))).toBe(6);
  });

  it('does not wait on a stalled Redis: it decides on its fallback after answerTimeoutMs, and shares again once Redis answers', async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    const stalled = node(redis, 't10000000000');
    await trusted(stalled);
    // Redis holds every client's commands for 3 s; the connection stays up (no error, no reconnect).
    expect(await redis.command('CLIENT', 'PAUSE', '3000', 'ALL')).toBe('+OK\r\n');
    expect((await stalled.budget.decide(waitingOf('lookup'))).start).toBe('lookup');
    expect(stalled.budget.shared).toBe(false);
    const warnings = stalled.lines.filter((line) => line.level === 'warn');
    expect(warnings.map((line) => line.message)).toEqual([
      `shared API budget: Redis at ${redis.url} cannot be reached (no answer within 250 ms); this sidecar keeps floor(20/3) = 6 calls per window on its own until it is back`,
    ]);
    // Asked again now and then, it tries Redis once a second and shares again when the pause is over.
    await until(async () => {
      await stalled.budget.decide(waitingOf('refresh'));
      return stalled.budget.shared;
    }, 'the node shares again');
    expect(stalled.changes).toEqual([true, false, true]);
    expect(stalled.lines.filter((line) => line.level === 'info').map((line) => line.message)).toEqual([`shared API budget: Redis at ${redis.url} is back; sharing the budget again`]);
  });

  it("lets a dead node's claim lapse: the others get its places after the grace", async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    const dying = node(redis, 'd10000000000', { requests: 3 });
    const living = node(redis, 'd20000000000', { requests: 3 });
    await trusted(dying, living);
    // The dying node has reviews waiting (its claim on the review places), starts one, and is gone.
    expect((await dying.budget.decide(waitingOf('review', 5))).start).toBe('review');
    await dying.budget.close();
    expect(bulkStrings(await redis.command('HKEYS', `${KEY}:demand`))).toContain('d10000000000:review');
    const limiter = new RateLimiter({ requests: 3, intervalMs: 1000, maxQueued: 1000 }, undefined, living.budget);
    cleanup.push(() => limiter.close());
    // Nine lookups walk the cycle through review places more than once: they all start, so the claim lapsed.
    await Promise.all(Array.from({ length: 9 }, () => limiter.schedule('lookup', () => Promise.resolve())));
    expect(bulkStrings(await redis.command('HKEYS', `${KEY}:demand`))).not.toContain('d10000000000:review');
  });

  it('keeps only counters and holds under the hashed key name, every one expiring, and never logs the password', async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    expect(await redis.command('CONFIG', 'SET', 'requirepass', 'pw-7c1e-secret')).toBe('+OK\r\n');
    const url = `redis://:pw-7c1e-secret@127.0.0.1:${redis.port}/0`;
    const one = node(redis, 'p10000000000', { url });
    const two = node(redis, 'p20000000000', { url });
    await trusted(one, two);
    expect((await one.budget.decide(waitingOf('lookup'))).start).toBe('lookup');
    expect((await two.budget.decide({ lookup: 2, refresh: 1, review: 1, action: 1 })).start).toBeDefined();
    // Long enough to outlive a slow machine: a Redis answer later than 250 ms sends the node to its fallback, and the
    // hold then reaches Redis only with the re-seed when it shares again.
    one.budget.holdFor(60_000);
    two.budget.observeServiceCount(20, 10);
    // Read through the node's own (authenticated) connection: the fixture's plain one is refused now.
    const client = one.budget.redis;
    await until(async () => (await client.keys('*')).includes(`${KEY}:hold`), 'the hold is in Redis');
    const keys = (await client.keys('*')).sort();
    expect(keys).toEqual([`${KEY}:demand`, `${KEY}:hold`, `${KEY}:meta`, `${KEY}:nodes`, `${KEY}:place`, `${KEY}:window`]);
    for (const key of keys) {
      expect(key).not.toContain(CLIENT_ID);
      expect(await client.pTTL(key)).toBeGreaterThan(0);
    }
    await redis.kill();
    await until(() => !one.budget.shared, 'the fall back');
    expect(one.budget.redisLabel).toBe(`redis://127.0.0.1:${redis.port}/0`);
    expect(JSON.stringify([...one.lines, ...two.lines])).not.toContain('pw-7c1e');
  });
  it('tells the room it sees for gsa_bridge_budget_window_free: the key less its own starts, 0 once Redis said wait', async () => {
    redis = await startRedis();
    cleanup.push(() => redis.stop());
    const lookup = { lookup: 1, refresh: 0, review: 0, action: 0 };
    const first = node(redis, 'aaaaaaaaaaaa', { requests: 3, nodes: 1, intervalMs: 60_000 });
    const second = node(redis, 'bbbbbbbbbbbb', { requests: 3, nodes: 1, intervalMs: 60_000 });
    // Until the window is full (a start granted late is counted and not used: the loop asks again).
    let decision = await first.budget.decide(lookup);
    for (let ask = 0; ask < 20 && !(decision.waitMs !== undefined && decision.waitMs > 0); ask++) decision = await first.budget.decide(lookup);
    expect(decision.waitMs).toBeGreaterThan(0);
    expect(first.budget.shared).toBe(true);
    expect(first.budget.freeStarts).toBe(0);
    // The other sidecar's starts are in Redis, not seen here until Redis answers: an upper bound.
    expect(second.budget.freeStarts).toBe(3);
    expect((await second.budget.decide(lookup)).waitMs).toBeGreaterThan(0);
    expect(second.budget.shared).toBe(true);
    expect(second.budget.freeStarts).toBe(0);
  });
});
