// The dialects as objects: the mod API's v1 and v2 build exactly what requests.ts always built, and the System API's
// dialect builds each documented request (method, path, headers, body) and reads every documented failure text,
// the YAML's docblock artifact included, into its error class. Pure functions: no network.
import { describe, expect, it } from 'vitest';
import { Credentials, SecretKey } from '../../src/gsa/client/credentials.js';
import { modApiDialectOf, modApiV1, modApiV2 } from '../../src/gsa/dialects/modApi.js';
import { classifySystemFailure, normalisedServiceText, systemApiV2, type SystemApiContext, type SystemSubject } from '../../src/gsa/dialects/systemApiV2.js';
import { CooldownError, RateLimitedError } from '../../src/gsa/errors.js';
import { muteCheckRequest, serverActionRequest } from '../../src/gsa/client/requests.js';
import type { RawResponse } from '../../src/gsa/client/rawResponse.js';

const KEY = 'sys-k3y&=/+';
const context: SystemApiContext = { key: new SecretKey(KEY), basePath: '', gsaId: 'gsa-bridge' };
const UUID = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
const NOW = Date.parse('2026-11-27T23:10:04Z');
const scrub = (text: string): string => text.split(KEY).join('***');

function answer(status: number, body: unknown, headers: Record<string, string> = {}): RawResponse {
  return { status, headers, text: typeof body === 'string' ? body : JSON.stringify(body) };
}

function classify(subject: SystemSubject, status: number, error: string, headers: Record<string, string> = {}) {
  return classifySystemFailure(subject)(answer(status, { error }, headers), scrub, NOW);
}

describe('mod API dialects', () => {
  const credentials = new Credentials('client-1', 's3cr3t&=x');
  const modContext = { credentials, basePath: '', wipePath: 'wipe' };

  it('are picked by flavor, v1 by default shape', () => {
    expect(modApiDialectOf('v1')).toBe(modApiV1);
    expect(modApiDialectOf('v2')).toBe(modApiV2);
  });

  it('v1 puts the pair first in the form; v2 in x-client-id / x-client-secret headers under /mod-api/v2', () => {
    const v1 = modApiV1.muteCheckRequest(modContext, 's', { steamId: '76561198000000001' });
    expect(v1).toEqual({
      endpoint: 'mute',
      method: 'POST',
      path: '/api/v1/gameserver/s/mute',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'client_id=client-1&client_secret=s3cr3t%26%3Dx&steam_id=76561198000000001',
    });
    const v2 = modApiV2.reviewRequest(modContext, 's', { eosId: 'a'.repeat(32) }, 5, 'ok');
    expect(v2.path).toBe('/mod-api/v2/gameserver/s/review');
    expect(v2.headers).toMatchObject({ 'x-client-id': 'client-1', 'x-client-secret': 's3cr3t&=x' });
    expect(v2.body).toBe(`eos_id=${'a'.repeat(32)}&stars=5&comment=ok`);
  });

  it('both send webhooks the v1 way, and requests.ts builds the same bytes as the dialect', () => {
    const v2 = modApiV2.serverActionRequest(modContext, 4711, 'update', 5);
    expect(v2).toEqual(modApiV1.serverActionRequest(modContext, 4711, 'update', 5));
    expect(v2.path).toBe('/api/v1/server/4711/update?client_id=client-1&countdown=5');
    expect(v2.body).toBe('s3cr3t&=x');
    expect(serverActionRequest({ ...modContext, flavor: 'v2' }, 4711, 'update', 5)).toEqual(v2);
    expect(muteCheckRequest({ ...modContext, flavor: 'v2' }, 's', { steamId: '1' })).toEqual(modApiV2.muteCheckRequest(modContext, 's', { steamId: '1' }));
  });
});

describe('System API v2 requests', () => {
  const auth = { accept: 'application/json', authorization: `Bearer ${KEY}`, 'gsa-id': 'gsa-bridge' };

  it('players/find: POST with a JSON body', () => {
    expect(systemApiV2.findPlayerRequest(context, '76561198023513722')).toEqual({
      endpoint: 'system-read',
      method: 'POST',
      path: '/system-api/v2/players/find',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"service_id":"76561198023513722"}',
    });
  });

  it('player: GET without a body; no GSA-ID header when none is set', () => {
    expect(systemApiV2.playerRequest({ ...context, gsaId: '' }, UUID)).toEqual({
      endpoint: 'system-read',
      method: 'GET',
      path: `/system-api/v2/player/${UUID}`,
      headers: { accept: 'application/json', authorization: `Bearer ${KEY}` },
      body: undefined,
    });
  });

  it('mute: JSON {type, period|date, note}; unmute: JSON {note} or {}', () => {
    const period = systemApiV2.muteRequest(context, UUID, { type: 'period', period: '1h' }, 'language');
    expect(period).toMatchObject({ endpoint: 'system-write', method: 'POST', path: `/system-api/v2/player/${UUID}/mute`, headers: { ...auth, 'content-type': 'application/json' } });
    expect(period.body).toBe('{"type":"period","period":"1h","note":"language"}');
    expect(systemApiV2.muteRequest(context, UUID, { type: 'date', date: '2030-01-02' }).body).toBe('{"type":"date","date":"2030-01-02"}');
    expect(systemApiV2.muteRequest(context, UUID, { type: 'permanent' }).body).toBe('{"type":"permanent"}');
    expect(systemApiV2.unmuteRequest(context, UUID, 'ok now')).toMatchObject({ path: `/system-api/v2/player/${UUID}/unmute`, body: '{"note":"ok now"}' });
    expect(systemApiV2.unmuteRequest(context, UUID).body).toBe('{}');
  });

  it('game-server actions: form bodies, stop → shutdown, cancel-scheduled → cancel, countdown only where it applies', () => {
    const form = { ...auth, 'content-type': 'application/x-www-form-urlencoded' };
    expect(systemApiV2.serverActionRequest(context, 57294, 'stop', { countdown: 5, message: 'bye now' })).toEqual({
      endpoint: 'system-write',
      method: 'POST',
      path: '/system-api/v2/gameserver/57294/shutdown',
      headers: form,
      body: 'countdown=5&message=bye+now',
    });
    expect(systemApiV2.serverActionRequest(context, 1, 'cancel-scheduled').path).toBe('/system-api/v2/gameserver/1/cancel');
    expect(systemApiV2.serverActionRequest(context, 1, 'start', { countdown: 5 }).body).toBe('');
    expect(systemApiV2.serverActionRequest(context, 1, 'backup', { name: 'before wipe' }).body).toBe('name=before+wipe');
    expect(systemApiV2.serverActionRequest(context, 1, 'update', { countdown: 0 }).body).toBe('countdown=0');
    expect(systemApiV2.broadcastRequest(context, 1, 'Hello & bye', 'success')).toMatchObject({
      path: '/system-api/v2/gameserver/1/broadcast',
      headers: form,
      body: 'message=Hello+%26+bye&type=success',
    });
  });

  it('a base URL path prefixes every path', () => {
    expect(systemApiV2.playerRequest({ ...context, basePath: '/gsa' }, UUID).path).toBe(`/gsa/system-api/v2/player/${UUID}`);
  });

  it('the key never shows when a request is put in JSON or inspected through its context', () => {
    expect(JSON.stringify(context)).not.toContain(KEY);
  });
});

describe('System API v2 answers', () => {
  it('players/find: the player with a linked account of that id, with the game ids of its linked accounts', () => {
    const body = {
      data: [
        { uuid: 'other', service_users: [{ service_id: '1', username: 'x' }] },
        { uuid: UUID, service_users: [{ service_id: '76561198023513722', username: 'Rex', type: 'steam' }] },
      ],
      meta: {},
    };
    expect(systemApiV2.parseFoundPlayer(answer(200, body), '76561198023513722')).toEqual({ uuid: UUID, name: 'Rex', gameIds: { steamId: '76561198023513722' } });
  });

  it("player: the linked accounts' game ids, each checked as its type (Steam64, EOS lowered, Mojang dashed); other types and malformed ids left out", () => {
    const linked = {
      data: {
        uuid: UUID,
        service_users: [
          { service_id: '1234', type: 'discord' },
          { service_id: 'not-a-steam-id', type: 'steam' },
          { service_id: '76561198023513722', type: 'steam' },
          { service_id: '0123456789ABCDEF0123456789ABCDEF', type: 'eos' },
          { service_id: '069a79f444e94726a5befca90e38aaf5', type: 'mojang' },
          { service_id: 4711, type: 'toString' },
        ],
        moderation: { muted: { is_muted: false } },
      },
    };
    expect(systemApiV2.parsePlayer(answer(200, linked)).gameIds).toEqual({ steamId: '76561198023513722', eosId: '0123456789abcdef0123456789abcdef', mojangId: '069a79f4-44e9-4726-a5be-fca90e38aaf5' });
    const none = { data: { uuid: UUID, service_users: [{ service_id: '1234', type: 'discord' }], moderation: { muted: { is_muted: false } } } };
    expect(systemApiV2.parsePlayer(answer(200, none)).gameIds).toBeUndefined();
  });

  it('player: moderation.muted', () => {
    const muted = { data: { uuid: UUID, moderation: { muted: { is_muted: true, until: '2030-01-01T00:00:00Z' } } } };
    expect(systemApiV2.parsePlayer(answer(200, muted))).toEqual({ uuid: UUID, name: undefined, gameIds: undefined, muted: true, mutedUntil: '2030-01-01T00:00:00Z' });
    expect(() => systemApiV2.parsePlayer(answer(200, { data: { uuid: UUID } }))).toThrow(/moderation\.muted/);
  });

  it('an action answer: its data text; anything else is bad_response, maybe processed', () => {
    expect(systemApiV2.parseReceipt(answer(200, { data: 'Player will be muted shortly.' }), scrub)).toEqual({ status: 200, message: 'Player will be muted shortly.' });
    expect(() => systemApiV2.parseReceipt(answer(200, '<html>'), scrub)).toThrow(expect.objectContaining({ code: 'bad_response', maybeProcessed: true }));
  });
});

describe('System API v2 failures', () => {
  const player: SystemSubject = { kind: 'player', uuid: UUID, period: '7d' };
  const server: SystemSubject = { kind: 'server', gameServerId: 57294 };

  it.each([
    ['the YAML per-player text, with its docblock artifact', 'You cannot do this yet. Please wait 120\n     *                                            second(s) between calls for the same player.', player, 120_000],
    ['the single-line per-player text', 'You cannot do this yet. Please wait 120 second(s) between calls for the same player.', player, 120_000],
    ['a 5 s per-player text', 'You cannot do this yet. Please wait 5 second(s) between calls for the same player.', player, 5_000],
    ['the per-game-server text', 'You cannot do this yet. Please wait 60 second(s) between calls for the same game server.', server, 60_000],
    ['the task text that names no wait', 'You cannot do that yet.', server, 60_000],
  ])('429 %s is a cooldown with its wait, not the key\'s limit', (_name, text, subject, waitMs) => {
    const error = classify(subject, 429, text, { 'retry-after': '30' });
    expect(error).toBeInstanceOf(CooldownError);
    expect(error).toMatchObject({ code: 'cooldown', status: 429, retryAfterMs: waitMs, availableAt: NOW + waitMs });
    expect(error.serviceMessage).not.toMatch(/\*|\n/);
  });

  it('says when a player can be muted again', () => {
    expect(classify(player, 429, 'You cannot do this yet. Please wait 120 second(s) between calls for the same player.').message).toBe(
      'GSA allows one mute or unmute per player every 120 s: this player can be muted or unmuted again at 2026-11-27T23:12:04Z',
    );
    expect(classify(server, 429, 'You cannot do this yet. Please wait 60 second(s) between calls for the same game server.').message).toMatch(/game server 57294 can be called again at 2026-11-27T23:11:04Z/);
  });

  it('a 429 without that text is the key\'s limit: rate_limited with its Retry-After', () => {
    const error = classify(player, 429, 'Too Many Attempts.', { 'retry-after': '7' });
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ code: 'rate_limited', retryAfterMs: 7000 });
  });

  it.each([
    [404, 'Player not found', player, 'not_found', /^GSA does not know this player \(404\): Player not found$/],
    [404, 'No players found matching the criteria', { kind: 'player' }, 'not_found', /^GSA does not know this player \(404\)/],
    [404, 'Game server not found', server, 'not_found', /^GSA does not know game server 57294 \(404\).*Game server not found$/],
    [400, 'Game server needs to be online to do this.', server, 'refused', /^game server 57294 is offline \(400\): Game server needs to be online/],
    [400, 'Invalid period or date.', player, 'refused', /period or date "7d" \(400\): Invalid period or date\.$/],
    [400, 'Failed to perform action. Try again later or contact support.', server, 'refused', /\(400\): Failed to perform action/],
    [400, 'You have reached the manual backup limit. Please remove a manual backup first.', server, 'refused', /manual backup limit/],
    [401, 'Unauthenticated.', player, 'unauthorized', /^GSA refused the System API key \(401\): check api\.system\.key or GSA_SYSTEM_API_KEY/],
    [403, 'This feature is only available for dashboards with add-ons.', server, 'forbidden', /\(403\).*add-ons/],
  ] as const)('%i %s → %s', (status, text, subject, code, message) => {
    const error = classify(subject, status, text);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it('scrubs the key from what the service says back', () => {
    expect(classify(player, 400, `bad token ${KEY}`).message).not.toContain(KEY);
  });

  it('normalises the docblock artifact and runs of whitespace', () => {
    expect(normalisedServiceText('wait 120\n     *       second(s)')).toBe('wait 120 second(s)');
  });
});
