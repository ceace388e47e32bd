// The contract between the request builders (src/gsa/dialects/) and the GSA emulator: every request the real clients
// build, for every dialect, is accepted by the real emulator with a 2xx. Mod API v1 (mute check by Steam and by EOS
// id, review, each webhook action), mod API v2 (mute check, review), System API v2 (players/find, player/{uuid},
// mute with every period code, an end date and for good, unmute, every server action, broadcast of each type). Should
// a builder and the emulator drift apart (a field renamed, a path changed, an encoding), one of these fails.
// No call waits for a cooldown: each rate-limited call has a target of its own (a server per action, a player per
// mute), on the client's spacing and the emulator's alike.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GsaEmulator, type RecordedCall } from '../../src/gsaEmulator/index.js';
import { GsaClient, PERIOD_CODES, SERVER_ACTIONS, SYSTEM_SERVER_ACTIONS, SystemApiClient, BROADCAST_TYPES, type ApiFlavor } from '../../src/gsa/index.js';

const SERVER = 'ovddykvbs';
const SERVER_ID = 4711;
const SYSTEM_KEY = 'contract-system-key';
/** One game server per System API call on a server: the 60 s per-server cooldown never makes a call wait. */
const SYSTEM_SERVER_IDS = Array.from({ length: SYSTEM_SERVER_ACTIONS.length + BROADCAST_TYPES.length }, (_, index) => 5001 + index);
const RETRY = { retries: 0, minDelayMs: 10, maxDelayMs: 10 };

let emulator: GsaEmulator;
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({
    systemKey: SYSTEM_KEY,
    servers: [{ name: SERVER, id: SERVER_ID }, ...SYSTEM_SERVER_IDS.map((id) => ({ name: `contract-${String(id)}`, id }))],
  });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

function modClient(flavor: ApiFlavor): GsaClient {
  const client = new GsaClient({ baseUrl: emulator.url, flavor, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: RETRY });
  clients.push(client);
  return client;
}

function systemClient(gsaId?: string): SystemApiClient {
  const client = new SystemApiClient({ baseUrl: emulator.url, key: SYSTEM_KEY, gsaId, retry: RETRY });
  clients.push(client);
  return client;
}

/** Every call the emulator saw, as `<status> <method> <path>`, so a refusal shows what was refused. */
function answered(): string[] {
  return emulator.calls.map((call: RecordedCall) => `${String(call.status)} ${call.method} ${call.path}`);
}

function expectAll2xx(count: number): void {
  const calls = answered();
  expect(calls).toHaveLength(count);
  for (const call of calls) expect(call).toMatch(/^2\d\d /);
}

/** A distinct Steam64 id per use. */
let nextSteam = 76561198000100000n;
function steamId(): string {
  nextSteam += 1n;
  return String(nextSteam);
}

describe.each(['v1', 'v2'] as const)('mod API %s', (flavor) => {
  it('takes the mute check (Steam and EOS id) and the review', async () => {
    const client = modClient(flavor);
    const muted = steamId();
    emulator.mute(SERVER, muted, 'Muted for spam');
    expect(await client.checkMuted(SERVER, { steamId: muted })).toMatchObject({ muted: true, alert: 'Muted for spam' });
    expect(await client.checkMuted(SERVER, { steamId: steamId() })).toMatchObject({ muted: false });
    expect(await client.checkMuted(SERVER, { eosId: '0002a11ce0000000000000000000c0de' })).toMatchObject({ muted: false });
    const reviewer = steamId();
    await client.submitReview(SERVER, { steamId: reviewer }, 4, 'Fair admins, "good" | fun');
    expect(emulator.reviews).toMatchObject([{ stars: 4, comment: 'Fair admins, "good" | fun' }]);
    expectAll2xx(4);
    expect(new Set(emulator.calls.map((call) => call.flavor))).toEqual(new Set([flavor]));
  });
});

describe('mod API v1 webhooks', () => {
  it.each(SERVER_ACTIONS)('takes %s', async (action) => {
    const client = modClient('v1');
    const result = await client.serverAction(SERVER_ID, action, action === 'update' ? 5 : undefined);
    expect(result.status).toBeGreaterThanOrEqual(200);
    // cancel-scheduled empties the server's queue; every other action is queued.
    expect(emulator.actions(SERVER_ID).map((queued) => queued.action)).toEqual(action === 'cancel-scheduled' ? [] : [action]);
    expectAll2xx(1);
    expect(emulator.calls[0]?.flavor).toBe('webhook');
  });
});

describe('System API v2', () => {
  it('finds a player by each kind of id and reads them', async () => {
    const client = systemClient();
    const ids = [
      { type: 'steam', id: steamId() },
      { type: 'eos', id: '0002b0b0000000000000000000000b0b' },
      { type: 'mojang', id: '853c80ef-3c37-49fd-aa49-938b674ad001' },
    ] as const;
    for (const identity of ids) {
      const uuid = emulator.addPlayer({ ids: [identity], name: `player-${identity.type}` });
      expect(await client.findPlayer(identity.id)).toMatchObject({ uuid });
      expect(await client.player(uuid)).toMatchObject({ uuid, muted: false });
    }
    expectAll2xx(ids.length * 2);
  });

  it("takes the key check (game/available), config check --connect's one call", async () => {
    expect(await systemClient().checkKey()).toBeGreaterThanOrEqual(1);
    expectAll2xx(1);
  });

  it('takes the GSA-ID header a distributed tool sends', async () => {
    const client = systemClient('gsa-bridge-contract');
    const id = steamId();
    emulator.addPlayer({ ids: [{ type: 'steam', id }] });
    expect(await client.checkMuted(id)).toMatchObject({ muted: false });
    expectAll2xx(2);
    expect(emulator.calls.map((call) => call.gsaId)).toEqual([true, true]);
  });

  it('takes a mute for every period code, an end date and for good, and an unmute', async () => {
    const client = systemClient();
    // One player per call: GSA's 120 s per-player cooldown never makes one wait.
    const fresh = (): string => emulator.addPlayer({ ids: [{ type: 'steam', id: steamId() }] });
    for (const period of PERIOD_CODES) await client.mute(fresh(), { type: 'period', period }, `period ${period}`);
    const nextYear = new Date().getUTCFullYear() + 1;
    const dated = fresh();
    await client.mute(dated, { type: 'date', date: `${String(nextYear)}-06-30` }, 'until a date');
    const forGood = fresh();
    await client.mute(forGood, { type: 'permanent' });
    expect(await client.player(dated)).toMatchObject({ muted: true });
    expect(await client.player(forGood)).toMatchObject({ muted: true, mutedUntil: null });
    const unmuted = fresh();
    emulator.systemMute(unmuted);
    await client.unmute(unmuted, 'appeal granted');
    expect(await client.player(unmuted)).toMatchObject({ muted: false });
    expectAll2xx(PERIOD_CODES.length + 2 + 2 + 1 + 1);
  });

  it('takes every server action and a broadcast of each type', async () => {
    const client = systemClient();
    const targets = [...SYSTEM_SERVER_IDS];
    const take = (): number => {
      const id = targets.shift();
      if (id === undefined) throw new Error('out of fresh game servers');
      return id;
    };
    for (const action of SYSTEM_SERVER_ACTIONS) {
      await client.serverAction(take(), action, action === 'backup' ? { name: 'contract backup' } : action === 'restart' || action === 'update' || action === 'stop' ? { countdown: 5, message: 'Going down' } : {});
    }
    for (const type of BROADCAST_TYPES) await client.broadcast(take(), `A ${type} to everyone`, type);
    expectAll2xx(SYSTEM_SERVER_ACTIONS.length + BROADCAST_TYPES.length);
    // What arrived is what was asked: the System API's names for stop (shutdown) and cancel-scheduled (cancel).
    expect(emulator.systemActions().map((record) => record.action)).toEqual(['start', 'shutdown', 'restart', 'update', 'cancel', 'backup', 'broadcast', 'broadcast', 'broadcast', 'broadcast']);
    expect(emulator.systemActions().filter((record) => record.action === 'broadcast').map((record) => record.type)).toEqual([...BROADCAST_TYPES]);
    expect(emulator.systemActions().find((record) => record.action === 'backup')).toMatchObject({ name: 'contract backup' });
    expect(emulator.systemActions().find((record) => record.action === 'restart')).toMatchObject({ countdown: 5, message: 'Going down' });
  });
});
