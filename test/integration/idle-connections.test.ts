// Connections to the mod listener that never complete an authenticated upgrade, from real raw TCP sockets
// (node:net): each is closed once the handshake deadline passes, at most maxUnauthenticatedConnections are held
// (the oldest is closed to make room), and the right token still connects while the bound is full.
// Every wait is on a causal signal: a socket's 'close' event, a frame, a log line.
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import { createLogger } from '../../src/log/logger.js';
import { connectMod } from '../fixtures/modSocket.js';
import { HARNESS_SERVER, startSidecarHarness } from '../fixtures/sidecarHarness.js';
import { patientMs } from '../fixtures/patience.js';

const TOKEN = 'idle-connections-token-0123456789';
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

interface Listener {
  readonly adapter: WebSocketAdapter;
  readonly port: number;
  readonly url: string;
  readonly lines: string[];
}

async function start(limits: { maxUnauthenticatedConnections?: number; handshakeTimeoutMs?: number }): Promise<Listener> {
  const harness = await startSidecarHarness((stop) => cleanups.push(stop));
  const lines: string[] = [];
  const adapter = new WebSocketAdapter({
    options: {
      type: 'websocket',
      host: '127.0.0.1',
      port: 0,
      token: TOKEN,
      maxFrameBytes: 16_384,
      maxMessagesPerSecond: 0,
      maxUnauthenticatedConnections: limits.maxUnauthenticatedConnections ?? 128,
      handshakeTimeoutMs: limits.handshakeTimeoutMs ?? 5000,
    },
    id: 'idle',
    serverName: HARNESS_SERVER,
    sidecar: 'gsa-bridge/test',
    logger: createLogger({ level: 'debug', secrets: [TOKEN], destination: { write: (line: string) => lines.push(line) } }),
  });
  const bridge = harness.sidecar.bridges.get(HARNESS_SERVER);
  if (bridge === undefined) throw new Error('no bridge');
  await adapter.start(bridge);
  cleanups.push(() => adapter.stop());
  return { adapter, port: adapter.port, url: `ws://127.0.0.1:${adapter.port}/`, lines };
}

interface RawSocket {
  readonly socket: Socket;
  /** Everything the listener sent on it. */
  readonly received: () => string;
  /** Resolves when the socket is closed (by either side). */
  readonly closed: Promise<void>;
}

/** A raw TCP connection that sends nothing unless told to; destroyed after the test. */
async function rawSocket(port: number): Promise<RawSocket> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = once(socket, 'close').then(() => undefined);
  cleanups.push(async () => {
    socket.destroy();
    await closed;
  });
  await once(socket, 'connect');
  return { socket, received: () => received, closed };
}

/** Fails the test (instead of hanging it) when `closed` does not happen within `ms`: a bound on a positive. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} did not happen within ${String(ms)} ms`));
    }, ms);
  });
  return Promise.race([promise, late]).finally(() => {
    clearTimeout(timer);
  });
}

describe('the handshake deadline', () => {
  it('closes a silent socket and a half-sent request once it passes, and leaves an upgraded mod alone', async () => {
    const { port, url } = await start({ handshakeTimeoutMs: 300 });
    const mod = await connectMod(url, TOKEN);
    cleanups.push(() => mod.close());
    await mod.waitFor((frame) => frame.type === 'welcome');

    const silent = await rawSocket(port);
    const halfSent = await rawSocket(port);
    halfSent.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n');
    // node:http answers 408 before closing: the deadline, not anything else, closed them.
    await within(Promise.all([silent.closed, halfSent.closed]), patientMs(10_000), 'closing both sockets');
    expect(silent.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(halfSent.received()).toMatch(/^HTTP\/1\.1 408 /);

    // The mod connected before them, so its deadline passed too: it is still served.
    mod.send({ type: 'ping', id: 'after-deadline' });
    expect(await mod.waitFor((frame) => frame.type === 'pong')).toMatchObject({ id: 'after-deadline' });
  });

  it('closes a plain HTTP request after its 426 answer instead of keeping it alive', async () => {
    const { port } = await start({});
    const plain = await rawSocket(port);
    plain.socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    await within(plain.closed, 3000, 'closing the plain request');
    expect(plain.received()).toMatch(/^HTTP\/1\.1 426 [^]*connection: close/i);
  });
});

describe('the bound on unauthenticated connections', () => {
  it('holds at most maxUnauthenticatedConnections, closing the oldest, logs once, and the right token still connects', async () => {
    const max = 16;
    const { adapter, port, url, lines } = await start({ maxUnauthenticatedConnections: max });
    const sockets: RawSocket[] = [];
    for (let index = 0; index < 200; index++) sockets.push(await rawSocket(port));
    // The oldest were closed to make room for the newer ones.
    await within(Promise.all(sockets.slice(0, 200 - max).map((raw) => raw.closed)), patientMs(10_000), 'closing the oldest idle sockets');
    expect(adapter.unauthenticatedConnectionCount).toBe(max);

    // The bound is full of idle sockets: the mod's connection pushes the oldest out and upgrades.
    const mod = await connectMod(url, TOKEN);
    cleanups.push(() => mod.close());
    await mod.waitFor((frame) => frame.type === 'welcome');
    await within(sockets[200 - max]!.closed, patientMs(10_000), 'closing the oldest idle socket for the mod');
    expect(adapter.unauthenticatedConnectionCount).toBe(max - 1);
    expect(adapter.connectionCount).toBe(1);

    const drops = lines.filter((line) => /had not completed an authenticated upgrade/.test(line));
    expect(drops).toHaveLength(1);
    expect(drops[0]).toMatch(/"level":40.*maxUnauthenticatedConnections \(16\)/);
  });

  it('lets the mod reconnect every time while other sockets flood the listener and reconnect as soon as they are closed', async () => {
    const max = 16;
    const { adapter, port, url } = await start({ maxUnauthenticatedConnections: max });
    const flood = { running: true, opened: 0 };
    // 48 loops: each holds one idle socket and opens another as soon as it is closed.
    const loops = Array.from({ length: 48 }, async () => {
      while (flood.running) {
        const raw = await rawSocket(port);
        flood.opened++;
        await raw.closed;
      }
    });
    const reconnects = 20;
    let welcomed = 0;
    let mostHeld = 0;
    for (let index = 0; index < reconnects; index++) {
      const mod = await connectMod(url, TOKEN);
      await mod.waitFor((frame) => frame.type === 'welcome');
      welcomed++;
      mostHeld = Math.max(mostHeld, adapter.unauthenticatedConnectionCount);
      await mod.close();
    }
    flood.running = false;
    // Each loop's last socket is closed by the cleanup of rawSocket; do not wait for them here.
    void Promise.allSettled(loops);

    expect(welcomed).toBe(reconnects);
    expect(mostHeld).toBeLessThanOrEqual(max);
    expect(flood.opened).toBeGreaterThan(48);
  });
});
