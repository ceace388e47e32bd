// The Mod API v2 feature calls through the client against undici's MockAgent, for what the emulator does not answer:
// the exact bytes each call sends (a v1 client and a base URL with a path prefix: still /mod-api/v2, the pair only in
// headers), answers GSA might give that the emulator never does, and failures a real socket cannot stage on cue.
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { failureOf } from '../fixtures/failureOf.js';
import { GsaClient } from '../../src/gsa/index.js';

const ORIGIN = 'http://gsa.test';
const STEAM = '76561198000000001';
const SECRET = 'edge-s3cret';

let agent: MockAgent | undefined;

afterEach(async () => {
  await agent?.close();
  agent = undefined;
});

interface Seen {
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

function mocked(retries = 3): { client: GsaClient; seen: Seen[]; pool: ReturnType<MockAgent['get']> } {
  agent = new MockAgent();
  agent.disableNetConnect();
  const client = new GsaClient({
    baseUrl: `${ORIGIN}/gsa`,
    clientId: 'id-1',
    clientSecret: SECRET,
    flavor: 'v1',
    dispatcher: agent,
    retry: { retries, minDelayMs: 1, maxDelayMs: 1 },
  });
  return { client, seen: [], pool: agent.get(ORIGIN) };
}

/** The request an intercept answered, as the reply callback sees it. */
function noted(options: { headers?: unknown; body?: unknown }): Seen {
  const raw = options.headers;
  // undici hands a mock the headers as given: an object here (the client passes one).
  const headers = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, string>) : {};
  return {
    headers: Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value])),
    body: typeof options.body === 'string' ? options.body : undefined,
  };
}

describe('what each call sends', () => {
  it('goes to the prefixed /mod-api/v2 path with the pair in headers only, the player in the form or the query', async () => {
    const { client, seen, pool } = mocked();
    const player = { steamId: STEAM };
    const calls: [string, 'GET' | 'POST', unknown, () => Promise<unknown>][] = [
      ['/gsa/mod-api/v2/gameserver/s/integration-mod', 'POST', { identifier: 'gsamod-general', allowed: true, custom_roles: [] }, () => client.checkAccess('s', player)],
      [`/gsa/mod-api/v2/gameserver/s/report?steam_id=${STEAM}`, 'GET', { data: { identifier: 'gsamod-ui-report-player', players: [], types: [] } }, () => client.reportSettings('s', player)],
      ['/gsa/mod-api/v2/gameserver/s/report', 'POST', { data: 'Done!' }, () => client.submitReport('s', player, { comment: 'hi', characterId: 5, coords: 'X_1 Y_2 Z_3', type: 1 })],
      [`/gsa/mod-api/v2/game-shop/s?steam_id=${STEAM}&search=k`, 'GET', { identifier: 'gsa-shop-index', data: [] }, () => client.shopIndex('s', player, { search: 'k' })],
      [`/gsa/mod-api/v2/game-shop/s/pack/3?steam_id=${STEAM}`, 'GET', { identifier: 'gsa-shop-detail', data: {} }, () => client.shopPack('s', player, 3)],
      [`/gsa/mod-api/v2/game-shop/s/pack/3/order?steam_id=${STEAM}`, 'POST', { identifier: 'gameshop-order-response', success: true, message: 'ok' }, () => client.orderPack('s', player, 3)],
      ['/gsa/mod-api/v2/gameserver/s/consume-token', 'POST', { data: 'Done!' }, () => client.consumeTokens('s', player, 2)],
      ['/gsa/mod-api/v2/gameserver/s/settings', 'GET', { identifier: 'gsamod-settings' }, () => client.modSettings('s')],
      ['/gsa/mod-api/v2/gameserver/s/button-modal', 'GET', { identifier: 'gsamod-ui-button-modal' }, () => client.buttonModal('s')],
    ];
    for (const [path, method, reply, call] of calls) {
      pool.intercept({ path, method }).reply((options) => {
        seen.push(noted(options));
        return { statusCode: 200, data: JSON.stringify(reply), responseOptions: { headers: { 'content-type': 'application/json' } } };
      });
      await call();
    }
    expect(seen.map((request) => request.body ?? '')).toEqual([
      `steam_id=${STEAM}`,
      '',
      `steam_id=${STEAM}&comment=hi&character_id=5&coords=X_1+Y_2+Z_3&type=1`,
      '',
      '',
      '',
      `steam_id=${STEAM}&token_amount=2`,
      '',
      '',
    ]);
    for (const request of seen) {
      expect(request.headers).toMatchObject({ 'x-client-id': 'id-1', 'x-client-secret': SECRET });
    }
    expect(seen.filter((request) => request.headers['content-type'] === 'application/x-www-form-urlencoded')).toHaveLength(4);
    expect(seen.every((request) => !(request.body ?? '').includes(SECRET))).toBe(true);
  });
});

describe('answers the emulator never gives', () => {
  it('an access answer about another player, or with another identifier, is not trusted', async () => {
    const { client, pool } = mocked(0);
    pool.intercept({ path: '/gsa/mod-api/v2/gameserver/s/integration-mod', method: 'POST' }).reply(200, { identifier: 'gsamod-general', steam_id: '76561198000000002', allowed: true });
    pool.intercept({ path: '/gsa/mod-api/v2/gameserver/s/integration-mod', method: 'POST' }).reply(200, { identifier: 'gsamod-muted', allowed: true });
    expect(await failureOf(client.checkAccess('s', { steamId: STEAM }))).toMatchObject({ code: 'bad_response' });
    expect(await failureOf(client.checkAccess('s', { steamId: STEAM }))).toMatchObject({ code: 'bad_response' });
  });

  it('a 2xx to a report or an order that is not GSA\'s answer is a maybe-processed bad_response, not re-sent', async () => {
    const { client, pool } = mocked(5);
    pool.intercept({ path: '/gsa/mod-api/v2/gameserver/s/report', method: 'POST' }).reply(200, '<html>Welcome</html>', { headers: { 'content-type': 'text/html' } });
    pool.intercept({ path: `/gsa/mod-api/v2/game-shop/s/pack/1/order?steam_id=${STEAM}`, method: 'POST' }).reply(200, { identifier: 'gameshop-order-response' });
    const report = await failureOf(client.submitReport('s', { steamId: STEAM }, { comment: 'x', characterId: 1, coords: 'X_1 Y_1 Z_1', type: 1 }));
    expect(report).toMatchObject({ code: 'bad_response', maybeProcessed: true });
    expect(await failureOf(client.orderPack('s', { steamId: STEAM }, 1, { retries: 5 }))).toMatchObject({ code: 'bad_response', maybeProcessed: true });
    expect(agent?.pendingInterceptors()).toEqual([]);
  });

  it('an order whose connection fails after sending is maybe processed and not re-sent, whatever `retries` says', async () => {
    const { client, pool } = mocked(5);
    pool.intercept({ path: `/gsa/mod-api/v2/game-shop/s/pack/1/order?steam_id=${STEAM}`, method: 'POST' }).replyWithError(new Error('other side closed'));
    // A second attempt would meet no intercept and fail otherwise (MockNotMatchedError), not with this error.
    const error = await failureOf(client.orderPack('s', { steamId: STEAM }, 1, { retries: 5 }));
    expect(error).toMatchObject({ code: 'network', maybeProcessed: true });
    expect(error.message).toMatch(/other side closed/);
  });

  it('a token spend GSA answers 504 is maybe processed and not re-sent', async () => {
    const { client, pool } = mocked(5);
    pool.intercept({ path: '/gsa/mod-api/v2/gameserver/s/consume-token', method: 'POST' }).reply(504, { message: 'Gateway Timeout' });
    expect(await failureOf(client.consumeTokens('s', { steamId: STEAM }, 1))).toMatchObject({ code: 'server_error', status: 504, maybeProcessed: true });
  });

  it('a read GSA answers 504 is asked again, as a mute check', async () => {
    const { client, pool } = mocked(2);
    pool.intercept({ path: '/gsa/mod-api/v2/gameserver/s/settings', method: 'GET' }).reply(504, {});
    pool.intercept({ path: '/gsa/mod-api/v2/gameserver/s/settings', method: 'GET' }).reply(200, { identifier: 'gsamod-settings' });
    expect(await client.modSettings('s')).toEqual({ identifier: 'gsamod-settings' });
  });
});
