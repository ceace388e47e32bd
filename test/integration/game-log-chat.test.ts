// ARK's chat read where the game writes it: the real sidecar (in-process) against the GSA emulator, a fake ARK
// console on loopback (Source RCON bytes) and a real game log in a temp dir, appended, rotated and replaced under
// the reader. GetChat is never sent when logFile is set (it would take chat away from GSA and other tools); without
// logFile the start-up warning names the conflict. Names map to ids through ListPlayers; two players with one name
// are never guessed. GameServerApp's ASA mod (`gsaMod`) mutes and unmutes in game.
// "Nothing was sent" is proven by a later line's answer on the same serial console, never by a sleep.
import { appendFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/app/config.js';
import { FakeSourceRconServer, type FakeReply } from '../fixtures/fakeSourceRconServer.js';
import { RIG_ALERT as ALERT, RIG_PASSWORD as PASSWORD, RIG_SERVER as SERVER, useGameRig } from '../fixtures/gameRig.js';
import { tempDir } from '../fixtures/tempDir.js';

const MUTED = { steamId: '76561198000000001', eosId: '0002aaaaaaaaaaaaaaaaaaaaaaaaaaa1', name: 'Muted Guy' };
const NICE = { steamId: '76561198000000002', eosId: '0002bbbbbbbbbbbbbbbbbbbbbbbbbbb2', name: 'Nice Guy' };
const TWIN = { steamId: '76561198000000004', eosId: '0002ddddddddddddddddddddddddddd4', name: 'Muted Guy' };

const rig = useGameRig();
const { until } = rig;
const emulator = () => rig.emulator();

async function startArk(players: readonly { steamId: string; eosId: string; name: string }[], ids: 'steam' | 'eos' = 'steam') {
  const respond = (command: string): FakeReply | undefined => {
    if (command === 'ListPlayers') return `${players.map((player, index) => `${index}. ${player.name}, ${ids === 'eos' ? player.eosId : player.steamId}`).join('\n')}\n`;
    return undefined; // `Server received, But no response!!`
  };
  const fake = await FakeSourceRconServer.start({ quirks: 'ark', password: PASSWORD, respond, writeMode: 'split' });
  rig.onCleanup(() => fake.stop());
  return { fake, actions: () => fake.commands.filter((command) => command !== 'ListPlayers') };
}

function startRig(adapter: Record<string, unknown>, mute: Record<string, unknown> = {}) {
  return rig.start({ profile: 'ark', pollPlayersMs: 2_000, ...adapter }, mute);
}

/** A game-log chat line as ARK writes it with -servergamelog: engine head, the game's stamp, CRLF. */
function chatLine(name: string, character: string, text: string): string {
  return `[2026.09.13-18.48.40:782][696]2026.09.13_18.48.40: ${name} (${character}): ${text}\r\n`;
}

describe('ark: chat from the game log', () => {
  it('gates from the log, never sends GetChat, and does not replay old lines', async () => {
    emulator().mute(SERVER, MUTED.steamId, ALERT);
    const logs = await tempDir('ark-logs');
    const first = join(logs, 'ServerGame.1.2026.09.13_18.40.00.log');
    // Written before the sidecar starts: never read.
    await writeFile(first, chatLine(MUTED.name, 'Rex', 'old line from before the start'));
    const ark = await startArk([MUTED, NICE]);
    const { adapter, logs: lines } = await startRig({ port: ark.fake.port, logFile: join(logs, 'ServerGame.*.log') });
    await until(() => adapter.ready && ark.fake.commands.includes('ListPlayers'), 'login and a player list');

    await appendFile(first, chatLine(NICE.name, 'Dodo', 'hi all') + chatLine(MUTED.name, 'Rex', 'spam'));
    await until(() => ark.actions().length === 1, 'the alert for the line written after the start');
    expect(ark.actions()).toEqual([`ServerChatTo "${MUTED.steamId}" ${ALERT}`]);

    // The server restarts: a newer ServerGame file. Its lines are read from its first byte.
    await writeFile(join(logs, 'ServerGame.2.2026.09.13_19.00.00.log'), chatLine(MUTED.name, 'Rex', 'after the restart'));
    await until(() => ark.actions().length === 2, 'the alert from the new file');
    expect(ark.actions()[1]).toBe(`ServerChatTo "${MUTED.steamId}" ${ALERT}`);

    expect(ark.fake.commands).not.toContain('GetChat');
    expect(lines.join('')).not.toMatch(/hands each line to one reader only/);
    expect(lines.join('')).toMatch(/chat from the game log/);
    expect(lines.join('')).not.toContain(PASSWORD);
  });

  it('follows a log renamed away and begun anew at the same path', async () => {
    emulator().mute(SERVER, MUTED.eosId, ALERT);
    const logs = await tempDir('ark-logs');
    const path = join(logs, 'ServerGame.log');
    await writeFile(path, '');
    const ark = await startArk([MUTED, NICE], 'eos');
    const { adapter } = await startRig({ port: ark.fake.port, logFile: path });
    await until(() => adapter.ready && ark.fake.commands.includes('ListPlayers'), 'login and a player list');
    await rename(path, join(logs, 'ServerGame.old.log'));
    await writeFile(path, chatLine(MUTED.name, 'Rex', 'hello again'));
    await until(() => ark.actions().length === 1, 'the alert from the new file');
    expect(ark.actions()).toEqual([`ServerChatTo "${MUTED.eosId}" ${ALERT}`]);
  });

  it('never guesses between two listed players with one name', async () => {
    emulator().mute(SERVER, MUTED.steamId, ALERT);
    emulator().mute(SERVER, TWIN.steamId, ALERT);
    emulator().mute(SERVER, NICE.steamId, ALERT);
    const logs = await tempDir('ark-logs');
    const path = join(logs, 'ServerGame.log');
    await writeFile(path, '');
    const ark = await startArk([MUTED, TWIN, NICE]);
    const { adapter, logs: lines } = await startRig({ port: ark.fake.port, logFile: path });
    await until(() => adapter.ready && ark.fake.commands.includes('ListPlayers'), 'login and a player list');
    await appendFile(path, chatLine(MUTED.name, 'Rex', 'which of us?') + chatLine(NICE.name, 'Dodo', 'me, alone'));
    // Lines are judged in order: once the second line's alert is sent, the first was decided.
    await until(() => ark.actions().length >= 1, "the unique speaker's alert");
    expect(ark.actions()).toEqual([`ServerChatTo "${NICE.steamId}" ${ALERT}`]);
    // Counted as unattributed and warned about once, with the reason and the fix.
    expect(lines.join('')).toMatch(/1 chat-like line so far could not be tied to a player and was not gated \(ambiguous 1\)/);
    expect(lines.join('')).toMatch(/Several listed players fit that name/);
  });

  it('with gsaMod, mutes through the mod in game and lifts it when the mute is over', async () => {
    emulator().mute(SERVER, MUTED.eosId, ALERT);
    const logs = await tempDir('ark-logs');
    const path = join(logs, 'ServerGame.log');
    await writeFile(path, '');
    const ark = await startArk([MUTED, NICE], 'eos');
    const { adapter } = await startRig({ port: ark.fake.port, logFile: path, gsaMod: true, pollPlayersMs: 100 }, { mutedTtlMs: 200 });
    await until(() => ark.actions().some((command) => command.startsWith('scriptcommand gsamute')), 'the mod mute at join');
    expect(ark.actions()[0]).toBe(`scriptcommand gsamute ${MUTED.eosId} true ${ALERT}`);
    expect(adapter.ready).toBe(true);
    emulator().unmute(SERVER, MUTED.eosId);
    // The mod drops a muted player's chat, so no line triggers the refresh: the player polls do, once it is stale.
    await until(() => ark.actions().includes(`scriptcommand gsamute ${MUTED.eosId} false`), 'the mod unmute');
  });
});

describe('ark: chat from GetChat', () => {
  it('warns at start that GetChat takes chat away from GSA, naming logFile', async () => {
    const ark = await startArk([NICE]);
    const { adapter, logs } = await startRig({ port: ark.fake.port, pollChatMs: 250 });
    await until(() => adapter.ready && ark.fake.commands.includes('GetChat'), 'a GetChat poll');
    const warnings = logs.filter((line) => line.includes('"level":40') || line.includes('WARN'));
    expect(warnings.join('')).toMatch(/GetChat, which hands each line to one reader only/);
    expect(warnings.join('')).toMatch(/logFile/);
  });
});

describe('config: where chat is read', () => {
  it.each([
    [{ profile: 'conan', port: 25575 }, /servers\[0\]\.adapters\[0\]\.logFile.*required for profile conan/s],
    [{ profile: 'squad', port: 21114, logFile: '/x/y.log' }, /logFile: is not read by profile squad/s],
    [{ profile: 'rust', port: 28016, gsaMod: true }, /gsaMod.*ASA mod/s],
    [{ profile: 'ark' }, /adapters\[0\]\.port: required \(the game's console port\)/],
    [{ profile: 'ark', port: 27020, logFile: '/logs/*/ServerGame.log' }, /logFile.*last path segment/s],
    [{ profile: 'ark', port: 27020, muteCommand: 'mute {name} ; quit' }, /muteCommand must not contain/],
    [{ profile: 'ark', port: 27020, notifyCommand: 'pm {entity} "{message}"' }, /unknown placeholder/],
  ])('refuses %j with a message naming the key', async (adapter, message) => {
    const dataDir = await tempDir('game-log-config');
    expect(() =>
      parseConfig(
        {
          api: { clientId: 'id', clientSecret: 'secret' },
          servers: [{ name: SERVER, adapters: [{ type: 'rcon', password: PASSWORD, ...adapter }] }],
          reviews: { dataDir },
        },
        {},
      ),
    ).toThrow(message);
  });

  it('gives 7dtd its telnet port', async () => {
    const dataDir = await tempDir('game-log-config');
    const config = parseConfig(
      { api: { clientId: 'id', clientSecret: 'secret' }, servers: [{ name: SERVER, adapters: [{ type: 'rcon', profile: '7dtd', password: PASSWORD }] }], reviews: { dataDir } },
      {},
    );
    expect(config.servers[0]?.adapters[0]).toMatchObject({ profile: '7dtd', port: 8081 });
  });
});


describe("ark: a name holding `(X): ` can never lend a line to a listed namesake", () => {
  const ALICE = { steamId: '76561198000000011', eosId: '0002aaaaaaaaaaaaaaaaaaaaaaaaa011', name: 'Alice' };
  // Mallory's platform name makes her lines start like Alice's: `Alice (Rex): hi (Mal): …`.
  const MALLORY = { steamId: '76561198000000066', eosId: '0002aaaaaaaaaaaaaaaaaaaaaaaaa066', name: 'Alice (Rex): hi' };

  it('reads the list again when a longer split is not listed yet, then takes the longest listed one', async () => {
    emulator().mute(SERVER, ALICE.steamId, 'alice alert');
    emulator().mute(SERVER, MALLORY.steamId, 'mallory alert');
    const logs = await tempDir('ark-logs');
    const path = join(logs, 'ServerGame.log');
    await writeFile(path, '');
    let online = [ALICE, NICE];
    const respond = (command: string): FakeReply | undefined =>
      command === 'ListPlayers' ? `${online.map((player, index) => `${index}. ${player.name}, ${player.steamId}`).join('\n')}\n` : undefined;
    const fake = await FakeSourceRconServer.start({ quirks: 'ark', password: PASSWORD, respond, writeMode: 'split' });
    rig.onCleanup(() => fake.stop());
    const actions = () => fake.commands.filter((command) => command !== 'ListPlayers');
    const { adapter } = await startRig({ port: fake.port, logFile: path, pollPlayersMs: 60_000 });
    await until(() => adapter.ready && fake.commands.includes('ListPlayers'), 'login and a player list');

    // Mallory joined after the last list read and speaks at once. Her join line reads like Alice's chat
    // (`Alice (Rex): hi [UniqueNetId:…] joined this ARK!`): the fresh list shows her, so it is her join, nobody's chat.
    online = [ALICE, NICE, MALLORY];
    await appendFile(path, `[2026.09.13-18.48.40:782][696]2026.09.13_18.48.40: ${MALLORY.name} [UniqueNetId:${MALLORY.steamId} Platform:Steam] joined this ARK!\r\n`);
    await appendFile(path, chatLine(MALLORY.name, 'Mal', 'blame Alice'));
    await until(() => actions().length === 1, "the alert for Mallory's line");
    expect(actions()).toEqual([`ServerChatTo "${MALLORY.steamId}" mallory alert`]);

    // Alice's own line, whose text holds `(X): `, is still hers.
    await appendFile(path, chatLine(ALICE.name, 'Rex', 'a smiley (x): ok'));
    await until(() => actions().length === 2, "the alert for Alice's line");
    expect(actions()[1]).toBe(`ServerChatTo "${ALICE.steamId}" alice alert`);
  });
});
