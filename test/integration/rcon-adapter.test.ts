// The RCON adapter end to end: the real sidecar (startSidecar, in-process) against the GSA emulator and the fake
// game servers (ARK- and Squad-like Source RCON, Rust WebRCON) on loopback, counting exactly the commands each
// game receives: alerts to muted speakers (one per cooldown), none to others, Rust's own mute and unmute, the
// review chat command, joins that warm the mute cache, reconnects, a wrong password, one session per server.
// The alert cooldown is moved on a faked Date only (its clock; it runs on with real time, so the RCON client's rate
// cap keeps working), jumped past the cooldown with setSystemTime; I/O and polls run on real timers. The login
// back-off (minutes) runs on fake timers, with socket I/O left real; "nothing was sent" is proven by a later command
// on the same session or a later log line, never by a sleep. ARK polls at 250 ms: its profile allows 5 commands a second.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RconAdapter } from '../../adapters/rcon/rconAdapter.js';
import { parseConfig, type BridgeConfig } from '../../src/app/config.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { createLogger } from '../../src/log/logger.js';
import type { VerdictEvent } from '../../src/bridge/events.js';
import { HostEventLog } from '../../src/ops/hostEvents.js';
import { startSidecar, type Sidecar } from '../../src/sidecar.js';
import { FakeRustWebRconServer } from '../fixtures/fakeRustWebRconServer.js';
import { FakeSourceRconServer, type FakeReply } from '../fixtures/fakeSourceRconServer.js';
import { PATIENT_DECISION_TIMEOUT_MS, patientMs } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';
import { ChatFilter } from '../../src/moderation/chatFilter.js';
import { ModerationLog, readModerationRecords } from '../../src/moderation/moderationLog.js';
import { StrikeBook } from '../../src/moderation/strikeBook.js';
import { silentLogger } from '../../src/log/logger.js';

const SERVER = 'ovddykvbs';
const PASSWORD = 'rcon-secret-pass';
const MUTED = { steamId: '76561198000000001', eosId: '0002aaaaaaaaaaaaaaaaaaaaaaaaaaa1', name: 'Muted Guy' };
const NICE = { steamId: '76561198000000002', eosId: '0002bbbbbbbbbbbbbbbbbbbbbbbbbbb2', name: 'Nice Guy' };
/** A speaker whose answer marks the end of what earlier lines caused. */
const LATE = { steamId: '76561198000000003', eosId: '0002ccccccccccccccccccccccccccc3', name: 'Late Guy' };
const ALERT = 'Muted by an admin, appeal on our Discord';

let emulator: GsaEmulator;
/** The running rig's log, shown when a wait times out. */
let currentLogs: string[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }] });
});
afterEach(async () => {
  vi.useRealTimers();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

interface Rig {
  readonly sidecar: Sidecar;
  readonly adapter: RconAdapter;
  readonly logs: string[];
}

async function startRig(adapter: Record<string, unknown>, extra: { mute?: Record<string, unknown>; reviews?: Record<string, unknown> } = {}): Promise<Rig> {
  const logs: string[] = [];
  currentLogs = logs;
  const config = parseConfig(
    {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
      servers: [{ name: SERVER, id: 4711, adapters: [{ type: 'rcon', id: 'game', password: PASSWORD, pollPlayersMs: 50, ...(adapter['profile'] === 'ark' ? { pollChatMs: 20 } : {}), ...adapter }] }],
      mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS, ...extra.mute },
      reviews: { dataDir: await tempDir('rcon-adapter'), cooldownMs: 0, ...extra.reviews },
    },
    {},
  );
  const logger = createLogger({ level: 'debug', secrets: [PASSWORD], destination: { write: (line: string) => logs.push(line) } });
  const sidecar = await startSidecar(config, { logger });
  cleanups.push(() => sidecar.stop());
  const built = sidecar.adapters[0];
  if (!(built instanceof RconAdapter)) throw new Error('the sidecar built no rcon adapter');
  return { sidecar, adapter: built, logs };
}

/** The running config with `reviews` changed, as a SIGHUP would bring it. */
function withReviews(sidecar: Sidecar, reviews: Record<string, unknown>): BridgeConfig {
  return { ...sidecar.config, reviews: { ...sidecar.config.reviews, ...reviews } };
}

async function until(condition: () => boolean, what: string, timeoutMs = patientMs(10_000)): Promise<void> {
  // performance.now: the cooldown tests fake Date.
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; the sidecar logged:\n${currentLogs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Waits on setImmediate (which these fake timers leave real), so socket I/O can finish while fake time stands still. */
async function untilIo(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + patientMs(10_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; the sidecar logged:\n${currentLogs.join('')}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Timers, Date and the RCON client's clock on fake time; sockets real. */
const FAKE_TIMERS: Parameters<typeof vi.useFakeTimers>[0] = { toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 };
/** The least wait after a refused or unanswered login (the client's authFailureDelayMs), and the most: twice it, jittered. */
const AUTH_BACKOFF_MIN_MS = 300_000;
const AUTH_BACKOFF_MAX_MS = 600_000;

/** Lets `count` more of a poll's commands reach the fake: a poll runs only after the previous one was handled. */
async function afterPolls(commands: () => readonly string[], poll: string, count = 2): Promise<void> {
  const seen = commands().filter((command) => command === poll).length;
  await until(() => commands().filter((command) => command === poll).length >= seen + count, `${count} more ${poll}`);
}

const muteCalls = (): number => emulator.calls.filter((call) => call.endpoint === 'mute').length;

/** Every chat verdict the sidecar publishes, in order (what the adapter was told for each line). */
function recordVerdicts(sidecar: Sidecar): VerdictEvent[] {
  const seen: VerdictEvent[] = [];
  const unsubscribe = sidecar.events.on('verdict', (event) => seen.push(event));
  cleanups.push(() => {
    unsubscribe();
    return Promise.resolve();
  });
  return seen;
}

// ---- ARK -------------------------------------------------------------------------------------------------------

interface ArkGame {
  readonly fake: FakeSourceRconServer;
  readonly say: (...lines: string[]) => void;
  /** What the adapter sent besides its polls. */
  readonly actions: () => string[];
}

async function startArk(players = [MUTED, NICE], password = PASSWORD, ids: 'steam' | 'eos' = 'steam'): Promise<ArkGame> {
  const chat: string[] = [];
  const respond = (command: string): FakeReply | undefined => {
    if (command === 'ListPlayers') {
      return players.length === 0 ? 'No Players Connected\n' : `${players.map((player, index) => `${index}. ${player.name}, ${ids === 'eos' ? player.eosId : player.steamId}`).join('\n')}\n`;
    }
    if (command === 'GetChat' && chat.length > 0) return `${chat.splice(0).join('\n')}\n`;
    return undefined; // `Server received, But no response!!`
  };
  const fake = await FakeSourceRconServer.start({ quirks: 'ark', password, respond });
  cleanups.push(() => fake.stop());
  return {
    fake,
    say: (...lines) => chat.push(...lines),
    actions: () => fake.commands.filter((command) => command !== 'ListPlayers' && command !== 'GetChat'),
  };
}

const ARK_PACE = { pollChatMs: 250, pollPlayersMs: 2_000 };

describe('rcon adapter: ark', () => {
  it('sends one ServerChatTo to a muted speaker per cooldown, none to an unmuted one', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const ark = await startArk();
    const { adapter } = await startRig({ profile: 'ark', ...ARK_PACE, port: ark.fake.port });
    await until(() => adapter.ready && ark.fake.commands.includes('ListPlayers'), 'login and a player list');
    ark.say(`${MUTED.name} (Rex): hello`, `${NICE.name} (Dodo): hi all`, `${MUTED.name} (Rex): spam 1`, `${MUTED.name} (Rex): spam 2`, 'SERVER: welcome');
    await until(() => ark.actions().length > 0, 'the alert');
    await afterPolls(() => ark.fake.commands, 'GetChat');
    expect(ark.actions()).toEqual([`ServerChatTo "${MUTED.steamId}" ${ALERT}`]);

    ark.say(`${MUTED.name} (Rex): still within the cooldown`);
    await afterPolls(() => ark.fake.commands, 'GetChat', 3);
    expect(ark.actions()).toHaveLength(1);

    vi.setSystemTime(Date.now() + 30_000);
    ark.say(`${MUTED.name} (Rex): after the cooldown`);
    await until(() => ark.actions().length === 2, 'the second alert');
    expect(ark.actions()[1]).toBe(`ServerChatTo "${MUTED.steamId}" ${ALERT}`);
    expect(ark.fake.maxConcurrentSessions).toBe(1);
  });

  it('tells the host the muted line was seen and the player told, not that the chat was blocked (RCON cannot un-send it)', async () => {
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const ark = await startArk();
    const { sidecar, adapter } = await startRig({ profile: 'ark', ...ARK_PACE, port: ark.fake.port });
    const hostLines: string[] = [];
    const hostLog = new HostEventLog({ events: sidecar.events, logger: createLogger({ level: 'info', destination: { write: (line: string) => hostLines.push(line) } }) });
    cleanups.push(() => {
      hostLog.close();
      return Promise.resolve();
    });
    await until(() => adapter.ready && ark.fake.commands.includes('ListPlayers'), 'login and a player list');
    ark.say(`${MUTED.name} (Rex): hello`);
    await until(() => ark.actions().length === 1, 'the alert');
    expect(hostLines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      `muted player spoke: player ${MUTED.steamId} on ${SERVER} (muted, GSA asked by steam_id ${MUTED.steamId}; RCON cannot un-send chat, so the line was seen: told the muted player)`,
    ]);
  });

  it('reads the player list again for a speaker it does not list yet, then alerts them', async () => {
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const players = [NICE];
    const ark = await startArk(players);
    const { adapter } = await startRig({ profile: 'ark', ...ARK_PACE, pollPlayersMs: 60_000, port: ark.fake.port });
    await until(() => adapter.ready && ark.fake.commands.includes('ListPlayers'), 'login and a player list');
    players.push(MUTED);
    ark.say(`${MUTED.name} (Rex): I just joined`);
    await until(() => ark.actions().length === 1, 'the alert');
    expect(ark.actions()).toEqual([`ServerChatTo "${MUTED.steamId}" ${ALERT}`]);
    expect(ark.fake.commands.filter((command) => command === 'ListPlayers')).toHaveLength(2);
  });

  it('addresses an ASA player (EOS id in the list) by that id', async () => {
    emulator.mute(SERVER, MUTED.eosId, ALERT);
    const ark = await startArk([MUTED, NICE], PASSWORD, 'eos');
    const { adapter } = await startRig({ profile: 'ark', ...ARK_PACE, port: ark.fake.port });
    await until(() => adapter.ready && muteCalls() === 2, 'login and both joins looked up');
    ark.say(`${MUTED.name} (Rex): hi`, `${NICE.name} (Dodo): hi`);
    await until(() => ark.actions().length === 1, 'the alert');
    await afterPolls(() => ark.fake.commands, 'GetChat');
    expect(ark.actions()).toEqual([`ServerChatTo "${MUTED.eosId}" ${ALERT}`]);
  });

  it('kicks a repeat offender after kickAfterAlerts alerts, when configured', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const ark = await startArk();
    const { adapter } = await startRig({ profile: 'ark', ...ARK_PACE, port: ark.fake.port, kickAfterAlerts: 2, alertCooldownMs: 1_000 });
    await until(() => adapter.ready, 'login');
    ark.say(`${MUTED.name} (Rex): one`);
    await until(() => ark.actions().length === 1, 'the first alert');
    vi.setSystemTime(Date.now() + 1_000);
    ark.say(`${MUTED.name} (Rex): two`);
    await until(() => ark.actions().length === 3, 'the second alert and the kick');
    expect(ark.actions()).toEqual([`ServerChatTo "${MUTED.steamId}" ${ALERT}`, `ServerChatTo "${MUTED.steamId}" ${ALERT}`, `KickPlayer ${MUTED.steamId}`]);
  });

  it('says the password is probably wrong after the auth timeout, and does not try again for minutes', async () => {
    vi.useFakeTimers(FAKE_TIMERS);
    const ark = await startArk([MUTED], 'the-right-one');
    const { adapter, logs } = await startRig({ profile: 'ark', ...ARK_PACE, port: ark.fake.port });
    // start() did not wait for the game.
    expect(adapter.ready).toBe(false);
    await untilIo(() => ark.fake.loginAttempts === 1, 'the login');
    // ARK says nothing to a wrong password: the client gives up after its 5 s auth timeout.
    await vi.advanceTimersByTimeAsync(5_000);
    await untilIo(() => logs.some((line) => line.includes('auth_timeout')), 'the auth timeout');
    const line = logs.find((entry) => entry.includes('auth_timeout')) ?? '';
    expect(line).toContain('password');
    expect(line).toContain('game');
    expect(logs.join('\n')).not.toContain(PASSWORD);
    // The next login waits minutes: none a millisecond before the shortest back-off, one once the longest has passed.
    await vi.advanceTimersByTimeAsync(AUTH_BACKOFF_MIN_MS - 1);
    expect(ark.fake.loginAttempts).toBe(1);
    expect(adapter.ready).toBe(false);
    await vi.advanceTimersByTimeAsync(AUTH_BACKOFF_MAX_MS - AUTH_BACKOFF_MIN_MS + 1);
    await untilIo(() => ark.fake.loginAttempts === 2, 'the second login, after the back-off');
  });
});

// ---- Squad -----------------------------------------------------------------------------------------------------

function squadList(players: readonly (typeof MUTED)[]): string {
  const rows = players.map(
    (player, index) => `ID: ${index + 1} | Online IDs: EOS: ${player.eosId} steam: ${player.steamId} | Name:  ${player.name} | Team ID: 1 | Squad ID: N/A | Is Leader: False | Role: USA_Rifleman_01`,
  );
  return `----- Active Players -----\n${rows.join('\n')}\n----- Recently Disconnected Players [Max of 15] -----\n`;
}

function squadChat(player: typeof MUTED, text: string, channel = 'ChatAll'): string {
  return `[${channel}] [Online IDs:EOS: ${player.eosId} steam: ${player.steamId}] ${player.name} : ${text}`;
}

interface SquadGame {
  readonly fake: FakeSourceRconServer;
  players: (typeof MUTED)[];
  readonly actions: () => string[];
}

async function startSquad(players = [MUTED, NICE]): Promise<SquadGame> {
  const game: { players: (typeof MUTED)[] } = { players };
  const fake = await FakeSourceRconServer.start({
    quirks: 'squad',
    password: PASSWORD,
    respond: (command) => (command === 'ListPlayers' ? squadList(game.players) : ''),
  });
  cleanups.push(() => fake.stop());
  return Object.assign(game, {
    fake,
    actions: () => fake.commands.filter((command) => command !== 'ListPlayers' && command !== 'ShowCurrentMap' && command !== ''),
  });
}

describe('rcon adapter: squad', () => {
  it('warns a muted speaker once per cooldown with AdminWarn, and nobody else', async () => {
    // GSA keys Squad's (Steam) players by Steam64: the sidecar asks by it (servers[].lookupIds), though lines carry both.
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const squad = await startSquad();
    const { adapter } = await startRig({ profile: 'squad', port: squad.fake.port });
    await until(() => adapter.ready && muteCalls() === 2, 'login and both joins looked up');
    for (let index = 0; index < 3; index++) squad.fake.pushChat(squadChat(MUTED, `spam ${index}`));
    squad.fake.pushChat(squadChat(NICE, 'hello : with a colon', 'ChatTeam'));
    await until(() => squad.actions().length > 0, 'the warning');
    await afterPolls(() => squad.fake.commands, 'ListPlayers');
    expect(squad.actions()).toEqual([`AdminWarn "${MUTED.eosId}" ${ALERT}`]);
    // Both players were looked up when they joined, not when they spoke.
    expect(muteCalls()).toBe(2);
  });

  it("allows a muted player's ChatTeam line with not_gated and no lookup, and answers their ChatAll with AdminWarn", async () => {
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    // Nobody listed: no join warms the cache, so any lookup would be this line's.
    const squad = await startSquad([]);
    const { adapter, sidecar } = await startRig({ profile: 'squad', port: squad.fake.port });
    const verdicts = recordVerdicts(sidecar);
    await until(() => adapter.ready, 'login');
    squad.fake.pushChat(squadChat(MUTED, 'to my team', 'ChatTeam'));
    squad.fake.pushChat(squadChat(MUTED, 'to my squad', 'ChatSquad'));
    await until(() => verdicts.length === 2, 'two verdicts');
    expect(verdicts.map(({ verdict, reason, source }) => ({ verdict, reason, source }))).toEqual([
      { verdict: 'allow', reason: 'not_gated', source: 'channel' },
      { verdict: 'allow', reason: 'not_gated', source: 'channel' },
    ]);
    expect(muteCalls()).toBe(0);
    squad.fake.pushChat(squadChat(MUTED, 'to everyone', 'ChatAll'));
    await until(() => squad.actions().length === 1, 'the warning');
    expect(squad.actions()).toEqual([`AdminWarn "${MUTED.eosId}" ${ALERT}`]);
    expect(verdicts[2]).toMatchObject({ verdict: 'block', reason: 'muted' });
    expect(muteCalls()).toBe(1);
  });

  it('gates ChatTeam once a reload lists team in mute.gatedChannels, on the same session', async () => {
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const squad = await startSquad([]);
    const { adapter, sidecar } = await startRig({ profile: 'squad', port: squad.fake.port, alertCooldownMs: 0 });
    const verdicts = recordVerdicts(sidecar);
    await until(() => adapter.ready, 'login');
    squad.fake.pushChat(squadChat(MUTED, 'to my team', 'ChatTeam'));
    await until(() => verdicts.length === 1, 'the first verdict');
    expect(verdicts[0]).toMatchObject({ reason: 'not_gated' });
    const report = await sidecar.reconfigure({ ...sidecar.config, mute: { ...sidecar.config.mute, gatedChannels: ['global', 'local', 'team'] } });
    expect(report).toMatchObject({ unchanged: [`${SERVER}/game`], restarted: [], settingsChanged: ['mute.gatedChannels'] });
    squad.fake.pushChat(squadChat(MUTED, 'to my team again', 'ChatTeam'));
    await until(() => squad.actions().length === 1, 'the warning for a team line');
    expect(squad.actions()).toEqual([`AdminWarn "${MUTED.eosId}" ${ALERT}`]);
    expect(squad.fake.logins).toBe(1);
  });

  it('takes a review typed in team chat too: the review command is not chat, whatever the channel', async () => {
    const squad = await startSquad([NICE]);
    const { adapter } = await startRig({ profile: 'squad', port: squad.fake.port });
    await until(() => adapter.ready, 'login');
    squad.fake.pushChat(squadChat(NICE, '!review 4 Fine admins', 'ChatTeam'));
    await until(() => emulator.reviews.length === 1, 'the review at the service');
    expect(emulator.reviews[0]).toMatchObject({ server: SERVER, stars: 4, comment: 'Fine admins' });
  });

  it('looks up a player seen joining before they speak', async () => {
    const squad = await startSquad([]);
    const { adapter } = await startRig({ profile: 'squad', port: squad.fake.port });
    await until(() => adapter.ready, 'login');
    await afterPolls(() => squad.fake.commands, 'ListPlayers');
    expect(muteCalls()).toBe(0);
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    squad.players = [MUTED];
    await until(() => muteCalls() === 1, 'the join lookup');
    squad.fake.pushChat(squadChat(MUTED, 'hi'));
    await until(() => squad.actions().length === 1, 'the warning');
    // Answered from the cache the join warmed.
    expect(muteCalls()).toBe(1);
  });

  it('takes a review typed in chat, tells the player it was queued, then that it was delivered', async () => {
    const squad = await startSquad([NICE]);
    const { adapter } = await startRig({ profile: 'squad', port: squad.fake.port });
    await until(() => adapter.ready, 'login');
    squad.fake.pushChat(squadChat(NICE, '!review 5 Great admins | honest'));
    await until(() => emulator.reviews.length === 1, 'the review at the service');
    expect(emulator.reviews[0]).toMatchObject({ server: SERVER, stars: 5, comment: 'Great admins | honest' });
    await until(() => squad.actions().length === 2, 'queued and delivered');
    expect(squad.actions()).toEqual([
      `AdminWarn "${NICE.eosId}" Thanks! Your review was received and will be sent to GameServerApp.`,
      `AdminWarn "${NICE.eosId}" Your review was delivered. Thank you!`,
    ]);
    squad.fake.pushChat(squadChat(NICE, '!review lots'));
    await until(() => squad.actions().length === 3, 'the refusal');
    expect(squad.actions()[2]).toBe(`AdminWarn "${NICE.eosId}" stars must be a whole number from 1 to 5, usage: !review <1-5> <comment>`);
    expect(emulator.reviews).toHaveLength(1);
  });

  it('takes the review command a reload brings, without restarting the adapter', async () => {
    const squad = await startSquad([NICE]);
    const { adapter, sidecar } = await startRig({ profile: 'squad', port: squad.fake.port });
    await until(() => adapter.ready, 'login');
    const report = await sidecar.reconfigure(withReviews(sidecar, { chatCommand: '!rate' }));
    expect(report.unchanged).toEqual([`${SERVER}/game`]);
    expect(sidecar.adapters[0]).toBe(adapter);
    squad.fake.pushChat(squadChat(NICE, '!rate 4 fine'));
    await until(() => emulator.reviews.length === 1, 'the review under the new command');
    expect(emulator.reviews[0]).toMatchObject({ stars: 4, comment: 'fine' });
    expect(squad.fake.logins).toBe(1);
  });

  it('reconnects after the game drops the connection, keeping one session', async () => {
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const squad = await startSquad();
    const { adapter } = await startRig({ profile: 'squad', port: squad.fake.port, alertCooldownMs: 0 });
    await until(() => adapter.ready, 'login');
    squad.fake.dropConnections();
    await until(() => !adapter.ready, 'the drop seen');
    await until(() => adapter.ready && squad.fake.logins === 2, 'the reconnect');
    squad.fake.pushChat(squadChat(MUTED, 'back again'));
    await until(() => squad.actions().length === 1, 'the warning on the new session');
    expect(squad.fake.maxConcurrentSessions).toBe(1);
  });

  it('backs off for minutes after a refused login (id -1), never hammering', async () => {
    vi.useFakeTimers(FAKE_TIMERS);
    const fake = await FakeSourceRconServer.start({ quirks: 'squad', password: 'the-right-one', wrongPassword: 'reject' });
    cleanups.push(() => fake.stop());
    const { adapter, logs } = await startRig({ profile: 'squad', port: fake.port });
    await untilIo(() => logs.some((line) => line.includes('auth_failed')), 'the refusal');
    // None a millisecond before the shortest back-off, one once the longest has passed.
    await vi.advanceTimersByTimeAsync(AUTH_BACKOFF_MIN_MS - 1);
    expect(fake.loginAttempts).toBe(1);
    expect(adapter.ready).toBe(false);
    const line = logs.find((entry) => entry.includes('auth_failed')) ?? '';
    expect(line).toContain('password');
    expect(line).toContain('game');
    expect(logs.join('\n')).not.toContain(PASSWORD);
    await vi.advanceTimersByTimeAsync(AUTH_BACKOFF_MAX_MS - AUTH_BACKOFF_MIN_MS + 1);
    await untilIo(() => fake.loginAttempts === 2, 'the second login, after the back-off');
  });

  it('starts while the game is down, reads not ready, and logs in once it is up', async () => {
    const squad = await startSquad();
    await squad.fake.goDown();
    const { adapter, sidecar, logs } = await startRig({ profile: 'squad', port: squad.fake.port });
    expect(sidecar.adapters).toContain(adapter);
    expect(adapter.ready).toBe(false);
    // The refused connection is logged with the next attempt's delay: the attempt came and failed, no login.
    await until(() => logs.some((line) => line.includes('next connection attempt')), 'a refused connection attempt');
    expect(adapter.ready).toBe(false);
    await squad.fake.comeUp();
    await until(() => adapter.ready, 'login after the game came up', 15_000);
    expect(squad.fake.maxConcurrentSessions).toBe(1);
  });
});

// ---- Rust ------------------------------------------------------------------------------------------------------

const NOTIFY = 'pm {steamId} "{message}"';

async function startRust(players: { steamId: string; name: string }[]): Promise<FakeRustWebRconServer> {
  const fake = await FakeRustWebRconServer.start({ password: PASSWORD, players });
  cleanups.push(() => fake.stop());
  return fake;
}

function rustActions(fake: FakeRustWebRconServer): string[] {
  return fake.commandTexts().filter((command) => command !== 'playerlist' && command !== 'serverinfo');
}

describe('rcon adapter: rust', () => {
  it("mutes a muted speaker with the server's own mute and tells them through notifyCommand, once per cooldown", async () => {
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const fake = await startRust([]);
    const { adapter } = await startRig({ profile: 'rust', port: fake.port, notifyCommand: NOTIFY, pollPlayersMs: 60_000 });
    await until(() => adapter.ready && fake.commandTexts().includes('playerlist'), 'login and a player list');
    // Online, but not seen by a player list yet: the first the adapter learns of them is their chat.
    fake.players.push({ steamId: MUTED.steamId, name: MUTED.name });
    fake.pushChat({ userId: MUTED.steamId, username: MUTED.name, message: 'hello' });
    fake.pushChat({ userId: MUTED.steamId, username: MUTED.name, message: 'hello again' });
    fake.pushChat({ userId: NICE.steamId, username: NICE.name, message: 'hi' });
    await until(() => rustActions(fake).length >= 2, 'the mute and the message');
    await until(() => muteCalls() === 2 && emulator.calls.every((call) => call.status !== 0), 'both speakers looked up and answered');
    // A later muted speaker, looked up after both answers went out: their mute and message come after anything the
    // earlier lines caused (one WebRCON session, in order), so what came before them is all there is.
    emulator.mute(SERVER, LATE.steamId, ALERT);
    fake.players.push({ steamId: LATE.steamId, name: LATE.name });
    fake.pushChat({ userId: LATE.steamId, username: LATE.name, message: 'me too' });
    await until(() => rustActions(fake).length >= 4, "the later speaker's mute and message");
    expect(rustActions(fake)).toEqual([`mute ${MUTED.steamId}`, `pm ${MUTED.steamId} "${ALERT}"`, `mute ${LATE.steamId}`, `pm ${LATE.steamId} "${ALERT}"`]);
    expect(fake.muteLog).toEqual([
      { action: 'mute', steamId: MUTED.steamId },
      { action: 'mute', steamId: LATE.steamId },
    ]);
    expect(typeof adapter.tellPlayer).toBe('function');
  });

  it('mutes a muted player when they join, and unmutes them when a refresh says the mute is over', async () => {
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const fake = await startRust([{ steamId: MUTED.steamId, name: MUTED.name }]);
    const { adapter } = await startRig({ profile: 'rust', port: fake.port }, { mute: { mutedTtlMs: 200 } });
    await until(() => fake.muteLog.length === 1, 'the mute at join');
    expect(fake.muteLog).toEqual([{ action: 'mute', steamId: MUTED.steamId }]);
    emulator.unmute(SERVER, MUTED.steamId);
    // Rust drops a muted player's chat, so no line of theirs triggers the refresh: the player polls do, once stale.
    await until(() => fake.muteLog.length === 2, 'the unmute');
    expect(fake.muteLog[1]).toEqual({ action: 'unmute', steamId: MUTED.steamId });
    expect(rustActions(fake)).toEqual([`mute ${MUTED.steamId}`, `unmute ${MUTED.steamId}`]);
    // Without notifyCommand, Rust cannot tell a player anything: the capability is absent.
    expect(adapter.tellPlayer).toBeUndefined();
  });

  it('reconnects after the WebRCON connection is cut, keeping one session, and goes on muting', async () => {
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const fake = await startRust([]);
    const { adapter } = await startRig({ profile: 'rust', port: fake.port, pollPlayersMs: 60_000 });
    await until(() => adapter.ready, 'login');
    fake.dropAll();
    await until(() => !adapter.ready, 'the drop seen');
    await until(() => adapter.ready && fake.sessionsOpened === 2, 'the reconnect');
    fake.players.push({ steamId: MUTED.steamId, name: MUTED.name });
    fake.pushChat({ userId: MUTED.steamId, username: MUTED.name, message: 'back' });
    await until(() => fake.muteLog.length === 1, 'the mute on the new session');
    expect(fake.maxConcurrentSessions).toBe(1);
  });

  it("reads Channel 1 as team: a muted player's team line is not gated (no lookup, no mute), their global line is", async () => {
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const fake = await startRust([]);
    const { adapter, sidecar } = await startRig({ profile: 'rust', port: fake.port, pollPlayersMs: 60_000 });
    const verdicts = recordVerdicts(sidecar);
    await until(() => adapter.ready && fake.commandTexts().includes('playerlist'), 'login and a player list');
    fake.players.push({ steamId: MUTED.steamId, name: MUTED.name });
    fake.pushChat({ userId: MUTED.steamId, username: MUTED.name, message: 'team only', channel: 1 });
    fake.pushChat({ userId: MUTED.steamId, username: MUTED.name, message: 'clan only', channel: 5 });
    fake.pushChat({ userId: MUTED.steamId, username: MUTED.name, message: 'a future channel', channel: 9 });
    await until(() => verdicts.length === 3, 'three verdicts');
    expect(verdicts.map((event) => event.reason)).toEqual(['not_gated', 'not_gated', 'not_gated']);
    expect(muteCalls()).toBe(0);
    expect(rustActions(fake)).toEqual([]);
    fake.pushChat({ userId: MUTED.steamId, username: MUTED.name, message: 'to everyone', channel: 0 });
    await until(() => fake.muteLog.length === 1, 'the mute');
    expect(rustActions(fake)).toEqual([`mute ${MUTED.steamId}`]);
    expect(muteCalls()).toBe(1);
  });

  it("tells a filtered line's speaker the filter's alert through notifyCommand, never with the server's mute", async () => {
    const fake = await startRust([]);
    const { adapter, sidecar } = await startRig({ profile: 'rust', port: fake.port, notifyCommand: NOTIFY, pollPlayersMs: 60_000 });
    const dataDir = await tempDir('rcon-filter');
    const logger = silentLogger();
    const filter = new ChatFilter({
      words: ['scam'],
      ladder: [{ action: 'warn', message: 'No scams here' }],
      dryRun: false,
      strikes: await StrikeBook.open({ dataDir, memoryMs: 60_000, logger }),
      log: await ModerationLog.open(dataDir, logger),
      logger,
    });
    for (const bridge of sidecar.bridges.values()) bridge.useFilter(filter);
    const verdicts = recordVerdicts(sidecar);
    await until(() => adapter.ready && fake.commandTexts().includes('playerlist'), 'login and a player list');
    fake.players.push({ steamId: NICE.steamId, name: NICE.name });
    fake.pushChat({ userId: NICE.steamId, username: NICE.name, message: 'free sc@m here' });
    await until(() => rustActions(fake).length >= 1, 'the warning');
    expect(rustActions(fake)).toEqual([`pm ${NICE.steamId} "No scams here"`]);
    expect(verdicts.map((event) => event.reason)).toEqual(['filtered']);
    expect(fake.muteLog).toEqual([]);
    await filter.settled();
    const { records } = await readModerationRecords(dataDir);
    expect(records.map((record) => `${record.action}:${record.result}`).sort()).toEqual(['block:ok', 'warn:ok']);
  });

  it('with enforceMute false, sends nothing to a muted speaker when no notifyCommand is set', async () => {
    emulator.mute(SERVER, MUTED.steamId, ALERT);
    const fake = await startRust([{ steamId: MUTED.steamId, name: MUTED.name }]);
    const { adapter, logs } = await startRig({ profile: 'rust', port: fake.port, enforceMute: false });
    await until(() => adapter.ready && muteCalls() === 1, 'the join lookup');
    fake.pushChat({ userId: MUTED.steamId, username: MUTED.name, message: 'hello' });
    // Judged muted: the adapter had nothing to tell them with, and a mute would have gone out before this line.
    await until(() => logs.some((line) => line.includes('cannot tell the player')), 'the muted verdict acted on');
    // Two player lists later on the same session: anything sent before them has arrived.
    await afterPolls(() => fake.commandTexts(), 'playerlist');
    expect(rustActions(fake)).toEqual([]);
  });
});

describe('rcon adapter: options', () => {
  it('refuses a notifyCommand that could chain a second command, naming its path', () => {
    expect(() =>
      parseConfig(
        { api: { clientId: 'x', clientSecret: 'y' }, servers: [{ name: SERVER, adapters: [{ type: 'rcon', profile: 'rust', port: 28016, password: 'p', notifyCommand: 'pm {steamId} {message}; quit' }] }] },
        {},
      ),
    ).toThrow(/servers\[0\]\.adapters\[0\]\.notifyCommand/);
  });
});

