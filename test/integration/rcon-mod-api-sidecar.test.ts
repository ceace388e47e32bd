// GSA's Mod API v2 on an RCON game through the whole sidecar (startSidecar, in-process), against the GSA emulator and
// the game emulator's Squad console on loopback (real RCON packets, split writes): with access.enforce, a player GSA
// does not allow is kicked at the door with GSA's message as the game's AdminKick, and one who is allowed is not;
// with `shop` in the server's allowRequests, `!shop` and `!buy 1` order the first item from GSA's shop once and
// whisper GSA's answer; without it, `!shop` is ordinary chat and nothing reaches the shop.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/app/config.js';
import { ALICE, MALLORY } from '../../src/gameEmulator/scriptedChat.js';
import { SourceRconConsole } from '../../src/gameEmulator/sourceRconConsole.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { createLogger } from '../../src/log/logger.js';
import { startSidecar } from '../../src/sidecar.js';
import { PATIENT_DECISION_TIMEOUT_MS, patientMs } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const PASSWORD = 'mod-api-console-pass';

let emulator: GsaEmulator;
let logs: string[] = [];
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

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + patientMs(10_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; the sidecar logged:\n${logs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function startRig(server: Record<string, unknown>): Promise<SourceRconConsole> {
  logs = [];
  const game = await SourceRconConsole.start({ game: 'squad', password: PASSWORD, players: [ALICE, MALLORY], writeMode: 'split' });
  cleanups.push(() => game.close());
  const config = parseConfig(
    {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
      servers: [{ name: SERVER, ...server, adapters: [{ type: 'rcon', profile: 'squad', port: game.port, password: PASSWORD, pollPlayersMs: 60_000 }] }],
      reviews: { dataDir: await tempDir('rcon-mod-api') },
      mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS },
    },
    {},
  );
  const logger = createLogger({ level: 'debug', secrets: [PASSWORD, emulator.clientSecret], destination: { write: (line: string) => logs.push(line) } });
  const sidecar = await startSidecar(config, { logger });
  cleanups.push(() => sidecar.stop());
  return game;
}

describe('the Mod API v2 on an RCON game, through the sidecar', () => {
  it("kicks a player GSA does not allow at the door, with GSA's message, and no one else", async () => {
    emulator.setAccess(MALLORY.steamId, { allowed: false, message: 'You are not on the whitelist' });
    const game = await startRig({ access: { enforce: true } });
    await until(() => game.commands.some((command) => command.startsWith('AdminKick')), 'the kick');
    expect(game.commands.filter((command) => command.startsWith('AdminKick'))).toEqual([`AdminKick "${MALLORY.eosId}" You are not on the whitelist`]);
    await until(() => emulator.calls.filter((call) => call.endpoint === 'access').length === 2, "both players' access checks");
    // The line follows the game's answer to the kick, which may come after the command was seen.
    await until(() => logs.join('').includes('player removed at the door'), 'the info line of the kick');
    expect(logs.join('')).not.toContain(emulator.clientSecret);
  });

  it('orders from the shop in chat once, only where shop is allowed', async () => {
    const game = await startRig({ allowRequests: ['shop'] });
    await until(() => game.commands.includes('ListPlayers'), 'the first ListPlayers');
    const whispers = (): string[] => game.commands.filter((command) => command.startsWith(`AdminWarn "${ALICE.eosId}" `));
    game.say(ALICE, '!shop');
    // The listing may take more than one whisper (each at most 100 characters); its last says how to buy.
    await until(() => whispers().some((text) => text.endsWith('Type !buy <n> to order.')), 'the listing');
    const listed = whispers().length;
    expect(whispers()[0]).toMatch(/^AdminWarn "[^"]+" 1\) Starter kit \(100\)/);
    // The listing stays Alice's request in flight until the game answered its last whisper: a `!buy` typed in that
    // moment is told to wait and orders nothing (one request per player at a time), so it is typed again.
    let asked = listed;
    for (let attempt = 0; attempt < 5; attempt++) {
      game.say(ALICE, '!buy 1');
      await until(() => whispers().length > asked, "the answer to '!buy 1'");
      asked = whispers().length;
      if (!whispers()[asked - 1]!.includes('One moment')) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(emulator.orders().map((order) => ({ packId: order.packId, processed: order.processed, success: order.success }))).toEqual([{ packId: '1', processed: true, success: true }]);
    expect(whispers()[asked - 1]).toContain('Thank you for your order');
  });

  it('leaves !shop as ordinary chat where shop is not allowed', async () => {
    const game = await startRig({});
    await until(() => game.commands.includes('ListPlayers'), 'the first ListPlayers');
    game.say(ALICE, '!shop');
    // The line is gated as chat: its mute lookup reaching GSA shows it was read (and not taken by the shop).
    await until(() => emulator.calls.some((call) => call.endpoint === 'mute'), "the line's mute lookup");
    expect(emulator.calls.filter((call) => call.endpoint === 'shop')).toEqual([]);
  });
});
