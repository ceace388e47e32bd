// The rcon adapter's "remove this player" capability (removePlayer, for access.enforce) against the fake game consoles
// on loopback, speaking real bytes: each profile's kick as the game receives it, GSA's hostile words cleaned for that
// game's console, the host's kickCommand in place of the profile's kick, Conan without one (no capability at all), a
// Minecraft name the game's rule refuses (rejected, nothing sent), a kick the game refuses, and a session that is down.
// The adapter is built directly with this file's own BridgeSink. "Nothing was sent" is proven by a later command on the
// same session being the only one recorded, never by a sleep.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RconAdapter } from '../../adapters/rcon/rconAdapter.js';
import { rconOptionsSchema } from '../../adapters/rcon/options.js';
import { RCON_PROFILE_TABLE, type RconProfileName } from '../../adapters/rcon/profiles/index.js';
import type { AccessVerdict, BridgeSink, PlayerIdentity, RemovalReason } from '../../src/bridge/port.js';
import { createLogger } from '../../src/log/logger.js';
import { ALICE, MALLORY } from '../../src/gameEmulator/scriptedChat.js';
import { SourceRconConsole } from '../../src/gameEmulator/sourceRconConsole.js';
import { startSevenDaysConsole, type SevenDaysFakePlayer } from '../../src/gameEmulator/sevenDaysConsole.js';
import { FakeRustWebRconServer } from '../fixtures/fakeRustWebRconServer.js';
import { patientMs } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const PASSWORD = 'kick-test-console-pass';

/** GSA's words, as hostile as a message can be: a quote, a line break, separators, a comment, braces, colour codes. */
const HOSTILE = 'Not on the "whitelist"; quit\r\nKickPlayer 1 | Broadcast //x {steamId} §cRed @e';
/** What every game's cleaning leaves of it (before a game's own extra rules). */
const CLEANED = "Not on the 'whitelist', quit KickPlayer 1 Broadcast / /x {steamId} §cRed @e";
/** ARK: ASCII only, so the section sign goes. */
const CLEANED_ARK = "Not on the 'whitelist', quit KickPlayer 1 Broadcast / /x {steamId} cRed @e";
/** Minecraft: `§` codes dropped, `@` broken so no selector expands. */
const CLEANED_MINECRAFT = "Not on the 'whitelist', quit KickPlayer 1 Broadcast / /x {steamId} cRed ＠e";

const DENIED: AccessVerdict = { allowed: false, message: HOSTILE, roles: {}, source: 'service' };
const REASON: RemovalReason = { message: HOSTILE, verdict: DENIED };

const cleanups: (() => Promise<unknown>)[] = [];
let logs: string[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + patientMs(10_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; the adapter logged:\n${logs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A sink that records the joins it is told of and allows every line. */
function recordingSink(): { sink: BridgeSink; joined: PlayerIdentity[] } {
  const joined: PlayerIdentity[] = [];
  const sink: BridgeSink = {
    serverName: 'ovddykvbs',
    chat: () => Promise.resolve({ allow: true, reason: 'ok' }),
    checkMute: () => Promise.resolve({ muted: false, source: 'service' }),
    submitReview: () => Promise.resolve(),
    playerJoined: (player) => {
      joined.push(player);
    },
    playerLeft: () => undefined,
    serverAction: () => Promise.resolve({ ok: true, status: 200, message: 'ok' }),
  };
  return { sink, joined };
}

/** Builds and starts an adapter of `profile` against the console on `port`, with this file's sink. */
async function startAdapter(profile: RconProfileName, port: number, extra: Record<string, unknown> = {}) {
  logs = [];
  const logger = createLogger({ level: 'debug', secrets: [PASSWORD], destination: { write: (line: string) => logs.push(line) } });
  const options = rconOptionsSchema.parse({ type: 'rcon', profile, port, password: PASSWORD, pollPlayersMs: 60_000, alertCooldownMs: 0, ...extra });
  // Conan's 3 s between sessions is proven on fake time elsewhere: a clock always a pace ahead here.
  let at = 0;
  const adapter = new RconAdapter({ id: `${profile}-kick`, options, profile: RCON_PROFILE_TABLE[profile], logger, paceClock: { now: () => (at += 60_000) } });
  cleanups.push(() => adapter.stop());
  const { sink, joined } = recordingSink();
  await adapter.start(sink);
  return { adapter, joined };
}

function removeOf(adapter: RconAdapter): (player: PlayerIdentity, reason: RemovalReason) => Promise<void> {
  const remove = adapter.removePlayer;
  if (remove === undefined) throw new Error(`adapter ${adapter.id} has no removePlayer`);
  return remove;
}

async function sourceConsole(game: 'ark' | 'squad' | 'conan' | 'minecraft', logFile?: string): Promise<SourceRconConsole> {
  const console = await SourceRconConsole.start({ game, password: PASSWORD, players: [ALICE, MALLORY], logFile, writeMode: 'split' });
  cleanups.push(() => console.close());
  return console;
}

const listedBoth = (joined: readonly PlayerIdentity[]): boolean => joined.length === 2;

describe('removePlayer: each profile kicks with its own command, GSA words cleaned', () => {
  it('ark: tells the player the reason first (KickPlayer carries none), then KickPlayer <steam64>', async () => {
    const ark = await sourceConsole('ark');
    const { adapter, joined } = await startAdapter('ark', ark.port, { pollChatMs: 60_000 });
    await until(() => adapter.ready && listedBoth(joined), 'the login and the first ListPlayers');
    await removeOf(adapter)({ steamId: MALLORY.steamId, name: MALLORY.name }, REASON);
    const actions = ark.commands.filter((command) => command !== 'ListPlayers' && command !== 'GetChat');
    expect(actions).toEqual([`ServerChatTo "${MALLORY.steamId}" ${CLEANED_ARK}`, `KickPlayer ${MALLORY.steamId}`]);
  });

  it('squad: AdminKick "<eos>" <reason>', async () => {
    const squad = await sourceConsole('squad');
    const { adapter, joined } = await startAdapter('squad', squad.port);
    await until(() => adapter.ready && listedBoth(joined), 'the login and the first ListPlayers');
    await removeOf(adapter)({ steamId: MALLORY.steamId, eosId: MALLORY.eosId, name: MALLORY.name }, REASON);
    const kicks = squad.commands.filter((command) => command.startsWith('AdminKick'));
    expect(kicks).toEqual([`AdminKick "${MALLORY.eosId}" ${CLEANED}`]);
    // No warning box before it: AdminKick shows the reason itself.
    expect(squad.commands.some((command) => command.startsWith('AdminWarn'))).toBe(false);
  });

  it('rust: kick <steamid> "<reason>"; a "Player not found" answer rejects with kick_refused', async () => {
    const rust = await FakeRustWebRconServer.start({
      password: PASSWORD,
      players: [{ steamId: MALLORY.steamId, name: MALLORY.name }],
      respond: (command) => (command.startsWith(`kick ${ALICE.steamId}`) ? 'Player not found' : undefined),
    });
    cleanups.push(() => rust.stop());
    const { adapter, joined } = await startAdapter('rust', rust.port);
    await until(() => adapter.ready && joined.length === 1, 'the login and the first playerlist');
    await removeOf(adapter)({ steamId: MALLORY.steamId }, REASON);
    await expect(removeOf(adapter)({ steamId: ALICE.steamId }, REASON)).rejects.toMatchObject({ code: 'kick_refused', message: expect.stringContaining('rust-kick') as unknown });
    const kicks = rust.commandTexts().filter((command) => command.startsWith('kick '));
    expect(kicks).toEqual([`kick ${MALLORY.steamId} "${CLEANED}"`, `kick ${ALICE.steamId} "${CLEANED}"`]);
  });

  it('7dtd: kick "EOS_<crossid>", and a Steam player listed without a crossid by "Steam_<id>"; "*** ERROR" rejects', async () => {
    const withCrossId: SevenDaysFakePlayer = { name: 'Crossed', entityId: 171, platformId: `Steam_${ALICE.steamId}`, crossId: `EOS_${ALICE.eosId}` };
    const steamOnly: SevenDaysFakePlayer = { name: 'Steam Only', entityId: 172, platformId: `Steam_${MALLORY.steamId}` };
    let refuse = false;
    const game = await startSevenDaysConsole({
      password: PASSWORD,
      players: [withCrossId, steamOnly],
      chunking: 'split',
      // The fake knows no `kick`: answer it as the game does when it worked (nothing the queue must wait for), or not.
      respond: (command) => (command.startsWith('kick ') ? (refuse ? ["*** ERROR: Playername or entity/steamid id not found."] : []) : undefined),
    });
    cleanups.push(() => game.close());
    const { adapter, joined } = await startAdapter('7dtd', game.port);
    await until(() => adapter.ready && listedBoth(joined), 'the login and the first lp');
    // The bridge knows them as the join told it: both ids for one, the Steam64 alone for the other.
    await removeOf(adapter)({ steamId: ALICE.steamId, eosId: ALICE.eosId, name: 'Crossed' }, REASON);
    await removeOf(adapter)({ steamId: MALLORY.steamId, name: 'Steam Only' }, REASON);
    refuse = true;
    await expect(removeOf(adapter)({ steamId: MALLORY.steamId }, REASON)).rejects.toMatchObject({ code: 'kick_refused' });
    const kicks = game.commands.filter((command) => command.startsWith('kick '));
    expect(kicks).toEqual([`kick "EOS_${ALICE.eosId}" "${CLEANED}"`, `kick "Steam_${MALLORY.steamId}" "${CLEANED}"`, `kick "Steam_${MALLORY.steamId}" "${CLEANED}"`]);
  });

  it('minecraft: kick <name> <reason> by the listed name; a name the rule refuses is rejected and nothing is sent', async () => {
    const dir = await tempDir('mc-kick');
    const logFile = join(dir, 'logs', 'latest.log');
    const mc = await sourceConsole('minecraft', logFile);
    const { adapter, joined } = await startAdapter('minecraft', mc.port, { logFile });
    await until(() => adapter.ready && listedBoth(joined), 'the login and the first list uuids');
    // A player the list does not show, known by a name no Minecraft name can be: refused before any command exists.
    await expect(removeOf(adapter)({ mojangId: '11111111-2222-4333-8444-555555555555', name: 'Bob @e[type=player]' }, REASON)).rejects.toMatchObject({
      code: 'unkickable_player',
      message: expect.stringContaining('minecraft-kick') as unknown,
    });
    // The name comes from the list for a listed player, whatever name the caller holds.
    await removeOf(adapter)({ mojangId: MALLORY.uuid }, REASON);
    expect(mc.commands.filter((command) => command.startsWith('kick'))).toEqual([`kick ${MALLORY.name} ${CLEANED_MINECRAFT}`]);
  });
});

describe('kickCommand: the host template', () => {
  it('replaces the profile kick; a template without {message} is preceded by the private message', async () => {
    const ark = await sourceConsole('ark');
    const { adapter, joined } = await startAdapter('ark', ark.port, { pollChatMs: 60_000, kickCommand: 'scriptcommand gsakick {playerId}' });
    await until(() => adapter.ready && listedBoth(joined), 'the login and the first ListPlayers');
    await removeOf(adapter)({ steamId: ALICE.steamId }, REASON);
    const actions = ark.commands.filter((command) => command !== 'ListPlayers' && command !== 'GetChat');
    expect(actions).toEqual([`ServerChatTo "${ALICE.steamId}" ${CLEANED_ARK}`, `scriptcommand gsakick ${ALICE.steamId}`]);
  });

  it('carries GSA words through {message}, cleaned, and never expands a placeholder written inside them', async () => {
    const rust = await FakeRustWebRconServer.start({ password: PASSWORD, players: [{ steamId: MALLORY.steamId, name: MALLORY.name }] });
    cleanups.push(() => rust.stop());
    const { adapter, joined } = await startAdapter('rust', rust.port, { kickCommand: 'banid {steamId} "{name}" "{message}"' });
    await until(() => adapter.ready && joined.length === 1, 'the login and the first playerlist');
    await removeOf(adapter)({ steamId: MALLORY.steamId, name: MALLORY.name }, REASON);
    const sent = rust.commandTexts().filter((command) => command.startsWith('banid') || command.startsWith('kick'));
    expect(sent).toEqual([`banid ${MALLORY.steamId} "${MALLORY.name}" "${CLEANED}"`]);
  });

  it('conan: no kick without kickCommand (the capability is absent); with one, the console gets it', async () => {
    const dir = await tempDir('conan-kick');
    const logFile = join(dir, 'ConanSandbox.log');
    const conan = await sourceConsole('conan', logFile);
    const bare = await startAdapter('conan', conan.port, { logFile });
    expect(bare.adapter.removePlayer).toBeUndefined();
    expect(logs.join('')).toContain('no kick (set kickCommand)');
    await bare.adapter.stop();

    const { adapter, joined } = await startAdapter('conan', conan.port, { logFile, kickCommand: 'kickplayer platformid {steamId} {message}' });
    await until(() => adapter.ready && listedBoth(joined), 'the login and the first listplayers');
    await removeOf(adapter)({ steamId: MALLORY.steamId }, REASON);
    expect(conan.commands.filter((command) => command.startsWith('kickplayer'))).toEqual([`kickplayer platformid ${MALLORY.steamId} ${CLEANED}`]);
  });

  it('refuses a {name} that would reach the game changed or split: nothing is sent', async () => {
    const squad = await sourceConsole('squad');
    const { adapter, joined } = await startAdapter('squad', squad.port, { kickCommand: 'AdminKick {name} {message}' });
    await until(() => adapter.ready && listedBoth(joined), 'the login and the first ListPlayers');
    // A space would split a bare {name}; a quote would be cleaned into another name.
    await expect(removeOf(adapter)({ eosId: MALLORY.eosId, name: 'Mal lory' }, REASON)).rejects.toMatchObject({ code: 'unkickable_player' });
    await expect(removeOf(adapter)({ eosId: MALLORY.eosId, name: 'Mal"lory' }, REASON)).rejects.toMatchObject({ code: 'unkickable_player' });
    await removeOf(adapter)({ eosId: MALLORY.eosId, name: MALLORY.name }, REASON);
    expect(squad.commands.filter((command) => command.startsWith('AdminKick'))).toEqual([`AdminKick ${MALLORY.name} ${CLEANED}`]);
  });

  it('is checked at load like notifyCommand: a second command or an unknown placeholder is a config error', () => {
    const base = { type: 'rcon', profile: 'conan', port: 25575, password: PASSWORD, logFile: '/tmp/x.log' };
    expect(rconOptionsSchema.safeParse({ ...base, kickCommand: 'kickplayer {steamId}; shutdown' }).success).toBe(false);
    expect(rconOptionsSchema.safeParse({ ...base, kickCommand: 'kickplayer {steamid}' }).success).toBe(false);
    expect(rconOptionsSchema.safeParse({ ...base, kickCommand: 'kickplayer {message}' }).success).toBe(false);
    // {message} is optional here (it is required in notifyCommand).
    expect(rconOptionsSchema.safeParse({ ...base, kickCommand: 'kickplayer platformid {steamId}' }).success).toBe(true);
  });
});

describe('removePlayer when the game cannot be reached', () => {
  it('rejects with kick_not_delivered, naming the adapter, while the session is down', async () => {
    const squad = await sourceConsole('squad');
    const { adapter, joined } = await startAdapter('squad', squad.port);
    await until(() => adapter.ready && listedBoth(joined), 'the login and the first ListPlayers');
    await squad.close();
    await until(() => !adapter.ready, 'the session to drop');
    await expect(removeOf(adapter)({ eosId: MALLORY.eosId }, REASON)).rejects.toMatchObject({ code: 'kick_not_delivered', message: expect.stringContaining('squad-kick') as unknown });
  });
});

describe('joins reach the sink (where access is checked)', () => {
  it("7dtd: a player spawning in the console's stream reaches playerJoined with the ids lp lists", async () => {
    const game = await startSevenDaysConsole({ password: PASSWORD, players: [], chunking: 'split' });
    cleanups.push(() => game.close());
    const { adapter, joined } = await startAdapter('7dtd', game.port);
    await until(() => adapter.ready && game.commands.includes('lp'), 'the login and the first lp');
    game.join({ name: 'Newcomer', entityId: 180, platformId: `Steam_${ALICE.steamId}`, crossId: `EOS_${ALICE.eosId}` });
    await until(() => joined.length === 1, 'the join');
    expect(joined[0]).toMatchObject({ steamId: ALICE.steamId, eosId: ALICE.eosId, name: 'Newcomer' });
  });
});
