// GSA's webhook spacing seen where the service sees it: arrival times at the emulator. Two restarts of one server
// sent together arrive at least 3 s apart (the service's rule, measured on arrival); a stop of that server and a
// restart of another arrive before the second restart, as nothing holds them.
import { afterEach, describe, expect, it } from 'vitest';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient } from '../../src/gsa/index.js';
import { GSA_WEBHOOK_SPACING_MS } from '../../src/gsa/spacing/webhookSpacing.js';

const SECRET = 'webhook-spacing-secret-42';
let emulator: GsaEmulator | undefined;
let client: GsaClient | undefined;

afterEach(async () => {
  await client?.close();
  await emulator?.close();
  client = undefined;
  emulator = undefined;
});

describe('webhook spacing at the emulator', () => {
  it('two restarts of one server arrive at least 3 s apart; other webhooks are not held', async () => {
    emulator = await GsaEmulator.start({ clientSecret: SECRET, servers: [{ name: 'ovddykvbs', id: 4711 }, { name: 'second', id: 4712 }] });
    client = new GsaClient({ baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: SECRET });
    const results = await Promise.all([client.restart(4711), client.restart(4711), client.stop(4711), client.restart(4712)]);
    expect(results.map((result) => result.status)).toEqual([200, 200, 200, 200]);

    const webhooks = emulator.calls.filter((call) => call.endpoint === 'webhook');
    const arrivals = (path: string): number[] => webhooks.filter((call) => call.path === path).map((call) => call.at);
    const restarts = arrivals('/api/v1/server/4711/restart');
    expect(restarts).toHaveLength(2);
    const [first = 0, second = 0] = restarts;
    expect(second - first).toBeGreaterThanOrEqual(GSA_WEBHOOK_SPACING_MS);
    // In arrival order: the stop and the other server's restart came before the second restart.
    const order = webhooks.map((call) => call.path);
    expect(order.indexOf('/api/v1/server/4711/stop')).toBeLessThan(order.lastIndexOf('/api/v1/server/4711/restart'));
    expect(order.indexOf('/api/v1/server/4712/restart')).toBeLessThan(order.lastIndexOf('/api/v1/server/4711/restart'));
  });
});
