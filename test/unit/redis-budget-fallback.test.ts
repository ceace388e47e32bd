// The shared budget's local fallback, without any Redis: the share each sidecar keeps (floor(requests / nodes)),
// the one warning line that names the Redis by host, port and database only (never its password), and the options
// refused with a message naming what is wrong. The URL points at a port nothing listens on.
import { afterEach, describe, expect, it } from 'vitest';
import { RedisBudget, fallbackShare } from '../../src/gsa/budget/shared/redisBudget.js';
import { redisLabel } from '../../src/gsa/redis/sharedRedis.js';
import { captureLogger, type LogLine } from '../fixtures/capturedLogLines.js';
import { unclaimedPort } from '../fixtures/ports.js';

const LOOKUP = { lookup: 1, refresh: 0, review: 0, action: 0 };

const budgets: RedisBudget[] = [];
afterEach(async () => {
  for (const budget of budgets.splice(0)) await budget.close();
});

describe('the fallback share', () => {
  it('is floor(requests / nodes), at least 1', () => {
    expect(fallbackShare(20, 3)).toBe(6);
    expect(fallbackShare(100, 3)).toBe(33);
    expect(fallbackShare(100, 1)).toBe(100);
    expect(fallbackShare(3, 3)).toBe(1);
  });

  it('labels a Redis URL by host, port and database only', () => {
    expect(redisLabel('redis://:hunter2-pw@10.0.0.5:6380/2')).toBe('redis://10.0.0.5:6380/2');
    expect(redisLabel('rediss://user:pw@cache.example')).toBe('rediss://cache.example:6379/0');
  });

  it('refuses bad options with a message naming what is wrong', () => {
    const base = { url: 'redis://127.0.0.1:1/0', prefix: 'p', clientId: 'c', nodes: 3, requests: 20, intervalMs: 1000 };
    expect(() => new RedisBudget({ ...base, nodes: 0 })).toThrow(/nodes must be a whole number of 1 or more, got 0/);
    expect(() => new RedisBudget({ ...base, nodes: 21 })).toThrow(/nodes \(21\) must not be greater than requests \(20\)/);
    expect(() => new RedisBudget({ ...base, requests: 1.5 })).toThrow(/requests must be a whole number of 1 or more, got 1.5/);
    expect(() => new RedisBudget({ ...base, intervalMs: -1 })).toThrow(/intervalMs must be a positive number of ms, got -1/);
    expect(() => new RedisBudget({ ...base, url: 'http://x' })).toThrow(/the shared budget's Redis URL must start with redis:\/\/ or rediss:\/\//);
  });

  it('keeps floor(R/N) starts a window when Redis cannot be reached, with one warning line and no password', async () => {
    const port = await unclaimedPort();
    const lines: LogLine[] = [];
    const changes: boolean[] = [];
    let now = 5_000;
    const budget = new RedisBudget({
      url: `redis://:hunter2-pw@127.0.0.1:${port}/0`,
      prefix: 'gsa-bridge',
      clientId: 'client-1',
      nodes: 3,
      requests: 20,
      intervalMs: 1000,
      logger: captureLogger(lines),
      clock: { now: () => now },
      onSharedChange: (shared) => changes.push(shared),
    });
    budgets.push(budget);
    let started = 0;
    for (let ask = 0; ask < 10; ask++) {
      const decision = await budget.decide(LOOKUP);
      if (decision.start !== undefined) started += 1;
    }
    expect(started).toBe(6);
    expect(budget.shared).toBe(false);
    // What gsa_bridge_budget_window_free shows on the fallback: its own share, spent.
    expect(budget.freeStarts).toBe(0);
    expect(changes).toEqual([false]);
    const warnings = lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(
      new RegExp(
        `^shared API budget: Redis at redis://127\\.0\\.0\\.1:${port}/0 cannot be reached \\(.+\\); this sidecar keeps floor\\(20/3\\) = 6 calls per window on its own until it is back$`,
      ),
    );
    expect(JSON.stringify(lines)).not.toContain('hunter2');
    // One window later (on the injected clock) the fallback window has room again: it is a window, not a quota.
    now += 1025;
    expect(budget.freeStarts).toBe(6);
    expect((await budget.decide(LOOKUP)).start).toBe('lookup');
    expect(budget.freeStarts).toBe(5);
  });
});
