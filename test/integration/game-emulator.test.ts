// The shipped fake game consoles (src/gameEmulator/) over real loopback: each game's quirks as the project's own
// clients or raw sockets see them, the log files they write, the scripted chat, and `gsa-bridge emulator --game`.
// Negatives are proven causally (a later request's answer comes first), never by waiting.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SourceRconClient, type UnsolicitedPacket } from '../../adapters/rcon/sourceRconClient.js';
import { SourceRconDecoder, SourceRconPacketType, encodeSourceRconPacket, type SourceRconPacket } from '../../adapters/rcon/sourceRconCodec.js';
import { TelnetClient } from '../../adapters/rcon/telnetClient.js';
import { choosePassword, muteHint } from '../../src/cli/gameConsoleCommand.js';
import { UsageError } from '../../src/cli/errors.js';
import { GAME_CONSOLES } from '../../src/gameEmulator/gameConsoles.js';
import { GsaEmulator } from '../../src/gsaEmulator/server.js';
import { ALICE, MALLORY, SCRIPT_LINES, startScriptedChat, type ChatStage, type ScriptedPlayer } from '../../src/gameEmulator/scriptedChat.js';
import { ARK_NO_RESPONSE, CONAN_TOO_MANY } from '../../src/gameEmulator/sourceConsoleGames.js';
import { SourceRconConsole, type SourceRconConsoleOptions } from '../../src/gameEmulator/sourceRconConsole.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { patientMs, QUIET_WAIT_MS } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const PASSWORD = 'fake-console-pw-7f3a';
const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startConsole(options: Omit<SourceRconConsoleOptions, 'password'>): Promise<SourceRconConsole> {
  const started = await SourceRconConsole.start({ password: PASSWORD, ...options });
  cleanups.push(() => started.close());
  return started;
}

async function client(target: SourceRconConsole, replyEnd: 'mirror' | 'quiet', onUnsolicited?: (packet: UnsolicitedPacket) => void): Promise<SourceRconClient> {
  const made = new SourceRconClient({
    host: '127.0.0.1',
    port: target.port,
    password: PASSWORD,
    replyEnd: replyEnd === 'mirror' ? { kind: 'mirror' } : { kind: 'quiet', quietMs: 75 },
    reconnect: false,
    commandTimeoutMs: patientMs(QUIET_WAIT_MS),
    authTimeoutMs: patientMs(QUIET_WAIT_MS),
    ...(onUnsolicited === undefined ? {} : { onUnsolicited }),
  });
  cleanups.push(() => made.close());
  made.start();
  await made.whenReady({ timeoutMs: patientMs(QUIET_WAIT_MS) });
  return made;
}

/** A raw connection that frames what it reads and hands packets out one by one, bounded by patience. */
class RawConnection {
  readonly socket: Socket;
  readonly #decoder = new SourceRconDecoder({ skipSquadMirrorJunk: false });
  readonly #packets: SourceRconPacket[] = [];
  #wake: (() => void) | undefined;
  closed = false;

  constructor(port: number) {
    this.socket = connect({ host: '127.0.0.1', port });
    this.socket.on('error', () => undefined);
    this.socket.on('data', (chunk: Buffer) => {
      this.#packets.push(...this.#decoder.push(chunk));
      this.#wake?.();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.#wake?.();
    });
    cleanups.push(async () => {
      this.socket.destroy();
      await Promise.resolve();
    });
  }

  send(id: number, type: number, body: string): void {
    this.socket.write(encodeSourceRconPacket(id, type, body));
  }

  async next(): Promise<SourceRconPacket> {
    const deadline = performance.now() + patientMs(QUIET_WAIT_MS);
    for (;;) {
      const packet = this.#packets.shift();
      if (packet !== undefined) return packet;
      if (this.closed) throw new Error('closed before a packet came');
      if (performance.now() > deadline) throw new Error('no packet within the patient bound');
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        setTimeout(resolve, 50);
      });
    }
  }

  async whenClosed(): Promise<void> {
    if (!this.closed) await once(this.socket, 'close');
  }
}

describe('ark', () => {
  it('answers a wrong password with nothing at all: the next login on the connection is answered first', async () => {
    const ark = await startConsole({ game: 'ark' });
    const raw = new RawConnection(ark.port);
    raw.send(1, SourceRconPacketType.AUTH, 'wrong');
    raw.send(2, SourceRconPacketType.AUTH, PASSWORD);
    expect(await raw.next()).toMatchObject({ id: 2, type: SourceRconPacketType.AUTH_RESPONSE });
    expect(ark.loginAttempts).toBe(2);
  });

  it('hangs on an empty command, never mirrors, and answers "no response" to a command without output', async () => {
    const ark = await startConsole({ game: 'ark' });
    const raw = new RawConnection(ark.port);
    raw.send(1, SourceRconPacketType.AUTH, PASSWORD);
    expect((await raw.next()).id).toBe(1);
    raw.send(2, SourceRconPacketType.EXECCOMMAND, '');
    raw.send(3, SourceRconPacketType.RESPONSE_VALUE, '');
    raw.send(4, SourceRconPacketType.EXECCOMMAND, `ServerChatTo "${ALICE.steamId}" hello`);
    const answer = await raw.next();
    expect(answer.id).toBe(4);
    expect(answer.body.toString('utf8')).toBe(ARK_NO_RESPONSE);
  });

  it('GetChat returns the chat since the last call and empties it; ListPlayers lists who is on', async () => {
    const ark = await startConsole({ game: 'ark' });
    const rcon = await client(ark, 'quiet');
    expect(await rcon.command('ListPlayers')).toMatch(/^\s*No Players Connected\s*$/);
    ark.join(ALICE);
    ark.join(MALLORY);
    expect(await rcon.command('ListPlayers')).toBe(`\n0. Alice, ${ALICE.steamId}\n1. Mallory, ${MALLORY.steamId}\n `);
    ark.say(ALICE, 'hi all!');
    ark.say(MALLORY, 'BUY GOLD CHEAP');
    expect(await rcon.command('GetChat')).toBe('Alice (Alice the Bold): hi all!\nMallory (Mal): BUY GOLD CHEAP\n ');
    expect(await rcon.command('GetChat')).toBe(ARK_NO_RESPONSE);
    for (const command of ['Broadcast hi', `KickPlayer ${MALLORY.steamId}`, `scriptcommand gsamute ${MALLORY.steamId} true be nice`]) {
      expect(await rcon.command(command)).toBe(ARK_NO_RESPONSE);
    }
  });

  it('writes the game log: a new numbered file per start from a ServerGame.*.log pattern, CRLF lines', async () => {
    const dir = await tempDir('ark-log');
    const pattern = join(dir, 'ShooterGame', 'Saved', 'Logs', 'ServerGame.*.log');
    const first = await startConsole({ game: 'ark', logFile: pattern });
    first.join(ALICE);
    first.say(ALICE, 'hi all!');
    await first.close();
    const second = await startConsole({ game: 'ark', logFile: pattern });
    second.say(ALICE, 'again');
    const files = readdirSync(join(dir, 'ShooterGame', 'Saved', 'Logs')).sort();
    expect(files).toHaveLength(2);
    expect(files[0]).toMatch(/^ServerGame\.1\.\d{4}\.\d{2}\.\d{2}_\d{2}\.\d{2}\.\d{2}\.log$/);
    expect(files[1]).toMatch(/^ServerGame\.2\./);
    const text = readFileSync(first.log?.path ?? '', 'utf8');
    const lines = text.split('\r\n');
    expect(lines[0]).toMatch(/^\[\d{4}\.\d{2}\.\d{2}-\d{2}\.\d{2}\.\d{2}:\d{3}\]\[\d{3}\]\d{4}\.\d{2}\.\d{2}_\d{2}\.\d{2}\.\d{2}: Alice \[UniqueNetId:[0-9a-f]{32} Platform:None\] joined this ARK!$/);
    expect(lines[1]).toMatch(/\]\d{4}\.\d{2}\.\d{2}_\d{2}\.\d{2}\.\d{2}: Alice \(Alice the Bold\): hi all!$/);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replaceAll('\r\n', '')).not.toContain('\n');
    expect(readFileSync(second.log?.path ?? '', 'utf8')).toMatch(/: Alice \(Alice the Bold\): again\r\n$/);
  });
});

describe('squad', () => {
  it.each(['whole', 'split', 'merged'] as const)('pushes chat as type-1 packets and answers the current ListPlayers, mirrored (%s writes)', async (writeMode) => {
    const squad = await startConsole({ game: 'squad', writeMode, players: [ALICE] });
    const pushed: UnsolicitedPacket[] = [];
    const rcon = await client(squad, 'mirror', (packet) => pushed.push(packet));
    squad.join(MALLORY);
    squad.leave(MALLORY);
    const list = await rcon.command('ListPlayers');
    expect(list.split('\n')).toEqual([
      '----- Active Players -----',
      `ID: 0 | Online IDs: EOS: ${ALICE.eosId} steam: ${ALICE.steamId} | Name: Alice | Team ID: 1 | Party ID: N/A | Squad ID: 1 | Is Leader: True | Role: USA_Rifleman_01 | Vehicle: N/A`,
      '----- Recently Disconnected Players [Max of 15] -----',
      expect.stringMatching(new RegExp(`^ID: 1 \\| Online IDs: EOS: ${MALLORY.eosId} steam: ${MALLORY.steamId} \\| Since Disconnect: \\d\\dm\\.\\d\\ds \\| Name: Mallory$`)) as unknown,
      '',
    ]);
    squad.say(ALICE, 'hi all!');
    // The push is written before the next answer: once that answer is in, the push was read.
    expect(await rcon.command(`AdminWarn "${ALICE.eosId}" be nice`)).toBe('Remote admin has warned player Alice. Message was "be nice"');
    expect(pushed.map((packet) => [packet.type, packet.text, packet.reason])).toEqual([
      [1, `[ChatAll] [Online IDs:EOS: ${ALICE.eosId} steam: ${ALICE.steamId}] Alice : hi all!`, 'pushed'],
    ]);
  });

  it('sends an empty packet before the login answer, id -1 to a wrong password, and mirrors with the 00 01 00 00 end packet', async () => {
    const squad = await startConsole({ game: 'squad' });
    const wrong = new RawConnection(squad.port);
    wrong.send(1, SourceRconPacketType.AUTH, 'wrong');
    expect(await wrong.next()).toMatchObject({ id: 1, type: SourceRconPacketType.RESPONSE_VALUE });
    expect(await wrong.next()).toMatchObject({ id: -1, type: SourceRconPacketType.AUTH_RESPONSE });
    const raw = new RawConnection(squad.port);
    raw.send(1, SourceRconPacketType.AUTH, PASSWORD);
    await raw.next();
    expect(await raw.next()).toMatchObject({ id: 1, type: SourceRconPacketType.AUTH_RESPONSE });
    raw.send(7, SourceRconPacketType.RESPONSE_VALUE, '');
    expect(await raw.next()).toMatchObject({ id: 7, body: Buffer.alloc(0) });
    expect(await raw.next()).toMatchObject({ id: 7, body: Buffer.from([0, 1, 0, 0]) });
  });
});

describe('conan', () => {
  it('closes the connection after every answer and never answers an empty mirror packet', async () => {
    const conan = await startConsole({ game: 'conan', players: [ALICE] });
    const raw = new RawConnection(conan.port);
    raw.send(1, SourceRconPacketType.AUTH, PASSWORD);
    expect(await raw.next()).toMatchObject({ id: 1, type: SourceRconPacketType.AUTH_RESPONSE });
    raw.send(2, SourceRconPacketType.RESPONSE_VALUE, '');
    raw.send(3, SourceRconPacketType.EXECCOMMAND, 'listplayers');
    const answer = await raw.next();
    expect(answer.id).toBe(3);
    expect(answer.body.toString('utf8').split('\n')).toEqual([
      'Idx | Char name | Player name | User ID | Platform ID | Platform Name',
      `0 | Alice the Bold | Alice | ${ALICE.steamId} | ${ALICE.steamId} | Steam`,
      '',
    ]);
    await raw.whenClosed();
    expect(raw.closed).toBe(true);
  });

  it('refuses commands past RconMaxKarma in its window', async () => {
    const conan = await startConsole({ game: 'conan', maxKarma: 2 });
    const answers: string[] = [];
    for (let i = 0; i < 3; i++) {
      const raw = new RawConnection(conan.port);
      raw.send(1, SourceRconPacketType.AUTH, PASSWORD);
      await raw.next();
      raw.send(2, SourceRconPacketType.EXECCOMMAND, 'broadcast hi');
      answers.push((await raw.next()).body.toString('utf8'));
      await raw.whenClosed();
    }
    expect(answers).toEqual(['Broadcasted message: hi', 'Broadcasted message: hi', CONAN_TOO_MANY]);
  });

  it('writes ConanSandbox.log with a BOM and CRLF, renaming the old one to a backup at each start', async () => {
    const dir = await tempDir('conan-log');
    const path = join(dir, 'ConanSandbox.log');
    const first = await startConsole({ game: 'conan', logFile: path });
    first.say(ALICE, 'hey');
    await first.close();
    const firstText = readFileSync(path);
    await startConsole({ game: 'conan', logFile: path });
    const files = readdirSync(dir).sort();
    expect(files).toHaveLength(2);
    const backup = files.find((name) => name !== 'ConanSandbox.log') ?? '';
    expect(backup).toMatch(/^ConanSandbox-backup-\d{4}\.\d{2}\.\d{2}-\d{2}\.\d{2}\.\d{2}\.log$/);
    expect(readFileSync(join(dir, backup))).toEqual(firstText);
    expect([...firstText.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(firstText.subarray(3).toString('utf8')).toMatch(
      new RegExp(`^\\[\\d{4}\\.\\d{2}\\.\\d{2}-\\d{2}\\.\\d{2}\\.\\d{2}:\\d{3}\\]\\[  1\\]ChatWindow: Character Alice the Bold \\(uid \\d+, player ${ALICE.steamId}\\) said: hey\\r\\n$`),
    );
    expect([...readFileSync(path)]).toEqual([0xef, 0xbb, 0xbf]);
  });
});

describe('minecraft', () => {
  it('answers list uuids with no mirror, and writes logs/latest.log, rolling the old one at a start', async () => {
    const dir = await tempDir('mc-log');
    const path = join(dir, 'logs', 'latest.log');
    const first = await startConsole({ game: 'minecraft', logFile: path });
    first.join(ALICE);
    first.join({ ...MALLORY, name: 'Alex_1' });
    first.say(ALICE, 'hi all');
    const rcon = await client(first, 'quiet');
    expect(await rcon.command('list uuids')).toBe(`There are 2 of a max of 20 players online: Alice (${ALICE.uuid}), Alex_1 (${MALLORY.uuid})`);
    expect(await rcon.command('tellraw Alice {"text":"hi"}')).toBe('');
    const text = readFileSync(path, 'utf8');
    expect(text).toMatch(/^\[\d{2}:\d{2}:\d{2}\] \[Server thread\/INFO\]: <Alice> hi all\n$/m);
    await first.close();
    await startConsole({ game: 'minecraft', logFile: path });
    const rolled = readdirSync(join(dir, 'logs')).filter((name) => name.endsWith('.log.gz'));
    expect(rolled).toHaveLength(1);
    expect(gunzipSync(readFileSync(join(dir, 'logs', rolled[0] ?? ''))).toString('utf8')).toBe(text);
    expect(readFileSync(path, 'utf8')).toBe('');
  });

  it('rolls latest.log while running on request (the midnight roll), and records tellraw', async () => {
    const dir = await tempDir('mc-roll');
    const path = join(dir, 'logs', 'latest.log');
    const game = await startConsole({ game: 'minecraft', logFile: path });
    game.join(ALICE);
    game.say(ALICE, 'before the roll');
    const before = readFileSync(path, 'utf8');
    expect(game.rollLog()).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe('');
    game.say(ALICE, 'after the roll');
    expect(readFileSync(path, 'utf8')).toMatch(/^\[\d{2}:\d{2}:\d{2}\] \[Server thread\/INFO\]: <Alice> after the roll\n$/);
    const rolled = readdirSync(join(dir, 'logs')).filter((name) => /^\d{4}-\d{2}-\d{2}-1\.log\.gz$/.test(name));
    expect(rolled).toHaveLength(1);
    expect(gunzipSync(readFileSync(join(dir, 'logs', rolled[0] ?? ''))).toString('utf8')).toBe(before);
    expect(before).toContain(`[User Authenticator #1/INFO]: UUID of player Alice is ${ALICE.uuid}\n`);

    const rcon = await client(game, 'quiet');
    const alert = JSON.stringify({ text: 'muted', color: 'red' });
    expect(await rcon.command(`tellraw Alice ${alert}`)).toBe('');
    expect(await rcon.command(`tellraw Nobody ${alert}`)).toBe('No player was found');
    expect(game.commands).toContain(`tellraw Alice ${alert}`);
    // A game whose log only rolls at a start says so.
    const ark = await startConsole({ game: 'ark' });
    expect(ark.rollLog()).toBe(false);
  });
});

describe('rust (from the --game table)', () => {
  it('serves WebRCON with the password in the path, and lists joined players', async () => {
    const rust = await GAME_CONSOLES.rust.start({ host: '127.0.0.1', port: 0, password: PASSWORD });
    cleanups.push(() => rust.close());
    rust.join(ALICE);
    const { WebSocket } = await import('ws');
    const socket = new WebSocket(`ws://127.0.0.1:${rust.port}/${PASSWORD}`);
    cleanups.push(async () => {
      socket.terminate();
      await Promise.resolve();
    });
    await once(socket, 'open');
    const messages: string[] = [];
    socket.on('message', (data: Buffer) => messages.push(data.toString('utf8')));
    socket.send(JSON.stringify({ Identifier: 5, Message: 'playerlist', Name: 'WebRcon' }));
    await vi.waitFor(() => {
      expect(messages).toHaveLength(1);
    }, { timeout: patientMs(QUIET_WAIT_MS) });
    const reply = JSON.parse(messages[0] ?? '{}') as { Identifier: number; Message: string };
    expect(reply.Identifier).toBe(5);
    expect(JSON.parse(reply.Message)).toMatchObject([{ SteamID: ALICE.steamId, DisplayName: 'Alice' }]);
  });
});

describe('scripted chat', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('joins once, then plays its lines every round, the muted player and a review among them', () => {
    vi.useFakeTimers();
    const seen: string[] = [];
    const stage: ChatStage = {
      join: (player: ScriptedPlayer) => seen.push(`join ${player.steamId}`),
      leave: (player: ScriptedPlayer) => seen.push(`leave ${player.steamId}`),
      say: (player: ScriptedPlayer, text: string) => seen.push(`${player.steamId}: ${text}`),
    };
    const chat = startScriptedChat(stage, { everyMs: 10_000, stepMs: 100 });
    vi.advanceTimersByTime(500);
    expect(seen).toEqual([
      `join ${ALICE.steamId}`,
      `join ${MALLORY.steamId}`,
      `${ALICE.steamId}: hi all!`,
      `${MALLORY.steamId}: BUY GOLD CHEAP`,
      `${ALICE.steamId}: !review 5 Great admins`,
    ]);
    vi.advanceTimersByTime(10_000);
    expect(seen).toHaveLength(5 + SCRIPT_LINES.length);
    chat.stop();
    vi.advanceTimersByTime(60_000);
    expect(seen).toHaveLength(5 + SCRIPT_LINES.length);
    // The demo's muted player (src/cli/demoCommand.ts).
    expect(MALLORY.steamId).toBe('76561198000000002');
  });
});

describe('gsa-bridge emulator --game', () => {
  it('7dtd: the telnet console from the table, the scripted players listed with their crossid and heard in its log stream', async () => {
    const game = await GAME_CONSOLES['7dtd'].start({ host: '127.0.0.1', port: 0, password: 'pw-7dtd' });
    const lines: string[] = [];
    const client = new TelnetClient({ host: '127.0.0.1', port: game.port, password: 'pw-7dtd', label: '7dtd-test', reconnect: false, onLine: (line) => lines.push(line) });
    try {
      client.start();
      await client.whenReady({ timeoutMs: patientMs(5_000), failFast: true });
      game.join(ALICE);
      const listed = await client.command('lp', { endsAt: /^Total of \d+ in the game/ });
      expect(listed).toContain(`pltfmid=Steam_${ALICE.steamId}, crossid=EOS_${ALICE.eosId}`);
      game.say(ALICE, 'hello from the script');
      const deadline = performance.now() + patientMs(5_000);
      while (!lines.some((line) => line.includes("'Alice': hello from the script")) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(lines.find((line) => line.includes('hello from the script'))).toMatch(new RegExp(`Chat \\(from 'Steam_${ALICE.steamId}', entity id '171', to 'Global'\\): 'Alice': hello from the script$`));
    } finally {
      await client.close();
      await game.close();
    }
  });

  it('--log-file on a game without a chat log is a usage error; help names the ports and the password variable', async () => {
    const squadLog = await runCliInProcess(['emulator', '--game', 'squad', '--log-file', 'x.log'], {});
    expect(squadLog.code).toBe(2);
    expect((await runCliInProcess(['emulator', '--log-file', 'x.log'], {})).stderr).toContain('--log-file needs --game NAME');
    const help = await runCliInProcess(['emulator', '--help'], {});
    expect(help.stdout).toContain('squad 21114');
    expect(help.stdout).toContain('GSA_BRIDGE_RCON_PASSWORD');
  });

  it("the mute hint is one gsa-bridge emulator takes: Mallory's Steam id on the mod API, her Mojang id through the System API for Minecraft", async () => {
    const gsa = await GsaEmulator.start();
    cleanups.push(() => gsa.close());
    const post = async (path: string, body: string): Promise<unknown> => {
      const answer = await fetch(`${gsa.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(answer.status).toBe(200);
      return answer.json();
    };
    // The body a hint shows after `POST <path> `, as a host would paste it.
    const bodyAfter = (hint: string, path: string): string => /^\{.*?\}(?=[ .;]|$)/.exec(hint.slice(hint.indexOf(`POST ${path} `) + `POST ${path} `.length))?.[0] ?? '';

    const steam = muteHint('7dtd').join('\n');
    await post('/_emulator/mute', bodyAfter(steam, '/_emulator/mute').replace('<name>', 'ovddykvbs'));
    expect(gsa.snapshot().mutes).toEqual([expect.objectContaining({ server: 'ovddykvbs', player: MALLORY.steamId })]);
    expect(steam).toContain(`"lookupIds": "eos-first"`);
    expect(steam).toContain(MALLORY.eosId);
    expect(muteHint('ark').join('\n')).not.toContain('lookupIds');

    const minecraft = muteHint('minecraft').join('\n');
    // The mod API's mute never reaches a Mojang id: the hint must not send a host there.
    expect(minecraft).not.toMatch(/POST \/_emulator\/mute\b/);
    const { uuid } = (await post('/_emulator/player', bodyAfter(minecraft, '/_emulator/player'))) as { uuid: string };
    await post('/_emulator/system-mute', bodyAfter(minecraft, '/_emulator/system-mute').replace('<that uuid>', uuid));
    const { system } = gsa.snapshot();
    expect(system.mutes).toEqual([expect.objectContaining({ uuid })]);
    expect(system.players.find((player) => player.uuid === uuid)?.ids).toContainEqual(expect.objectContaining({ type: 'mojang', id: MALLORY.uuid }));
    expect(minecraft).toContain('api.system.key');
  });

  it('takes the password from --config (the first rcon adapter of the profile), else the environment, else makes one', async () => {
    const dir = await tempDir('game-config');
    writeFileSync(
      join(dir, 'config.json'),
      JSON.stringify({ servers: [{ name: 's', adapters: [{ type: 'websocket', token: 't' }, { type: 'rcon', profile: 'conan', port: 25575, password: 'from-file' }] }] }),
    );
    const context = { stdout: { write: () => true }, stderr: { write: () => true }, env: { GSA_BRIDGE_RCON_PASSWORD: 'from-env' }, cwd: dir };
    expect(await choosePassword({ game: 'conan', configPath: 'config.json' }, context)).toEqual({
      password: 'from-file',
      source: 'from your config (servers[0].adapters[1].password)',
    });
    await expect(choosePassword({ game: 'ark', configPath: 'config.json' }, context)).rejects.toThrow(UsageError);
    expect(await choosePassword({ game: 'ark', configPath: undefined }, context)).toEqual({ password: 'from-env', source: 'from GSA_BRIDGE_RCON_PASSWORD' });
    const made = await choosePassword({ game: 'ark', configPath: undefined }, { ...context, env: {} });
    expect(made.password).toMatch(/^[\w-]{12}$/);
    expect(made.source).toContain(made.password);
  });

  it('squad --port 0: starts, prints the port and the adapter (never the given password), answers, and stops on SIGINT', async () => {
    const cwd = await tempDir('game-cli');
    const child = spawn(process.execPath, [BIN, 'emulator', '--game', 'squad', '--port', '0', '--chat-every', '0'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), GSA_BRIDGE_RCON_PASSWORD: PASSWORD },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = once(child, 'exit');
    await vi.waitFor(() => {
      expect(stdout).toContain('Ctrl-C stops it.');
    }, { timeout: patientMs(QUIET_WAIT_MS * 2), interval: 50 });
    const port = Number(/listening on 127\.0\.0\.1:(\d+)/.exec(stdout)?.[1]);
    expect(port).toBeGreaterThan(0);
    expect(stdout).toContain(`{"type":"rcon","profile":"squad","host":"127.0.0.1","port":${port},"password":"<the password above>"}`);
    expect(stdout).toContain('password: from GSA_BRIDGE_RCON_PASSWORD');
    expect(stdout).not.toContain(PASSWORD);
    const rcon = new SourceRconClient({ host: '127.0.0.1', port, password: PASSWORD, replyEnd: { kind: 'mirror' }, reconnect: false, commandTimeoutMs: patientMs(QUIET_WAIT_MS) });
    rcon.start();
    await rcon.whenReady({ timeoutMs: patientMs(QUIET_WAIT_MS) });
    expect(await rcon.command('ListPlayers')).toContain('----- Active Players -----');
    await rcon.close();
    child.kill('SIGINT');
    const [code] = (await exited) as [number];
    expect(code).toBe(0);
    expect(stdout).toContain('stopped.');
  });

  it('minecraft --log-file: prints the adapter with its latest.log, rolls the log on SIGHUP as the server does at midnight, stops on SIGINT', async () => {
    const cwd = await tempDir('game-cli-mc');
    const child = spawn(process.execPath, [BIN, 'emulator', '--game', 'minecraft', '--port', '0', '--chat-every', '0', '--log-file', 'logs/latest.log'], {
      cwd,
      env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), GSA_BRIDGE_RCON_PASSWORD: PASSWORD },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exited = once(child, 'exit');
    await vi.waitFor(() => {
      expect(stdout).toContain('Ctrl-C stops it.');
    }, { timeout: patientMs(QUIET_WAIT_MS * 2), interval: 50 });
    expect(stdout).toContain(`"logFile":"${join(cwd, 'logs', 'latest.log')}"`);
    expect(stdout).toContain('rolls the log');
    writeFileSync(join(cwd, 'logs', 'latest.log'), '[12:00:00] [Server thread/INFO]: <Alice> before the roll\n');
    child.kill('SIGHUP');
    await vi.waitFor(() => {
      expect(stdout).toContain('[log] rolled');
    }, { timeout: patientMs(QUIET_WAIT_MS), interval: 50 });
    const rolled = readdirSync(join(cwd, 'logs')).filter((name) => name.endsWith('.log.gz'));
    expect(rolled).toHaveLength(1);
    expect(gunzipSync(readFileSync(join(cwd, 'logs', rolled[0] ?? ''))).toString('utf8')).toContain('<Alice> before the roll');
    expect(readFileSync(join(cwd, 'logs', 'latest.log'), 'utf8')).toBe('');
    child.kill('SIGINT');
    const [code] = (await exited) as [number];
    expect(code).toBe(0);
  });
});
