// The shared budget when Redis holds what an honest sidecar never wrote: a hold from a sidecar with a day-long cap, a
// co-tenant's forged hold and claims, a wipe (FLUSHALL) under load, a clock stepped back, sidecars whose windows
// differ. Whatever Redis holds, a sidecar never waits longer than its own caps, a hold that ends or is removed lets
// the waiting calls go, and a wiped window is rebuilt from each sidecar's own starts before it is trusted again.
// Everything runs against a private redis-server; the co-tenant is this test writing under the same prefix.
import { afterEach, expect, it } from 'vitest';
import type { ApiBudget, BudgetDecision } from '../../src/gsa/budget/apiBudget.js';
import type { CallKind } from '../../src/gsa/budget/budgetShares.js';
import { RateLimiter } from '../../src/gsa/budget/rateLimiter.js';
import { DEMAND_GRACE_MS, HOLD_RECHECK_MS, LATE_GRANT_MS, RedisBudget, REBUILD_GRACE_MS, type RedisBudgetOptions } from '../../src/gsa/budget/shared/redisBudget.js';
import { sharedKeyName } from '../../src/gsa/redis/sharedKeyName.js';
import { guardedIntervalMs } from '../../src/gsa/budget/slidingWindow.js';
import { captureLogger, type LogLine } from '../fixtures/capturedLogLines.js';
import { describeWithRedis, startRedis, type PrivateRedis } from '../fixtures/redisServer.js';
import { bulkStrings, integer, trusted, until, waitingOf } from '../fixtures/sharedBudgetProbes.js';

const PREFIX = 'gsa-bridge-hostile';
const CLIENT_ID = 'client-id-hostile';
const KEY = sharedKeyName(PREFIX, CLIENT_ID);
const DAY_MS = 86_400_000;
const TEN_YEARS_MS = 10 * 365 * DAY_MS;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Redis's own clock, in ms (what the scripts call now). */
async function redisNow(redis: PrivateRedis): Promise<number> {
  const parts = (await redis.command('TIME')).split('\r\n').filter((part) => /^\d+$/.test(part));
  return Number(parts[0]) * 1000 + Math.floor(Number(parts[1]) / 1000);
}

interface Node {
  readonly budget: RedisBudget;
  readonly lines: LogLine[];
}

function node(redis: PrivateRedis, nodeId: string, options: Partial<RedisBudgetOptions> = {}): Node {
  const lines: LogLine[] = [];
  const budget = new RedisBudget({
    url: redis.url,
    prefix: PREFIX,
    clientId: CLIENT_ID,
    nodes: 3,
    requests: 20,
    intervalMs: 1000,
    maxHoldMs: 10_000,
    nodeId,
    logger: captureLogger(lines),
    ...options,
  });
  cleanup.push(() => budget.close());
  return { budget, lines };
}

function limiterOf(budget: RedisBudget, requests = 20, intervalMs = 1000): RateLimiter {
  const limiter = new RateLimiter({ requests, intervalMs, maxQueued: 1000 }, undefined, budget);
  cleanup.push(() => limiter.close());
  return limiter;
}

async function startRedisForTest(): Promise<PrivateRedis> {
  const redis = await startRedis();
  cleanup.push(() => redis.stop());
  return redis;
}

function warnings(lines: readonly LogLine[]): string[] {
  return lines.filter((line) => line.level === 'warn').map((line) => line.message);
}

/** The most of `times` in any half-open interval of `spanMs`. */
function mostInAnySpan(times: readonly number[], spanMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last++) {
    while ((sorted[first] ?? 0) + spanMs <= (sorted[last] ?? 0)) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describeWithRedis('the shared budget against a hostile or wiped Redis', () => {
  it("does not hold a sidecar past its own cap for a hold another sidecar's larger cap wrote, and says so once", async () => {
    const redis = await startRedisForTest();
    // The ordinary config: one sidecar may honour a Retry-After of up to 24.8 days, the others 10 s.
    const patient = node(redis, 'patient00001', { maxHoldMs: 2_147_483_647 });
    const others = [node(redis, 'other0000001'), node(redis, 'other0000002')];
    await trusted(patient, ...others);
    // GSA told the patient one to wait a day: it waits, and writes the hold to Redis.
    patient.budget.holdFor(DAY_MS);
    await until(async () => integer(await redis.command('EXISTS', `${KEY}:hold`)) === 1, 'the hold is in Redis');
    expect((await patient.budget.decide(waitingOf('lookup'))).waitMs).toBeGreaterThan(DAY_MS - 60_000);
    for (const other of others) {
      // A day is beyond a 10 s cap: not believed. Calls go on, and keep going (one line, not one per decision).
      for (let call = 0; call < 3; call++) expect((await other.budget.decide(waitingOf('review'))).start).toBe('review');
      expect(other.budget.heldForMs).toBe(0);
      const lines = warnings(other.lines);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("a Retry-After hold in Redis ends later than this sidecar's own cap (api.retry.maxRetryAfterMs) allows: it is not believed here");
    }
  });

  it('keeps the longer hold in Redis when a shorter Retry-After comes after it', async () => {
    const redis = await startRedisForTest();
    const long = node(redis, 'long00000001', { maxHoldMs: 60_000 });
    const short = node(redis, 'short0000001', { maxHoldMs: 60_000 });
    const asker = node(redis, 'asker0000001', { maxHoldMs: 60_000 });
    await trusted(long, short, asker);
    long.budget.holdFor(30_000);
    await until(async () => integer(await redis.command('PTTL', `${KEY}:hold`)) > 20_000, 'the long hold is in Redis');
    short.budget.holdFor(2000);
    // The short one's script has had time to run: the key still ends 30 s out.
    await sleep(300);
    expect(integer(await redis.command('PTTL', `${KEY}:hold`))).toBeGreaterThan(20_000);
    expect((await asker.budget.decide(waitingOf('action'))).start).toBeUndefined();
    expect(asker.budget.heldForMs).toBeGreaterThan(20_000);
    // And in the sidecar that was told both.
    long.budget.holdFor(2000);
    expect(long.budget.heldForMs).toBeGreaterThan(20_000);
  });

  it("keeps nothing stalled by a co-tenant's hold 10 years ahead, then deleted", async () => {
    const redis = await startRedisForTest();
    const victim = node(redis, 'victim000001');
    await trusted(victim);
    const limiter = limiterOf(victim.budget);
    expect(await redis.command('SET', `${KEY}:hold`, String((await redisNow(redis)) + TEN_YEARS_MS))).toBe('+OK\r\n');
    // Lookups, a review and an action all go while the forged hold is there.
    await Promise.all([
      ...Array.from({ length: 4 }, () => limiter.schedule('lookup', () => Promise.resolve())),
      limiter.schedule('review', () => Promise.resolve()),
      limiter.schedule('action', () => Promise.resolve()),
    ]);
    expect(victim.budget.heldForMs).toBe(0);
    expect(await redis.command('DEL', `${KEY}:hold`)).toBe(':1\r\n');
    await Promise.all(Array.from({ length: 4 }, () => limiter.schedule('lookup', () => Promise.resolve())));
    expect(warnings(victim.lines)).toHaveLength(1);
  });

  it('lets every waiting call go when a hold within the cap is removed, without waiting for its end', async () => {
    const redis = await startRedisForTest();
    const waiter = node(redis, 'waiter000001', { maxHoldMs: 60_000 });
    await trusted(waiter);
    const limiter = limiterOf(waiter.budget);
    // A 40 s hold, believable under a 60 s cap (a sidecar was told to wait; or a co-tenant wrote it).
    expect(await redis.command('SET', `${KEY}:hold`, String((await redisNow(redis)) + 40_000), 'PX', '40000')).toBe('+OK\r\n');
    const started: number[] = [];
    const calls = (['lookup', 'lookup', 'review', 'action', 'refresh'] as const).map((kind) =>
      limiter.schedule(kind, () => {
        started.push(performance.now());
        return Promise.resolve();
      }),
    );
    await until(() => waiter.budget.heldForMs > 30_000, 'the hold is seen');
    await sleep(200);
    expect(started).toEqual([]);
    const removedAt = performance.now();
    expect(await redis.command('DEL', `${KEY}:hold`)).toBe(':1\r\n');
    await Promise.all(calls);
    // Every call started after the removal, within the recheck (with room for a busy machine), not 40 s later.
    expect(Math.min(...started)).toBeGreaterThanOrEqual(removedAt);
    expect(Math.max(...started) - removedAt).toBeLessThan(HOLD_RECHECK_MS + 10_000);
    expect(waiter.budget.heldForMs).toBe(0);
  });

  it('lets every waiting call go together when a hold ends', async () => {
    const redis = await startRedisForTest();
    const told = node(redis, 'told00000001');
    const waiter = node(redis, 'waiter000002');
    await trusted(told, waiter);
    // The waiter's limiter asks through a recorder: every decision it got, in order.
    const decisions: BudgetDecision[] = [];
    const recorded: ApiBudget = {
      decide: async (waiting) => {
        const decision = await waiter.budget.decide(waiting);
        decisions.push(decision);
        return decision;
      },
      holdFor: (ms) => {
        waiter.budget.holdFor(ms);
      },
      observeServiceCount: (limit, remaining, unseen) => {
        waiter.budget.observeServiceCount(limit, remaining, unseen);
      },
      get heldForMs() {
        return waiter.budget.heldForMs;
      },
      close: () => waiter.budget.close(),
    };
    const limiter = new RateLimiter({ requests: 20, intervalMs: 1000, maxQueued: 1000 }, undefined, recorded);
    cleanup.push(() => limiter.close());
    told.budget.holdFor(2000);
    await until(async () => integer(await redis.command('EXISTS', `${KEY}:hold`)) === 1, 'the hold is in Redis');
    const kinds: CallKind[] = ['lookup', 'review', 'action', 'refresh', 'lookup', 'review'];
    await Promise.all(kinds.map((kind) => limiter.schedule(kind, () => Promise.resolve())));
    expect(integer(await redis.command('EXISTS', `${KEY}:hold`))).toBe(0);
    // Held first (looked at again each recheck), then one burst: once the first call went, no decision said "wait".
    const firstStart = decisions.findIndex((decision) => decision.start !== undefined);
    expect(decisions.slice(0, firstStart).every((decision) => (decision.waitMs ?? 0) <= HOLD_RECHECK_MS)).toBe(true);
    expect(decisions.slice(firstStart).map((decision) => decision.start)).toEqual(expect.arrayContaining(kinds));
    expect(decisions.slice(firstStart).filter((decision) => (decision.waitMs ?? 0) > 0)).toEqual([]);
  });

  it("removes a co-tenant's claim that lives 10 years: no class of the key stalls on it", async () => {
    const redis = await startRedisForTest();
    const victim = node(redis, 'victim000002');
    await trusted(victim);
    const limiter = limiterOf(victim.budget);
    const now = await redisNow(redis);
    // Claims on every class by a sidecar that will never ask: an honest claim lapses a span and a grace after its wait.
    for (const kind of ['lookup', 'review', 'action'] as const) {
      expect(await redis.command('HSET', `${KEY}:demand`, `ghost:${kind}`, String(now + TEN_YEARS_MS))).toBe(':1\r\n');
    }
    // 15 lookups walk past the review and action places of the cycle more than once.
    await Promise.all(Array.from({ length: 15 }, () => limiter.schedule('lookup', () => Promise.resolve())));
    expect(await redis.command('HKEYS', `${KEY}:demand`)).not.toContain('ghost');
    const lines = warnings(victim.lines);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("a sidecar's claim on a class of calls in Redis lives longer than any sidecar's can, or is unreadable: it was removed");
  });

  it("keeps a waiting node's claim for its whole wait, longer than the grace", async () => {
    const redis = await startRedisForTest();
    // A 3 s window: a wait for it to free is longer than the 1 s grace a claim lives past its wait.
    const waiter = node(redis, 'waiter000003', { requests: 10, intervalMs: 3000 });
    await trusted(waiter);
    for (let call = 0; call < 10; call++) expect((await waiter.budget.decide(waitingOf('lookup'))).start).toBe('lookup');
    // The waiter has a review waiting and is told how long the window stays full; it does not ask again meanwhile.
    const told = await waiter.budget.decide(waitingOf('review'));
    expect(told.waitMs ?? 0).toBeGreaterThan(DEMAND_GRACE_MS);
    // Its claim lives until the window frees plus the grace: the oldest start's end of span, on Redis's clock, plus
    // 1 s (whenever the decision ran), so the others leave the review's place to it until it asks again.
    const [, oldest] = bulkStrings(await redis.command('ZRANGE', `${KEY}:window`, '0', '0', 'WITHSCORES'));
    const expiry = Number(await redis.command('HGET', `${KEY}:demand`, 'waiter000003:review').then((reply) => bulkStrings(reply)[0]));
    const spanMs = guardedIntervalMs(3000) + LATE_GRANT_MS;
    expect(expiry).toBe(Number(oldest) + spanMs + DEMAND_GRACE_MS);
  });

  it('asks Redis again at once for a kind that starts waiting while a wait on the window runs', async () => {
    const redis = await startRedisForTest();
    // A 30 s window: the limiter's timer fires only when it frees, long after the re-ask (the calls are dropped at the end).
    const waiter = node(redis, 'waiter000004', { requests: 10, intervalMs: 30_000 });
    await trusted(waiter);
    const limiter = limiterOf(waiter.budget, 10, 30_000);
    await Promise.all(Array.from({ length: 10 }, () => limiter.schedule('lookup', () => Promise.resolve())));
    // The window is full for about 30 s. A lookup asks, and an action comes while that question is on its way to
    // Redis (the same tick): the action was not part of it, so the limiter asks again once the answer is "wait".
    const waitingCalls = [limiter.schedule('lookup', () => Promise.resolve()).catch(() => undefined)];
    waitingCalls.push(limiter.schedule('action', () => Promise.resolve()).catch(() => undefined));
    await until(async () => (await redis.command('HKEYS', `${KEY}:demand`)).includes('waiter000004:action'), 'the action is claimed');
    // Then a review comes while the limiter's timer runs.
    waitingCalls.push(limiter.schedule('review', () => Promise.resolve()).catch(() => undefined));
    // The review's claim reaches Redis while the window is still full, so other sidecars leave its places to it: not
    // when the timer fires (the window frees).
    await until(async () => (await redis.command('HKEYS', `${KEY}:demand`)).includes('waiter000004:review'), 'the review is claimed');
    const [, oldest] = bulkStrings(await redis.command('ZRANGE', `${KEY}:window`, '0', '0', 'WITHSCORES'));
    expect(await redisNow(redis)).toBeLessThan(Number(oldest) + guardedIntervalMs(30_000));
    await limiter.close();
    await Promise.all(waitingCalls);
  });

  it('after R starts, keeps the next waiting at least the interval plus the late-grant margin', async () => {
    const redis = await startRedisForTest();
    const lateGrantMs = 5000;
    const counted = node(redis, 'counted00001', { requests: 5, intervalMs: 1000, lateGrantMs });
    await trusted(counted);
    const firstAt = performance.now();
    for (let call = 0; call < 5; call++) expect((await counted.budget.decide(waitingOf('lookup'))).start).toBe('lookup');
    const decision = await counted.budget.decide(waitingOf('lookup'));
    const elapsed = performance.now() - firstAt;
    expect(decision.start).toBeUndefined();
    // The window Redis keeps is the guarded interval plus the margin: 1010 + 5000 ms from the first start.
    expect(decision.waitMs ?? 0).toBeGreaterThanOrEqual(guardedIntervalMs(1000) + lateGrantMs - elapsed - 2);
  });

  it('rebuilds a wiped window (FLUSHALL under load) from every sidecar before trusting it: never more than R in any window', async () => {
    const redis = await startRedisForTest();
    const intervalMs = 2000;
    const nodes = ['wipe00000001', 'wipe00000002', 'wipe00000003'].map((id) => node(redis, id, { intervalMs }));
    await trusted(...nodes);
    const limiters = nodes.map(({ budget }) => limiterOf(budget, 20, intervalMs));
    const started: number[] = [];
    const stopping = new AbortController();
    // Each node keeps 10 lookups waiting at all times, for as long as the test runs.
    const floods = limiters.map(async (limiter) => {
      const inFlight = new Set<Promise<void>>();
      while (!stopping.signal.aborted) {
        while (inFlight.size < 10) {
          const call = limiter
            .schedule('lookup', () => {
              started.push(performance.now());
              return Promise.resolve();
            })
            .catch(() => undefined)
            .finally(() => inFlight.delete(call));
          inFlight.add(call);
        }
        await Promise.race(inFlight);
      }
    });
    await until(() => started.length >= 30, 'the flood fills the window');
    await sleep(700);
    expect(await redis.command('FLUSHALL')).toBe('+OK\r\n');
    const wipedAt = performance.now();
    await until(() => started.some((at) => at > wipedAt + intervalMs * 2), 'the flood goes on two windows past the wipe', 20_000);
    stopping.abort();
    await Promise.all(limiters.map((limiter) => limiter.close()));
    await Promise.all(floods);
    // Redis counts a start when it grants it and the call starts here at most lateGrantMs later; the shared span is
    // the guarded interval plus that margin, so no two starts a span apart in Redis are closer than intervalMs here.
    expect(mostInAnySpan(started, intervalMs)).toBeLessThanOrEqual(20);
    for (const { lines, budget } of nodes) {
      expect(budget.shared).toBe(true);
      expect(warnings(lines).filter((line) => line.includes('was wiped or rebuilt'))).toHaveLength(1);
    }
  });

  it('has an idle sidecar put its starts back within a heartbeat when the window is wiped', async () => {
    const redis = await startRedisForTest();
    // Its heartbeat (100 ms here) comes well inside the rebuild's grace even on a busy machine.
    const idle = node(redis, 'idle00000001', { intervalMs: 60_000, heartbeatMs: 100 });
    const busy = node(redis, 'busy00000001', { intervalMs: 60_000 });
    await trusted(idle, busy);
    for (let call = 0; call < 15; call++) expect((await idle.budget.decide(waitingOf('lookup'))).start).toBe('lookup');
    expect(await redis.command('FLUSHALL')).toBe('+OK\r\n');
    // The busy node finds the state gone and rebuilds it; the idle one, asking nothing, puts its 15 back by its
    // heartbeat, within the rebuild's grace: of 20, the busy node gets 5.
    const limiter = limiterOf(busy.budget, 20, 60_000);
    let granted = 0;
    const calls = Array.from({ length: 10 }, () =>
      limiter.schedule('lookup', () => {
        granted += 1;
        return Promise.resolve();
      }),
    );
    await until(() => granted >= 5, 'five calls start');
    await sleep(REBUILD_GRACE_MS);
    expect(granted).toBe(5);
    expect(integer(await redis.command('ZCARD', `${KEY}:window`))).toBe(20);
    await limiter.close();
    await Promise.allSettled(calls);
  });

  it('has a sidecar whose heartbeat has not come yet put its starts back before its next start on a rebuilt state', async () => {
    const redis = await startRedisForTest();
    // This node checks the state only when it decides (its heartbeat is a minute away).
    const slow = node(redis, 'slowbeat0001', { intervalMs: 60_000, heartbeatMs: 60_000 });
    const other = node(redis, 'other0000003', { intervalMs: 60_000 });
    await trusted(slow, other);
    for (let call = 0; call < 15; call++) expect((await slow.budget.decide(waitingOf('lookup'))).start).toBe('lookup');
    expect(await redis.command('FLUSHALL')).toBe('+OK\r\n');
    // The other node rebuilds the state under a new epoch; once its grace is over, the slow node decides.
    await other.budget.decide(waitingOf('review'));
    await until(() => other.budget.shared && !other.budget.rebuilding, 'the rebuilt state is trusted');
    expect((await slow.budget.decide(waitingOf('lookup'))).start).toBe('lookup');
    // It put its 15 back before it took its 16th: the other node gets the 4 left.
    let granted = 0;
    for (let ask = 0; ask < 10; ask++) if ((await other.budget.decide(waitingOf('lookup'))).start !== undefined) granted += 1;
    expect(granted).toBe(4);
  });

  it('bounds every wait when Redis holds times ahead of its clock (a clock stepped back on failover)', async () => {
    const redis = await startRedisForTest();
    const node1 = node(redis, 'stepped00001', { requests: 5 });
    await trusted(node1);
    const now = await redisNow(redis);
    // What a replica 10 minutes behind sees: the state made "in the future", starts in the future, a hold ending
    // in the future by more than the cap.
    await redis.command('HSET', `${KEY}:meta`, 'since', String(now + 600_000));
    for (let start = 0; start < 5; start++) await redis.command('ZADD', `${KEY}:window`, String(now + 600_000), `old:${start}`);
    // Kept long (a replica's keys carry whatever expiry they had): the starts must leave by being counted from now.
    await redis.command('PEXPIRE', `${KEY}:window`, '60000');
    await redis.command('SET', `${KEY}:hold`, String(now + 600_000 + 5000));
    const waits: number[] = [];
    const limiter = limiterOf(node1.budget, 5);
    const startedAt = performance.now();
    await until(async () => {
      const decision = await node1.budget.decide(waitingOf('lookup'));
      if (decision.waitMs !== undefined) waits.push(decision.waitMs);
      return decision.start !== undefined;
    }, 'a start', 20_000);
    // No wait beyond the longest a sidecar's own caps allow: a span, the rebuild's grace, a hold recheck.
    expect(Math.max(...waits)).toBeLessThanOrEqual(guardedIntervalMs(1000) + 250);
    // The forged starts were counted from now (they leave one span later), then the window went on.
    expect(performance.now() - startedAt).toBeLessThan(15_000);
    await limiter.schedule('review', () => Promise.resolve());
    // All of it on Redis, each finding said once: never taken for Redis being away.
    expect(node1.budget.shared).toBe(true);
    expect(warnings(node1.lines).filter((line) => line.includes('cannot be reached'))).toEqual([]);
    expect(warnings(node1.lines).filter((line) => line.includes('dated ahead of'))).toHaveLength(2);
  });

  it('does not share between sidecars whose windows differ: an error line naming both, and the local fallback', async () => {
    const redis = await startRedisForTest();
    // A long window: the first sidecar's settings stay visible in Redis (a node's entry lives a span and a grace).
    const first = node(redis, 'window000001', { requests: 20, intervalMs: 60_000, nodes: 3 });
    await trusted(first);
    const other = node(redis, 'window000002', { requests: 12, intervalMs: 60_000, nodes: 3 });
    await until(() => other.lines.some((line) => line.level === 'error'), 'the error line');
    expect(other.budget.shared).toBe(false);
    expect(first.budget.shared).toBe(true);
    const errors = other.lines.filter((line) => line.level === 'error').map((line) => line.message);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('keep 20 calls per 60000 ms among 3 sidecars, this one 12 calls per 60000 ms among 3 sidecars');
    expect(errors[0]).toContain('floor(12/3) = 4 calls per window on its own');
    // Its fallback keeps floor(12/3) = 4; its starts are not in the shared window.
    let started = 0;
    for (let ask = 0; ask < 8; ask++) if ((await other.budget.decide(waitingOf('lookup'))).start !== undefined) started += 1;
    expect(started).toBe(4);
    expect(integer(await redis.command('ZCARD', `${KEY}:window`))).toBe(0);
    // Asked again and again, it tries to share once a second and still says nothing more.
    await sleep(1200);
    await other.budget.decide(waitingOf('lookup'));
    await sleep(100);
    expect(other.lines.filter((line) => line.level === 'error')).toHaveLength(1);
    // The first sidecar stops (its settings leave the list of live sidecars): the other shares, and says so.
    await first.budget.close();
    await until(async () => {
      await other.budget.decide(waitingOf('lookup'));
      return other.budget.shared;
    }, 'the other shares');
    expect(other.lines.filter((line) => line.level === 'info').map((line) => line.message)).toEqual([
      expect.stringContaining('keep the same window as this one now; sharing the budget again'),
    ]);
  });
});
