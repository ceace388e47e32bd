// The Mod API v2 feature dialect as pure functions: each request exactly as built (always /mod-api/v2, the pair in
// headers, the player in the form or the query, never a credential in a path), each answer read into its result or
// the error it means (GSA's [] for no roles, the placeholder player left out, a wrong identifier not trusted, an
// unreadable answer to a report or an order "maybe processed", the secret scrubbed), and the breaker that never makes
// an order its probe. No network.
import { describe, expect, it } from 'vitest';
import { Credentials } from '../../src/gsa/client/credentials.js';
import { CredentialsBreaker } from '../../src/gsa/client/credentialsBreaker.js';
import type { RawResponse } from '../../src/gsa/client/rawResponse.js';
import {
  accessRequest,
  classifyPackFailure,
  orderRequest,
  parseAccessAnswer,
  parseJsonObjectAnswer,
  parseOrderReceipt,
  parseReportReceipt,
  parseReportSettings,
  parseTokenReceipt,
  reportRequest,
  reportSettingsRequest,
  shopIndexRequest,
  shopPackRequest,
  tokenRequest,
  uiRequest,
} from '../../src/gsa/dialects/modApiFeatures.js';
import { GsaError } from '../../src/gsa/errors.js';

const SECRET = 's3cr3t&=x';
const credentials = new Credentials('client-1', SECRET);
const context = { credentials, basePath: '/prefix' };
const STEAM = '76561198000000001';
const EOS = '0123456789abcdef0123456789abcdef';
const scrub = (text: string): string => credentials.scrub(text);
const GET_HEADERS = { accept: 'application/json', 'x-client-id': 'client-1', 'x-client-secret': SECRET };
const POST_HEADERS = { ...GET_HEADERS, 'content-type': 'application/x-www-form-urlencoded' };

function answer(body: unknown, status = 200): RawResponse {
  return { status, headers: { 'content-type': 'application/json' }, text: typeof body === 'string' ? body : JSON.stringify(body) };
}

function thrown(read: () => unknown): GsaError {
  try {
    read();
  } catch (error) {
    if (error instanceof GsaError) return error;
    throw error;
  }
  throw new Error('expected a GsaError');
}

describe('requests', () => {
  it('builds each call under /mod-api/v2 with the pair in headers, the player in the form (POST) or the query (GET)', () => {
    const steam = { steamId: STEAM };
    expect(accessRequest(context, 'srv', steam)).toEqual({
      endpoint: 'access',
      method: 'POST',
      path: '/prefix/mod-api/v2/gameserver/srv/integration-mod',
      headers: POST_HEADERS,
      body: `steam_id=${STEAM}`,
    });
    expect(reportSettingsRequest(context, 'srv', { eosId: EOS })).toEqual({
      endpoint: 'report-settings',
      method: 'GET',
      path: `/prefix/mod-api/v2/gameserver/srv/report?eos_id=${EOS}`,
      headers: GET_HEADERS,
      body: undefined,
    });
    expect(reportRequest(context, 'srv', steam, { comment: 'a & b', characterId: 42, coords: 'X_1 Y_2 Z_3', type: 'grief', reportedPlayer: 101 })).toMatchObject({
      endpoint: 'report',
      method: 'POST',
      path: '/prefix/mod-api/v2/gameserver/srv/report',
      body: `steam_id=${STEAM}&comment=a+%26+b&character_id=42&coords=X_1+Y_2+Z_3&type=grief&reported_player=101`,
    });
    expect(reportRequest(context, 'srv', steam, { comment: 'c', characterId: 1, coords: 'X_1 Y_2 Z_3', type: 2 }).body).not.toContain('reported_player');
    expect(shopIndexRequest(context, 'srv', steam, { search: 'kit pack', filter: 'tools' }).path).toBe(`/prefix/mod-api/v2/game-shop/srv?steam_id=${STEAM}&search=kit+pack&filter=tools`);
    expect(shopIndexRequest(context, 'srv', steam, {}).path).toBe(`/prefix/mod-api/v2/game-shop/srv?steam_id=${STEAM}`);
    expect(shopPackRequest(context, 'srv', steam, 7)).toMatchObject({ endpoint: 'shop', method: 'GET', path: `/prefix/mod-api/v2/game-shop/srv/pack/7?steam_id=${STEAM}`, body: undefined });
    expect(orderRequest(context, 'srv', steam, 7)).toEqual({
      endpoint: 'shop-order',
      method: 'POST',
      path: `/prefix/mod-api/v2/game-shop/srv/pack/7/order?steam_id=${STEAM}`,
      headers: POST_HEADERS,
      body: '',
    });
    expect(tokenRequest(context, 'srv', { eosId: EOS }, 3)).toMatchObject({ endpoint: 'tokens', method: 'POST', path: '/prefix/mod-api/v2/gameserver/srv/consume-token', body: `eos_id=${EOS}&token_amount=3` });
    expect(uiRequest(context, 'srv', 'settings')).toEqual({ endpoint: 'ui', method: 'GET', path: '/prefix/mod-api/v2/gameserver/srv/settings', headers: GET_HEADERS, body: undefined });
    expect(uiRequest(context, 'srv', 'button-modal').path).toBe('/prefix/mod-api/v2/gameserver/srv/button-modal');
  });

  it('never puts a credential in a path or a body, and percent-encodes the server name', () => {
    const requests = [
      accessRequest(context, 'a~b.c', { steamId: STEAM }),
      reportSettingsRequest(context, 'x', { steamId: STEAM }),
      orderRequest(context, 'x', { steamId: STEAM }, 1),
      tokenRequest(context, 'x', { steamId: STEAM }, 1),
      shopIndexRequest(context, 'x', { steamId: STEAM }, { search: 's' }),
    ];
    for (const request of requests) {
      expect(`${request.path} ${request.body ?? ''}`).not.toMatch(/s3cr3t|client-1|client_id|client_secret/);
    }
    expect(accessRequest(context, 'a b/c', { steamId: STEAM }).path).toBe('/prefix/mod-api/v2/gameserver/a%20b%2Fc/integration-mod');
  });
});

describe('access answers', () => {
  const base = { identifier: 'gsamod-general', steam_id: STEAM, eos_id: '', allowed: true, username_accepted: true, message: '', teleport_xyz: false };

  it('reads GSA\'s [] as no roles, an object as roles (a role without expiry kept with \'\'), an empty message as null', () => {
    expect(parseAccessAnswer(answer({ ...base, custom_roles: [] }), { steamId: STEAM }, scrub)).toEqual({ allowed: true, usernameAccepted: true, message: null, roles: {} });
    expect(
      parseAccessAnswer(answer({ ...base, allowed: 0, message: 'Not whitelisted', custom_roles: { '4': '2027-01-01T00:00:00Z', '5': null } }), { steamId: STEAM }, scrub),
    ).toEqual({ allowed: false, usernameAccepted: true, message: 'Not whitelisted', roles: { '4': '2027-01-01T00:00:00Z', '5': '' } });
    expect(parseAccessAnswer(answer({ identifier: 'gsamod-general', allowed: 'false' }), { eosId: EOS }, scrub)).toMatchObject({ allowed: false, roles: {} });
  });

  it('does not trust another identifier, another player, or roles of another shape', () => {
    expect(thrown(() => parseAccessAnswer(answer({ ...base, identifier: 'gsamod-muted' }), { steamId: STEAM }, scrub))).toMatchObject({ code: 'bad_response', maybeProcessed: false });
    expect(thrown(() => parseAccessAnswer(answer({ ...base, steam_id: '76561198000000009' }), { steamId: STEAM }, scrub)).message).toMatch(/another player/);
    expect(parseAccessAnswer(answer({ ...base, eos_id: EOS.toUpperCase() }), { eosId: EOS }, scrub).allowed).toBe(true);
    expect(thrown(() => parseAccessAnswer(answer({ ...base, custom_roles: ['vip'] }), { steamId: STEAM }, scrub)).message).toMatch(/custom_roles/);
    expect(thrown(() => parseAccessAnswer(answer('<html>portal</html>'), { steamId: STEAM }, scrub)).code).toBe('bad_response');
  });

  it('scrubs the secret out of what GSA echoes', () => {
    expect(parseAccessAnswer(answer({ ...base, allowed: false, message: `bad key ${SECRET}` }), { steamId: STEAM }, scrub).message).toBe('bad key ***');
    expect(thrown(() => parseAccessAnswer(answer({ identifier: SECRET }), { steamId: STEAM }, scrub)).message).not.toContain(SECRET);
  });
});

describe('report settings', () => {
  it('leaves the placeholder out and reads ids given as digits', () => {
    const body = {
      data: {
        identifier: 'gsamod-ui-report-player',
        title: 'Report',
        description: null,
        players: [
          { id: 0, user_id: 0, name: ' - Select player - ' },
          { id: 1, user_id: '12', name: 'Zed' },
        ],
        types: [{ id: 'x', name: 'Other' }],
      },
    };
    expect(parseReportSettings(answer(body), scrub)).toEqual({ title: 'Report', description: '', players: [{ user_id: 12, name: 'Zed' }], types: [{ id: 'x', name: 'Other' }] });
  });

  it('does not trust another identifier or a body without data', () => {
    expect(thrown(() => parseReportSettings(answer({ data: { identifier: 'gsa-shop-index' } }), scrub)).code).toBe('bad_response');
    expect(thrown(() => parseReportSettings(answer({ identifier: 'gsamod-ui-report-player' }), scrub)).message).toMatch(/"data"/);
  });
});

describe('report receipts', () => {
  it('takes GSA\'s allowed: true with its message, or a {data} text', () => {
    expect(parseReportReceipt(answer({ identifier: 'gsamod-general', allowed: true, message: 'Thanks' }), scrub)).toEqual({ message: 'Thanks' });
    expect(parseReportReceipt(answer({ identifier: 'gsamod-general', allowed: 1 }), scrub)).toEqual({ message: '' });
    expect(parseReportReceipt(answer({ data: 'Done!' }), scrub)).toEqual({ message: 'Done!' });
  });

  it('is GSA\'s refusal on allowed: false: refused, not processed, GSA\'s words scrubbed', () => {
    const error = thrown(() => parseReportReceipt(answer({ identifier: 'gsamod-general', allowed: false, message: `no (${SECRET})` }), scrub));
    expect(error).toMatchObject({ code: 'refused', status: 200, maybeProcessed: false, serviceMessage: 'no (***)' });
  });

  it('is a maybe-processed bad_response for anything else in a 2xx', () => {
    for (const body of ['<html>portal</html>', '"Done!"', '[]', '{}', '{"identifier":"other","allowed":true}', '{"allowed":true}']) {
      expect(thrown(() => parseReportReceipt(answer(body, 201), scrub))).toMatchObject({ code: 'bad_response', status: 201, maybeProcessed: true });
    }
  });
});

describe('shop, orders, tokens and UI answers', () => {
  it('passes a shop or UI object through as GSA sent it, and refuses what is not a JSON object', () => {
    const read = parseJsonObjectAnswer('shop index');
    expect(read(answer({ identifier: 'gsa-shop-index', data: [{ id: 1 }] }), scrub)).toEqual({ identifier: 'gsa-shop-index', data: [{ id: 1 }] });
    expect(read(answer({ nested: { deeper: [`x${SECRET}`] } }), scrub)).toEqual({ nested: { deeper: ['x***'] } });
    for (const body of ['[]', 'null', '"x"', '<html>']) expect(thrown(() => read(answer(body), scrub))).toMatchObject({ code: 'bad_response', maybeProcessed: false });
  });

  it('reads an order\'s success or refusal; anything else may have been paid', () => {
    expect(parseOrderReceipt(answer({ steam_id: STEAM, eos_id: '', identifier: 'gameshop-order-response', success: true, message: 'Thank you!' }), scrub)).toEqual({ success: true, message: 'Thank you!' });
    expect(parseOrderReceipt(answer({ identifier: 'gameshop-order-response', success: '0', message: 'Not enough credit' }), scrub)).toEqual({ success: false, message: 'Not enough credit' });
    for (const body of ['<html>', '{"data":"Done!"}', '{"identifier":"gsamod-general","success":true}', '{"identifier":"gameshop-order-response"}']) {
      expect(thrown(() => parseOrderReceipt(answer(body), scrub))).toMatchObject({ code: 'bad_response', maybeProcessed: true });
    }
  });

  it('reads a token spend\'s {data}; anything else may have spent them', () => {
    expect(parseTokenReceipt(answer({ data: 'Done!' }), scrub)).toEqual({ message: 'Done!' });
    for (const body of ['Done!', '{"data":1}', '{}']) expect(thrown(() => parseTokenReceipt(answer(body), scrub))).toMatchObject({ code: 'bad_response', maybeProcessed: true });
  });

  it('names the pack as well as the server in a pack\'s 404', () => {
    const error = classifyPackFailure(answer({ message: 'No query results' }, 404), scrub, 0);
    expect(error).toMatchObject({ code: 'not_found', status: 404, serviceMessage: 'No query results' });
    expect(error.message).toMatch(/server or this pack/);
    expect(classifyPackFailure(answer({ message: 'x' }, 503), scrub, 0).code).toBe('unavailable');
  });
});

describe('the credentials breaker and money', () => {
  it('never makes an order its probe: refused while open, even when the probe is due', () => {
    let now = 0;
    const breaker = new CredentialsBreaker({ clock: { now: () => now }, probeIntervalMs: 1000 });
    expect(breaker.admit(false)).toEqual({ pass: true, probe: false });
    breaker.observe(401, false);
    now = 5000;
    const refused = breaker.admit(false);
    expect(refused.pass).toBe(false);
    if (!refused.pass) expect(refused.error.message).toMatch(/never the probe/);
    expect(breaker.admit()).toEqual({ pass: true, probe: true });
    breaker.observe(200, true);
    expect(breaker.admit(false)).toEqual({ pass: true, probe: false });
  });
});
