// Every game end to end against the shipped fake consoles of `gsa-bridge emulator --game` (src/gameEmulator/): the
// real sidecar (in-process), the GSA emulator, and each game's console on loopback with its own framing and quirks,
// its bytes split into pieces or merged. ARK and Conan write their log files where the game would. For each game a
// muted player's line gets the game's answer, and `!review` reaches GSA exactly as typed.
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RconAdapter } from '../../adapters/rcon/rconAdapter.js';
import { parseConfig } from '../../src/app/config.js';
import { GAME_CONSOLES, type GameName, type RunningGameConsole } from '../../src/gameEmulator/gameConsoles.js';
import { ALICE, MALLORY } from '../../src/gameEmulator/scriptedChat.js';
import { GsaEmulator } from '../../src/gsa/emulator/index.js';
import { createLogger } from '../../src/log/logger.js';
import { startSidecar } from '../../src/sidecar.js';
import { PATIENT_DECISION_TIMEOUT_MS, patientMs } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const PASSWORD = 'console-secret-pass';
const ALERT = 'Muted by an admin, appeal on our Discord';

let emulator: GsaEmulator;
let currentLogs: string[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }] });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

async function until(condition: () => boolean, what: string, timeoutMs = patientMs(20_000)): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; the sidecar logged:\n${currentLogs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

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

async function startCase(testCase: Case): Promise<{ game: RunningGameConsole; adapter: RconAdapter }> {
  const dir = await tempDir(`console-${testCase.game}`);
  const logFile = testCase.logFile === undefined ? undefined : join(dir, testCase.logFile);
  const game = await GAME_CONSOLES[testCase.game].start({ host: '127.0.0.1', port: 0, password: PASSWORD, logFile, writeMode: testCase.writeMode });
  cleanups.push(() => game.close());
  const logs: string[] = [];
  currentLogs = logs;
  const config = parseConfig(
    {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
      servers: [
        {
          name: SERVER,
          id: 4711,
          adapters: [
            {
              type: 'rcon',
              id: 'game',
              profile: testCase.game,
              port: game.port,
              password: PASSWORD,
              pollChatMs: 250,
              pollPlayersMs: 1_000,
              alertCooldownMs: 0,
              ...(logFile === undefined ? {} : { logFile }),
              ...testCase.adapter,
            },
          ],
        },
      ],
      mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS },
      reviews: { dataDir: await tempDir('console-data'), cooldownMs: 0 },
    },
    {},
  );
  const logger = createLogger({ level: 'debug', secrets: [PASSWORD], destination: { write: (line: string) => logs.push(line) } });
  const sidecar = await startSidecar(config, { logger });
  cleanups.push(() => sidecar.stop());
  const adapter = sidecar.adapters[0];
  if (!(adapter instanceof RconAdapter)) throw new Error('the sidecar built no rcon adapter');
  return { game, adapter };
}

describe("every game against emulator --game's consoles", () => {
  it.each(CASES)('$game: a muted player is answered, and !review reaches GSA as typed', async (testCase) => {
    // GSA knows a player by one id; which one a game's lines give differs (EOS on Squad and 7 Days to Die).
    emulator.mute(SERVER, MALLORY.steamId, ALERT);
    emulator.mute(SERVER, MALLORY.eosId, ALERT);
    const { game, adapter } = await startCase(testCase);
    game.join(ALICE);
    game.join(MALLORY);
    await until(() => adapter.ready, 'the console login');
    game.say(MALLORY, 'buy gold at example.com');
    await until(() => game.commands.some(testCase.answered), "the game's answer to the muted player");

    game.say(ALICE, '!review 5 Great admins, "fair" | fun');
    await until(() => emulator.reviews.length === 1, 'the review at GSA');
    expect(emulator.reviews[0]).toMatchObject({ stars: 5, comment: 'Great admins, "fair" | fun' });
    expect(currentLogs.join('')).not.toContain(PASSWORD);
  });
});
