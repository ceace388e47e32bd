// Every game end to end against the shipped fake consoles of `gsa-bridge emulator --game` (src/gameEmulator/): the
// real sidecar (in-process), the GSA emulator, and each game's console on loopback with its own framing and quirks,
// its bytes split into pieces or merged. ARK and Conan write their log files where the game would. For each game a
// muted player's line gets the game's answer, and `!review` reaches GSA exactly as typed.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rconOptionsSchema } from '../../adapters/rcon/options.js';
import type { RconAdapter } from '../../adapters/rcon/rconAdapter.js';
import { probeRcon } from '../../adapters/rcon/rconProbe.js';
import { GAME_CONSOLES, type GameName, type RunningGameConsole } from '../../src/gameEmulator/gameConsoles.js';
import { ALICE, MALLORY } from '../../src/gameEmulator/scriptedChat.js';
import { RIG_ALERT as ALERT, RIG_PASSWORD as PASSWORD, RIG_SERVER as SERVER, useGameRig } from '../fixtures/gameRig.js';
import { patientMs } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const rig = useGameRig();
const { until } = rig;
const emulator = () => rig.emulator();

interface Case {
  readonly game: GameName;
  readonly writeMode: 'split' | 'merged';
  /** The log file, relative to a temp dir, for games whose chat is read from it. */
  readonly logFile?: string | undefined;
  /** The adapter's own keys besides profile, port, password and logFile. */
  readonly adapter: Record<string, unknown>;
  /** Whether a console command is the game's answer to the muted player. */
  readonly answered: (command: string) => boolean;
}

const CASES: readonly Case[] = [
  { game: 'ark', writeMode: 'split', logFile: 'Logs/ServerGame.*.log', adapter: {}, answered: (command) => command === `ServerChatTo "${MALLORY.steamId}" ${ALERT}` },
  { game: 'squad', writeMode: 'merged', adapter: {}, answered: (command) => command === `AdminWarn "${MALLORY.eosId}" ${ALERT}` },
  { game: 'rust', writeMode: 'split', adapter: {}, answered: (command) => command === `mute ${MALLORY.steamId}` },
  {
    game: 'conan',
    writeMode: 'split',
    logFile: 'ConanSandbox.log',
    adapter: { notifyCommand: 'directmessage Server {steamId} "{message}"' },
    answered: (command) => command === `directmessage Server ${MALLORY.steamId} "${ALERT}"`,
  },
  { game: '7dtd', writeMode: 'split', adapter: { notifyCommand: 'pm {entityId} "{message}"' }, answered: (command) => /^pm \d+ "/.test(command) && command.includes(ALERT) },
];

async function startCase(testCase: Case): Promise<{ game: RunningGameConsole; adapter: RconAdapter; logs: string[] }> {
  const dir = await tempDir(`console-${testCase.game}`);
  const logFile = testCase.logFile === undefined ? undefined : join(dir, testCase.logFile);
  const game = await GAME_CONSOLES[testCase.game].start({ host: '127.0.0.1', port: 0, password: PASSWORD, logFile, writeMode: testCase.writeMode });
  rig.onCleanup(() => game.close());
  const { adapter, logs } = await rig.start({
    profile: testCase.game,
    port: game.port,
    // GetChat's pace is ARK's own key: the other games refuse it.
    ...(testCase.game === 'ark' ? { pollChatMs: 250 } : {}),
    pollPlayersMs: 1_000,
    ...(logFile === undefined ? {} : { logFile }),
    ...testCase.adapter,
  });
  return { game, adapter, logs };
}

describe("every game against emulator --game's consoles", () => {
  it.each(CASES)('$game: a muted player is answered, and !review reaches GSA as typed', async (testCase) => {
    // GSA knows a player by one id; which one a game's lines give differs (both on Squad and 7 Days to Die, asked by
    // the Steam64 there; EOS alone on ASA).
    emulator().mute(SERVER, MALLORY.steamId, ALERT);
    emulator().mute(SERVER, MALLORY.eosId, ALERT);
    const { game, adapter, logs } = await startCase(testCase);
    game.join(ALICE);
    game.join(MALLORY);
    await until(() => adapter.ready, 'the console login');
    game.say(MALLORY, 'buy gold at example.com');
    await until(() => game.commands.some(testCase.answered), "the game's answer to the muted player", patientMs(20_000));

    game.say(ALICE, '!review 5 Great admins, "fair" | fun');
    await until(() => emulator().reviews.length === 1, 'the review at GSA');
    expect(emulator().reviews[0]).toMatchObject({ stars: 5, comment: 'Great admins, "fair" | fun' });
    expect(logs.join('')).not.toContain(PASSWORD);
  });
});

describe('config check --connect and `gsa-bridge rcon` against each console', () => {
  it.each(['ark', 'squad', 'rust', 'conan', '7dtd', 'minecraft'] as const)('%s: the profile probe logs in and is answered; a wrong password fails naming the key', async (name) => {
    const game = await GAME_CONSOLES[name].start({ host: '127.0.0.1', port: 0, password: PASSWORD, writeMode: 'split' });
    rig.onCleanup(() => game.close());
    // Conan and Minecraft read chat only from their logs: the probe also says which file it would follow.
    const logName = name === 'conan' ? 'ConanSandbox.log' : name === 'minecraft' ? 'latest.log' : undefined;
    const logFile = logName === undefined ? undefined : join(await tempDir('console-probe'), logName);
    if (logFile !== undefined) await writeFile(logFile, name === 'conan' ? '\uFEFF' : '');
    const keys = { type: 'rcon', profile: name, port: game.port, ...(logFile === undefined ? {} : { logFile }) };
    const good = await probeRcon(rconOptionsSchema.parse({ ...keys, password: PASSWORD }), { serverName: SERVER, id: `${name}-probe` });
    expect(good).toMatchObject({ ok: true });
    expect(good.message).toMatch(/^logged in; /);
    if (logFile !== undefined) expect(good.message).toContain(`chat is read from ${logFile}`);
    // ARK answers a wrong password with silence: the login bound (11 s) is the wait, so it is left to config-check-rcon.
    if (name === 'ark') return;
    const refused = await probeRcon(rconOptionsSchema.parse({ ...keys, password: 'not-the-password' }), { serverName: SERVER, id: `${name}-probe` });
    expect(refused.ok).toBe(false);
    expect(refused.message).toMatch(/password/);
    expect(refused.message).not.toContain('not-the-password');
  });
});
