// GSA's System API through the running sidecar (startSidecar) against the GSA emulator with a System API key, end to
// end: a Minecraft player's mute check (the shipped fake Minecraft console and its latest.log), the same without
// api.system and after a reload brings it, the chat filter's mute step (of a Minecraft player; and over real mod
// WebSockets on two servers, with `moderation list` in-process and the metrics), and a mod's server actions (System
// API, wipe on the webhook, the 60 s spacing, an offline server). game-consoles-e2e.test.ts has no Minecraft case:
// its `!review` step cannot hold there (the mod API takes no Mojang id), so Minecraft's end to end lives here.
// Nothing of the project is mocked; no test waits for a cooldown: a spaced call is shown not sent, then the sidecar
// stops.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/app/config.js';
import type { ModerationEvent, VerdictEvent } from '../../src/bridge/events.js';
import { GAME_CONSOLES } from '../../src/gameEmulator/gameConsoles.js';
import { ALICE, MALLORY } from '../../src/gameEmulator/scriptedChat.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { SystemApiClient } from '../../src/gsa/index.js';
import { createLogger } from '../../src/log/logger.js';
import { SidecarMetrics } from '../../src/ops/metrics.js';
import { startSidecar } from '../../src/sidecar.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { PATIENT_DECISION_TIMEOUT_MS, patientMs } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER_A = 'ovddykvbs';
const SERVER_B = 'otherserver';
const ID_A = 4711;
const ID_B = 4712;
const SYSTEM_KEY = 'sys-key-for-the-e2e-test';
const PASSWORD = 'mc-console-secret-2';
const TOKEN = 'system-e2e-token';
const ALERT = 'Muted on our network, appeal on Discord';
/** A Steam player the chat filter mutes (seeded in GSA so players/find knows them). */
const REX = { steam_id: '76561198000000077', name: 'Rex' };

let emulator: GsaEmulator;
let malloryUuid = '';
let aliceUuid = '';
let rexUuid = '';
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ systemKey: SYSTEM_KEY, servers: [{ name: SERVER_A, id: ID_A }, { name: SERVER_B, id: ID_B }] });
  // Players are identities: they outlive reset(), so they are seeded once.
  malloryUuid = emulator.addPlayer({ ids: [{ type: 'mojang', id: MALLORY.uuid }], name: MALLORY.name });
  aliceUuid = emulator.addPlayer({ ids: [{ type: 'mojang', id: ALICE.uuid }], name: ALICE.name });
  rexUuid = emulator.addPlayer({ ids: [{ type: 'steam', id: REX.steam_id }], name: REX.name });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

async function until(condition: () => boolean, what: string, logs: readonly string[] = []): Promise<void> {
  const deadline = performance.now() + patientMs(15_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; the sidecar logged:\n${logs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The real sidecar on `raw` (api and reviews filled in), its log captured, its verdicts and filter steps listened to. */
async function start(raw: Record<string, unknown>, withSystemKey: boolean) {
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', secrets: [PASSWORD, SYSTEM_KEY], destination: { write: (line: string) => logs.push(line) } });
  const config = parseConfig(fullConfig(raw, withSystemKey, await tempDir('system-e2e-data')), {});
  const sidecar = await startSidecar(config, { logger });
  cleanups.push(() => sidecar.stop());
  const verdicts: VerdictEvent[] = [];
  const moderation: ModerationEvent[] = [];
  sidecar.events.on('verdict', (event) => verdicts.push(event));
  sidecar.events.on('moderation', (event) => moderation.push(event));
  return { sidecar, logs, verdicts, moderation, reload: async (withKey: boolean) => sidecar.reconfigure(parseConfig(fullConfig(raw, withKey, config.reviews.dataDir), {})) };
}

function fullConfig(raw: Record<string, unknown>, withSystemKey: boolean, dataDir: string): Record<string, unknown> {
  return {
    api: {
      baseUrl: emulator.url,
      clientId: emulator.clientId,
      clientSecret: emulator.clientSecret,
      retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 },
      ...(withSystemKey ? { system: { key: SYSTEM_KEY } } : {}),
    },
    mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS, defaultAlert: ALERT },
    reviews: { dataDir },
    ...raw,
  };
}

const systemPaths = (): string[] => emulator.calls.filter((call) => call.flavor === 'system').map((call) => `${call.method} ${call.path}`);
const modApiCalls = () => emulator.calls.filter((call) => call.flavor === 'v1' || call.flavor === 'v2');

async function startMinecraft(withSystemKey: boolean, extra: Record<string, unknown> = {}) {
  const dir = await tempDir('system-e2e-mc');
  const logFile = join(dir, 'logs', 'latest.log');
  const game = await GAME_CONSOLES.minecraft.start({ host: '127.0.0.1', port: 0, password: PASSWORD, logFile, writeMode: 'split' });
  cleanups.push(() => game.close());
  const running = await start(
    {
      servers: [
        {
          name: SERVER_A,
          id: ID_A,
          adapters: [{ type: 'rcon', id: 'mc', profile: 'minecraft', port: game.port, password: PASSWORD, logFile, pollPlayersMs: 1_000, alertCooldownMs: 0 }],
        },
      ],
      ...extra,
    },
    withSystemKey,
  );
  const tellraws = (): string[] => game.commands.filter((command) => command.startsWith('tellraw '));
  const verdictsOf = (name: string): VerdictEvent[] => running.verdicts.filter((event) => event.player.name === name);
  return { ...running, game, tellraws, verdictsOf };
}

describe('minecraft through the System API', () => {
  it('blocks a player muted dashboard-wide with tellraw and the default alert, allows another, and never asks the mod API', async () => {
    emulator.systemMute(malloryUuid);
    const mc = await startMinecraft(true);
    mc.game.join(ALICE);
    mc.game.join(MALLORY);
    mc.game.say(MALLORY, 'BUY GOLD CHEAP');
    await until(() => mc.tellraws().length === 1, 'the tellraw for the muted player', mc.logs);
    const [command = ''] = mc.tellraws();
    expect(command.startsWith('tellraw Mallory ')).toBe(true);
    expect(JSON.parse(command.slice('tellraw Mallory '.length))).toEqual({ text: ALERT, color: 'red' });
    expect(mc.verdictsOf('Mallory')[0]).toMatchObject({ verdict: 'block', reason: 'muted', player: { mojangId: MALLORY.uuid } });

    // Lines are judged in the order written: Mallory's second answer comes after Alice's verdict.
    mc.game.say(ALICE, 'hi all');
    mc.game.say(MALLORY, 'still spamming');
    await until(() => mc.tellraws().length === 2, 'the second tellraw', mc.logs);
    expect(mc.verdictsOf('Alice').map((event) => [event.verdict, event.reason, event.player.mojangId])).toEqual([['allow', 'ok', ALICE.uuid]]);
    expect(mc.tellraws().every((sent) => sent.startsWith('tellraw Mallory '))).toBe(true);

    const paths = systemPaths();
    expect(paths).toContain('POST /system-api/v2/players/find');
    expect(paths).toContain(`GET /system-api/v2/player/${malloryUuid}`);
    expect(paths).toContain(`GET /system-api/v2/player/${aliceUuid}`);
    expect(modApiCalls()).toEqual([]);
    expect(mc.logs.join('')).not.toContain(SYSTEM_KEY);
    expect(mc.logs.join('')).not.toContain(PASSWORD);
  });

  it("the chat filter's mute of a Minecraft player goes to GSA by their Mojang id and blocks their next line at once", async () => {
    const mc = await startMinecraft(true, { moderation: { filter: { words: ['scam'], ladder: [{ action: 'warn', message: 'No scams here.' }, { action: 'mute', period: '1h' }] } } });
    mc.game.join(ALICE);
    mc.game.say(ALICE, 'hello');
    await until(() => mc.verdictsOf('Alice').length === 1, "Alice's first verdict", mc.logs);
    expect(mc.verdictsOf('Alice')[0]).toMatchObject({ verdict: 'allow', reason: 'ok' });
    mc.game.say(ALICE, 'free sc4m here');
    mc.game.say(ALICE, 'scam again');
    // The second offence is a second strike (counted by the Mojang id, her only one): the ladder's mute, at GSA.
    await until(() => mc.moderation.some((event) => event.action === 'mute'), "the ladder's mute", mc.logs);
    expect(mc.moderation.filter((event) => event.action === 'mute')).toEqual([{ server: SERVER_A, action: 'mute', result: 'ok', player: 'mojang:069a79f4-44e9-4726-a5be-fca90e38aaf5', playerName: 'Alice' }]);
    expect(emulator.snapshot().system.mutes.map((mute) => mute.uuid)).toEqual([aliceUuid]);
    expect(systemPaths()).toContain(`POST /system-api/v2/player/${aliceUuid}/mute`);

    const callsBefore = emulator.calls.length;
    mc.game.say(ALICE, 'just a clean line');
    await until(() => mc.verdictsOf('Alice').length === 4, "Alice's clean line after the mute", mc.logs);
    expect(mc.verdictsOf('Alice')[3]).toMatchObject({ verdict: 'block', reason: 'muted' });
    // Warned once (the first offence), then told she is muted.
    await until(() => mc.tellraws().some((command) => command.includes(ALERT)), 'the muted alert by tellraw', mc.logs);
    expect(mc.tellraws().filter((command) => command.includes('No scams here.'))).toHaveLength(1);
    expect(emulator.calls.length).toBe(callsBefore);
    expect(modApiCalls()).toEqual([]);
  });

  it('a reload that drops the System API key is refused, and Minecraft players stay gated through GSA', async () => {
    emulator.systemMute(malloryUuid);
    const mc = await startMinecraft(true);
    // The file without the key could gate nobody: refused as invalid, so a reload keeps the config in force.
    await expect(mc.reload(false)).rejects.toThrow(/servers\[0\]\.adapters\[0\]: cannot gate chat without GSA's System API/);
    mc.game.join(MALLORY);
    mc.game.say(MALLORY, 'after the refused reload');
    await until(() => mc.tellraws().length === 1, 'the tellraw', mc.logs);
    expect(mc.verdictsOf('Mallory')[0]).toMatchObject({ verdict: 'block', reason: 'muted' });
    expect(systemPaths()).toContain(`GET /system-api/v2/player/${malloryUuid}`);
    expect(modApiCalls()).toEqual([]);
  });

  it('a Minecraft player GSA does not know costs one players/find, not one a line', async () => {
    const mc = await startMinecraft(true);
    const stranger = { ...ALICE, name: 'Stranger', uuid: '11111111-2222-4333-8444-555555555555' };
    mc.game.join(stranger);
    mc.game.say(stranger, 'one');
    mc.game.say(stranger, 'two');
    mc.game.say(stranger, 'three');
    await until(() => mc.verdictsOf('Stranger').length === 3, "the stranger's three verdicts", mc.logs);
    // GSA has no such player, so nobody muted them there: "not muted" (reason ok, cached), not the policy's "unknown".
    expect(mc.verdictsOf('Stranger').map((event) => [event.verdict, event.reason])).toEqual([
      ['allow', 'ok'],
      ['allow', 'ok'],
      ['allow', 'ok'],
    ]);
    // One players/find: the answer is cached like any player's, so a chat flood from an unknown id does not spend the key's budget.
    expect(systemPaths()).toEqual(['POST /system-api/v2/players/find']);
    expect(mc.tellraws()).toEqual([]);
  });

  it('a refused System API key is one error line naming the key, however many players speak; the policy decides meanwhile', async () => {
    const wrongKey = 'wrong-system-key-5b2c';
    const api = { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 }, system: { key: wrongKey } };
    const mc = await startMinecraft(false, { api });
    mc.game.join(ALICE);
    mc.game.join(MALLORY);
    mc.game.say(ALICE, 'one');
    mc.game.say(MALLORY, 'two');
    await until(() => mc.verdictsOf('Alice').length + mc.verdictsOf('Mallory').length === 2, 'two verdicts', mc.logs);
    expect([...mc.verdictsOf('Alice'), ...mc.verdictsOf('Mallory')].map((event) => event.reason)).toEqual(['unknown', 'unknown']);
    const refusals = mc.logs.filter((line) => line.includes('GSA refused the System API key (401)'));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toContain('check api.system.key or GSA_SYSTEM_API_KEY');
    expect(mc.logs.join('')).not.toContain(wrongKey);
  });

  it('without api.system the config is refused at load, naming the adapter and the key to set', async () => {
    await expect(startMinecraft(false)).rejects.toThrow(
      /servers\[0\]\.adapters\[0\]: cannot gate chat without GSA's System API: Minecraft players have Mojang ids[^\n]*Set api\.system\.key \(or GSA_SYSTEM_API_KEY\)/,
    );
    expect(systemPaths()).toEqual([]);
  });
});

/** Two servers, one mod WebSocket each; `servers` entries get their adapter here. */
async function startMods(extra: Record<string, unknown>, servers: readonly { name: string; id: number; allowActions?: string[] }[], withSystemKey = true) {
  const dataDir = await tempDir('system-e2e-mods');
  const raw = {
    servers: servers.map((server) => ({ ...server, adapters: [{ type: 'websocket', port: 0, token: TOKEN }] })),
    ...extra,
  };
  const configFile = join(dataDir, 'config.json');
  // The same config for the CLI as for the sidecar (its dataDir is where `moderation list` reads).
  await writeFile(configFile, JSON.stringify(fullConfig(raw, withSystemKey, join(dataDir, 'data'))));
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', secrets: [SYSTEM_KEY], destination: { write: (line: string) => logs.push(line) } });
  const sidecar = await startSidecar(parseConfig(fullConfig(raw, withSystemKey, join(dataDir, 'data')), {}), { logger });
  cleanups.push(() => sidecar.stop());
  const moderation: ModerationEvent[] = [];
  sidecar.events.on('moderation', (event) => moderation.push(event));
  const mods: ModSocket[] = [];
  for (const adapter of sidecar.adapters) {
    const address = adapter.listeningAddress?.();
    if (address === undefined) throw new Error('no listening adapter');
    const mod = await connectMod(address.url, TOKEN);
    cleanups.push(() => mod.close());
    await mod.waitFor((frame) => frame.type === 'welcome');
    mods.push(mod);
  }
  return { sidecar, logs, moderation, mods, configFile };
}

async function verdict(mod: ModSocket, id: string, text: string): Promise<Record<string, unknown>> {
  mod.send({ type: 'chat', id, player: REX, channel: 'global', text });
  return mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === id);
}

async function moderationList(configFile: string): Promise<Record<string, unknown>[]> {
  const run = await runCliInProcess(['moderation', 'list', '--json', '--config', configFile]);
  expect(run.code).toBe(0);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The list once it shows a record of `action`: the filter emits its event when it queues the record's append. */
async function moderationListShowing(configFile: string, action: string): Promise<Record<string, unknown>[]> {
  const deadline = performance.now() + patientMs(15_000);
  for (;;) {
    const records = await moderationList(configFile);
    if (records.some((record) => record.action === action) || performance.now() > deadline) return records;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const FILTER = { moderation: { filter: { words: ['scam'], ladder: [{ action: 'warn', message: 'No scams here.' }, { action: 'mute', period: '15m' }] } } };
const TWO_SERVERS = [
  { name: SERVER_A, id: ID_A },
  { name: SERVER_B, id: ID_B },
];

describe('the chat filter mutes through the System API', () => {
  it('warns, then mutes at GSA, and the next clean line is blocked on both servers at once', async () => {
    const { sidecar, moderation, mods, configFile, logs } = await startMods(FILTER, TWO_SERVERS);
    const metrics = new SidecarMetrics({ events: sidecar.events, sources: { adapters: () => [], outboxPending: () => 0 }, processDefaults: false });
    cleanups.push(() => {
      metrics.close();
      return Promise.resolve();
    });
    const [first, second] = mods;
    if (first === undefined || second === undefined) throw new Error('two mods expected');

    // Both servers first cache the player as not muted (for minutes): the mute must override that, not wait it out.
    expect(await verdict(first, 'a0', 'hello')).toMatchObject({ allow: true, reason: 'ok' });
    expect(await verdict(second, 'b0', 'hello')).toMatchObject({ allow: true, reason: 'ok' });
    expect(await verdict(first, 'f1', 'free sc4m here')).toEqual({ type: 'chat.verdict', id: 'f1', allow: false, reason: 'filtered', alert: 'No scams here.' });
    expect(await verdict(first, 'f2', 'another scam')).toMatchObject({ allow: false, reason: 'filtered' });
    await until(() => moderation.some((event) => event.action === 'mute'), "the ladder's mute", logs);
    expect(moderation.filter((event) => event.action === 'mute')).toEqual([{ server: SERVER_A, action: 'mute', result: 'ok', player: '76561198000000077', playerName: 'Rex' }]);
    expect(emulator.snapshot().system.mutes.map((mute) => mute.uuid)).toEqual([rexUuid]);
    expect(systemPaths()).toEqual(['POST /system-api/v2/players/find', `POST /system-api/v2/player/${rexUuid}/mute`]);

    // Blocked by the sidecar's own caches on both servers, with no lookup (a cached "not muted" has a TTL of minutes).
    const callsBefore = emulator.calls.length;
    expect(await verdict(first, 'c1', 'hello again')).toMatchObject({ allow: false, reason: 'muted' });
    expect(await verdict(second, 'c2', 'hello over here')).toMatchObject({ allow: false, reason: 'muted' });
    expect(emulator.calls.length).toBe(callsBefore);

    const text = await metrics.text();
    expect(text).toContain('gsa_bridge_moderation_actions_total{action="mute",result="ok"} 1');
    expect(text).toContain('gsa_bridge_moderation_actions_total{action="warn",result="ok"} 1');

    const records = await moderationListShowing(configFile, 'mute');
    expect(records.filter((record) => record.action !== 'block').map((record) => [record.action, record.result, record.period])).toEqual([
      ['warn', 'ok', null],
      ['mute', 'ok', '15m'],
    ]);
    // GSA's own answer to the mute is what the list shows.
    expect(records.find((record) => record.action === 'mute')?.answer).toBe('Player will be muted shortly.');
    expect(JSON.stringify(records)).not.toContain('sc4m');
  });

  it('in dry run blocks nothing, calls GSA for no mute, and the list says dry_run', async () => {
    const dry = { moderation: { filter: { ...FILTER.moderation.filter, dryRun: true } } };
    const { moderation, mods, configFile, logs } = await startMods(dry, TWO_SERVERS);
    const [first] = mods;
    if (first === undefined) throw new Error('a mod expected');
    expect(await verdict(first, 'd1', 'free sc4m here')).toMatchObject({ allow: true, reason: 'ok' });
    expect(await verdict(first, 'd2', 'scam again')).toMatchObject({ allow: true, reason: 'ok' });
    await until(() => moderation.some((event) => event.action === 'mute'), "the dry run's mute record", logs);
    expect(await verdict(first, 'd3', 'hello')).toMatchObject({ allow: true, reason: 'ok' });
    expect(systemPaths()).toEqual([]);
    expect(emulator.snapshot().system.mutes).toEqual([]);
    const records = await moderationListShowing(configFile, 'mute');
    expect(records.length).toBeGreaterThan(0);
    expect(new Set(records.map((record) => record.result))).toEqual(new Set(['dry_run']));
    expect(records.map((record) => record.action)).toContain('mute');
  });
});

async function action(mod: ModSocket, id: string, name: string): Promise<Record<string, unknown>> {
  mod.send({ type: 'server.action', id, action: name });
  return mod.waitFor((frame) => frame.type === 'server.action.result' && frame.id === id);
}

describe("a mod's server actions with a System API key", () => {
  it('restart goes to the System API, wipe to the webhook, and a second restart within 60 s is not sent', async () => {
    const { mods } = await startMods({}, [{ name: SERVER_A, id: ID_A, allowActions: ['restart', 'wipe'] }]);
    const [mod] = mods;
    if (mod === undefined) throw new Error('a mod expected');

    expect(await action(mod, 'r1', 'restart')).toMatchObject({ ok: true });
    expect(emulator.systemActions()).toMatchObject([{ serverId: ID_A, action: 'restart' }]);
    expect(await action(mod, 'w1', 'wipe')).toMatchObject({ ok: true });
    expect(emulator.actions(ID_A).map((queued) => queued.action)).toEqual(['wipe']);
    expect(emulator.calls.filter((call) => call.flavor === 'webhook')).toHaveLength(1);

    // The second restart waits for the server's spacing (60 s and a margin). A ping sent after it is answered
    // first, and by then it has not reached GSA (had it, GSA's 429 would have answered the mod).
    mod.send({ type: 'server.action', id: 'r2', action: 'restart' });
    mod.send({ type: 'ping', id: 'p1' });
    await mod.waitFor((frame) => frame.type === 'pong');
    expect(emulator.calls.filter((call) => call.path === `/system-api/v2/gameserver/${ID_A}/restart`)).toHaveLength(1);
    expect(mod.received.some((frame) => frame.id === 'r2')).toBe(false);
    expect(emulator.systemActions()).toHaveLength(1);
  });

  it("GSA's own 60 s cooldown (another tool restarted the server) reaches the mod as ok:false rate_limited, never retried", async () => {
    // Another tool on the same key calls first: the sidecar's own spacing knows nothing of it, GSA does.
    const other = new SystemApiClient({ baseUrl: emulator.url, key: SYSTEM_KEY, retry: { retries: 0 } });
    cleanups.push(() => other.close());
    await other.serverAction(ID_A, 'restart');
    const { mods } = await startMods({}, [{ name: SERVER_A, id: ID_A, allowActions: ['restart'] }]);
    const [mod] = mods;
    if (mod === undefined) throw new Error('a mod expected');
    const result = await action(mod, 'c1', 'restart');
    // The mod protocol's word for a cooldown is rate_limited (wireCodes.ts).
    expect(result).toMatchObject({ type: 'server.action.result', ok: false, error: { code: 'rate_limited' } });
    expect(JSON.stringify(result)).toContain('Please wait 60 second(s)');
    expect(emulator.calls.filter((call) => call.path === `/system-api/v2/gameserver/${String(ID_A)}/restart`).map((call) => call.status)).toEqual([200, 429]);
    expect(emulator.systemActions()).toHaveLength(1);
  });

  it('an offline server: the mod gets ok:false and a message saying it is offline', async () => {
    emulator.setServerOnline(ID_B, false);
    const { mods } = await startMods({}, [{ name: SERVER_B, id: ID_B, allowActions: ['restart'] }]);
    const [mod] = mods;
    if (mod === undefined) throw new Error('a mod expected');
    const result = await action(mod, 'o1', 'restart');
    expect(result).toMatchObject({ type: 'server.action.result', ok: false });
    // GSA's own words reach the mod: they say why (the server is not online).
    expect(result).toMatchObject({ error: { code: 'refused', message: 'Game server needs to be online to do this.' } });
    expect(emulator.systemActions()).toEqual([]);
  });
});
