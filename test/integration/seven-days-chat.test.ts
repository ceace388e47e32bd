// 7 Days to Die end to end: the real sidecar (in-process) against the GSA emulator and the fake 7DTD telnet console
// (src/gameEmulator/sevenDaysConsole.ts: the password prompt, CRLF, the log pushed to every client, bytes split into
// random pieces). Chat comes from the console's stream; a Steam speaker carries their Steam64, an Xbox speaker is
// mapped to the EOS id of `lp`'s crossid; the host's notifyCommand answers a muted speaker by entity id; `!review`
// becomes a review. "Nothing was sent" is proven by a later line's answer on the same serial console.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RconAdapter } from '../../adapters/rcon/rconAdapter.js';
import { parseConfig } from '../../src/app/config.js';
import { startSevenDaysConsole, type SevenDaysConsole, type SevenDaysFakePlayer } from '../../src/gameEmulator/sevenDaysConsole.js';
import { GsaEmulator } from '../../src/gsa/emulator/index.js';
import { createLogger } from '../../src/log/logger.js';
import { startSidecar } from '../../src/sidecar.js';
import { PATIENT_DECISION_TIMEOUT_MS, patientMs } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const PASSWORD = 'telnet-secret-pass';
const ALERT = 'Muted by an admin, appeal on our Discord';
const STEAM_MUTED: SevenDaysFakePlayer = { name: 'Steamy', entityId: 171, platformId: 'Steam_76561198000000001', crossId: 'EOS_0002aaaaaaaaaaaaaaaaaaaaaaaaaaa1' };
const XBOX_MUTED: SevenDaysFakePlayer = { name: "Xb'ox, [ff0000]Guy[-]", entityId: 172, platformId: 'XBL_2535420000000001', crossId: 'EOS_0002bbbbbbbbbbbbbbbbbbbbbbbbbbb2' };
const NICE: SevenDaysFakePlayer = { name: 'Nice', entityId: 173, platformId: 'Steam_76561198000000003', crossId: 'EOS_0002ccccccccccccccccccccccccccc3' };

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

async function until(condition: () => boolean, what: string, timeoutMs = patientMs(10_000)): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; the sidecar logged:\n${currentLogs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function startGame(players: readonly SevenDaysFakePlayer[]): Promise<SevenDaysConsole> {
  const game = await startSevenDaysConsole({ password: PASSWORD, players, chunking: 'split' });
  cleanups.push(() => game.close());
  return game;
}

async function startRig(port: number, adapter: Record<string, unknown> = {}) {
  const logs: string[] = [];
  currentLogs = logs;
  const config = parseConfig(
    {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
      servers: [
        {
          name: SERVER,
          id: 4711,
          adapters: [{ type: 'rcon', id: 'game', profile: '7dtd', port, password: PASSWORD, pollPlayersMs: 2_000, alertCooldownMs: 0, ...adapter }],
        },
      ],
      mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS },
      reviews: { dataDir: await tempDir('seven-days-data'), cooldownMs: 0 },
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

const actions = (game: SevenDaysConsole): string[] => game.commands.filter((command) => command !== 'lp');

describe('7dtd over telnet', () => {
  it('gates Steam and Xbox speakers from the console stream and answers through notifyCommand', async () => {
    // GSA knows 7 Days to Die players by their EOS id (the crossid), whatever their platform.
    emulator.mute(SERVER, (STEAM_MUTED.crossId ?? '').slice('EOS_'.length), ALERT);
    emulator.mute(SERVER, (XBOX_MUTED.crossId ?? '').slice('EOS_'.length), ALERT);
    const game = await startGame([STEAM_MUTED, XBOX_MUTED, NICE]);
    const { adapter, logs } = await startRig(game.port, { notifyCommand: 'pm {entityId} "{message}"' });
    await until(() => adapter.ready && game.commands.includes('lp'), 'login and a player list');

    game.say(NICE, 'hello all');
    game.say(STEAM_MUTED, 'spam from steam');
    await until(() => actions(game).length === 1, "the Steam speaker's alert");
    expect(actions(game)).toEqual([`pm 171 "${ALERT}"`]);

    game.say(XBOX_MUTED, 'spam from xbox');
    await until(() => actions(game).length === 2, "the Xbox speaker's alert, by crossid");
    expect(actions(game)[1]).toBe(`pm 172 "${ALERT}"`);

    // Party chat is team: not gated by default, so no answer; the Steam line after it proves it was decided.
    game.say(STEAM_MUTED, 'party line', 'Party');
    game.say(STEAM_MUTED, 'global again');
    await until(() => actions(game).length === 3, 'the alert for the global line');
    expect(actions(game)).toHaveLength(3);
    expect(logs.join('')).not.toContain(PASSWORD);
  });

  it('takes !review from chat into the outbox and tells the player', async () => {
    const game = await startGame([NICE]);
    const { adapter } = await startRig(game.port, { notifyCommand: 'pm {entityId} "{message}"' });
    await until(() => adapter.ready && game.commands.includes('lp'), 'login and a player list');
    game.say(NICE, '!review 5 Great admins');
    await until(() => emulator.reviews.length === 1, 'the review at GSA');
    expect(emulator.reviews[0]).toMatchObject({ stars: 5, comment: 'Great admins' });
    await until(() => actions(game).some((command) => command.startsWith('pm 173 ')), 'the confirmation');
  });
});
