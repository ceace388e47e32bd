// `config check --connect` beside running sidecars: a 429 is the key's budget spent (with GSA's Retry-After), not the
// network; with api.rateLimit.shared the check's call takes its place in the key's shared window in Redis, so where
// the sidecars have spent the window it is not sent at all. Against the emulator enforcing the window on arrival and
// a private redis-server.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, sharedApiKeyOptions, type BridgeConfig } from '../../src/app/config.js';
import { serviceChecks, formatCheckLine } from '../../src/cli/connectionChecks.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient, SharedApiKey } from '../../src/gsa/index.js';
import { silentLogger } from '../../src/log/logger.js';
import { describeWithRedis, startRedis, type PrivateRedis } from '../fixtures/redisServer.js';

const SERVER = 'budget-srv';
const WINDOW = { requests: 2, intervalMs: 60_000 };

let emulator: GsaEmulator;

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 78 }] });
});
afterEach(() => {
  emulator.reset();
  emulator.enforceBudget(null);
});
afterAll(async () => {
  await emulator.close();
});

function configOf(shared?: { redis: string; nodes: number }): BridgeConfig {
  return parseConfig(
    {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, rateLimit: { ...WINDOW, ...(shared === undefined ? {} : { shared }) } },
      servers: [{ name: SERVER, adapters: [] }],
    },
    {},
  );
}

/** What a running sidecar on the key does: one mute lookup per player, through `budget` when given. */
async function spendWindow(config: BridgeConfig, budget?: SharedApiKey): Promise<void> {
  const sidecarClient = new GsaClient({ baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, rateLimit: WINDOW, budget: budget?.budget });
  try {
    for (let index = 0; index < WINDOW.requests; index++) await sidecarClient.checkMuted(config.servers[0]!.name, { steamId: `7656119800000${String(index).padStart(4, '0')}` });
  } finally {
    await sidecarClient.close();
  }
}

describe('config check --connect and a spent budget', () => {
  it("a 429 says the key's budget is spent, perhaps by running sidecars, with GSA's Retry-After: not the network", async () => {
    emulator.enforceBudget(WINDOW);
    const config = configOf();
    await spendWindow(config);
    const report = await serviceChecks(config, silentLogger());
    const [credentials] = report.lines.map(formatCheckLine);
    expect(credentials).toMatch(
      /^FAIL {2}credentials: the API key's budget is spent \(429, Retry-After \d+ s\): GSA allows 2 calls per 60 s per key \(api\.rateLimit\), and they are being used, perhaps by sidecars running on this key; try again in \d+ s\. The credentials were not checked$/,
    );
    expect(credentials).not.toMatch(/network|api\.baseUrl/);
    expect(emulator.calls.map((call) => call.status)).toEqual([200, 200, 429]);
  });
});

describeWithRedis('config check --connect with api.rateLimit.shared', () => {
  let redis: PrivateRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it("takes its call through the shared window: where the sidecars spent it, nothing is sent and the line says why", async () => {
    emulator.enforceBudget(WINDOW);
    const config = configOf({ redis: redis.url, nodes: 2 });
    const settings = sharedApiKeyOptions(config)!;
    const running = new SharedApiKey({ ...settings, logger: silentLogger() });
    try {
      await spendWindow(config, running);
    } finally {
      await running.close();
    }
    expect(emulator.calls).toHaveLength(2);
    // The give-up is the test's to shorten: what it proves is that nothing reached GSA (no 429, no third call).
    const report = await serviceChecks(config, silentLogger(), { sharedPlaceWaitMs: 1500 });
    const [credentials] = report.lines.map(formatCheckLine);
    expect(credentials).toBe(
      "FAIL  credentials: not sent: the key's shared budget (2 calls per 60 s) had no place for the check within 1.5 s, so it is spent, perhaps by the 2 sidecars sharing it; try again later",
    );
    expect(emulator.calls).toHaveLength(2);
    expect(emulator.budgetReport()?.keys.map((key) => key.refused)).toEqual([0]);
  });

  it('with a place in the shared window, the check is sent and passes', async () => {
    emulator.enforceBudget(WINDOW);
    const config = configOf({ redis: redis.url, nodes: 2 });
    await redis.command('FLUSHALL');
    const report = await serviceChecks(config, silentLogger(), { sharedPlaceWaitMs: 5000 });
    expect(report.lines.map(formatCheckLine)).toEqual([`ok    credentials: accepted by ${emulator.url} (v1)`, `ok    server ${SERVER}: known to the service`]);
    expect(emulator.calls.map((call) => call.status)).toEqual([200]);
  });
});
