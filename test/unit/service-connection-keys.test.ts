// What the service connection tells the gauges about its keys: each key by a hash that is also its name in Redis
// (never the client id, the secret or the System API key), a new hash after a reload that changes the key, and the
// System API key refused from a 401 until its next success, never by a 403. No request is sent: the base URL is
// never called.
import { afterEach, describe, expect, it } from 'vitest';
import { BridgeEvents } from '../../src/bridge/events.js';
import { parseConfig, type BridgeConfig } from '../../src/app/config.js';
import { ServiceConnection } from '../../src/app/serviceConnection.js';
import { SystemKeyHealth } from '../../src/app/systemKeyHealth.js';
import { planService, serviceSettingsOf } from '../../src/app/reloadPlan.js';
import { apiKeyDigest, systemKeyName, type RequestEvent } from '../../src/gsa/index.js';
import { createLogger } from '../../src/log/logger.js';

const SECRET = 'connection-keys-secret-41d7';
const SYSTEM_KEY = 'connection-keys-system-key-9e2a';

function config(clientId: string, systemKey?: string): BridgeConfig {
  return parseConfig({
    api: { baseUrl: 'http://127.0.0.1:9', clientId, clientSecret: SECRET, ...(systemKey === undefined ? {} : { system: { key: systemKey } }) },
    servers: [{ name: 'ovddykvbs', adapters: [] }],
  });
}

const lines: string[] = [];
const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } });
const connections: ServiceConnection[] = [];

afterEach(async () => {
  for (const connection of connections.splice(0)) await connection.close(() => Promise.resolve());
  lines.length = 0;
});

function systemEvent(status: number, code: RequestEvent['code']): RequestEvent {
  return { endpoint: 'system-read', target: 'players/find', status, code, message: code === undefined ? undefined : `refused (${status})`, durationMs: 3, attempt: 1 };
}

describe('ServiceConnection.apiKeys', () => {
  it('names each key by its hash only, and follows a reload that changes the client id', () => {
    const first = config('client-one', SYSTEM_KEY);
    const connection = new ServiceConnection(first, { logger, events: new BridgeEvents() });
    connections.push(connection);
    expect(connection.apiKeys).toEqual([
      { api: 'mod', key: apiKeyDigest('client-one') },
      { api: 'system', key: apiKeyDigest(systemKeyName(SYSTEM_KEY)) },
    ]);
    const text = JSON.stringify(connection.apiKeys);
    for (const secret of ['client-one', SECRET, SYSTEM_KEY]) expect(text).not.toContain(secret);
    expect(connection.apiKeys[0]?.key).toMatch(/^[0-9a-f]{16}$/);

    const next = config('client-two');
    connection.reconfigure(next, planService(serviceSettingsOf(first), serviceSettingsOf(next)), logger);
    expect(connection.apiKeys).toEqual([{ api: 'mod', key: apiKeyDigest('client-two') }]);
    expect(connection.systemKeyRefused).toBe(false);
  });
});

describe('SystemKeyHealth.refused', () => {
  it('is set by a 401 and cleared by the next 2xx; a 403 (a player or a right the key lacks) never sets it', () => {
    const health = new SystemKeyHealth(logger);
    health.observe(systemEvent(403, 'forbidden'));
    expect(health.refused).toBe(false);
    health.observe(systemEvent(401, 'unauthorized'));
    expect(health.refused).toBe(true);
    health.observe(systemEvent(404, 'not_found'));
    expect(health.refused).toBe(true);
    health.observe(systemEvent(200, undefined));
    expect(health.refused).toBe(false);
  });

  it('is a `credentials` service problem while refused, from its first 401 on, counting the 401s; none once taken', () => {
    let now = 5000;
    const health = new SystemKeyHealth(logger, { now: () => now });
    expect(health.problem).toBeUndefined();
    health.observe(systemEvent(401, 'unauthorized'));
    now = 9000;
    health.observe(systemEvent(401, 'unauthorized'));
    expect(health.problem).toEqual({ key: 'system-credentials', kind: 'credentials', message: expect.stringMatching(/^GSA refused the System API key \(401\)/) as unknown, since: 5000, failures: 2 });
    expect(JSON.stringify(health.problem)).not.toContain(SYSTEM_KEY);
    health.observe(systemEvent(200, undefined));
    expect(health.problem).toBeUndefined();
  });
});
