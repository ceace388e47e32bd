// GSA's Mod API requests on the mod WebSocket, from the outside: real ws clients over loopback against a real
// WebSocketAdapter on port 0, whose bridge is the test's own BridgeSink with a `modApi` (test/fixtures/modApiSink.ts).
// Each request's reply, each field refused with one bad_message at its path, refusals as wire codes, a report's
// result routed after a reconnect, and the unasked access refusal sent to the mod that said the player joined.
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import { BadInputRefusal, RequestNotAllowedRefusal, UnavailableRefusal } from '../../src/bridge/errors.js';
import type { AccessVerdict, ReportRequest } from '../../src/bridge/port.js';
import { silentLogger } from '../../src/log/logger.js';
import { SAMPLE_ITEM, SAMPLE_REPORT_SETTINGS, SAMPLE_SHOP, SAMPLE_UI_MODAL, SAMPLE_UI_SETTINGS, TestBridgeSink, TestModApi } from '../fixtures/modApiSink.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { patientMs, QUIET_WAIT_MS } from '../fixtures/patience.js';

const TOKEN = 'test-token-for-mod-api';
const STEAM = '76561198000000001';
const STEAM_2 = '76561198000000002';
const EOS = '0123456789abcdef0123456789abcdef';
const PLAYER = { steam_id: STEAM, name: 'Rex' };

type Frame = Record<string, unknown>;

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function startAdapter(modApi: TestModApi | null = new TestModApi()): Promise<{ adapter: WebSocketAdapter; sink: TestBridgeSink; url: string }> {
  const adapter = new WebSocketAdapter({
    options: { type: 'websocket', host: '127.0.0.1', port: 0, token: TOKEN, maxFrameBytes: 16_384, maxMessagesPerSecond: 0, maxUnauthenticatedConnections: 128, handshakeTimeoutMs: 5000 },
    id: 'mods',
    serverName: 'ovddykvbs',
    sidecar: 'gsa-bridge/test',
    logger: silentLogger(),
  });
  const sink = new TestBridgeSink(modApi ?? undefined);
  await adapter.start(sink);
  cleanups.push(() => adapter.stop());
  return { adapter, sink, url: adapter.listeningAddress().url };
}

async function connect(url: string): Promise<ModSocket> {
  const mod = await connectMod(url, TOKEN);
  cleanups.push(() => mod.close());
  await mod.waitFor((frame) => frame['type'] === 'welcome');
  return mod;
}

function request(mod: ModSocket, frame: Frame & { id: string }): Promise<Frame> {
  mod.send(frame);
  return mod.waitFor((reply) => reply['id'] === frame.id);
}

/** Every frame received up to the pong of a ping sent now: frames the sidecar answers without the bridge come in order. */
async function upToPong(mod: ModSocket): Promise<Frame[]> {
  const marker = `pong-${Math.random()}`;
  const from = mod.received.length;
  mod.send({ type: 'ping', id: marker });
  await mod.waitFor((frame) => frame['id'] === marker);
  return mod.received.slice(from).filter((frame) => frame['id'] !== marker);
}

const REPORT = { type: 'report', player: PLAYER, character_id: 1234, coords: 'X_12.5 Y_-40 Z_7', report_type: 1, reported_player: 17, comment: 'He flies.' };

describe('Mod API requests: the replies', () => {
  it('player.access answers GSA verdict with the player as sent', async () => {
    const modApi = new TestModApi();
    const { url } = await startAdapter(modApi);
    const mod = await connect(url);
    const player = { steam_id: STEAM, eos_id: EOS, name: 'Rex' };
    expect(await request(mod, { type: 'player.access', id: 'a1', player })).toEqual({
      type: 'player.access.result',
      id: 'a1',
      player,
      allowed: true,
      roles: { vip: '2027-01-01T00:00:00.000Z' },
      source: 'service',
    });
    expect(modApi.callsOf('access')[0]?.args).toEqual([{ steamId: STEAM, eosId: EOS, name: 'Rex' }]);

    modApi.answer('access', () => ({ allowed: false, message: 'You are banned.', roles: {}, source: 'cache' }) satisfies AccessVerdict);
    expect(await request(mod, { type: 'player.access', id: 'a2', player: PLAYER })).toEqual({
      type: 'player.access.result',
      id: 'a2',
      player: PLAYER,
      allowed: false,
      message: 'You are banned.',
      roles: {},
      source: 'cache',
    });
  });

  it('report.settings answers the form, and only its fields', async () => {
    const modApi = new TestModApi();
    // A sink that carried more (a credential by mistake) must not leak it to a mod.
    modApi.answer('reportSettings', () => ({ ...SAMPLE_REPORT_SETTINGS, clientSecret: 'do-not-leak', players: [{ user_id: 17, name: 'Grim', token: 'x' }] }));
    const { url } = await startAdapter(modApi);
    const mod = await connect(url);
    const reply = await request(mod, { type: 'report.settings', id: 's1', player: PLAYER });
    expect(reply).toEqual({
      type: 'report.settings.result',
      id: 's1',
      title: 'Report a player',
      description: 'Tell the admins what happened.',
      players: [{ user_id: 17, name: 'Grim' }],
      types: [
        { id: 1, name: 'Cheating' },
        { id: 'other', name: 'Other' },
      ],
    });
    expect(JSON.stringify(mod.received)).not.toContain('do-not-leak');
  });

  it('report is queued once the sink stored it, with the origin of this connection and the fields in the port words', async () => {
    const modApi = new TestModApi();
    const { url } = await startAdapter(modApi);
    const mod = await connect(url);
    expect(await request(mod, { ...REPORT, id: 'r1', extra: 'ignored' })).toEqual({ type: 'report.queued', id: 'r1' });
    const [report] = modApi.callsOf('submitReport')[0]?.args as [ReportRequest];
    expect(report).toMatchObject({
      player: { steamId: STEAM, name: 'Rex' },
      characterId: 1234,
      coords: 'X_12.5 Y_-40 Z_7',
      type: 1,
      reportedPlayer: 17,
      comment: 'He flies.',
      origin: { adapter: 'mods', requestId: 'r1' },
    });
    expect(typeof report.origin.ref).toBe('string');
    // A string type id, and no reported player.
    expect(await request(mod, { ...REPORT, reported_player: undefined, report_type: 'other', id: 'r2' })).toEqual({ type: 'report.queued', id: 'r2' });
    expect(modApi.callsOf('submitReport')[1]?.args[0]).toMatchObject({ type: 'other', reportedPlayer: undefined });
  });

  it('shop.list, shop.item, ui.settings and ui.modal answer GSA data as the sink gave it', async () => {
    const modApi = new TestModApi();
    const { url } = await startAdapter(modApi);
    const mod = await connect(url);
    expect(await request(mod, { type: 'shop.list', id: 'l1', player: PLAYER, search: 'kit', filter: 'weapons' })).toEqual({ type: 'shop.list.result', id: 'l1', data: SAMPLE_SHOP });
    expect(modApi.callsOf('shopList')[0]?.args[1]).toEqual({ search: 'kit', filter: 'weapons' });
    expect(await request(mod, { type: 'shop.item', id: 'i1', player: PLAYER, item: '42' })).toEqual({ type: 'shop.item.result', id: 'i1', data: SAMPLE_ITEM });
    expect(await request(mod, { type: 'shop.item', id: 'i2', player: PLAYER, item: 43 })).toEqual({ type: 'shop.item.result', id: 'i2', data: SAMPLE_ITEM });
    expect(modApi.callsOf('shopItem').map((call) => call.args[1])).toEqual([42, 43]);
    expect(await request(mod, { type: 'ui.settings', id: 'u1' })).toEqual({ type: 'ui.settings.result', id: 'u1', data: SAMPLE_UI_SETTINGS });
    expect(await request(mod, { type: 'ui.modal', id: 'u2' })).toEqual({ type: 'ui.modal.result', id: 'u2', data: SAMPLE_UI_MODAL });
  });

  it('shop.order and token.consume answer the money outcome, with the adapter and request id as origin', async () => {
    const modApi = new TestModApi();
    const { url } = await startAdapter(modApi);
    const mod = await connect(url);
    expect(await request(mod, { type: 'shop.order', id: 'o1', player: PLAYER, item: 42 })).toEqual({
      type: 'shop.order.result',
      id: 'o1',
      ok: true,
      state: 'done',
      message: 'Thank you for your order!',
    });
    expect(modApi.callsOf('shopOrder')[0]?.args).toEqual([{ steamId: STEAM, name: 'Rex' }, 42, { adapter: 'mods', requestId: 'o1' }]);
    modApi.answer('consumeTokens', () => ({ ok: false, state: 'unconfirmed', message: 'sent; the answer was lost' }));
    expect(await request(mod, { type: 'token.consume', id: 't1', player: PLAYER, amount: 250 })).toEqual({
      type: 'token.consume.result',
      id: 't1',
      ok: false,
      state: 'unconfirmed',
      message: 'sent; the answer was lost',
    });
    expect(modApi.callsOf('consumeTokens')[0]?.args).toEqual([{ steamId: STEAM, name: 'Rex' }, 250, { adapter: 'mods', requestId: 't1' }]);
  });

  it('a request without an id gets its reply without one', async () => {
    const { url } = await startAdapter();
    const mod = await connect(url);
    mod.send({ type: 'ui.modal' });
    expect(await mod.waitFor((frame) => frame['type'] === 'ui.modal.result')).toEqual({ type: 'ui.modal.result', data: SAMPLE_UI_MODAL });
  });
});

describe('Mod API requests: validation', () => {
  const long = (length: number): string => 'a'.repeat(length);
  const cases: readonly { name: string; frame: Frame; path: string }[] = [
    { name: 'character_id 1.5', frame: { ...REPORT, character_id: 1.5 }, path: 'character_id' },
    { name: 'character_id beyond a safe integer', frame: { ...REPORT, character_id: 2 ** 53 }, path: 'character_id' },
    { name: 'character_id missing', frame: { ...REPORT, character_id: undefined }, path: 'character_id' },
    { name: 'coords "1 2 3"', frame: { ...REPORT, coords: '1 2 3' }, path: 'coords' },
    { name: 'coords over 100 characters', frame: { ...REPORT, coords: `X_1 Y_2 Z_${'1'.repeat(100)}` }, path: 'coords' },
    { name: 'comment ""', frame: { ...REPORT, comment: '' }, path: 'comment' },
    { name: 'comment of 1001 characters', frame: { ...REPORT, comment: long(1001) }, path: 'comment' },
    { name: 'report_type {}', frame: { ...REPORT, report_type: {} }, path: 'report_type' },
    { name: 'report_type ""', frame: { ...REPORT, report_type: '' }, path: 'report_type' },
    { name: 'report_type of 65 characters', frame: { ...REPORT, report_type: long(65) }, path: 'report_type' },
    { name: 'reported_player 0', frame: { ...REPORT, reported_player: 0 }, path: 'reported_player' },
    { name: 'report player without ids', frame: { ...REPORT, player: { name: 'Rex' } }, path: 'player' },
    { name: 'player.access with a bad steam_id', frame: { type: 'player.access', player: { steam_id: '123' } }, path: 'player.steam_id' },
    { name: 'report.settings without player', frame: { type: 'report.settings' }, path: 'player' },
    { name: 'shop.item "abc"', frame: { type: 'shop.item', player: PLAYER, item: 'abc' }, path: 'item' },
    { name: 'shop.item "0"', frame: { type: 'shop.item', player: PLAYER, item: '0' }, path: 'item' },
    { name: 'shop.item of 11 digits', frame: { type: 'shop.item', player: PLAYER, item: '12345678901' }, path: 'item' },
    { name: 'shop.order item -3', frame: { type: 'shop.order', player: PLAYER, item: -3 }, path: 'item' },
    { name: 'shop.order item missing', frame: { type: 'shop.order', player: PLAYER }, path: 'item' },
    { name: 'shop.list search of 101 characters', frame: { type: 'shop.list', player: PLAYER, search: long(101) }, path: 'search' },
    { name: 'shop.list filter 7', frame: { type: 'shop.list', player: PLAYER, filter: 7 }, path: 'filter' },
    { name: 'token.consume amount 0', frame: { type: 'token.consume', player: PLAYER, amount: 0 }, path: 'amount' },
    { name: 'token.consume amount 1,000,001', frame: { type: 'token.consume', player: PLAYER, amount: 1_000_001 }, path: 'amount' },
    { name: 'token.consume amount "5"', frame: { type: 'token.consume', player: PLAYER, amount: '5' }, path: 'amount' },
    { name: 'ui.settings with a bad id', frame: { type: 'ui.settings', id: '' }, path: 'id' },
  ];

  it.each(cases)('$name: exactly one bad_message at $path, and the sink is not asked', async ({ frame, path }) => {
    const modApi = new TestModApi();
    const { url } = await startAdapter(modApi);
    const mod = await connect(url);
    const id = path === 'id' ? undefined : 'bad-1';
    mod.send(id === undefined ? frame : { ...frame, id });
    const frames = await upToPong(mod);
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ type: 'error', code: 'bad_message', path });
    expect(frames[0]?.['id']).toBe(id);
    expect(typeof frames[0]?.['message']).toBe('string');
    expect(modApi.calls).toEqual([]);
  });
});

describe('Mod API requests: refusals and failures', () => {
  it('a request outside allowRequests is forbidden; other refusals keep their wire code and path', async () => {
    const modApi = new TestModApi();
    modApi.answer('shopOrder', () => Promise.reject(new RequestNotAllowedRefusal('shop requests are not allowed on this server (allowRequests)')));
    modApi.answer('submitReport', () => Promise.reject(new BadInputRefusal('not one of the report types', 'report_type')));
    modApi.answer('uiModal', () => Promise.reject(new UnavailableRefusal('GSA could not be asked; try again later')));
    const { url } = await startAdapter(modApi);
    const mod = await connect(url);
    expect(await request(mod, { type: 'shop.order', id: 'o1', player: PLAYER, item: 42 })).toEqual({
      type: 'error',
      id: 'o1',
      code: 'forbidden',
      message: 'shop requests are not allowed on this server (allowRequests)',
    });
    expect(await request(mod, { ...REPORT, id: 'r1' })).toEqual({ type: 'error', id: 'r1', code: 'bad_message', message: 'not one of the report types', path: 'report_type' });
    expect(await request(mod, { type: 'ui.modal', id: 'u1' })).toEqual({ type: 'error', id: 'u1', code: 'unavailable', message: 'GSA could not be asked; try again later' });
  });

  it('a sink that throws is answered internal, with nothing of the failure, and the socket stays open', async () => {
    const modApi = new TestModApi();
    modApi.answer('access', () => {
      throw new Error('secret-laden failure text');
    });
    modApi.answer('shopList', () => Promise.reject(new TypeError('also not for mods')));
    const { url } = await startAdapter(modApi);
    const mod = await connect(url);
    const thrown = await request(mod, { type: 'player.access', id: 'a1', player: PLAYER });
    expect(thrown).toMatchObject({ type: 'error', id: 'a1', code: 'internal' });
    const rejected = await request(mod, { type: 'shop.list', id: 'l1', player: PLAYER });
    expect(rejected).toMatchObject({ type: 'error', id: 'l1', code: 'internal' });
    expect(JSON.stringify([thrown, rejected])).not.toMatch(/secret-laden|also not for mods/);
    expect(await request(mod, { type: 'ui.settings', id: 'still-open' })).toMatchObject({ type: 'ui.settings.result' });
  });

  it('a sink without modApi answers unavailable', async () => {
    const { url } = await startAdapter(null);
    const mod = await connect(url);
    expect(await request(mod, { type: 'token.consume', id: 't1', player: PLAYER, amount: 5 })).toEqual({
      type: 'error',
      id: 't1',
      code: 'unavailable',
      message: 'this sidecar offers no GSA mod API requests',
    });
  });
});

describe('report results', () => {
  async function queuedReport(mod: ModSocket, modApi: TestModApi, id: string): Promise<ReportRequest> {
    expect(await request(mod, { ...REPORT, id })).toEqual({ type: 'report.queued', id });
    const call = modApi.callsOf('submitReport').find((entry) => (entry.args[0] as ReportRequest).origin.requestId === id);
    return call?.args[0] as ReportRequest;
  }

  it('go to the connection that sent the report while it is open, even when a newer one is', async () => {
    const modApi = new TestModApi();
    const { adapter, url } = await startAdapter(modApi);
    const first = await connect(url);
    const report = await queuedReport(first, modApi, 'r1');
    const second = await connect(url);
    adapter.reportResult(report.origin, { ok: true, message: 'Thank you for your report!' });
    expect(await first.waitFor((frame) => frame['type'] === 'report.result')).toEqual({ type: 'report.result', id: 'r1', ok: true, message: 'Thank you for your report!' });
    // Sent before reportResult returned, so it would be ahead of this pong.
    await upToPong(second);
    expect(second.received.filter((frame) => frame['type'] === 'report.result')).toEqual([]);
  });

  it('after a reconnect go to the new connection, error codes through the wire mapping', async () => {
    const modApi = new TestModApi();
    const { adapter, url } = await startAdapter(modApi);
    const first = await connect(url);
    const report = await queuedReport(first, modApi, 'r1');
    await first.close();
    await waitUntil(() => adapter.connectionCount === 0);
    const second = await connect(url);
    adapter.reportResult(report.origin, { ok: false, error: { code: 'forbidden', message: 'You may not report yet.' } });
    expect(await second.waitFor((frame) => frame['type'] === 'report.result')).toEqual({
      type: 'report.result',
      id: 'r1',
      ok: false,
      error: { code: 'not_eligible', message: 'You may not report yet.' },
    });
  });

  it('with no mod connected wait for the next connection, after its welcome', async () => {
    const modApi = new TestModApi();
    const { adapter, url } = await startAdapter(modApi);
    const first = await connect(url);
    const report = await queuedReport(first, modApi, 'r1');
    await first.close();
    await waitUntil(() => adapter.connectionCount === 0);
    adapter.reportResult(report.origin, { ok: false, error: { code: 'unconfirmed', message: 'sent; no clear answer' } });
    adapter.reviewResult({ adapter: 'mods', ref: report.origin.ref, requestId: 'v1' }, { ok: true });
    const second = await connectMod(url, TOKEN);
    cleanups.push(() => second.close());
    await second.waitFor((frame) => frame['id'] === 'v1');
    expect(second.received.map((frame) => frame['type'])).toEqual(['welcome', 'report.result', 'review.result']);
    expect(second.received[1]).toEqual({ type: 'report.result', id: 'r1', ok: false, error: { code: 'unconfirmed', message: 'sent; no clear answer' } });
  });
});

describe('removePlayer: the unasked player.access.result', () => {
  const REASON = { message: 'You are not on the whitelist.', verdict: { allowed: false, message: 'You are not on the whitelist.', roles: {}, source: 'service' } } as const;
  const isRefusal = (frame: Frame): boolean => frame['type'] === 'player.access.result';

  it('goes to the connection that sent player.join, and not to the others', async () => {
    const { adapter, sink, url } = await startAdapter();
    const joinedHere = await connect(url);
    const other = await connect(url);
    joinedHere.send({ type: 'player.join', player: { steam_id: STEAM, eos_id: EOS, name: 'Rex' } });
    await upToPong(joinedHere);
    expect(sink.joined).toHaveLength(1);
    // Asked by one of its ids only: the join named both.
    await adapter.removePlayer({ eosId: EOS }, REASON);
    expect(await joinedHere.waitFor(isRefusal)).toEqual({
      type: 'player.access.result',
      player: { eos_id: EOS },
      allowed: false,
      message: 'You are not on the whitelist.',
      roles: {},
      source: 'service',
    });
    // Sent before removePlayer resolved, so it would be ahead of this pong.
    await upToPong(other);
    expect(other.received.filter(isRefusal)).toEqual([]);
  });

  it('goes to every connection when none sent the join, or the one that did said the player left', async () => {
    const { adapter, sink, url } = await startAdapter();
    const first = await connect(url);
    const second = await connect(url);
    first.send({ type: 'player.join', player: { steam_id: STEAM_2 } });
    first.send({ type: 'player.leave', player: { steam_id: STEAM_2 } });
    await upToPong(first);
    expect(sink.left).toHaveLength(1);
    await adapter.removePlayer({ steamId: STEAM_2, name: 'Grim' }, REASON);
    for (const mod of [first, second]) {
      expect(await mod.waitFor(isRefusal)).toMatchObject({ player: { steam_id: STEAM_2, name: 'Grim' }, allowed: false });
    }
  });

  it('falls back to the other connections when the one that sent the join closed', async () => {
    const { adapter, url } = await startAdapter();
    const leaving = await connect(url);
    const staying = await connect(url);
    leaving.send({ type: 'player.join', player: { steam_id: STEAM } });
    await upToPong(leaving);
    await leaving.close();
    await waitUntil(() => adapter.connectionCount === 1);
    await adapter.removePlayer({ steamId: STEAM }, REASON);
    expect(await staying.waitFor(isRefusal)).toMatchObject({ player: { steam_id: STEAM }, allowed: false });
  });

  it('rejects when no mod is connected', async () => {
    const { adapter } = await startAdapter();
    await expect(adapter.removePlayer({ steamId: STEAM }, REASON)).rejects.toMatchObject({ code: 'no_mod_connection' });
  });
});

async function waitUntil(check: () => boolean, timeoutMs = patientMs(QUIET_WAIT_MS)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(10);
  }
}
