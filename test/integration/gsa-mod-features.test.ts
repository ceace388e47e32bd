// GSA's Mod API v2 features (access, reports, shop, tokens, UI) through the service client against the project's own
// emulator over real loopback HTTP: what each call sends and reads, which failures are retried (reads like a mute
// check, a report like a review) and that an order or a token spend reaches GSA exactly once whatever happens to it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { failureOf } from '../fixtures/failureOf.js';
import { patientMs } from '../fixtures/patience.js';
import { DEFAULT_CATALOGUE, GsaEmulator, type CallEndpoint } from '../../src/gsaEmulator/index.js';
import { GsaClient, type GsaClientOptions, type ReportFields } from '../../src/gsa/index.js';

const SERVER = 'ovddykvbs';
const ALICE = '76561198000000001';
const MALLORY = '76561198000000002';
const EOS_PLAYER = '0123456789abcdef0123456789abcdef';
const SECRET = 'feature-secret-5c4b3a';
const REPORT: ReportFields = { comment: 'Flew over the base\twith a tame', characterId: 123456789, coords: 'X_10.5 Y_-20 Z_300', type: 1, reportedPlayer: 102 };

let emulator: GsaEmulator;
const clients: GsaClient[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ clientId: 'client-f', clientSecret: SECRET, servers: [{ name: SERVER, id: 4711 }] });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  emulator.reset();
});

afterAll(async () => {
  await emulator.close();
});

/** A v1 client by default: the features go to /mod-api/v2 whatever the flavour says. */
function makeClient(overrides: Partial<GsaClientOptions> = {}): GsaClient {
  const client = new GsaClient({
    baseUrl: emulator.url,
    clientId: 'client-f',
    clientSecret: SECRET,
    flavor: 'v1',
    timeoutMs: patientMs(2000),
    retry: { retries: 3, minDelayMs: 5, maxDelayMs: 20 },
    ...overrides,
  });
  clients.push(client);
  return client;
}

function endpoints(): CallEndpoint[] {
  return emulator.calls.map((call) => call.endpoint);
}

describe('reads', () => {
  it('checks access at /mod-api/v2 with a v1 client: allowed by default, GSA\'s empty roles [] read as {}', async () => {
    const client = makeClient();
    expect(await client.checkAccess(SERVER, { steamId: ALICE })).toEqual({ allowed: true, usernameAccepted: true, message: null, roles: {} });
    const [call] = emulator.calls;
    expect(call).toMatchObject({ method: 'POST', path: `/mod-api/v2/gameserver/${SERVER}/integration-mod`, endpoint: 'access', flavor: 'v2', status: 200 });
    expect(call?.player).toEqual({ steam_id: ALICE });
  });

  it('reads a refusal with its message and roles, by eos id', async () => {
    emulator.setAccess(EOS_PLAYER, { allowed: false, message: 'You are not on the whitelist', roles: { '7': '2026-12-31T00:00:00Z' }, usernameAccepted: false });
    expect(await makeClient().checkAccess(SERVER, { eosId: EOS_PLAYER })).toEqual({
      allowed: false,
      usernameAccepted: false,
      message: 'You are not on the whitelist',
      roles: { '7': '2026-12-31T00:00:00Z' },
    });
  });

  it('retries an access check after a 502, as a mute check', async () => {
    emulator.injectFault({ kind: 'status', status: 502, endpoint: 'access' });
    expect((await makeClient().checkAccess(SERVER, { steamId: ALICE })).allowed).toBe(true);
    expect(endpoints()).toEqual(['access', 'access']);
  });

  it('reads the report form without GSA\'s " - Select player - " placeholder', async () => {
    const settings = await makeClient().reportSettings(SERVER, { steamId: ALICE });
    expect(settings).toEqual({
      title: 'Report a player',
      description: expect.any(String) as unknown,
      players: [
        { user_id: 101, name: 'Alice' },
        { user_id: 102, name: 'Mallory' },
      ],
      types: [
        { id: 1, name: 'Cheating' },
        { id: 2, name: 'Harassment' },
        { id: 3, name: 'Other' },
      ],
    });
    expect(emulator.calls[0]).toMatchObject({ method: 'GET', path: `/mod-api/v2/gameserver/${SERVER}/report`, endpoint: 'report-settings', player: { steam_id: ALICE } });
  });

  it('reads the shop index (searched), a pack, and a 404 for an unknown pack', async () => {
    const client = makeClient();
    expect(await client.shopIndex(SERVER, { steamId: ALICE }, { search: 'KIT' })).toEqual({
      identifier: 'gsa-shop-index',
      data: DEFAULT_CATALOGUE.filter((item) => item.name.toLowerCase().includes('kit')),
    });
    expect(await client.shopIndex(SERVER, { steamId: ALICE }, { filter: 'tools' })).toMatchObject({ data: [{ id: 2 }] });
    expect(await client.shopPack(SERVER, { steamId: ALICE }, 3)).toEqual({ identifier: 'gsa-shop-detail', data: DEFAULT_CATALOGUE[2] });
    expect(await failureOf(client.shopPack(SERVER, { steamId: ALICE }, 99))).toMatchObject({ code: 'not_found', status: 404 });
    expect(emulator.calls.map((call) => [call.method, call.path, call.endpoint])).toEqual([
      ['GET', `/mod-api/v2/game-shop/${SERVER}`, 'shop'],
      ['GET', `/mod-api/v2/game-shop/${SERVER}`, 'shop'],
      ['GET', `/mod-api/v2/game-shop/${SERVER}/pack/3`, 'shop'],
      ['GET', `/mod-api/v2/game-shop/${SERVER}/pack/99`, 'shop'],
    ]);
  });

  it('refuses a pack id that is not a positive whole number, nothing sent', async () => {
    const client = makeClient();
    for (const packId of [0, -1, 1.5, Number.NaN]) {
      expect(await failureOf(client.shopPack(SERVER, { steamId: ALICE }, packId))).toMatchObject({ code: 'invalid_input' });
      expect(await failureOf(client.orderPack(SERVER, { steamId: ALICE }, packId))).toMatchObject({ code: 'invalid_input' });
    }
    expect(emulator.calls).toEqual([]);
  });

  it('reads the dashboard settings and the button modal as GSA sent them', async () => {
    const client = makeClient();
    expect(await client.modSettings(SERVER)).toMatchObject({ identifier: 'gsamod-settings', 'modal-activate-button': 'F1', 'report-activate-button': 'F4' });
    emulator.setUi(SERVER, { buttonModal: { title: 'Vote', description: 'Please', buttons: [{ text: 'Site', url: 'https://example.org/v' }] } });
    expect(await client.buttonModal(SERVER)).toEqual({
      identifier: 'gsamod-ui-button-modal',
      title: 'Vote',
      description: 'Please',
      buttons: [{ text: 'Site', url: 'https://example.org/v' }],
    });
    expect(emulator.calls.map((call) => [call.method, call.path, call.endpoint])).toEqual([
      ['GET', `/mod-api/v2/gameserver/${SERVER}/settings`, 'ui'],
      ['GET', `/mod-api/v2/gameserver/${SERVER}/button-modal`, 'ui'],
    ]);
  });
});

describe('reports', () => {
  it('stores a report as sent, its comment cleaned of control characters', async () => {
    expect(await makeClient().submitReport(SERVER, { steamId: ALICE }, REPORT)).toEqual({ message: 'Thank you for your report!' });
    expect(emulator.reports).toEqual([
      { server: SERVER, steamId: ALICE, comment: 'Flew over the base with a tame', characterId: 123456789, coords: 'X_10.5 Y_-20 Z_300', type: '1', reportedPlayer: 102, at: expect.any(Number) as unknown },
    ]);
  });

  it('is GSA\'s refusal (refused, not processed, GSA\'s words) when GSA answers allowed: false', async () => {
    emulator.setAccess(ALICE, { allowed: false, message: 'Banned players cannot report' });
    const error = await failureOf(makeClient().submitReport(SERVER, { steamId: ALICE }, REPORT));
    expect(error).toMatchObject({ code: 'refused', status: 200, maybeProcessed: false, serviceMessage: 'Banned players cannot report' });
    expect(emulator.reports).toEqual([]);
  });

  it('reads GSA\'s 422 into its fields, not retried', async () => {
    const error = await failureOf(makeClient().submitReport(SERVER, { steamId: ALICE }, { ...REPORT, type: 9 }));
    expect(error).toMatchObject({ code: 'invalid', status: 422, fieldErrors: { type: ['The selected type is invalid.'] } });
    expect(endpoints()).toEqual(['report']);
  });

  it('is re-sent after a 503 (surely not processed), and stored once', async () => {
    emulator.injectFault({ kind: 'status', status: 503, endpoint: 'report', count: 2 });
    await makeClient().submitReport(SERVER, { steamId: ALICE }, REPORT);
    expect(endpoints()).toEqual(['report', 'report', 'report']);
    expect(emulator.reports).toHaveLength(1);
  });

  it('is never re-sent after a timeout (it may be stored)', async () => {
    const timeoutMs = patientMs(500);
    emulator.injectFault({ kind: 'latency', ms: timeoutMs + 1000, endpoint: 'report' });
    const client = makeClient({ timeoutMs });
    expect(await failureOf(client.submitReport(SERVER, { steamId: ALICE }, REPORT))).toMatchObject({ code: 'timeout', maybeProcessed: true });
    // A later call through the same client: a second send of the report would have reached the emulator before it.
    await client.modSettings(SERVER);
    expect(endpoints()).toEqual(['report', 'ui']);
    expect(emulator.reports).toHaveLength(1);
  });

  it('refuses a report the service could not take, nothing sent', async () => {
    const client = makeClient();
    const bad: ReportFields[] = [
      { ...REPORT, comment: ' \u0000\n ' },
      { ...REPORT, comment: 'x'.repeat(1001) },
      { ...REPORT, coords: '10 20 30' },
      { ...REPORT, characterId: 1.5 },
      { ...REPORT, reportedPlayer: 0 },
    ];
    const fields = [];
    for (const report of bad) {
      const error = await failureOf(client.submitReport(SERVER, { steamId: ALICE }, report));
      expect(error.code).toBe('invalid_input');
      fields.push(Object.keys((error as unknown as { fieldErrors: object }).fieldErrors));
    }
    expect(fields).toEqual([['comment'], ['comment'], ['coords'], ['character_id'], ['reported_player']]);
    expect(emulator.calls).toEqual([]);
  });
});

describe('orders and token spends: sent once, never again', () => {
  it('pays an order from the credit, and reads GSA\'s "Not enough credit" as a refusal that spent nothing', async () => {
    const client = makeClient();
    expect(await client.orderPack(SERVER, { steamId: ALICE }, 4)).toEqual({ success: true, message: expect.stringMatching(/^Thank you for your order!/) as unknown });
    expect(emulator.wallet(ALICE).credit).toBe(100);
    expect(await client.orderPack(SERVER, { steamId: ALICE }, 2)).toEqual({ success: false, message: 'Not enough credit' });
    expect(emulator.wallet(ALICE).credit).toBe(100);
    expect(emulator.calls[0]).toMatchObject({ method: 'POST', path: `/mod-api/v2/game-shop/${SERVER}/pack/4/order`, endpoint: 'shop-order', player: { steam_id: ALICE } });
    expect(emulator.orders().map((order) => [order.packId, order.processed, order.success, order.spent, order.status])).toEqual([
      ['4', true, true, 900, 200],
      ['2', true, false, 0, 200],
    ]);
  });

  it.each([
    ['a 502', { kind: 'status', status: 502 }, { code: 'server_error', status: 502, maybeProcessed: true }, false],
    ['a 503', { kind: 'status', status: 503 }, { code: 'unavailable', status: 503, maybeProcessed: false }, false],
    ['a 429', { kind: 'status', status: 429, retryAfter: '0' }, { code: 'rate_limited', status: 429 }, false],
    ['a connection reset before processing', { kind: 'reset' }, { code: 'network', maybeProcessed: true }, false],
    ['a connection dropped after processing', { kind: 'drop', afterProcessing: true }, { code: 'network', maybeProcessed: true }, true],
  ] as const)('an order answered with %s reaches GSA once', async (_name, fault, expected, paid) => {
    emulator.injectFault({ ...fault, endpoint: 'shop-order' });
    const client = makeClient({ retry: { retries: 5, minDelayMs: 1, maxDelayMs: 1 } });
    expect(await failureOf(client.orderPack(SERVER, { steamId: ALICE }, 1, { retries: 5 }))).toMatchObject(expected);
    await client.modSettings(SERVER);
    expect(endpoints()).toEqual(['shop-order', 'ui']);
    expect(emulator.orders()).toHaveLength(1);
    expect(emulator.orders()[0]?.processed).toBe(paid);
    expect(emulator.wallet(ALICE).credit).toBe(paid ? 900 : 1000);
  });

  it('an order whose answer comes too late is a maybe-processed timeout, sent once (and paid)', async () => {
    const timeoutMs = patientMs(500);
    emulator.injectFault({ kind: 'latency', ms: timeoutMs + 1000, endpoint: 'shop-order' });
    const client = makeClient({ timeoutMs });
    expect(await failureOf(client.orderPack(SERVER, { steamId: ALICE }, 1))).toMatchObject({ code: 'timeout', maybeProcessed: true });
    await client.modSettings(SERVER);
    expect(endpoints()).toEqual(['shop-order', 'ui']);
    expect(emulator.orders().map((order) => [order.processed, order.success])).toEqual([[true, true]]);
    expect(emulator.wallet(ALICE).credit).toBe(900);
  });

  it('an order that cannot connect is a network error that surely did nothing, and is not retried', async () => {
    const gone = await GsaEmulator.start();
    const url = gone.url;
    await gone.close();
    const error = await failureOf(makeClient({ baseUrl: url }).orderPack(SERVER, { steamId: ALICE }, 1));
    expect(error).toMatchObject({ code: 'network', maybeProcessed: false });
  });

  it('spends tokens once, and reads GSA\'s 422 for too few', async () => {
    const client = makeClient();
    emulator.setWallet(MALLORY, { tokens: 30 });
    expect(await client.consumeTokens(SERVER, { steamId: MALLORY }, 25)).toEqual({ message: 'Done!' });
    expect(await failureOf(client.consumeTokens(SERVER, { steamId: MALLORY }, 6))).toMatchObject({ code: 'invalid', status: 422, fieldErrors: { token_amount: ['Not enough tokens.'] } });
    expect(emulator.wallet(MALLORY).tokens).toBe(5);
    expect(emulator.calls[0]).toMatchObject({ method: 'POST', path: `/mod-api/v2/gameserver/${SERVER}/consume-token`, endpoint: 'tokens', player: { steam_id: MALLORY } });
    expect(emulator.tokenSpends().map((spend) => [spend.amount, spend.spent, spend.status])).toEqual([
      [25, 25, 200],
      [6, 0, 422],
    ]);
  });

  it.each([
    ['a 502', { kind: 'status', status: 502 }, { code: 'server_error', maybeProcessed: true }, 0],
    ['a connection reset after processing', { kind: 'reset', afterProcessing: true }, { code: 'network', maybeProcessed: true }, 10],
  ] as const)('a token spend answered with %s reaches GSA once', async (_name, fault, expected, spent) => {
    emulator.injectFault({ ...fault, endpoint: 'tokens' });
    const client = makeClient({ retry: { retries: 5, minDelayMs: 1, maxDelayMs: 1 } });
    expect(await failureOf(client.consumeTokens(SERVER, { steamId: ALICE }, 10))).toMatchObject(expected);
    await client.modSettings(SERVER);
    expect(endpoints()).toEqual(['tokens', 'ui']);
    expect(emulator.tokenSpends().map((record) => record.spent)).toEqual([spent]);
  });

  it('a token spend that times out is sent once', async () => {
    const timeoutMs = patientMs(500);
    emulator.injectFault({ kind: 'latency', ms: timeoutMs + 1000, endpoint: 'tokens' });
    const client = makeClient({ timeoutMs });
    expect(await failureOf(client.consumeTokens(SERVER, { steamId: ALICE }, 1))).toMatchObject({ code: 'timeout', maybeProcessed: true });
    await client.modSettings(SERVER);
    expect(endpoints()).toEqual(['tokens', 'ui']);
  });

  it('refuses an amount that is not a whole number of 1 or more, nothing sent', async () => {
    const client = makeClient();
    for (const amount of [0, -3, 2.5]) {
      expect(await failureOf(client.consumeTokens(SERVER, { steamId: ALICE }, amount))).toMatchObject({ code: 'invalid_input' });
    }
    expect(emulator.calls).toEqual([]);
  });
});

describe('credentials', () => {
  it('a 401 on a read pauses the features; an order is refused then, never sent as the probe', async () => {
    let now = 1_000_000;
    const client = makeClient({ clientSecret: 'wrong', clock: { now: () => now } });
    expect(await failureOf(client.checkAccess(SERVER, { steamId: ALICE }))).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(await failureOf(client.reportSettings(SERVER, { steamId: ALICE }))).toMatchObject({ code: 'credentials_refused' });
    now += 61_000; // the probe is due: an order must still not be it
    expect(await failureOf(client.orderPack(SERVER, { steamId: ALICE }, 1))).toMatchObject({ code: 'credentials_refused', maybeProcessed: false });
    expect(await failureOf(client.consumeTokens(SERVER, { steamId: ALICE }, 1))).toMatchObject({ code: 'credentials_refused', maybeProcessed: false });
    expect(client.credentialsPause).toEqual({ nextProbeInMs: 0 });
    expect(await failureOf(client.modSettings(SERVER))).toMatchObject({ code: 'unauthorized' }); // the probe
    expect(endpoints()).toEqual(['access', 'ui']);
    expect(emulator.orders()).toEqual([]);
  });

  it('never puts the secret into an error, even when GSA echoes it', async () => {
    const client = makeClient();
    emulator.setAccess(ALICE, { allowed: false, message: `key ${SECRET} may not report` });
    const refused = await failureOf(client.submitReport(SERVER, { steamId: ALICE }, REPORT));
    emulator.injectFault({ kind: 'status', status: 500, message: `failed for ${SECRET}`, endpoint: 'shop-order' });
    const failed = await failureOf(client.orderPack(SERVER, { steamId: ALICE }, 1));
    for (const error of [refused, failed]) {
      expect(error.message).toContain('***');
      expect(`${error.message} ${error.serviceMessage ?? ''}`).not.toContain(SECRET);
    }
  });
});

describe('the budget classes of the Mod API v2 calls', () => {
  it('takes reports at review places and orders and token spends at action places, never behind waiting reads and lookups', async () => {
    const client = makeClient({ rateLimit: { requests: 1, intervalMs: 150 } });
    const busy = client.checkMuted(SERVER, { steamId: ALICE });
    const order = client.orderPack(SERVER, { steamId: ALICE }, 1);
    const report = client.submitReport(SERVER, { steamId: ALICE }, REPORT);
    // Chat's lookups and the reads (access, the shop, the report form) share the mute places, queued before the spend.
    const reads = [
      client.checkAccess(SERVER, { steamId: MALLORY }),
      client.shopIndex(SERVER, { steamId: MALLORY }, {}),
      client.checkMuted(SERVER, { steamId: MALLORY }),
      client.reportSettings(SERVER, { steamId: MALLORY }),
    ];
    const spend = client.consumeTokens(SERVER, { steamId: MALLORY }, 1);
    await Promise.all([busy, order, report, spend, ...reads]);
    // The cycle of places (budgetShares.ts): mute review mute mute review mute action mute review mute. A place whose
    // class has nothing waiting passes to the next place whose class has: so the report takes the first review place
    // and the two spends the action places, whatever waits in the mute share (a spend sent as a lookup would have
    // waited behind the reads; which read goes first inside the mute share is sourceTurns.ts's business).
    const classOf = (endpoint: CallEndpoint): string =>
      endpoint === 'report' ? 'review' : endpoint === 'shop-order' || endpoint === 'tokens' ? 'action' : 'mute';
    const sent = endpoints();
    expect(sent.map(classOf)).toEqual(['mute', 'review', 'mute', 'mute', 'mute', 'action', 'mute', 'action']);
    expect(sent.filter((endpoint) => classOf(endpoint) === 'action')).toEqual(['shop-order', 'tokens']);
  });
});
