// The emulator's System API v2 (issue 21), over real HTTP on loopback: bearer auth, players/find, player/{uuid}, the
// dashboard-wide mute seen by the mod API on every server, the 120 s per-player and 60 s per-game-server cooldowns,
// the game-server actions with their bodies and errors, the key's own budget, and the control routes. Both of the
// emulator's clocks are driven by one number the test sets, so no test waits on time.
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GsaEmulator, SYSTEM_BUDGET_KEY, type EmulatorOptions } from '../../src/gsaEmulator/index.js';
import { dateEnd, periodEnd } from '../../src/gsaEmulator/systemPeriods.js';
import { SystemState } from '../../src/gsaEmulator/systemState.js';

const ALPHA = { name: 'alpha', id: 4711 };
const BETA = { name: 'beta', id: 4712 };
const KEY = 'test-system-key';
const STEAM = '76561198000000001';
const EOS = '0123456789abcdef0123456789abcdef';
const CLIENT = 'demo-client';
const SECRET = 'demo-secret';
/** Wednesday 25 November 2026, 12:00 UTC. */
const WALL0 = Date.UTC(2026, 10, 25, 12, 0, 0);
const MINUTE = 60_000;

const PLAYER_429 = 'You cannot do this yet. Please wait 120 second(s) between calls for the same player.';
const SERVER_429 = 'You cannot do this yet. Please wait 60 second(s) between calls for the same game server.';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly json: unknown;
}

let clock = 0;
let emu: GsaEmulator;
let agent: Agent;

function startEmulator(options: EmulatorOptions = {}): Promise<GsaEmulator> {
  return GsaEmulator.start({ now: () => clock, wallClock: () => WALL0 + clock, servers: [ALPHA, BETA], systemKey: KEY, ...options });
}

beforeEach(async () => {
  clock = 0;
  emu = await startEmulator();
  agent = new Agent();
});

afterEach(async () => {
  await emu.close();
  await agent.destroy();
});

async function send(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const res = await request(`${emu.url}${path}`, {
    dispatcher: agent,
    method: init.method ?? 'POST',
    ...(init.headers === undefined ? {} : { headers: init.headers }),
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

interface SysInit {
  method?: string;
  json?: unknown;
  form?: Record<string, string>;
  /** A body sent as it is, with the given headers. */
  raw?: string;
  key?: string | null;
  headers?: Record<string, string>;
}

/** A System API call with the right key unless `key` says otherwise (null: no Authorization header). */
function sys(path: string, init: SysInit = {}): Promise<Answer> {
  const key = init.key === undefined ? KEY : init.key;
  const headers: Record<string, string> = { accept: 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...init.headers };
  let body: string | undefined = init.raw;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  return send(`/system-api/v2/${path}`, { method: init.method ?? 'POST', headers, ...(body === undefined ? {} : { body }) });
}

/** The mod API's mute check (v2: credentials in headers). */
async function modMuted(server: string, id: { steam_id: string } | { eos_id: string }): Promise<boolean> {
  const answer = await send(`/mod-api/v2/gameserver/${server}/mute`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', 'x-client-id': CLIENT, 'x-client-secret': SECRET },
    body: new URLSearchParams(id).toString(),
  });
  expect(answer.status).toBe(200);
  return (answer.json as { muted: boolean }).muted;
}

function control(method: 'GET' | 'POST', route: string, body?: unknown): Promise<Answer> {
  return send(`/_emulator/${route}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

async function findUuid(serviceId: string): Promise<string> {
  const found = await sys('players/find', { json: { service_id: serviceId } });
  expect(found.status).toBe(200);
  const uuid = (found.json as { data: { uuid: string }[] }).data[0]?.uuid;
  if (uuid === undefined) throw new Error('no player');
  return uuid;
}

function seedBoth(): string {
  return emu.addPlayer({ name: 'Mallory', ids: [{ type: 'steam', id: STEAM }, { type: 'eos', id: EOS }, { type: 'mojang', id: 'f47ac10b-58cc-4372-a567-0e02b2c3d479' }] });
}

describe('authentication', () => {
  it('takes only "Authorization: Bearer <system key>"; anything else is 401 Unauthenticated., before any route', async () => {
    for (const key of [null, 'wrong', `${KEY}x`, '']) {
      const answer = await sys('game/available', { method: 'GET', key });
      expect(answer).toMatchObject({ status: 401, json: { message: 'Unauthenticated.' } });
    }
    expect((await sys('no/such/route', { key: 'wrong' })).status).toBe(401);
    expect((await sys('game/available', { method: 'GET', key: null, headers: { authorization: `Basic ${KEY}` } })).status).toBe(401);
    // The client secret is not a system key, and the system key is not a client secret.
    expect((await sys('game/available', { method: 'GET', key: SECRET })).status).toBe(401);
    const asModKey = await send(`/mod-api/v2/gameserver/${ALPHA.name}/mute`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-client-id': CLIENT, 'x-client-secret': KEY },
      body: `steam_id=${STEAM}`,
    });
    expect(asModKey.status).toBe(401);

    const ok = await sys('game/available', { method: 'GET', headers: { authorization: `bearer ${KEY}` } });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual([expect.objectContaining({ app_id: 376030, name: expect.any(String) as string })]);
  });

  it('defaults to the demo key, and never shows the key in what it reports', async () => {
    const plain = await GsaEmulator.start({ now: () => clock });
    try {
      expect(plain.systemKey).toBe('demo-system-key');
      await expect(GsaEmulator.start({ systemKey: 'has space' })).rejects.toMatchObject({ code: 'EMULATOR_BAD_INPUT' });
    } finally {
      await plain.close();
    }
    emu.enforceBudget({ requests: 5, intervalMs: 1000 });
    await sys('game/available', { method: 'GET' });
    const everything = JSON.stringify([emu.snapshot(), emu.calls, emu.budgetReport(), (await control('GET', 'stats')).json]);
    expect(everything).not.toContain(KEY);
  });

  it('logs System API calls as endpoint "system", with whether a GSA-ID header came', async () => {
    await sys('game/available', { method: 'GET', headers: { 'gsa-id': 'tool-42' } });
    await sys(`gameserver/${ALPHA.id}/start`);
    expect(emu.calls).toMatchObject([
      { method: 'GET', path: '/system-api/v2/game/available', endpoint: 'system', flavor: 'system', server: null, gsaId: true, status: 200 },
      { method: 'POST', path: `/system-api/v2/gameserver/${ALPHA.id}/start`, endpoint: 'system', server: String(ALPHA.id), gsaId: false, status: 200 },
    ]);
    expect(emu.counters().byEndpoint.system).toBe(2);
  });

  it('answers unknown paths 404 {"error":"Not found"} and a wrong method 405', async () => {
    for (const path of ['', 'players', 'player', `player/x/ban`, 'gameserver/4711/wipe', 'gameserver/4711/start/now', 'game/available/x']) {
      expect(await sys(path), path).toMatchObject({ status: 404, json: { error: 'Not found' } });
    }
    expect(await sys('players/find', { method: 'GET' })).toMatchObject({ status: 405, headers: { allow: 'POST' } });
    expect((await sys('game/available')).status).toBe(405);
  });
});

describe('players/find and player/{uuid}', () => {
  it('needs a service_id: 400 "At least one search parameter is required"', async () => {
    for (const init of [{}, { json: {} }, { json: { service_id: '' } }, { json: { service_id: '   ' } }, { json: { other: STEAM } }, { form: {} }] satisfies SysInit[]) {
      expect(await sys('players/find', init)).toMatchObject({ status: 400, json: { error: 'At least one search parameter is required' } });
    }
    expect(await sys('players/find', { headers: { 'content-type': 'application/json' }, raw: '{"service_id":' })).toMatchObject({
      status: 400,
      json: { error: 'The request body is not valid JSON.' },
    });
    expect(await sys('players/find', { headers: { 'content-type': 'application/json' }, raw: `"${STEAM}"` })).toMatchObject({
      status: 400,
      json: { error: 'The request body must be a JSON object.' },
    });
  });

  it('answers 404 for an id GSA never saw, and finds one the mod API was asked about, with a stable uuid', async () => {
    expect(await sys('players/find', { json: { service_id: STEAM } })).toMatchObject({
      status: 404,
      json: { error: 'No players found matching the criteria' },
    });
    expect(await modMuted(ALPHA.name, { steam_id: STEAM })).toBe(false);
    const found = await sys('players/find', { json: { service_id: STEAM } });
    expect(found.status).toBe(200);
    const body = found.json as { data: { uuid: string }[]; links: unknown; meta: unknown };
    expect(body.data).toStrictEqual([
      {
        uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/) as string,
        name: STEAM,
        service_users: [{ uuid: expect.any(String) as string, service_id: STEAM, username: STEAM, type: 'steam' }],
        moderation: { muted: { is_muted: false, until: null }, banned: { is_banned: false, until: null } },
      },
    ]);
    const path = `${emu.url}/system-api/v2/players/find`;
    expect(body.links).toStrictEqual({ first: `${path}?page=1`, last: `${path}?page=1`, prev: null, next: null });
    expect(body.meta).toMatchObject({ current_page: 1, from: 1, last_page: 1, path, per_page: 20, to: 1, total: 1 });

    // The same id is the same uuid in another emulator: derived, not random.
    const other = await startEmulator();
    try {
      other.mute(ALPHA.name, STEAM);
      expect(other.snapshot().system.players[0]?.uuid).toBe(body.data[0]?.uuid);
    } finally {
      await other.close();
    }
  });

  it('makes a player of a reviewer only once the review is stored (a refused call changes nothing)', async () => {
    const review = (stars: string): Promise<Answer> =>
      send(`/mod-api/v2/gameserver/${BETA.name}/review`, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-client-id': CLIENT, 'x-client-secret': SECRET },
        body: new URLSearchParams({ eos_id: EOS, stars }).toString(),
      });
    expect((await review('9')).status).toBe(422);
    expect((await sys('players/find', { json: { service_id: EOS } })).status).toBe(404);
    expect((await review('5')).status).toBe(200);
    expect((await sys('players/find', { json: { service_id: EOS } })).json).toMatchObject({ data: [{ service_users: [{ type: 'eos', service_id: EOS }] }] });
  });

  it('finds seeded players by any linked id (Mojang too), form bodies included, and reads them back by uuid', async () => {
    const uuid = seedBoth();
    for (const id of [STEAM, EOS, 'f47ac10b-58cc-4372-a567-0e02b2c3d479']) {
      expect(await findUuid(id)).toBe(uuid);
    }
    expect((await sys('players/find', { form: { service_id: EOS } })).status).toBe(200);

    const shown = await sys(`player/${uuid}`, { method: 'GET' });
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({
      data: {
        uuid,
        name: 'Mallory',
        service_users: [
          { service_id: STEAM, type: 'steam', username: 'Mallory' },
          { service_id: EOS, type: 'eos' },
          { type: 'mojang' },
        ],
        moderation: { muted: { is_muted: false, until: null } },
      },
    });
    expect((await sys(`player/${uuid.toUpperCase()}`, { method: 'GET' })).status).toBe(200);
    for (const missing of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      expect(await sys(`player/${missing}`, { method: 'GET' })).toMatchObject({ status: 404, json: { error: 'Player not found' } });
    }
  });

  it('keeps a bounded number of players made on sight; a forgotten one comes back with its uuid and its mute', () => {
    const system = new SystemState(2);
    const ids = ['76561198000000011', '76561198000000012', '76561198000000013'];
    system.sawPlayerId(ids[0] ?? '');
    const first = system.findByServiceId(ids[0] ?? '')[0]?.uuid ?? '';
    system.mute(first, null);
    system.sawPlayerId(ids[1] ?? '');
    system.sawPlayerId(ids[2] ?? '');
    expect(system.findByServiceId(ids[0] ?? '')).toStrictEqual([]);
    expect(system.isMuted('steam', ids[0] ?? '', WALL0)).toBe(true); // the mute outlives the forgotten record
    system.sawPlayerId(ids[0] ?? '');
    expect(system.findByServiceId(ids[0] ?? '')[0]?.uuid).toBe(first);
    expect(system.snapshot(WALL0).players).toHaveLength(2);
    system.sawPlayerId('not an id');
    expect(system.findByServiceId('not an id')).toStrictEqual([]);
  });

  it('pages: per_page and page, clamped to 1…100', async () => {
    emu.addPlayer({ name: 'one', ids: [{ type: 'discord', id: 'shared' }] });
    emu.addPlayer({ name: 'two', ids: [{ type: 'twitch', id: 'shared' }] });
    const second = await send('/system-api/v2/players/find?per_page=1&page=2', {
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: 'shared' }),
    });
    expect(second.json).toMatchObject({ data: [{ name: 'two' }], meta: { current_page: 2, last_page: 2, from: 2, to: 2, total: 2, per_page: 1 } });
    const clamped = await send('/system-api/v2/players/find?per_page=1000', {
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ service_id: 'shared' }),
    });
    expect(clamped.json).toMatchObject({ meta: { per_page: 100, total: 2 } });
  });
});

describe('mute and unmute', () => {
  it('mutes dashboard-wide: the mod API answers muted for every id of the player on every server, until unmuted', async () => {
    const uuid = seedBoth();
    expect(await modMuted(ALPHA.name, { steam_id: STEAM })).toBe(false);

    const muted = await sys(`player/${uuid}/mute`, { json: { type: 'period', period: '1h', note: 'Inappropriate language' } });
    expect(muted).toMatchObject({ status: 200, json: { data: 'Player will be muted shortly.' } });
    for (const server of [ALPHA.name, BETA.name]) {
      expect(await modMuted(server, { steam_id: STEAM })).toBe(true);
      expect(await modMuted(server, { eos_id: EOS })).toBe(true);
    }
    expect(await modMuted(ALPHA.name, { steam_id: '76561198000000009' })).toBe(false);
    const until = new Date(WALL0 + 60 * MINUTE).toISOString();
    expect((await sys(`player/${uuid}`, { method: 'GET' })).json).toMatchObject({ data: { moderation: { muted: { is_muted: true, until } } } });
    expect(emu.snapshot().system.mutes).toStrictEqual([{ uuid, until, note: 'Inappropriate language' }]);

    clock += 120_000;
    expect(await sys(`player/${uuid}/unmute`, { json: { note: 'Good behavior' } })).toMatchObject({
      status: 200,
      json: { data: 'Player will be unmuted shortly.' },
    });
    for (const server of [ALPHA.name, BETA.name]) expect(await modMuted(server, { eos_id: EOS })).toBe(false);
    expect((await sys(`player/${uuid}`, { method: 'GET' })).json).toMatchObject({ data: { moderation: { muted: { is_muted: false, until: null } } } });
  });

  it('mutes a player found by an id the mod API saw, and a server mute from the controls stays as it was', async () => {
    emu.mute(ALPHA.name, EOS, 'server-only');
    const uuid = await findUuid(EOS);
    expect(await modMuted(BETA.name, { eos_id: EOS })).toBe(false);
    expect((await sys(`player/${uuid}/mute`, { json: { type: 'permanent' } })).status).toBe(200);
    expect(await modMuted(BETA.name, { eos_id: EOS })).toBe(true);
    clock += 120_000;
    await sys(`player/${uuid}/unmute`);
    expect(await modMuted(BETA.name, { eos_id: EOS })).toBe(false);
    expect(await modMuted(ALPHA.name, { eos_id: EOS })).toBe(true);
  });

  it('ends a period mute when its time has passed', async () => {
    const uuid = seedBoth();
    await sys(`player/${uuid}/mute`, { json: { type: 'period', period: '15m' } });
    clock += 15 * MINUTE - 1;
    expect(await modMuted(BETA.name, { steam_id: STEAM })).toBe(true);
    clock += 1;
    expect(await modMuted(BETA.name, { steam_id: STEAM })).toBe(false);
    expect((await sys(`player/${uuid}`, { method: 'GET' })).json).toMatchObject({ data: { moderation: { muted: { is_muted: false, until: null } } } });
    expect(emu.snapshot().system.mutes).toStrictEqual([]);
  });

  it('keeps 120 s per player between mutes and unmutes, counted from arrival; other players are not held', async () => {
    const uuid = seedBoth();
    const other = emu.addPlayer({ ids: [{ type: 'steam', id: '76561198000000002' }] });
    expect((await sys(`player/${uuid}/mute`, { json: { type: 'permanent' } })).status).toBe(200);
    clock += 119_999;
    for (const leaf of ['mute', 'unmute']) {
      expect(await sys(`player/${uuid}/${leaf}`, { json: { type: 'permanent' } })).toMatchObject({ status: 429, json: { error: PLAYER_429 } });
    }
    expect((await sys(`player/${other}/mute`, { json: { type: 'permanent' } })).status).toBe(200);
    expect(await modMuted(ALPHA.name, { steam_id: STEAM })).toBe(true); // a refused unmute changed nothing
    clock += 1;
    expect((await sys(`player/${uuid}/unmute`)).status).toBe(200);
    clock += 60_000;
    expect((await sys(`player/${uuid}/mute`, { json: { type: 'permanent' } })).status).toBe(429);
  });

  it('refuses a bad type, period or date with 400 "Invalid period or date." and starts no cooldown', async () => {
    const uuid = seedBoth();
    const bad: unknown[] = [
      {},
      { type: 'forever' },
      { type: 'period' },
      { type: 'period', period: '7d' },
      { type: 'period', period: '12m' },
      { type: 'period', period: '60m' },
      { type: 'period', period: 15 },
      { type: 'date' },
      { type: 'date', date: '2026-11-25' }, // today: its start has passed
      { type: 'date', date: '2025-01-01' },
      { type: 'date', date: '2026-02-30' },
      { type: 'date', date: '26-12-01' },
      { type: 'date', date: '2026-12-01T00:00:00Z' },
    ];
    for (const body of bad) {
      expect(await sys(`player/${uuid}/mute`, { json: body }), JSON.stringify(body)).toMatchObject({ status: 400, json: { error: 'Invalid period or date.' } });
    }
    expect(await sys(`player/${uuid}/mute`, { headers: { 'content-type': 'application/json' }, raw: '{type:permanent}' })).toMatchObject({ status: 400 });
    expect(await modMuted(ALPHA.name, { steam_id: STEAM })).toBe(false);
    expect(await sys(`player/${uuid}/mute`, { json: { type: 'date', date: '2026-11-26' } })).toMatchObject({ status: 200 });
    expect(emu.snapshot().system.mutes[0]?.until).toBe('2026-11-26T00:00:00.000Z');
  });

  it('answers 404 "Player not found" for an unknown uuid, on mute and unmute', async () => {
    for (const leaf of ['mute', 'unmute']) {
      expect(await sys(`player/00000000-0000-4000-8000-000000000000/${leaf}`, { json: { type: 'permanent' } })).toMatchObject({
        status: 404,
        json: { error: 'Player not found' },
      });
    }
  });
});

describe('period codes (the emulator reading of the docs)', () => {
  const at = WALL0; // Wednesday 2026-11-25 12:00 UTC
  it.each([
    ['15m', at + 15 * MINUTE],
    ['45m', at + 45 * MINUTE],
    ['12h', at + 12 * 60 * MINUTE],
    ['6d', at + 6 * 24 * 60 * MINUTE],
    ['3w', at + 21 * 24 * 60 * MINUTE],
    ['1m', Date.UTC(2026, 11, 25, 12)],
    ['3m', Date.UTC(2027, 1, 25, 12)],
    ['11m', Date.UTC(2027, 9, 25, 12)],
    ['1y', Date.UTC(2027, 10, 25, 12)],
    ['eod', Date.UTC(2026, 10, 26) - 1],
    ['eow', Date.UTC(2026, 10, 30) - 1], // Sunday's last millisecond
    ['eom', Date.UTC(2026, 11, 1) - 1],
    ['eoy', Date.UTC(2027, 0, 1) - 1],
    ['0', null],
  ])('%s ends at the right time', (period, until) => {
    expect(periodEnd(period, at)).toStrictEqual({ ok: true, until });
  });

  it('clamps a month step to the month end, and refuses codes not in the list', () => {
    expect(periodEnd('1m', Date.UTC(2027, 0, 31, 8))).toStrictEqual({ ok: true, until: Date.UTC(2027, 1, 28, 8) });
    expect(periodEnd('eow', Date.UTC(2026, 10, 29, 23))).toStrictEqual({ ok: true, until: Date.UTC(2026, 10, 30) - 1 });
    for (const code of ['7d', '12m', '0m', '2y', '1h ', 'EOD', '']) expect(periodEnd(code, at)).toStrictEqual({ ok: false });
    expect(dateEnd('2028-02-29', at)).toStrictEqual({ ok: true, until: Date.UTC(2028, 1, 29) });
    expect(dateEnd('2027-02-29', at)).toStrictEqual({ ok: false });
  });
});

describe('game-server actions', () => {
  const SUCCESS: Record<string, string> = {
    start: 'Start request sent to game server',
    update: 'Update request sent to game server',
    shutdown: 'Shutdown request sent to game server',
    restart: 'Restart request sent to game server',
    cancel: 'Cancel request sent to game server',
    backup: 'Backup request sent to game server',
    broadcast: 'Broadcast sent to game server',
    command: 'Command sent to game server',
  };
  const BODIES: Record<string, Record<string, string>> = {
    start: {},
    update: { countdown: '15', message: 'Updating soon' },
    shutdown: { countdown: '0' },
    restart: { countdown: '90', message: 'Restart in 90' },
    cancel: {},
    backup: { name: 'before-wipe' },
    broadcast: { message: 'Hello world!', type: 'success' },
    command: { command: 'SaveWorld' },
  };

  it('answers each action with its documented text and records what arrived', async () => {
    for (const [action, text] of Object.entries(SUCCESS)) {
      const answer = await sys(`gameserver/${ALPHA.id}/${action}`, { form: BODIES[action] ?? {} });
      expect(answer, action).toMatchObject({ status: 200, json: { data: text } });
      clock += 60_000;
    }
    expect(emu.systemActions()).toStrictEqual([
      { serverId: ALPHA.id, action: 'start', at: 0 },
      { serverId: ALPHA.id, action: 'update', countdown: 15, message: 'Updating soon', at: 60_000 },
      { serverId: ALPHA.id, action: 'shutdown', countdown: 0, at: 120_000 },
      { serverId: ALPHA.id, action: 'restart', countdown: 90, message: 'Restart in 90', at: 180_000 },
      { serverId: ALPHA.id, action: 'cancel', at: 240_000 },
      { serverId: ALPHA.id, action: 'backup', name: 'before-wipe', at: 300_000 },
      { serverId: ALPHA.id, action: 'broadcast', message: 'Hello world!', type: 'success', at: 360_000 },
      { serverId: ALPHA.id, action: 'command', command: 'SaveWorld', at: 420_000 },
    ]);
    expect((await control('GET', 'state')).json).toMatchObject({ system: { actions: emu.systemActions() } });
    expect((await control('GET', 'system-actions')).json).toStrictEqual(emu.systemActions());
  });

  it('defaults a countdown to 0 and a broadcast type to warning; reads JSON bodies too', async () => {
    await sys(`gameserver/${ALPHA.id}/restart`, { form: {} });
    await sys(`gameserver/${BETA.id}/broadcast`, { json: { message: 'hi' } });
    expect(emu.systemActions()).toMatchObject([
      { serverId: ALPHA.id, action: 'restart', countdown: 0 },
      { serverId: BETA.id, action: 'broadcast', message: 'hi', type: 'warning' },
    ]);
  });

  it('keeps 60 s per game server across all its actions; another server is not held', async () => {
    expect((await sys(`gameserver/${ALPHA.id}/broadcast`, { form: { message: 'one' } })).status).toBe(200);
    clock += 59_999;
    for (const action of ['broadcast', 'command', 'start', 'restart']) {
      expect(await sys(`gameserver/${ALPHA.id}/${action}`, { form: { message: 'two', command: 'x' } }), action).toMatchObject({
        status: 429,
        json: { error: SERVER_429 },
      });
    }
    expect((await sys(`gameserver/${BETA.id}/broadcast`, { form: { message: 'beta' } })).status).toBe(200);
    clock += 1;
    expect((await sys(`gameserver/${ALPHA.id}/command`, { form: { command: 'SaveWorld' } })).status).toBe(200);
    expect(emu.systemActions().map((a) => [a.serverId, a.action])).toStrictEqual([
      [ALPHA.id, 'broadcast'],
      [BETA.id, 'broadcast'],
      [ALPHA.id, 'command'],
    ]);
  });

  it('refuses bad bodies with 400 and a clear error, recording nothing and starting no cooldown', async () => {
    const cases: [string, Record<string, string>, RegExp][] = [
      ['update', { countdown: '91' }, /countdown/],
      ['restart', { countdown: '-1' }, /countdown/],
      ['shutdown', { countdown: 'soon' }, /countdown/],
      ['restart', { countdown: '1.5' }, /countdown/],
      ['backup', {}, /name/],
      ['backup', { name: '  ' }, /name/],
      ['broadcast', {}, /message/],
      ['broadcast', { message: 'x', type: 'info' }, /type/],
      ['command', {}, /command/],
    ];
    for (const [action, form, error] of cases) {
      const answer = await sys(`gameserver/${ALPHA.id}/${action}`, { form });
      expect(answer.status, `${action} ${JSON.stringify(form)}`).toBe(400);
      expect((answer.json as { error: string }).error).toMatch(error);
    }
    expect(await sys(`gameserver/${ALPHA.id}/broadcast`, { headers: { 'content-type': 'application/json' }, raw: '[]' })).toMatchObject({
      status: 400,
    });
    expect(emu.systemActions()).toStrictEqual([]);
    expect((await sys(`gameserver/${ALPHA.id}/broadcast`, { form: { message: 'now fine' } })).status).toBe(200);
  });

  it('answers 404 "Game server not found" for an id it does not know', async () => {
    for (const id of ['9999', 'alpha', '0', '4711x']) {
      expect(await sys(`gameserver/${id}/start`), id).toMatchObject({ status: 404, json: { error: 'Game server not found' } });
      expect(await sys(`gameserver/${id}`, { method: 'GET' }), id).toMatchObject({ status: 404, json: { error: 'Game server not found' } });
    }
  });

  it('lists its game servers and shows one, with its online flag as activity.status', async () => {
    emu.setServerOnline(BETA.id, false);
    expect((await sys(`gameserver/${ALPHA.id}`, { method: 'GET' })).json).toStrictEqual({
      id: ALPHA.id,
      name: ALPHA.name,
      display_name: ALPHA.name,
      short_name: ALPHA.name,
      activity: { status: true, online_characters_count: 0 },
    });
    expect((await sys('gameservers', { method: 'GET' })).json).toMatchObject({
      data: [{ id: ALPHA.id, activity: { status: true } }, { id: BETA.id, activity: { status: false } }],
      meta: { total: 2, current_page: 1 },
    });
  });

  it('refuses every action but start on an offline server with 400; start goes through', async () => {
    expect(await control('POST', 'server-online', { id: ALPHA.id, online: false })).toMatchObject({ status: 200 });
    for (const action of ['update', 'shutdown', 'restart', 'cancel', 'backup', 'broadcast', 'command']) {
      expect(await sys(`gameserver/${ALPHA.id}/${action}`, { form: BODIES[action] ?? {} }), action).toMatchObject({
        status: 400,
        json: { error: 'Game server needs to be online to do this.' },
      });
    }
    expect(emu.snapshot().system.offline).toStrictEqual([ALPHA.id]);
    expect((await sys(`gameserver/${ALPHA.id}/start`)).status).toBe(200);
    clock += 60_000;
    emu.setServerOnline(ALPHA.id, true);
    expect((await sys(`gameserver/${ALPHA.id}/broadcast`, { form: { message: 'back' } })).status).toBe(200);
    expect(await control('POST', 'server-online', { id: 9999, online: false })).toMatchObject({ status: 400 });
  });
});

describe('the system key in the enforced budget', () => {
  it('counts its calls apart from the mod API key, so each has its own window', async () => {
    emu.enforceBudget({ requests: 2, intervalMs: 1000 });
    for (let i = 0; i < 2; i += 1) {
      const answer = await sys('game/available', { method: 'GET' });
      expect(answer.status).toBe(200);
      expect(answer.headers['x-ratelimit-remaining']).toBe(String(1 - i));
    }
    const refused = await sys(`gameserver/${ALPHA.id}/start`);
    expect(refused).toMatchObject({ status: 429, json: { message: 'Too Many Attempts.' }, headers: { 'retry-after': '1' } });
    expect(emu.systemActions()).toStrictEqual([]); // refused by the budget: not processed
    expect(await modMuted(ALPHA.name, { steam_id: STEAM })).toBe(false); // the mod API key still has room
    expect((await sys('game/available', { method: 'GET', key: 'wrong' })).status).toBe(401); // not counted
    expect(emu.budgetReport()?.keys).toStrictEqual([
      { clientId: SYSTEM_BUDGET_KEY, counted: 2, refused: 1, inWindow: 2 },
      { clientId: CLIENT, counted: 1, refused: 0, inWindow: 1 },
    ]);
    clock += 1000;
    expect((await sys(`gameserver/${ALPHA.id}/start`)).status).toBe(200);
  });

  it('takes faults aimed at endpoint "system"', async () => {
    emu.injectFault({ kind: 'status', status: 503, endpoint: 'system' });
    expect(await modMuted(ALPHA.name, { steam_id: STEAM })).toBe(false);
    expect((await sys('game/available', { method: 'GET' })).status).toBe(503);
    expect((await sys('game/available', { method: 'GET' })).status).toBe(200);
  });
});

describe('control routes', () => {
  it('seeds players over HTTP with strict bodies, and refuses an id a seeded player holds', async () => {
    const seeded = await control('POST', 'player', { name: 'Steve', ids: [{ type: 'mojang', id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' }] });
    expect(seeded.status).toBe(200);
    const { uuid } = seeded.json as { uuid: string };
    expect(await findUuid('069a79f4-44e9-4726-a5be-fca90e38aaf5')).toBe(uuid);
    for (const body of [
      { ids: [] },
      { ids: [{ type: 'xbox', id: '1' }] },
      { ids: [{ type: 'steam', id: STEAM }], extra: true },
      { ids: [{ type: 'steam', id: STEAM }, { type: 'steam', id: STEAM }] },
      { ids: [{ type: 'mojang', id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' }] },
      { ids: [{ type: 'steam', id: STEAM }], uuid: 'nope' },
    ]) {
      expect(await control('POST', 'player', body), JSON.stringify(body)).toMatchObject({ status: 400, json: { message: expect.any(String) as string } });
    }
  });

  it('lets a seeded player take over the uuid a Steam id had on sight, keeping its mute, now on every linked id', async () => {
    await modMuted(ALPHA.name, { steam_id: STEAM });
    const onSight = await findUuid(STEAM);
    expect((await sys(`player/${onSight}/mute`, { json: { type: 'permanent' } })).status).toBe(200);
    expect(seedBoth()).toBe(onSight);
    // The mute belongs to the player (its uuid), so the EOS id linked after it is muted too, as GSA mutes subaccounts.
    expect(await modMuted(BETA.name, { eos_id: EOS })).toBe(true);
    expect(await modMuted(BETA.name, { steam_id: STEAM })).toBe(true);
  });

  it('mutes and unmutes dashboard-wide without the API or its cooldown', async () => {
    const uuid = seedBoth();
    expect(await control('POST', 'system-mute', { uuid, until: new Date(WALL0 + MINUTE).toISOString(), note: 'seeded' })).toMatchObject({ status: 200 });
    expect(await modMuted(ALPHA.name, { steam_id: STEAM })).toBe(true);
    clock += MINUTE;
    expect(await modMuted(ALPHA.name, { steam_id: STEAM })).toBe(false);
    await control('POST', 'system-mute', { uuid });
    expect(emu.snapshot().system.mutes).toStrictEqual([{ uuid, until: null, note: '' }]);
    await control('POST', 'system-unmute', { uuid });
    expect(await modMuted(ALPHA.name, { steam_id: STEAM })).toBe(false);
    expect((await sys(`player/${uuid}/mute`, { json: { type: 'permanent' } })).status).toBe(200); // no cooldown was started
    expect(await control('POST', 'system-mute', { uuid: '00000000-0000-4000-8000-000000000000' })).toMatchObject({ status: 400 });
    expect(await control('POST', 'system-mute', { uuid, until: 'tomorrow' })).toMatchObject({ status: 400 });
  });

  it('reset clears mutes, cooldowns, offline marks and actions, and keeps players', async () => {
    const uuid = seedBoth();
    await sys(`player/${uuid}/mute`, { json: { type: 'permanent' } });
    await sys(`gameserver/${ALPHA.id}/start`);
    emu.setServerOnline(BETA.id, false);
    expect((await control('POST', 'reset')).status).toBe(200);
    expect(emu.snapshot().system).toMatchObject({ mutes: [], offline: [], actions: [], players: [{ uuid, name: 'Mallory', seeded: true }] });
    expect(await modMuted(ALPHA.name, { steam_id: STEAM })).toBe(false);
    expect((await sys(`player/${uuid}/mute`, { json: { type: 'permanent' } })).status).toBe(200);
    expect((await sys(`gameserver/${ALPHA.id}/start`)).status).toBe(200);
    expect((await sys(`gameserver/${BETA.id}/broadcast`, { form: { message: 'online again' } })).status).toBe(200);
  });
});
