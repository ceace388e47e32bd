// The GSA emulator's Mod API v2 features over real HTTP on loopback: each route's answer as GSA's yaml shapes it,
// the checks in the service's order (405, 401, 404, 422), the state behind them (access, report forms, reports, the
// shop's credit, tokens, UI settings), every order and spend recorded as it arrived (faulted ones too), the faults
// aimed at the new endpoints, the enforced budget, reset, and the /_emulator/ controls for all of it.
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CATALOGUE, EmulatorInputError, GsaEmulator } from '../../src/gsaEmulator/index.js';

const SERVER = 'ovddykvbs';
const STEAM = '76561198000000001';
const OTHER = '76561198000000002';
const EOS = '0123456789abcdef0123456789abcdef';
const SECRET = 'demo-secret';
const KEYS = { 'x-client-id': 'demo-client', 'x-client-secret': SECRET };
const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
const VALID_REPORT = { steam_id: STEAM, comment: 'He flew', character_id: '42', coords: 'X_1 Y_-2.5 Z_3', type: '2' };

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly json: unknown;
}

let emu: GsaEmulator;
let agent: Agent;

beforeEach(async () => {
  emu = await GsaEmulator.start();
  agent = new Agent();
});

afterEach(async () => {
  await emu.close();
  await agent.destroy();
});

async function send(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const res = await request(`${emu.url}${path}`, { dispatcher: agent, method, ...(init.headers === undefined ? {} : { headers: init.headers }), ...(init.body === undefined ? {} : { body: init.body }) });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

/** A feature call under /mod-api/v2: the keys in headers, the fields in the form (POST) or the query (GET). */
function feature(method: 'GET' | 'POST' | 'PUT', route: string, fields: Record<string, string> = {}, keys: Record<string, string> = KEYS): Promise<Answer> {
  const query = new URLSearchParams(fields).toString();
  if (method === 'GET') return send('GET', `/mod-api/v2/${route}${query === '' ? '' : `?${query}`}`, { headers: keys });
  return send(method, `/mod-api/v2/${route}`, { headers: { ...FORM, ...keys }, body: query });
}

function control(method: 'GET' | 'POST', route: string, body?: unknown): Promise<Answer> {
  return send(method, `/_emulator/${route}`, body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

describe('the checks every feature makes', () => {
  it('takes the keys only in x-client-id / x-client-secret: a form pair or a wrong secret is 401, and nothing moves', async () => {
    expect(await feature('POST', `gameserver/${SERVER}/integration-mod`, { steam_id: STEAM, client_id: 'demo-client', client_secret: SECRET }, {})).toMatchObject({
      status: 401,
      json: { message: 'Unauthenticated.' },
    });
    expect((await feature('POST', `game-shop/${SERVER}/pack/1/order?steam_id=${STEAM}`, {}, { ...KEYS, 'x-client-secret': 'wrong' })).status).toBe(401);
    expect(emu.wallet(STEAM).credit).toBe(1000);
    expect(emu.orders().map((order) => [order.processed, order.status])).toEqual([[false, 401]]);
  });

  it('has none of them under /api/v1', async () => {
    expect(await send('POST', `/api/v1/gameserver/${SERVER}/integration-mod`, { headers: { ...FORM, ...KEYS }, body: `steam_id=${STEAM}` })).toMatchObject({
      status: 404,
      json: { message: 'Not found.' },
    });
    expect(emu.calls.map((call) => call.endpoint)).toEqual(['other']);
  });

  it('answers 405 with Allow for a method the path does not take', async () => {
    const getAccess = await feature('GET', `gameserver/${SERVER}/integration-mod`, { steam_id: STEAM });
    expect(getAccess.status).toBe(405);
    expect(getAccess.headers.allow).toBe('POST');
    const putReport = await feature('PUT', `gameserver/${SERVER}/report`, VALID_REPORT);
    expect(putReport.headers.allow).toBe('GET, POST');
    expect(emu.reports).toEqual([]);
  });

  it('answers 404 for an unknown server, and 422 when the player is missing or malformed', async () => {
    expect(await feature('GET', 'game-shop/nowhere', { steam_id: STEAM })).toMatchObject({ status: 404, json: { message: 'Game server not found.' } });
    expect(await feature('GET', `gameserver/${SERVER}/report`)).toMatchObject({
      status: 422,
      json: { errors: { steam_id: ['The steam id field is required when eos id is not present.'], eos_id: ['The eos id field is required when steam id is not present.'] } },
    });
    expect(await feature('POST', `gameserver/${SERVER}/integration-mod`, { steam_id: '123' })).toMatchObject({ status: 422, json: { errors: { steam_id: ['The steam id field format is invalid.'] } } });
  });

  it('counts every feature call against the key\'s enforced budget', async () => {
    emu.enforceBudget({ requests: 2, intervalMs: 60_000 });
    expect((await feature('GET', `gameserver/${SERVER}/settings`)).headers['x-ratelimit-remaining']).toBe('1');
    expect((await feature('GET', `game-shop/${SERVER}`, { steam_id: STEAM })).status).toBe(200);
    const refused = await feature('POST', `game-shop/${SERVER}/pack/1/order?steam_id=${STEAM}`);
    expect(refused).toMatchObject({ status: 429, json: { message: 'Too Many Attempts.' } });
    expect(emu.orders().map((order) => [order.processed, order.status])).toEqual([[false, 429]]);
    expect(emu.wallet(STEAM).credit).toBe(1000);
  });
});

describe('access', () => {
  it('answers allowed by default, with GSA\'s empty roles as []', async () => {
    expect(await feature('POST', `gameserver/${SERVER}/integration-mod`, { eos_id: EOS })).toEqual({
      status: 200,
      headers: expect.any(Object) as unknown,
      json: { identifier: 'gsamod-general', steam_id: '', eos_id: EOS, allowed: true, username_accepted: true, message: null, teleport_xyz: false, custom_roles: [] },
    });
    expect(emu.calls[0]).toMatchObject({ endpoint: 'access', flavor: 'v2', server: SERVER, player: { eos_id: EOS }, status: 200 });
  });

  it('answers what the control set: a refusal with its message, roles as an object', async () => {
    expect(await control('POST', 'access', { player: STEAM, allowed: false, message: 'Not whitelisted', roles: { '3': '2027-01-01T00:00:00Z' }, usernameAccepted: false })).toMatchObject({ status: 200 });
    expect((await feature('POST', `gameserver/${SERVER}/integration-mod`, { steam_id: STEAM })).json).toMatchObject({
      allowed: false,
      username_accepted: false,
      message: 'Not whitelisted',
      custom_roles: { '3': '2027-01-01T00:00:00Z' },
    });
    expect((await control('GET', 'state')).json).toMatchObject({ features: { access: { [STEAM]: { allowed: false } } } });
    expect((await control('POST', 'access', { player: STEAM, allowed: 'no' })).status).toBe(400);
  });
});

describe('reports', () => {
  it('answers the report form with its placeholder, as GSA does', async () => {
    expect((await feature('GET', `gameserver/${SERVER}/report`, { steam_id: STEAM })).json).toEqual({
      data: {
        identifier: 'gsamod-ui-report-player',
        title: 'Report a player',
        description: expect.any(String) as unknown,
        players: [
          { id: 0, user_id: 0, name: ' - Select player - ' },
          { id: 1, user_id: 101, name: 'Alice' },
          { id: 2, user_id: 102, name: 'Mallory' },
        ],
        types: [
          { id: 1, name: 'Cheating' },
          { id: 2, name: 'Harassment' },
          { id: 3, name: 'Other' },
        ],
      },
    });
    expect(emu.calls[0]).toMatchObject({ method: 'GET', endpoint: 'report-settings', player: { steam_id: STEAM } });
  });

  it('stores a valid report (form or JSON) and lists it', async () => {
    expect((await feature('POST', `gameserver/${SERVER}/report`, { ...VALID_REPORT, reported_player: '101' })).json).toEqual({
      identifier: 'gsamod-general',
      steam_id: STEAM,
      eos_id: '',
      allowed: true,
      message: 'Thank you for your report!',
    });
    const json = await send('POST', `/mod-api/v2/gameserver/${SERVER}/report`, {
      headers: { 'content-type': 'application/json', ...KEYS },
      body: JSON.stringify({ eos_id: EOS, comment: 'JSON', character_id: 7, coords: 'X_0 Y_0 Z_0', type: 3 }),
    });
    expect(json.status).toBe(200);
    expect((await control('GET', 'reports')).json).toEqual([
      { server: SERVER, steamId: STEAM, comment: 'He flew', characterId: 42, coords: 'X_1 Y_-2.5 Z_3', type: '2', reportedPlayer: 101, at: expect.any(Number) as unknown },
      { server: SERVER, eosId: EOS, comment: 'JSON', characterId: 7, coords: 'X_0 Y_0 Z_0', type: '3', at: expect.any(Number) as unknown },
    ]);
  });

  it('refuses what Laravel would, in its words, and stores nothing', async () => {
    expect((await feature('POST', `gameserver/${SERVER}/report`, { steam_id: STEAM })).json).toEqual({
      message: 'The comment field is required. (and 3 more errors)',
      errors: {
        comment: ['The comment field is required.'],
        character_id: ['The character id field is required.'],
        coords: ['The coords field is required.'],
        type: ['The type field is required.'],
      },
    });
    const bad = await feature('POST', `gameserver/${SERVER}/report`, {
      ...VALID_REPORT,
      comment: 'x'.repeat(1001),
      character_id: 'abc',
      coords: '1 2 3',
      type: '9',
      reported_player: '0',
    });
    expect(bad).toMatchObject({
      status: 422,
      json: {
        errors: {
          comment: ['The comment field must not be greater than 1000 characters.'],
          character_id: ['The character id field must be an integer.'],
          coords: ['The coords field format is invalid.'],
          type: ['The selected type is invalid.'],
          reported_player: ['The selected reported player is invalid.'],
        },
      },
    });
    expect(emu.reports).toEqual([]);
  });

  it('answers allowed: false with the access message for a player GSA does not allow', async () => {
    emu.setAccess(STEAM, { allowed: false, message: 'Banned' });
    expect((await feature('POST', `gameserver/${SERVER}/report`, VALID_REPORT)).json).toMatchObject({ allowed: false, message: 'Banned' });
    expect(emu.reports).toEqual([]);
  });

  it('takes a server\'s own form from the control, which checks the server', async () => {
    expect((await control('POST', 'report-settings', { server: SERVER, title: 'Tell us', types: [{ id: 'grief', name: 'Griefing' }] })).status).toBe(200);
    expect((await feature('GET', `gameserver/${SERVER}/report`, { steam_id: STEAM })).json).toMatchObject({
      data: { title: 'Tell us', types: [{ id: 'grief', name: 'Griefing' }], players: [{ user_id: 0 }, { user_id: 101 }, { user_id: 102 }] },
    });
    expect((await feature('POST', `gameserver/${SERVER}/report`, { ...VALID_REPORT, type: 'grief' })).status).toBe(200);
    expect(await control('POST', 'report-settings', { server: 'nowhere', title: 'x' })).toMatchObject({ status: 400, json: { message: expect.stringMatching(/^server: 'nowhere' is not a known server/) as unknown } });
  });

  it('answers the next N reports with 503 when a fault says so, and nothing else', async () => {
    expect((await control('POST', 'faults', { kind: 'status', status: 503, count: 2, endpoint: 'report' })).status).toBe(200);
    expect((await feature('GET', `gameserver/${SERVER}/report`, { steam_id: STEAM })).status).toBe(200);
    expect((await feature('POST', `gameserver/${SERVER}/report`, VALID_REPORT)).status).toBe(503);
    expect((await feature('POST', `gameserver/${SERVER}/report`, VALID_REPORT)).status).toBe(503);
    expect((await feature('POST', `gameserver/${SERVER}/report`, VALID_REPORT)).status).toBe(200);
    expect(emu.reports).toHaveLength(1);
  });
});

describe('shop', () => {
  it('lists the catalogue, searched by name and filtered by category, case-insensitive', async () => {
    expect((await feature('GET', `game-shop/${SERVER}`, { steam_id: STEAM })).json).toEqual({ identifier: 'gsa-shop-index', data: DEFAULT_CATALOGUE });
    expect((await feature('GET', `game-shop/${SERVER}`, { steam_id: STEAM, search: 'KIT' })).json).toMatchObject({ data: [{ name: 'Starter kit' }] });
    expect((await feature('GET', `game-shop/${SERVER}`, { steam_id: STEAM, filter: 'Kits' })).json).toMatchObject({ data: [{ id: 1 }, { id: 3 }] });
    expect((await feature('GET', `game-shop/${SERVER}/pack/2`, { steam_id: STEAM })).json).toEqual({ identifier: 'gsa-shop-detail', data: DEFAULT_CATALOGUE[1] });
    expect(await feature('GET', `game-shop/${SERVER}/pack/9`, { steam_id: STEAM })).toMatchObject({ status: 404, json: { message: 'Pack not found.' } });
    expect((await feature('GET', `game-shop/${SERVER}/pack/x`, { steam_id: STEAM })).status).toBe(404);
    expect(emu.calls.every((call) => call.endpoint === 'shop' && call.flavor === 'v2')).toBe(true);
  });

  it('takes a catalogue from the control, refusing repeated ids and unknown servers', async () => {
    const items = [{ id: 7, name: 'Flag', price: 5 }];
    expect((await control('POST', 'catalogue', { server: SERVER, items })).status).toBe(200);
    expect((await feature('GET', `game-shop/${SERVER}`, { steam_id: STEAM })).json).toEqual({
      identifier: 'gsa-shop-index',
      data: [{ id: 7, name: 'Flag', price: 5, description: '', category: '' }],
    });
    expect((await control('POST', 'catalogue', { server: SERVER, items: [...items, ...items] })).status).toBe(400);
    expect((await control('POST', 'catalogue', { server: SERVER, items: [{ id: 1, name: 'x', price: -1 }] })).status).toBe(400);
    expect(() => {
      emu.setCatalogue('nowhere', items);
    }).toThrow(EmulatorInputError);
  });

  it('pays an order from the credit, or refuses it with "Not enough credit" and spends nothing', async () => {
    expect((await control('POST', 'wallet', { player: STEAM, credit: 300 })).status).toBe(200);
    expect((await feature('POST', `game-shop/${SERVER}/pack/2/order?steam_id=${STEAM}`)).json).toEqual({
      steam_id: STEAM,
      eos_id: '',
      identifier: 'gameshop-order-response',
      success: true,
      message: 'Thank you for your order! Metal tools will be delivered to you in game.',
    });
    expect((await feature('POST', `game-shop/${SERVER}/pack/1/order?steam_id=${STEAM}`)).json).toMatchObject({ success: false, message: 'Not enough credit' });
    expect((await feature('POST', `game-shop/${SERVER}/pack/9/order?steam_id=${STEAM}`)).status).toBe(404);
    expect((await control('GET', 'wallet')).json).toEqual([{ player: STEAM, credit: 50, tokens: 100 }]);
    expect((await control('GET', 'orders')).json).toEqual([
      { at: expect.any(Number) as unknown, server: SERVER, steamId: STEAM, packId: '2', processed: true, success: true, spent: 250, status: 200 },
      { at: expect.any(Number) as unknown, server: SERVER, steamId: STEAM, packId: '1', processed: true, success: false, spent: 0, status: 200 },
      { at: expect.any(Number) as unknown, server: SERVER, steamId: STEAM, packId: '9', processed: false, success: null, spent: 0, status: 404 },
    ]);
    expect(emu.calls.map((call) => [call.endpoint, call.player])).toEqual([
      ['shop-order', { steam_id: STEAM }],
      ['shop-order', { steam_id: STEAM }],
      ['shop-order', { steam_id: STEAM }],
    ]);
  });

  it('records every order as it arrived: one answered by a fault, one dropped after it was paid, one delayed', async () => {
    emu.injectFault({ kind: 'status', status: 502, endpoint: 'shop-order' });
    emu.injectFault({ kind: 'drop', afterProcessing: true, endpoint: 'shop-order' });
    expect((await feature('POST', `game-shop/${SERVER}/pack/1/order?steam_id=${STEAM}`)).status).toBe(502);
    await expect(feature('POST', `game-shop/${SERVER}/pack/1/order?steam_id=${STEAM}`)).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    emu.injectFault({ kind: 'latency', ms: 50, endpoint: 'shop-order' });
    expect((await feature('POST', `game-shop/${SERVER}/pack/1/order?steam_id=${OTHER}`)).json).toMatchObject({ success: true });
    expect(emu.orders().map((order) => [order.steamId, order.processed, order.success, order.status])).toEqual([
      [STEAM, false, null, 502],
      [STEAM, true, true, 0],
      [OTHER, true, true, 200],
    ]);
    expect(emu.wallet(STEAM).credit).toBe(900);
  });
});

describe('tokens', () => {
  it('spends tokens, refuses too many or a bad amount with 422, and lists every spend', async () => {
    emu.setWallet(EOS, { tokens: 10 });
    expect((await feature('POST', `gameserver/${SERVER}/consume-token`, { eos_id: EOS, token_amount: '4' })).json).toEqual({ data: 'Done!' });
    expect(await feature('POST', `gameserver/${SERVER}/consume-token`, { eos_id: EOS, token_amount: '7' })).toMatchObject({
      status: 422,
      json: { message: 'Not enough tokens.', errors: { token_amount: ['Not enough tokens.'] } },
    });
    expect(await feature('POST', `gameserver/${SERVER}/consume-token`, { eos_id: EOS, token_amount: '0' })).toMatchObject({ status: 422, json: { errors: { token_amount: ['The token amount field must be at least 1.'] } } });
    expect(await feature('POST', `gameserver/${SERVER}/consume-token`, { eos_id: EOS })).toMatchObject({ status: 422, json: { errors: { token_amount: ['The token amount field is required.'] } } });
    expect(emu.wallet(EOS).tokens).toBe(6);
    expect((await control('GET', 'token-spends')).json).toEqual([
      { at: expect.any(Number) as unknown, server: SERVER, eosId: EOS, amount: 4, processed: true, spent: 4, status: 200 },
      { at: expect.any(Number) as unknown, server: SERVER, eosId: EOS, amount: 7, processed: true, spent: 0, status: 422 },
      { at: expect.any(Number) as unknown, server: SERVER, eosId: EOS, amount: 0, processed: false, spent: 0, status: 422 },
      { at: expect.any(Number) as unknown, server: SERVER, eosId: EOS, amount: null, processed: false, spent: 0, status: 422 },
    ]);
  });

  it('takes the spend, then resets the connection, when a fault says so', async () => {
    emu.injectFault({ kind: 'reset', afterProcessing: true, endpoint: 'tokens' });
    await expect(feature('POST', `gameserver/${SERVER}/consume-token`, { steam_id: STEAM, token_amount: '5' })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(emu.tokenSpends().map((spend) => [spend.processed, spend.spent, spend.status])).toEqual([[true, 5, 0]]);
    expect(emu.wallet(STEAM).tokens).toBe(95);
  });
});

describe('UI settings', () => {
  it('answers the dashboard\'s settings and button modal, and what the control set', async () => {
    expect((await feature('GET', `gameserver/${SERVER}/settings`)).json).toEqual({
      identifier: 'gsamod-settings',
      'modal-activate-button': 'F1',
      'shop-activate-button': 'F2',
      'review-activate-button': 'F3',
      'review-title': 'Rate us',
      'report-activate-button': 'F4',
      'modal-radial': true,
      'shop-radial': true,
      'review-radial': false,
      'report-radial': false,
    });
    expect((await feature('GET', `gameserver/${SERVER}/button-modal`)).json).toMatchObject({ identifier: 'gsamod-ui-button-modal', buttons: [{ text: expect.any(String) as unknown, url: expect.any(String) as unknown }, {}] });
    expect((await control('POST', 'ui', { server: SERVER, settings: { 'modal-activate-button': 'F9' } })).status).toBe(200);
    expect((await feature('GET', `gameserver/${SERVER}/settings`)).json).toEqual({ identifier: 'gsamod-settings', 'modal-activate-button': 'F9' });
    expect((await control('POST', 'ui', { server: SERVER, settings: [] })).status).toBe(400);
    expect(emu.calls.map((call) => call.endpoint)).toEqual(['ui', 'ui', 'ui']);
  });
});

describe('reset', () => {
  it('puts every feature back to its defaults and forgets reports, orders and spends', async () => {
    emu.setAccess(STEAM, { allowed: false });
    emu.setCatalogue(SERVER, [{ id: 9, name: 'Only', price: 1 }]);
    emu.setUi(SERVER, { settings: { a: 1 } });
    emu.setReportSettings(SERVER, { title: 'Changed' });
    await feature('POST', `game-shop/${SERVER}/pack/9/order?steam_id=${OTHER}`);
    await feature('POST', `gameserver/${SERVER}/consume-token`, { steam_id: OTHER, token_amount: '1' });
    emu.setAccess(OTHER, { allowed: true });
    await feature('POST', `gameserver/${SERVER}/report`, { ...VALID_REPORT, steam_id: OTHER });
    expect(emu.reports).toHaveLength(1);

    expect((await control('POST', 'reset')).status).toBe(200);

    expect(emu.snapshot().features).toEqual({ access: {}, reports: [], orders: [], tokenSpends: [], wallets: [] });
    expect(emu.wallet(OTHER)).toEqual({ player: OTHER, credit: 1000, tokens: 100 });
    expect((await feature('GET', `game-shop/${SERVER}`, { steam_id: STEAM })).json).toEqual({ identifier: 'gsa-shop-index', data: DEFAULT_CATALOGUE });
    expect((await feature('GET', `gameserver/${SERVER}/settings`)).json).toMatchObject({ 'modal-activate-button': 'F1' });
    expect((await feature('GET', `gameserver/${SERVER}/report`, { steam_id: STEAM })).json).toMatchObject({ data: { title: 'Report a player' } });
    expect((await feature('POST', `gameserver/${SERVER}/integration-mod`, { steam_id: STEAM })).json).toMatchObject({ allowed: true });
  });
});
