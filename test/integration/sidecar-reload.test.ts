// Reload by difference, in-process: a real sidecar (startSidecar) over real WebSockets against the emulator.
// Sidecar.reconfigure keeps unchanged adapters (their mod connections stay open, their players stay cached),
// restarts changed ones, starts added and stops removed ones, and rolls back when the new config cannot be applied.
// Also: two servers in one process, and review results routed by adapter id across a reordered file.
import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import { parseConfig, type BridgeConfig } from '../../src/app/config.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { silentLogger } from '../../src/log/logger.js';
import { SidecarReloadError, startSidecar, type Sidecar } from '../../src/sidecar.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { PATIENT_DECISION_TIMEOUT_MS } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const ALPHA = 'alpha';
const BETA = 'beta';
const TOKEN = 'reload-token';
const ALICE = { steam_id: '76561198000000001', name: 'Alice' };
const BOB = { steam_id: '76561198000000002', name: 'Bob' };

let emulator: GsaEmulator;
const sidecars: Sidecar[] = [];
const sockets: ModSocket[] = [];
const blockers: Server[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: ALPHA, id: 1 }, { name: BETA, id: 2 }] });
});
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  await Promise.all(sidecars.splice(0).map((sidecar) => sidecar.stop()));
  await Promise.all(blockers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

const muteCalls = (): number => emulator.calls.filter((call) => call.endpoint === 'mute').length;

type AdapterEntry = Record<string, unknown>;

function ws(id: string, extra: AdapterEntry = {}): AdapterEntry {
  return { type: 'websocket', id, port: 0, token: TOKEN, ...extra };
}

function configOf(dataDir: string, servers: { name: string; adapters: AdapterEntry[] }[], extra: Record<string, unknown> = {}): BridgeConfig {
  return parseConfig(
    {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0, minDelayMs: 1, maxDelayMs: 2 } },
      servers,
      reviews: { dataDir, cooldownMs: 0 },
      // Verdicts come from the service on a busy machine too, not from the deadline's policy.
      mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS },
      ...extra,
    },
    {},
  );
}

async function start(config: BridgeConfig): Promise<Sidecar> {
  const sidecar = await startSidecar(config, { logger: silentLogger() });
  sidecars.push(sidecar);
  return sidecar;
}

function adapterOf(sidecar: Sidecar, server: string, id: string): WebSocketAdapter {
  const found = sidecar.listAdapters().find((entry) => entry.server === server && entry.id === id)?.adapter;
  if (!(found instanceof WebSocketAdapter)) throw new Error(`no websocket adapter ${server}/${id}`);
  return found;
}

async function connect(sidecar: Sidecar, server: string, id: string): Promise<ModSocket> {
  const socket = await connectMod(`ws://127.0.0.1:${String(adapterOf(sidecar, server, id).port)}/`, TOKEN);
  sockets.push(socket);
  await socket.waitFor((frame) => frame['type'] === 'welcome');
  return socket;
}

let requestCounter = 0;
async function chat(mod: ModSocket, player: typeof ALICE): Promise<Record<string, unknown>> {
  const id = `c${String(++requestCounter)}`;
  mod.send({ type: 'chat', id, player, channel: 'global', text: 'hello' });
  return mod.waitFor((frame) => frame['type'] === 'chat.verdict' && frame['id'] === id);
}

async function busyPort(): Promise<number> {
  const server = createServer();
  blockers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('Sidecar.reconfigure', () => {
  it('keeps an unchanged adapter running: its mod stays connected and a cached player costs no new service call', async () => {
    const dir = await tempDir('reload');
    const sidecar = await start(configOf(dir, [{ name: ALPHA, adapters: [ws('mod')] }]));
    const mod = await connect(sidecar, ALPHA, 'mod');
    expect(await chat(mod, ALICE)).toMatchObject({ allow: true, reason: 'ok' });
    expect(muteCalls()).toBe(1);

    // Settings applied in place alongside: the mute policy and the allowed actions.
    const next = configOf(dir, [{ name: ALPHA, adapters: [ws('mod'), ws('extra')] }], { mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS + 1 } });
    const report = await sidecar.reconfigure(next);
    expect(report).toMatchObject({ result: 'success', started: ['alpha/extra'], stopped: [], restarted: [], unchanged: ['alpha/mod'], clientReplaced: false, muteCacheCleared: false });

    expect(mod.socket.readyState).toBe(WebSocket.OPEN);
    expect(await chat(mod, ALICE)).toMatchObject({ allow: true, reason: 'ok' });
    expect(muteCalls()).toBe(1);
    // The added adapter serves the same bridge: the player is cached there too.
    const extra = await connect(sidecar, ALPHA, 'extra');
    expect(await chat(extra, ALICE)).toMatchObject({ allow: true, reason: 'ok' });
    expect(muteCalls()).toBe(1);
    expect(sidecar.config).toBe(next);
  });

  it('restarts a changed adapter and stops a removed one', async () => {
    const dir = await tempDir('reload');
    const sidecar = await start(configOf(dir, [{ name: ALPHA, adapters: [ws('kept'), ws('changed'), ws('removed')] }]));
    const kept = await connect(sidecar, ALPHA, 'kept');
    const changed = await connect(sidecar, ALPHA, 'changed');
    const removed = await connect(sidecar, ALPHA, 'removed');
    const removedAdapter = adapterOf(sidecar, ALPHA, 'removed');
    const changedBefore = adapterOf(sidecar, ALPHA, 'changed');

    const report = await sidecar.reconfigure(configOf(dir, [{ name: ALPHA, adapters: [ws('changed', { maxFrameBytes: 8192 }), ws('kept')] }]));
    expect(report).toMatchObject({ started: [], stopped: ['alpha/removed'], restarted: ['alpha/changed'], unchanged: ['alpha/kept'] });

    expect(kept.socket.readyState).toBe(WebSocket.OPEN);
    expect([WebSocket.CLOSING, WebSocket.CLOSED]).toContain(changed.socket.readyState);
    expect([WebSocket.CLOSING, WebSocket.CLOSED]).toContain(removed.socket.readyState);
    expect(removedAdapter.ready).toBe(false);
    expect(sidecar.listAdapters().map((entry) => entry.id)).toEqual(['changed', 'kept']);
    const changedAfter = adapterOf(sidecar, ALPHA, 'changed');
    expect(changedAfter).not.toBe(changedBefore);
    expect(changedAfter.ready).toBe(true);
    const again = await connect(sidecar, ALPHA, 'changed');
    expect(await chat(again, BOB)).toMatchObject({ allow: true });
  });

  it('rolls back when the new config cannot be applied: the old adapters serve again and the old config stays', async () => {
    const dir = await tempDir('reload');
    const old = configOf(dir, [{ name: ALPHA, adapters: [ws('mod')] }]);
    const sidecar = await start(old);
    const first = await connect(sidecar, ALPHA, 'mod');
    expect(await chat(first, ALICE)).toMatchObject({ allow: true });
    expect(muteCalls()).toBe(1);

    const taken = await busyPort();
    const failing = configOf(dir, [{ name: ALPHA, adapters: [ws('mod', { maxFrameBytes: 4096 }), ws('busy', { port: taken })] }]);
    const error = await sidecar.reconfigure(failing).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SidecarReloadError);
    expect((error as SidecarReloadError).code).toBe('reload_failed');
    expect((error as SidecarReloadError).message).toMatch(new RegExp(`cannot listen on 127\\.0\\.0\\.1:${String(taken)} \\(adapter busy\\): port in use.*the old config is running again`));

    expect(sidecar.config).toBe(old);
    expect(sidecar.listAdapters().map((entry) => [entry.id, entry.adapter?.ready])).toEqual([['mod', true]]);
    // The old adapter serves, and the bridge (its cache) survived: no new service call.
    const back = await connect(sidecar, ALPHA, 'mod');
    expect(await chat(back, ALICE)).toMatchObject({ allow: true, reason: 'ok' });
    expect(muteCalls()).toBe(1);
  });

  it('keeps the client and its cache unless the API key changes; a new key empties the cache', async () => {
    const dir = await tempDir('reload');
    const config = configOf(dir, [{ name: ALPHA, adapters: [ws('mod')] }]);
    const sidecar = await start(config);
    const mod = await connect(sidecar, ALPHA, 'mod');
    await chat(mod, ALICE);
    const client = sidecar.client;

    const sameKey = await sidecar.reconfigure(configOf(dir, [{ name: ALPHA, adapters: [ws('mod')] }], { log: { level: 'debug' } }));
    expect(sameKey).toMatchObject({ clientReplaced: false, muteCacheCleared: false, unchanged: ['alpha/mod'] });
    expect(sidecar.client).toBe(client);

    // The same service under another base URL spelling counts as another service: the cache is emptied.
    const otherUrl = emulator.url.replace('127.0.0.1', 'localhost');
    const moved = await sidecar.reconfigure(
      parseConfig({ ...configInput(dir), api: { baseUrl: otherUrl, clientId: emulator.clientId, clientSecret: emulator.clientSecret } }, {}),
    );
    expect(moved).toMatchObject({ clientReplaced: true, muteCacheCleared: true, unchanged: ['alpha/mod'] });
    expect(sidecar.client).not.toBe(client);
    expect(mod.socket.readyState).toBe(WebSocket.OPEN);
    expect(await chat(mod, ALICE)).toMatchObject({ allow: true });
    expect(muteCalls()).toBe(2);
  });

  it('forgets the old keys\' problems when new API settings arrive, so /readyz stops reporting them', async () => {
    const dir = await tempDir('reload');
    const wrong = configOf(dir, [{ name: ALPHA, adapters: [ws('mod')] }], {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: 'not-the-secret', retry: { retries: 0, minDelayMs: 1, maxDelayMs: 2 } },
    });
    const sidecar = await start(wrong);
    const mod = await connect(sidecar, ALPHA, 'mod');
    await chat(mod, ALICE);
    expect(sidecar.health.problems.map((problem) => problem.kind)).toEqual(['credentials']);

    // Only the log level changes: the client stays and so does what it learned.
    await sidecar.reconfigure({ ...wrong, log: { level: 'debug' } });
    expect(sidecar.health.problems.map((problem) => problem.kind)).toEqual(['credentials']);

    const fixed = await sidecar.reconfigure(configOf(dir, [{ name: ALPHA, adapters: [ws('mod')] }]));
    expect(fixed).toMatchObject({ clientReplaced: true, muteCacheCleared: true });
    expect(sidecar.health.problems).toEqual([]);
    expect(await chat(mod, ALICE)).toMatchObject({ allow: true, reason: 'ok' });
    expect(sidecar.health.problems).toEqual([]);
  });

  it('applies server, mute and review settings in place, keeping the cached players and the cooldowns', async () => {
    const dir = await tempDir('reload');
    emulator.mute(ALPHA, BOB.steam_id);
    const withCooldown = (extra: Record<string, unknown>, defaultAlert: string): BridgeConfig =>
      parseConfig(
        {
          api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0, minDelayMs: 1, maxDelayMs: 2 } },
          servers: [{ name: ALPHA, id: 1, adapters: [ws('mod')], ...extra }],
          reviews: { dataDir: dir, cooldownMs: 600_000 },
          mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS, defaultAlert },
        },
        {},
      );
    const sidecar = await start(withCooldown({}, 'muted (old words)'));
    const mod = await connect(sidecar, ALPHA, 'mod');
    expect(await chat(mod, BOB)).toMatchObject({ allow: false, alert: 'muted (old words)' });
    mod.send({ type: 'review', id: 'rv1', player: ALICE, stars: 5, comment: 'good' });
    await mod.waitFor((frame) => frame['type'] === 'review.queued' && frame['id'] === 'rv1');
    mod.send({ type: 'server.action', id: 'a1', action: 'restart' });
    expect(await mod.waitFor((frame) => frame['id'] === 'a1')).toMatchObject({ type: 'error', code: 'forbidden' });

    const report = await sidecar.reconfigure(withCooldown({ allowActions: ['restart'] }, 'muted (new words)'));
    expect(report).toMatchObject({ unchanged: ['alpha/mod'], restarted: [] });

    // The cached muted player is answered in the new words without asking the service again.
    const callsBefore = muteCalls();
    expect(await chat(mod, BOB)).toMatchObject({ allow: false, alert: 'muted (new words)' });
    expect(muteCalls()).toBe(callsBefore);
    // The cooldown survived; the newly allowed action runs.
    mod.send({ type: 'review', id: 'rv2', player: ALICE, stars: 4, comment: 'again' });
    expect(await mod.waitFor((frame) => frame['id'] === 'rv2')).toMatchObject({ type: 'error', code: 'rate_limited' });
    mod.send({ type: 'server.action', id: 'a2', action: 'restart' });
    expect(await mod.waitFor((frame) => frame['id'] === 'a2')).toMatchObject({ type: 'server.action.result', ok: true });
  });

  it('adds and removes whole servers', async () => {
    const dir = await tempDir('reload');
    const sidecar = await start(configOf(dir, [{ name: ALPHA, adapters: [ws('a-mod')] }]));
    const report = await sidecar.reconfigure(configOf(dir, [{ name: BETA, adapters: [ws('b-mod')] }]));
    expect(report).toMatchObject({ started: ['beta/b-mod'], stopped: ['alpha/a-mod'] });
    expect([...sidecar.bridges.keys()]).toEqual([BETA]);
    emulator.mute(BETA, ALICE.steam_id, 'quiet');
    const mod = await connect(sidecar, BETA, 'b-mod');
    expect(await chat(mod, ALICE)).toMatchObject({ allow: false, reason: 'muted', alert: 'quiet' });
  });
});

function configInput(dir: string): Record<string, unknown> {
  return { servers: [{ name: ALPHA, adapters: [ws('mod')] }], reviews: { dataDir: dir, cooldownMs: 0 } };
}

describe('two servers in one process', () => {
  it('gates each server\'s players by that server\'s mutes', async () => {
    const dir = await tempDir('two-servers');
    emulator.mute(BETA, ALICE.steam_id, 'muted on beta');
    const sidecar = await start(configOf(dir, [{ name: ALPHA, adapters: [ws('alpha-mod')] }, { name: BETA, adapters: [ws('beta-mod')] }]));
    const alpha = await connect(sidecar, ALPHA, 'alpha-mod');
    const beta = await connect(sidecar, BETA, 'beta-mod');
    expect(await chat(alpha, ALICE)).toMatchObject({ allow: true, reason: 'ok' });
    expect(await chat(beta, ALICE)).toMatchObject({ allow: false, reason: 'muted', alert: 'muted on beta' });
    expect(await chat(beta, BOB)).toMatchObject({ allow: true, reason: 'ok' });
    const servers = emulator.calls.filter((call) => call.endpoint === 'mute').map((call) => call.server);
    expect(servers.sort()).toEqual([ALPHA, BETA, BETA]);
  });
});

describe('review results after the file is reordered', () => {
  it('go to the adapter that received the review (its id), not to the one now at its old position', async () => {
    const dir = await tempDir('reorder');
    emulator.injectFault({ kind: 'status', status: 503, endpoint: 'review', count: Infinity });
    const before = await start(configOf(dir, [{ name: ALPHA, adapters: [ws('first'), ws('second')] }]));
    const sender = await connect(before, ALPHA, 'second');
    sender.send({ type: 'review', id: 'rv1', player: ALICE, stars: 5, comment: 'great' });
    await sender.waitFor((frame) => frame['type'] === 'review.queued' && frame['id'] === 'rv1');
    await before.stop();

    emulator.clearFaults();
    const after = await start(configOf(dir, [{ name: ALPHA, adapters: [ws('second'), ws('first')] }]));
    const onFirst = await connect(after, ALPHA, 'first');
    const onSecond = await connect(after, ALPHA, 'second');
    expect(await onSecond.waitFor((frame) => frame['type'] === 'review.result')).toMatchObject({ id: 'rv1', ok: true });
    expect(onFirst.received.some((frame) => frame['type'] === 'review.result')).toBe(false);
  });
});
