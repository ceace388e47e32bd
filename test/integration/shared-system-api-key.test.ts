// The System API key shared across sidecars on one Redis: its own budget and its cooldowns under a hash of the key
// (never the key, never the mod API key's names), and a game server's 60 s seen by a second sidecar before it calls.
import { afterEach, expect, it } from 'vitest';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { SharedSystemApiKey, SystemApiClient, systemKeyName } from '../../src/gsa/index.js';
import { sharedKeyName } from '../../src/gsa/redis/sharedKeyName.js';
import { failureOf } from '../fixtures/failureOf.js';
import { describeWithRedis, startRedis, type PrivateRedis } from '../fixtures/redisServer.js';

const KEY = 'shared-system-key-Qw3';
const PREFIX = 'gsa-bridge';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function sidecar(redis: PrivateRedis, emulator: GsaEmulator): SystemApiClient {
  const shared = new SharedSystemApiKey({ url: redis.url, prefix: PREFIX, nodes: 2, requests: 100, intervalMs: 60_000, key: KEY });
  const client = new SystemApiClient({ baseUrl: emulator.url, key: KEY, budget: shared.budget, cooldowns: shared.cooldowns, retry: { retries: 0 } });
  cleanup.push(async () => {
    await client.close();
    await shared.close();
  });
  return client;
}

describeWithRedis('a System API key shared on Redis', () => {
  it("a second sidecar sees the first one's broadcast: its call would wait 61 s, so a short deadline fails up front with when", async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.stop());
    const emulator = await GsaEmulator.start({ systemKey: KEY });
    cleanup.push(() => emulator.close());
    const first = sidecar(redis, emulator);
    const second = sidecar(redis, emulator);

    const before = Date.now();
    await first.broadcast(4711, 'hello');
    const freeAt = (await second.serverFreeAt(4711)) ?? 0;
    expect(freeAt).toBeGreaterThan(before + 55_000);
    expect(freeAt).toBeLessThan(Date.now() + 62_000);
    expect(await second.serverFreeAt(4712)).toBeUndefined();

    const error = await failureOf(second.serverAction(4711, 'restart', {}, { signal: AbortSignal.timeout(300) }));
    expect(error).toMatchObject({ code: 'cooldown', maybeProcessed: false });
    expect(emulator.systemActions().map((record) => record.action)).toEqual(['broadcast']);

    const names = (await redis.command('KEYS', '*')).split(/\r?\n/);
    const own = sharedKeyName(PREFIX, systemKeyName(KEY));
    expect(names.some((name) => name.includes(own))).toBe(true);
    expect(names.some((name) => name.includes(sharedKeyName(PREFIX, KEY)))).toBe(false);
    for (const name of names) expect(name).not.toContain(KEY);
  });
});
