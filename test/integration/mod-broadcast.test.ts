// A mod's broadcast and its in-game notices through GSA's System API: `server.action` with action `broadcast` and a
// `message` reaches POST /system-api/v2/gameserver/{id}/broadcast when the host allowed it and set a System API key;
// without the key it is refused `forbidden` and nothing is sent; a broadcast without its text is a bad message.
// Real emulator, real sidecar, real WebSocket mod.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import { parseConfig, type BridgeConfig } from '../../src/app/config.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { silentLogger } from '../../src/log/logger.js';
import { startSidecar, type Sidecar } from '../../src/sidecar.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'alpha';
const SERVER_ID = 31;
const TOKEN = 'broadcast-token';

let emulator: GsaEmulator;
const sidecars: Sidecar[] = [];
const sockets: ModSocket[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: SERVER_ID }] });
});
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  await Promise.all(sidecars.splice(0).map((sidecar) => sidecar.stop()));
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

async function configOf(system: boolean, allowActions: string[]): Promise<BridgeConfig> {
  return parseConfig(
    {
      api: {
        baseUrl: emulator.url,
        clientId: emulator.clientId,
        clientSecret: emulator.clientSecret,
        retry: { retries: 0, minDelayMs: 1, maxDelayMs: 2 },
        ...(system ? { system: { key: emulator.systemKey } } : {}),
      },
      servers: [{ name: SERVER, id: SERVER_ID, allowActions, adapters: [{ type: 'websocket', id: 'mod', port: 0, token: TOKEN }] }],
      reviews: { dataDir: await tempDir('broadcast') },
    },
    {},
  );
}

async function connect(config: BridgeConfig): Promise<ModSocket> {
  const sidecar = await startSidecar(config, { logger: silentLogger() });
  sidecars.push(sidecar);
  const adapter = sidecar.listAdapters()[0]?.adapter;
  if (!(adapter instanceof WebSocketAdapter)) throw new Error('no websocket adapter');
  const socket = await connectMod(`ws://127.0.0.1:${String(adapter.port)}/`, TOKEN);
  sockets.push(socket);
  await socket.waitFor((frame) => frame['type'] === 'welcome');
  return socket;
}

async function request(mod: ModSocket, frame: Record<string, unknown>): Promise<Record<string, unknown>> {
  mod.send(frame);
  return mod.waitFor((reply) => reply['id'] === frame['id']);
}

describe("a mod's broadcast", () => {
  it('goes through the System API when allowed, with its text; a restart carries its notice', async () => {
    const mod = await connect(await configOf(true, ['broadcast', 'restart']));
    expect(await request(mod, { type: 'server.action', id: 'b1', action: 'broadcast', message: 'Restart in 5 minutes' })).toMatchObject({
      type: 'server.action.result',
      ok: true,
      message: 'Broadcast sent to game server',
    });
    expect(emulator.systemActions()).toMatchObject([{ serverId: SERVER_ID, action: 'broadcast', message: 'Restart in 5 minutes' }]);
    // The mod API's webhooks were not used for it.
    expect(emulator.calls.filter((call) => call.endpoint === 'webhook')).toHaveLength(0);
  });

  it('is refused forbidden without a System API key, and when the host did not allow it; nothing is sent', async () => {
    const withoutKey = await connect(await configOf(false, ['broadcast']));
    const refused = await request(withoutKey, { type: 'server.action', id: 'b2', action: 'broadcast', message: 'hi' });
    expect(refused).toMatchObject({ type: 'error', code: 'forbidden' });
    expect(String(refused['message'])).toContain("GSA's System API");
    const notAllowed = await connect(await configOf(true, ['restart']));
    expect(await request(notAllowed, { type: 'server.action', id: 'b3', action: 'broadcast', message: 'hi' })).toMatchObject({ type: 'error', code: 'forbidden' });
    expect(emulator.systemActions()).toHaveLength(0);
  });

  it('needs its text: a broadcast without message is a bad message naming the field', async () => {
    const mod = await connect(await configOf(true, ['broadcast']));
    expect(await request(mod, { type: 'server.action', id: 'b4', action: 'broadcast' })).toMatchObject({ type: 'error', code: 'bad_message', path: 'message' });
    expect(await request(mod, { type: 'server.action', id: 'b5', action: 'start', message: 'x' })).toMatchObject({ type: 'error', code: 'bad_message', path: 'message' });
    expect(emulator.systemActions()).toHaveLength(0);
  });
});
