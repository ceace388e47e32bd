// The reference client (ModClient) against a real sidecar and the GSA emulator: every method, errors from the
// sidecar as ModClientError with code and path, and a reconnect (through a TCP proxy the test can cut) that
// still delivers a pending review result.
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ModClient, ModClientError, type ModClientOptions, type MuteChange } from '../../adapters/websocket/referenceClient.js';
import { PRODUCT_NAME, VERSION } from '../../src/version.js';
import { HARNESS_SERVER, HARNESS_SERVER_ID, HARNESS_TOKEN, startSidecarHarness, type SidecarHarness } from '../fixtures/sidecarHarness.js';
import { patientMs } from '../fixtures/patience.js';

function startHarness(): Promise<SidecarHarness> {
  return startSidecarHarness((stop) => cleanups.push(stop), { allowActions: ['restart', 'update'] });
}

const SERVER = HARNESS_SERVER;
const SERVER_ID = HARNESS_SERVER_ID;
const TOKEN = HARNESS_TOKEN;
const STEAM = '76561198000000001';
const STEAM_2 = '76561198000000002';
const EOS = '0123456789abcdef0123456789abcdef';

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});



function startClient(options: Partial<ModClientOptions> & { url: string }): ModClient {
  const client = new ModClient({ token: TOKEN, reconnectMinDelayMs: 20, reconnectMaxDelayMs: 200, ...options });
  cleanups.push(() => client.close());
  return client;
}

/** A TCP proxy in front of the sidecar whose connections the test can cut, as a network blip would. */
async function startProxy(targetPort: number): Promise<{ port: number; cut: () => void }> {
  const sockets = new Set<Socket>();
  const server = createServer((downstream) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [downstream, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        sockets.delete(socket);
        downstream.destroy();
        upstream.destroy();
      });
    }
    downstream.pipe(upstream);
    upstream.pipe(downstream);
  });
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  cleanups.push(
    () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(resolve);
      }),
  );
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}

async function eventually(check: () => boolean, timeoutMs = patientMs(5_000)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(10);
  }
}

async function rejection(promise: Promise<unknown>): Promise<ModClientError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ModClientError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('ModClient', () => {
  it('connects and exposes the welcome', async () => {
    const { url } = await startHarness();
    const client = startClient({ url });
    const welcome = await client.connected();
    expect(welcome).toEqual({ type: 'welcome', protocol: 1, server: SERVER, sidecar: `${PRODUCT_NAME}/${VERSION}` });
    expect(client.welcome).toEqual(welcome);
    expect(await client.connected()).toBe(welcome);
  });

  it('chat: allows an unmuted player and blocks a muted one with the alert', async () => {
    const { url, emulator } = await startHarness();
    emulator.mute(SERVER, STEAM_2, 'Muted for spam');
    const client = startClient({ url });
    await client.connected();
    expect(await client.chat({ steam_id: STEAM, name: 'Rex' }, 'global', 'hello')).toEqual({ allow: true, reason: 'ok' });
    expect(await client.chat({ steam_id: STEAM_2 }, 'local', 'buy gold')).toEqual({ allow: false, reason: 'muted', alert: 'Muted for spam' });
  });

  it('checkMute: status and source', async () => {
    const { url, emulator } = await startHarness();
    emulator.mute(SERVER, EOS, 'quiet');
    const client = startClient({ url });
    await client.connected();
    expect(await client.checkMute({ eos_id: EOS })).toEqual({ player: { eos_id: EOS }, muted: true, alert: 'quiet', source: 'service' });
    expect(await client.checkMute({ eos_id: EOS })).toMatchObject({ muted: true, source: 'cache' });
  });

  it('review: queued at once, result when the service stored it', async () => {
    const { url, emulator } = await startHarness();
    const results: unknown[] = [];
    const client = startClient({ url, onReviewResult: (result) => results.push(result) });
    await client.connected();
    const receipt = await client.review({ steam_id: STEAM }, 5, 'Best server');
    expect(receipt.queued).toBe(true);
    expect(await receipt.result).toEqual({ id: expect.any(String) as unknown, ok: true });
    expect(emulator.reviews).toMatchObject([{ server: SERVER, steamId: STEAM, stars: 5, comment: 'Best server' }]);
    expect(results).toHaveLength(1);
  });

  it('rejects with the code and path of a sidecar error', async () => {
    const { url } = await startHarness();
    const client = startClient({ url });
    await client.connected();
    const error = await rejection(client.review({ steam_id: STEAM }, 9, ''));
    expect(error).toMatchObject({ name: 'ModClientError', code: 'bad_message', path: 'stars' });
    const badPlayer = await rejection(client.checkMute({ steam_id: '123' }));
    expect(badPlayer).toMatchObject({ code: 'bad_message', path: 'player.steam_id' });
  });

  it('join and leave send without a reply; join warms the cache', async () => {
    const { url, emulator } = await startHarness();
    const client = startClient({ url });
    await client.connected();
    client.join({ steam_id: STEAM, name: 'Rex' });
    client.leave({ steam_id: STEAM, name: 'Rex' });
    await eventually(() => emulator.calls.some((call) => call.endpoint === 'mute'));
    expect(await client.checkMute({ steam_id: STEAM })).toMatchObject({ source: 'cache' });
  });

  it('reports an error about a join (which has no reply) through onUnmatchedError', async () => {
    const { url } = await startHarness();
    const errors: ModClientError[] = [];
    const client = startClient({ url, onUnmatchedError: (error) => errors.push(error) });
    await client.connected();
    client.join({ steam_id: 'nope' });
    await eventually(() => errors.length === 1);
    expect(errors[0]).toMatchObject({ code: 'bad_message', path: 'player.steam_id' });
  });

  it('serverAction: runs an allowed action, rejects a forbidden one', async () => {
    const { url, emulator } = await startHarness();
    const client = startClient({ url });
    await client.connected();
    expect(await client.serverAction('restart')).toEqual({ ok: true, status: expect.any(Number) as unknown, message: expect.any(String) as unknown });
    expect(await client.serverAction('update', 10)).toMatchObject({ ok: true });
    expect(emulator.actions(SERVER_ID)).toMatchObject([{ action: 'restart' }, { action: 'update', countdownMinutes: 10 }]);
    expect(await rejection(client.serverAction('wipe'))).toMatchObject({ code: 'forbidden' });
  });

  it('ping: resolves with the round trip in milliseconds', async () => {
    const { url } = await startHarness();
    const client = startClient({ url });
    await client.connected();
    const roundTrip = await client.ping();
    expect(roundTrip).toBeGreaterThanOrEqual(0);
    expect(roundTrip).toBeLessThan(patientMs(1_000));
  });

  it('calls onMuteChanged when the sidecar pushes a change', async () => {
    const { url, emulator } = await startHarness();
    const changes: MuteChange[] = [];
    const client = startClient({ url, onMuteChanged: (change) => changes.push(change) });
    await client.connected();
    expect(await client.chat({ steam_id: STEAM }, 'global', 'hi')).toMatchObject({ allow: true });
    emulator.mute(SERVER, STEAM, 'Muted by an admin');
    client.join({ steam_id: STEAM });
    await eventually(() => changes.length === 1);
    expect(changes[0]).toMatchObject({ player: { steam_id: STEAM }, muted: true, alert: 'Muted by an admin' });
  });

  it('times out a request that gets no reply in time', async () => {
    const { url, emulator } = await startHarness();
    emulator.injectFault({ kind: 'latency', ms: 500, endpoint: 'webhook' });
    const client = startClient({ url, requestTimeoutMs: 100 });
    await client.connected();
    expect(await rejection(client.serverAction('restart'))).toMatchObject({ code: 'timeout' });
  });

  it('reconnects after the connection drops and still delivers a pending review result', async () => {
    const { port, emulator } = await startHarness();
    const proxy = await startProxy(port);
    const welcomes: unknown[] = [];
    const client = startClient({ url: `ws://127.0.0.1:${proxy.port}/`, onConnected: (welcome) => welcomes.push(welcome) });
    await client.connected();
    emulator.injectFault({ kind: 'latency', ms: 800, endpoint: 'review' });
    const receipt = await client.review({ steam_id: STEAM }, 4, 'survives a reconnect');
    proxy.cut();
    await eventually(() => welcomes.length === 2);
    expect(await receipt.result).toEqual({ id: expect.any(String) as unknown, ok: true });
    expect(await client.chat({ steam_id: STEAM }, 'global', 'back')).toMatchObject({ allow: true });
  });

  it('rejects requests in flight when the connection drops, and requests while disconnected', async () => {
    const { port, emulator } = await startHarness();
    const proxy = await startProxy(port);
    const client = startClient({ url: `ws://127.0.0.1:${proxy.port}/`, reconnectMinDelayMs: 500, reconnectMaxDelayMs: 500 });
    await client.connected();
    emulator.injectFault({ kind: 'latency', ms: 1_000, endpoint: 'webhook' });
    const inFlight = client.serverAction('restart');
    await eventually(() => emulator.calls.some((call) => call.endpoint === 'webhook'));
    proxy.cut();
    expect(await rejection(inFlight)).toMatchObject({ code: 'disconnected' });
    expect(await rejection(client.ping())).toMatchObject({ code: 'not_connected' });
    expect(() => {
      client.join({ steam_id: STEAM });
    }).toThrow(ModClientError);
    await client.connected();
    expect(await client.ping()).toBeGreaterThanOrEqual(0);
  });

  it('reports a wrong token through onConnectionError and keeps trying', async () => {
    const { url } = await startHarness();
    const errors: Error[] = [];
    startClient({ url, token: 'wrong', onConnectionError: (error) => errors.push(error) });
    await eventually(() => errors.length >= 2);
    expect(errors[0]).toMatchObject({ code: 'unauthorized', message: expect.stringMatching(/401/) as unknown });
  });

  it('close(): rejects what is pending with code closed and stops reconnecting', async () => {
    const { url, emulator } = await startHarness();
    const client = startClient({ url });
    await client.connected();
    emulator.injectFault({ kind: 'latency', ms: 1_000, endpoint: 'review' });
    const receipt = await client.review({ steam_id: STEAM }, 5, 'closing soon');
    await client.close();
    await expect(receipt.result).rejects.toMatchObject({ code: 'closed' });
    expect(await rejection(client.ping())).toMatchObject({ code: 'closed' });
    expect(client.welcome).toBeUndefined();
  });
});
