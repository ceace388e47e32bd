// The reference client's Mod API methods (ModClient) against a real WebSocketAdapter whose bridge is the test's own
// sink with a `modApi` (test/fixtures/modApiSink.ts): each method's answer, a report's queued receipt and its later
// result, refusals as ModClientError with code and path, and the unasked access refusal as onAccessRefused.
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { ModClient, ModClientError, type AccessResult, type ModClientOptions, type ReportResult } from '../../adapters/websocket/referenceClient.js';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import { RequestNotAllowedRefusal } from '../../src/bridge/errors.js';
import type { ReportRequest } from '../../src/bridge/port.js';
import { silentLogger } from '../../src/log/logger.js';
import { SAMPLE_ITEM, SAMPLE_REPORT_SETTINGS, SAMPLE_SHOP, SAMPLE_UI_MODAL, SAMPLE_UI_SETTINGS, TestBridgeSink, TestModApi } from '../fixtures/modApiSink.js';
import { patientMs, QUIET_WAIT_MS } from '../fixtures/patience.js';

const TOKEN = 'test-token-for-the-client';
const STEAM = '76561198000000001';
const PLAYER = { steam_id: STEAM, name: 'Rex' };
const REPORT = { player: PLAYER, character_id: 99, coords: 'X_1 Y_2 Z_3', report_type: 2, reported_player: 17, comment: 'Spawn camping all night.' };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function start(options: Partial<ModClientOptions> = {}): Promise<{ adapter: WebSocketAdapter; modApi: TestModApi; client: ModClient }> {
  const modApi = new TestModApi();
  const adapter = new WebSocketAdapter({
    options: { type: 'websocket', host: '127.0.0.1', port: 0, token: TOKEN, maxFrameBytes: 16_384, maxMessagesPerSecond: 0, maxUnauthenticatedConnections: 128, handshakeTimeoutMs: 5000 },
    id: 'mods',
    serverName: 'ovddykvbs',
    sidecar: 'gsa-bridge/test',
    logger: silentLogger(),
  });
  await adapter.start(new TestBridgeSink(modApi));
  cleanups.push(() => adapter.stop());
  const client = new ModClient({
    url: adapter.listeningAddress().url,
    token: TOKEN,
    requestTimeoutMs: patientMs(QUIET_WAIT_MS),
    reconnectMinDelayMs: 20,
    reconnectMaxDelayMs: 200,
    ...options,
  });
  cleanups.push(() => client.close());
  await client.connected();
  return { adapter, modApi, client };
}

async function eventually(check: () => boolean, timeoutMs = patientMs(QUIET_WAIT_MS)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await delay(10);
  }
}

describe('ModClient: the Mod API requests', () => {
  it('playerAccess and reportSettings give the answers without the wire type and id', async () => {
    const { client } = await start();
    expect(await client.playerAccess(PLAYER)).toEqual({ player: PLAYER, allowed: true, roles: { vip: '2027-01-01T00:00:00.000Z' }, source: 'service' });
    expect(await client.reportSettings(PLAYER)).toEqual(SAMPLE_REPORT_SETTINGS);
  });

  it('report resolves once queued, and its result when the adapter is told', async () => {
    const results: ReportResult[] = [];
    const { adapter, modApi, client } = await start({ onReportResult: (result) => results.push(result) });
    const receipt = await client.report(REPORT);
    expect(receipt.queued).toBe(true);
    const [stored] = modApi.callsOf('submitReport')[0]?.args as [ReportRequest];
    expect(stored).toMatchObject({ characterId: 99, coords: 'X_1 Y_2 Z_3', type: 2, reportedPlayer: 17, comment: 'Spawn camping all night.' });
    adapter.reportResult(stored.origin, { ok: true, message: 'Thank you for your report!' });
    const result = await receipt.result;
    expect(result).toEqual({ id: stored.origin.requestId, ok: true, message: 'Thank you for your report!' });
    expect(results).toEqual([result]);
  });

  it('shopList, shopItem, uiSettings and uiModal give GSA data', async () => {
    const { modApi, client } = await start();
    expect(await client.shopList(PLAYER, { search: 'kit' })).toEqual(SAMPLE_SHOP);
    expect(modApi.callsOf('shopList')[0]?.args[1]).toEqual({ search: 'kit', filter: undefined });
    expect(await client.shopList(PLAYER)).toEqual(SAMPLE_SHOP);
    expect(await client.shopItem(PLAYER, '42')).toEqual(SAMPLE_ITEM);
    expect(await client.uiSettings()).toEqual(SAMPLE_UI_SETTINGS);
    expect(await client.uiModal()).toEqual(SAMPLE_UI_MODAL);
  });

  it('shopOrder and consumeTokens give the money outcome', async () => {
    const { modApi, client } = await start();
    expect(await client.shopOrder(PLAYER, 42)).toEqual({ ok: true, state: 'done', message: 'Thank you for your order!' });
    modApi.answer('consumeTokens', () => ({ ok: false, state: 'refused', message: 'Not enough tokens.' }));
    expect(await client.consumeTokens(PLAYER, 500)).toEqual({ ok: false, state: 'refused', message: 'Not enough tokens.' });
    expect(modApi.callsOf('consumeTokens')[0]?.args[1]).toBe(500);
  });

  it('a refusal rejects with the wire code, a bad field with its path', async () => {
    const { modApi, client } = await start();
    modApi.answer('shopOrder', () => Promise.reject(new RequestNotAllowedRefusal('shop requests are not allowed on this server')));
    const forbidden = await client.shopOrder(PLAYER, 1).catch((error: unknown) => error);
    expect(forbidden).toBeInstanceOf(ModClientError);
    expect(forbidden).toMatchObject({ code: 'forbidden' });
    const bad = await client.report({ ...REPORT, comment: '' }).catch((error: unknown) => error);
    expect(bad).toMatchObject({ code: 'bad_message', path: 'comment' });
    expect(modApi.callsOf('submitReport')).toEqual([]);
  });

  it('an unasked player.access.result after a join reaches onAccessRefused', async () => {
    const refusals: AccessResult[] = [];
    const { adapter, client } = await start({ onAccessRefused: (refusal) => refusals.push(refusal) });
    client.join(PLAYER);
    // The join is sent before the ping; the adapter handles frames in order, so it is noted once the pong is back.
    await client.ping();
    await adapter.removePlayer({ steamId: STEAM }, { message: 'You are banned.', verdict: { allowed: false, message: 'You are banned.', roles: {}, source: 'service' } });
    await eventually(() => refusals.length > 0);
    expect(refusals).toEqual([{ player: { steam_id: STEAM }, allowed: false, message: 'You are banned.', roles: {}, source: 'service' }]);
  });
});
