// The adapter registry as the composition root and `config check --connect` use it: every type is listed with
// its schema, the factory builds an adapter (not started: nothing connects), and a websocket probe tells
// a free port from a taken one on a real socket.
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ADAPTER_TYPES, adapterIdOf, adapterTypeOf, createAdapter, type AdapterOptions } from '../../adapters/index.js';
import { RconAdapter } from '../../adapters/rcon/rconAdapter.js';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import { createLogger } from '../../src/log/logger.js';

const websocket: AdapterOptions = { type: 'websocket', host: '127.0.0.1', port: 0, maxFrameBytes: 16_384, maxMessagesPerSecond: 0, maxUnauthenticatedConnections: 128, handshakeTimeoutMs: 5000 };
const rcon: AdapterOptions = {
  type: 'rcon',
  profile: 'ark',
  host: '127.0.0.1',
  port: 27020,
  password: 'p',
  pollChatMs: 1000,
  pollPlayersMs: 5000,
  commandTimeoutMs: 5000,
  alertCooldownMs: 30_000,
  kickAfterAlerts: 0,
};

describe('the adapter registry', () => {
  it('lists every type once, each with its schema', () => {
    expect(ADAPTER_TYPES.map((entry) => entry.type)).toEqual(['websocket', 'rcon']);
    expect(adapterTypeOf(rcon).schema.safeParse({ type: 'rcon', profile: 'ark', port: 1, password: 'x' }).success).toBe(true);
  });

  it('builds a websocket and an rcon adapter under their ids, without connecting anywhere', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } });
    const context = { serverName: 'alpha', sidecar: 'gsa-bridge/test', logger };
    const built = await createAdapter(websocket, { ...context, id: adapterIdOf('alpha', websocket) });
    expect(built).toBeInstanceOf(WebSocketAdapter);
    expect(built?.id).toBe('alpha-websocket-0');
    const ark = await createAdapter(rcon, { ...context, id: 'ark-main' });
    expect(ark).toBeInstanceOf(RconAdapter);
    expect(ark?.id).toBe('ark-main');
    expect(ark?.ready).toBe(false);
    expect(typeof ark?.tellPlayer).toBe('function');
    await ark?.stop();
  });

  it('probes a websocket listener: a free port passes, a taken one fails saying why', async () => {
    const entry = adapterTypeOf(websocket);
    expect(await entry.probe?.(websocket, { serverName: 'alpha', id: 'mod' })).toMatchObject({ ok: true });
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const result = await entry.probe?.({ ...websocket, port }, { serverName: 'alpha', id: 'mod' });
      expect(result).toEqual({ ok: false, message: 'port in use (another program, or another adapter, listens there); if a sidecar with this config runs, that is expected' });
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
