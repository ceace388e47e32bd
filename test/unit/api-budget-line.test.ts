// run's start-up line about the API budget: the window and client id, local or shared (which Redis, how many sidecars,
// which prefix), the System API key's own budget when set; never the secret, the key or a Redis password.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/app/config.js';
import { describeApiBudget } from '../../src/cli/apiBudgetLine.js';

const SECRET = 'budget-line-secret-91ab';
const SYSTEM_KEY = 'budget-line-system-key-77cd';
const REDIS_PASSWORD = 'budget-line-redis-pw-3e';

function configOf(api: Record<string, unknown>): ReturnType<typeof parseConfig> {
  return parseConfig({ api: { baseUrl: 'https://api.gameserverapp.com', clientId: 'client-42', clientSecret: SECRET, ...api }, servers: [{ name: 'ovddykvbs', adapters: [] }] }, {});
}

describe('the API budget start-up line', () => {
  it('a budget of its own: the window, the client id, local to this sidecar', () => {
    expect(describeApiBudget(configOf({}))).toBe('API budget: 100 calls per 60 s for client id client-42, local to this sidecar');
  });

  it('a shared budget: the Redis with its password masked, how many sidecars, the prefix', () => {
    const line = describeApiBudget(
      configOf({ rateLimit: { requests: 90, intervalMs: 30_000, shared: { redis: `redis://:${REDIS_PASSWORD}@10.0.0.5:6380/2`, nodes: 3 } } }),
    );
    expect(line).toBe('API budget: 90 calls per 30 s for client id client-42, shared through redis://:***@10.0.0.5:6380/2 by 3 sidecars, prefix gsa-bridge');
    expect(line).not.toContain(REDIS_PASSWORD);
  });

  it("names the System API key's own budget when one is set, never the key", () => {
    const local = describeApiBudget(configOf({ system: { key: SYSTEM_KEY } }));
    expect(local).toBe('API budget: 100 calls per 60 s for client id client-42, local to this sidecar; System API key: its own 100 calls per 60 s, local to this sidecar');
    const shared = describeApiBudget(configOf({ system: { key: SYSTEM_KEY, rateLimit: { requests: 50, intervalMs: 60_000 } }, rateLimit: { shared: { redis: 'redis://127.0.0.1:6379/0', nodes: 2 } } }));
    expect(shared).toMatch(/; System API key: its own 50 calls per 60 s, shared through the same Redis$/);
    for (const line of [local, shared]) {
      expect(line).not.toContain(SYSTEM_KEY);
      expect(line).not.toContain(SECRET);
    }
  });
});
