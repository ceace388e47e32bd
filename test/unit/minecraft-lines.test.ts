// Minecraft's text as the minecraft profile reads and writes it: real latest.log lines and `list uuids` answers
// (test/fixtures/real/minecraft-*.txt, read as a person reads them), a player's words that imitate the game's own
// lines (a join, another player's chat, a UUID line), and `tellraw` built from hostile names and alerts: the command
// must stay one command whose JSON parses back to the cleaned alert, and a name outside Minecraft's rule builds none.
// A `list uuids` answer that was not read (says 0 over rows, counts players but lists none) never empties the roster.
// Pure functions only: no I/O, no timers.
import { describe, expect, it } from 'vitest';
import { MINECRAFT_NAME_PATTERN, cleanCommandText, MINECRAFT_TEXT_RULES, minecraftTellraw } from '../../adapters/rcon/commandText.js';
import { compileCommandTemplate } from '../../adapters/rcon/commandTemplate.js';
import { UnaddressableNameError } from '../../adapters/rcon/errors.js';
import { minecraftProfile } from '../../adapters/rcon/profiles/minecraft.js';
import type { RconLineReader } from '../../adapters/rcon/profiles/profile.js';
import { minecraftMessageOf, parseMinecraftLogLine, parseMinecraftPlayerList, type MinecraftLogParse } from '../../adapters/rcon/profiles/minecraftLines.js';
import { PlayerRoster } from '../../adapters/rcon/playerRoster.js';
import { silentLogger } from '../../src/log/logger.js';
import { createHostileTextGenerator, HOSTILE_PIECES } from '../fixtures/hostileText.js';
import { readCaptures, readExpected, type CaptureEntry } from '../fixtures/realCaptures.js';

function paired(entries: readonly CaptureEntry[], expected: ReadonlyMap<string, unknown>): void {
  expect(entries.map((entry) => entry.key).sort()).toEqual([...expected.keys()].sort());
}

function want<T>(expected: ReadonlyMap<string, T>, key: string): T {
  const reading = expected.get(key);
  if (reading === undefined) throw new Error(`no reading for ${key}`);
  return reading;
}

/** A reading of minecraft-log.expected.json; `listed`: who the player list shows when the line is read. */
type LogReading = (MinecraftLogParse | { kind: 'plugin'; name: string; text: string; note: string }) & { listed?: string[] };

/** The names listed while a capture is read: as the reading says, else the one name it mentions. */
function listedFor(reading: LogReading): string[] {
  return reading.listed ?? ('name' in reading ? [reading.name] : []);
}

function withoutListed(reading: LogReading): Omit<LogReading, 'listed'> {
  return Object.fromEntries(Object.entries(reading).filter(([field]) => field !== 'listed')) as Omit<LogReading, 'listed'>;
}

describe('real latest.log lines (minecraft-log.txt)', () => {
  const entries = readCaptures('minecraft-log.txt');
  const expected = readExpected<LogReading>('minecraft-log.expected.json');

  it('has a reading for every capture', () => {
    paired(entries, expected);
  });

  it.each(entries)('$key reads as a person reads it, as written and with CRLF', ({ key, text }) => {
    const reading = want(expected, key);
    const listed = listedFor(reading);
    for (const written of [text, `${text}\r\n`]) {
      if (reading.kind === 'plugin') {
        // A chat plugin's format is the host's chatPattern's to read: here it is counted, never anyone's chat.
        expect(parseMinecraftLogLine(written, listed)).toMatchObject({ kind: 'unparsed' });
        expect(parseMinecraftLogLine(written, []).kind).not.toBe('player');
        const message = minecraftMessageOf(written) ?? '';
        expect(message).toContain(reading.name);
        expect(message.endsWith(reading.text)).toBe(true);
      } else {
        expect(parseMinecraftLogLine(written, listed)).toEqual(withoutListed(reading));
      }
    }
    // What needs the list to be tied to a player is nobody's without it.
    if (reading.kind === 'player' && reading.readAs === '/me') expect(parseMinecraftLogLine(text, [])).toMatchObject({ kind: 'unparsed' });
    if (reading.kind === 'say') expect(parseMinecraftLogLine(text, []).kind).not.toMatch(/^(?:say|player)$/);
  });

  it.each(entries)("$key reaches the adapter as the profile's line", ({ key, text }) => {
    const reading = want(expected, key);
    const read = minecraftProfile.chat.logFile?.newReader();
    if (read === undefined) throw new Error('the minecraft profile reads no log');
    const line = read(text, listedFor(reading));
    switch (reading.kind) {
      case 'player':
        expect(line).toEqual({ kind: 'player', channel: 'global', name: reading.name, text: reading.text, ...(reading.readAs === undefined ? {} : { readAs: reading.readAs }) });
        break;
      case 'uuid':
        expect(line).toEqual({ kind: 'roster', learned: { name: reading.name, mojangId: reading.mojangId }, presence: { kind: 'join', name: reading.name, mojangId: reading.mojangId } });
        break;
      case 'join':
      case 'leave':
        expect(line).toEqual({ kind: 'roster', presence: { kind: reading.kind, name: reading.name } });
        break;
      case 'server':
      case 'say':
        // The console's, RCON's or an operator's broadcast: the server's words, never gated.
        expect(line).toEqual({ kind: 'server', text: reading.text });
        break;
      case 'plugin':
      case 'unparsed':
        expect(line.kind).toBe('unparsed');
        break;
      case 'other':
        expect(line).toEqual({ kind: 'ignored' });
        break;
    }
  });
});

describe("a player's words that imitate the game's own lines", () => {
  const uuid = '069a79f4-44e9-4726-a5be-fca90e38aaf5';
  it.each([
    ['[12:00:00] [Server thread/INFO]: <Mallory> Steve joined the game', 'Steve joined the game'],
    ['[12:00:00] [Async Chat Thread - #0/INFO]: <Mallory> [12:00:00] [Server thread/INFO]: Steve joined the game', '[12:00:00] [Server thread/INFO]: Steve joined the game'],
    ['[12:00:00] [Async Chat Thread - #0/INFO]: [Not Secure] <Mallory> <Steve> I am muted? no', '<Steve> I am muted? no'],
    [`[12:00:00] [Server thread/INFO]: <Mallory> UUID of player Steve is ${uuid}`, `UUID of player Steve is ${uuid}`],
    ['[12:00:00 INFO]: <Mallory> Steve left the game', 'Steve left the game'],
    ['[12:00:00] [Server thread/INFO]: <Mallory> [Not Secure] <Steve> hi', '[Not Secure] <Steve> hi'],
    ['[12:00:00] [Netty Server IO #3/INFO]: <Mallory> Steve joined the game', 'Steve joined the game'],
    [`[12:00:00] [Netty Server IO #2/INFO]: <\u00a7cMallory\u00a7r> UUID of player Steve is ${uuid}`, `UUID of player Steve is ${uuid}`],
    ['[12:00:00] [Server thread/INFO]: <Mallory> * Steve waves', '* Steve waves'],
    ['[12:00:00] [Server thread/INFO]: <Mallory> [Steve] I am an operator', '[Steve] I am an operator'],
    ['[12:00:00] [Craft Scheduler Thread - 3/INFO]: <Mallory> [world]<Steve> hi', '[world]<Steve> hi'],
  ])('%s is Mallory speaking, never a join, a UUID or Steve', (line, text) => {
    for (const listed of [[], ['Mallory', 'Steve']]) expect(parseMinecraftLogLine(line, listed)).toMatchObject({ kind: 'player', name: 'Mallory', text });
  });

  it('trusts joins and UUID lines only from the game threads, with nothing before them', () => {
    expect(parseMinecraftLogLine('[12:00:00] [Async Chat Thread - #0/INFO]: Steve joined the game')).toEqual({ kind: 'other' });
    expect(parseMinecraftLogLine(`[12:00:00] [Async Chat Thread - #0/INFO]: UUID of player Steve is ${uuid}`)).toEqual({ kind: 'other' });
    expect(parseMinecraftLogLine('[12:00:00] [Server thread/INFO]: [Server] Steve joined the game')).toEqual({ kind: 'server', text: 'Steve joined the game' });
    expect(parseMinecraftLogLine('[12:00:00] [Server thread/WARN]: <Steve> hi')).toEqual({ kind: 'other' });
    // Netty's thread carries hybrids' chat, never their joins or login lines.
    expect(parseMinecraftLogLine('[12:00:00] [Netty Server IO #3/INFO]: Steve joined the game')).toEqual({ kind: 'other' });
    expect(parseMinecraftLogLine(`[12:00:00] [Netty Server IO #3/INFO]: UUID of player Steve is ${uuid}`)).toEqual({ kind: 'other' });
    expect(parseMinecraftLogLine('[12:00:00] [Server thread/INFO]: [Not Secure] Steve joined the game')).toMatchObject({ kind: 'unparsed' });
    expect(parseMinecraftLogLine(`[12:00:00] [User Authenticator #2/INFO]: UUID of player Steve is not-a-uuid-at-all-000000000000000`)).toMatchObject({ kind: 'unparsed' });
    expect(parseMinecraftLogLine('\tat net.minecraft.server.MinecraftServer.run(MinecraftServer.java:1)')).toEqual({ kind: 'other' });
  });

  it('reads a Forge line with its logger field, and an ANSI-coloured console line', () => {
    expect(parseMinecraftLogLine('[18:29:30] [Server thread/INFO] [minecraft/DedicatedServer]: <Steve> tests')).toMatchObject({ kind: 'player', name: 'Steve', text: 'tests' });
    expect(parseMinecraftLogLine('\u001b[0;37m[12:00:00 INFO]: <Alex> hi there\u001b[m')).toMatchObject({ kind: 'player', name: 'Alex', text: 'hi there' });
  });
});

describe('chat as live servers write it', () => {
  const line = (thread: string, message: string): string => `[12:00:00] [${thread}/INFO]: ${message}`;

  it('reads "<name> text" from any thread, with [Not Secure], a Bukkit world tag, a Forge logger and the console layout', () => {
    for (const thread of ['Server thread', 'Async Chat Thread - #4', 'Netty Server IO #3', 'Craft Scheduler Thread - 3']) {
      expect(parseMinecraftLogLine(line(thread, '<Alex> hi'))).toEqual({ kind: 'player', channel: 'global', name: 'Alex', text: 'hi', unsigned: false });
      expect(parseMinecraftLogLine(line(thread, '[Not Secure] [world_the_end]<Alex> hi'))).toEqual({ kind: 'player', channel: 'global', name: 'Alex', text: 'hi', unsigned: true });
    }
    expect(parseMinecraftLogLine('[09:00:04 INFO]: <Alex> hello')).toMatchObject({ kind: 'player', name: 'Alex', text: 'hello' });
    expect(parseMinecraftLogLine('[13:36:33 INFO] [Minecraft]: [Not Secure] <Alex> hi')).toMatchObject({ kind: 'player', name: 'Alex', unsigned: true });
    expect(parseMinecraftLogLine('[15Mar2021 14:09:46.581] [Server thread/INFO] [net.minecraft.server.dedicated.DedicatedServer]: <Alex> hi')).toMatchObject({ kind: 'player', name: 'Alex' });
    // Only INFO: a warning that quotes a chat line is not chat.
    expect(parseMinecraftLogLine('[12:00:00] [Netty Server IO #3/WARN]: <Alex> hi')).toEqual({ kind: 'other' });
    // A world tag is one word right before "<": "[Server] <Alex> hi" is /say quoting chat.
    expect(parseMinecraftLogLine(line('Server thread', '[Server] <Alex> hi'))).toEqual({ kind: 'server', text: '<Alex> hi' });
  });

  it('removes colour codes from names and text: the classic, the hex form, either case; a bare or unknown § stays', () => {
    expect(parseMinecraftLogLine(line('Server thread', '<\u00a7eAlex\u00a7r> \u00a7lhi'))).toMatchObject({ name: 'Alex', text: 'hi' });
    expect(parseMinecraftLogLine(line('Netty Server IO #2', '<\u00a7x\u00a7F\u00a7f\u00a70\u00a70\u00a7A\u00a7aAlex\u00a7R> hi'))).toMatchObject({ name: 'Alex', text: 'hi' });
    expect(parseMinecraftLogLine(line('Server thread', '<Alex> costs 5\u00a7'))).toMatchObject({ name: 'Alex', text: 'costs 5\u00a7' });
    expect(parseMinecraftLogLine(line('Server thread', '<Alex> \u00a7z\u00a7 x'))).toMatchObject({ text: '\u00a7z\u00a7 x' });
    expect(minecraftMessageOf(line('Server thread', '\u00a77[\u00a7cAdmin\u00a77] \u00a7fAlex\u00a77: \u00a7fhi'))).toBe('[Admin] Alex: hi');
  });

  it("reads /me as the listed player's chat, and nobody's when the name is not listed", () => {
    const listed = ['Mallory', '.Bedrock Kid', 'Al'];
    expect(parseMinecraftLogLine(line('Server thread', '* Mallory BUY GOLD'), listed)).toEqual({ kind: 'player', channel: 'global', name: 'Mallory', text: 'BUY GOLD', unsigned: false, readAs: '/me' });
    expect(parseMinecraftLogLine(line('Netty Server IO #1', '[Not Secure] * \u00a7cMallory\u00a7r spam'), listed)).toMatchObject({ name: 'Mallory', text: 'spam', unsigned: true, readAs: '/me' });
    expect(parseMinecraftLogLine(line('Server thread', '* .Bedrock Kid waves'), listed)).toMatchObject({ name: '.Bedrock Kid', text: 'waves' });
    expect(parseMinecraftLogLine('[12:00:00 INFO]: * Mallory', listed)).toMatchObject({ name: 'Mallory', text: '' });
    // A longer or other word is never the listed player it starts like.
    for (const message of ['* Mallory2 spam', '* Mallory_ spam', '* Alex spam', '* Eve joined the game', '* ']) {
      expect(parseMinecraftLogLine(line('Server thread', message), listed), message).toMatchObject({ kind: 'unparsed' });
    }
    // "/me joined the game" is the speaker's words, never a join.
    expect(parseMinecraftLogLine(line('Server thread', '* Al joined the game'), listed)).toMatchObject({ kind: 'player', name: 'Al', text: 'joined the game' });
  });

  it("reads /say as the server's words or an operator's broadcast, never a player's chat", () => {
    expect(parseMinecraftLogLine(line('Server thread', '[Server] restarting'))).toEqual({ kind: 'server', text: 'restarting' });
    expect(parseMinecraftLogLine('[11:57:35 INFO]: [Not Secure] [Rcon] hi')).toEqual({ kind: 'server', text: 'hi' });
    expect(parseMinecraftLogLine(line('Server thread', '[Steve] listen up'), ['Steve'])).toEqual({ kind: 'say', name: 'Steve', text: 'listen up' });
    // Not a listed player, or not the thread /say runs on: not a broadcast.
    expect(parseMinecraftLogLine(line('Server thread', '[Steve] listen up'), [])).toEqual({ kind: 'other' });
    expect(parseMinecraftLogLine(line('Async Chat Thread - #0', '[Server] hi'))).toEqual({ kind: 'other' });
    // EssentialsX's "[{DISPLAYNAME}] ➤ {MESSAGE}" is a plugin's chat line, not /say.
    for (const thread of ['Async Chat Thread - #0', 'Server thread']) expect(parseMinecraftLogLine(line(thread, '[Steve] \u27a4 hi'), ['Steve'])).toMatchObject({ kind: 'unparsed' });
  });

  it("counts a chat plugin's line naming a listed player as unparsed, and leaves the game's own lines alone", () => {
    const listed = ['Steve', 'Steve_2'];
    for (const message of ['<[Member] Steve> hi', '<\u00a77[VIP]\u00a7fSteve> hi', '<Steve (AFK)> hi', '<Mr Steve> hi', '[Member] Steve: hi', 'Steve: hi', '[G] [VIP] Steve_2 \u00bb hi', '\u00a77~Steve\u00a78\u00bb\u00a77 hi', '[\u751f\u5b58\u533a] Steve >> 1', '[Steve] \u27a4 hi', 'Steve > hi', '[Not Secure] [Member] Steve: hi']) {
      expect(parseMinecraftLogLine(line('Async Chat Thread - #0', message), listed), message).toMatchObject({ kind: 'unparsed', reason: expect.stringContaining('chatPattern') as unknown });
      expect(parseMinecraftLogLine(line('Async Chat Thread - #0', message), []).kind, message).not.toBe('player');
    }
    for (const message of [
      '[Steve: Saved the game]',
      '[Rcon: Kicked Steve: spamming]',
      'Kicked Steve: spamming',
      'Steve issued server command: /tps',
      'Steve lost connection: Disconnected',
      'Steve[/127.0.0.1:5165] logged in with entity id 2179 at ([world]-240.5, 66.0, 166.5)',
      'Steve has made the advancement [Stone Age]',
      'Disconnecting Steve (/127.0.0.1:5165): You logged in from another location',
      `${'x'.repeat(70)} ] Steve: hi`,
      '[Member] Steven: hi',
    ]) {
      expect(parseMinecraftLogLine(line('Server thread', message), listed), message).toEqual({ kind: 'other' });
    }
  });
});

describe("the profile's reader", () => {
  const newReader = (): RconLineReader => {
    const source = minecraftProfile.chat.logFile;
    if (source === undefined) throw new Error('the minecraft profile reads no log');
    return source.newReader();
  };

  it('ties a /me to a player this log saw log in, until it sees them leave', () => {
    const read = newReader();
    const emote = '[12:00:02] [Server thread/INFO]: * Eve waves';
    expect(read(emote, [])).toMatchObject({ kind: 'unparsed' });
    expect(read('[12:00:01] [Server thread/INFO]: Eve joined the game', [])).toEqual({ kind: 'roster', presence: { kind: 'join', name: 'Eve' } });
    expect(read(emote, [])).toEqual({ kind: 'player', channel: 'global', name: 'Eve', text: 'waves', readAs: '/me' });
    read('[12:00:03] [Server thread/INFO]: Eve left the game', []);
    expect(read(emote, [])).toMatchObject({ kind: 'unparsed' });
    // A typed join teaches nothing.
    read('[12:00:04] [Server thread/INFO]: <Mallory> Eve joined the game', []);
    expect(read(emote, [])).toMatchObject({ kind: 'unparsed' });
    read('[12:00:05] [User Authenticator #1/INFO]: UUID of player Eve is 069a79f4-44e9-4726-a5be-fca90e38aaf5', []);
    expect(read(emote, [])).toMatchObject({ kind: 'player', name: 'Eve' });
    // Another reader (another file, another check) starts with nobody.
    expect(newReader()(emote, [])).toMatchObject({ kind: 'unparsed' });
  });

  it('reads each line with the list as it is now, also when it changes between two lines', () => {
    const read = newReader();
    const emote = '[12:00:02] [Server thread/INFO]: * Zed waves';
    expect(read(emote, [])).toMatchObject({ kind: 'unparsed' });
    expect(read(emote, ['Zed'])).toMatchObject({ kind: 'player', name: 'Zed' });
    expect(read(emote, ['Amy'])).toMatchObject({ kind: 'unparsed' });
    const list = ['Amy', 'Zed'];
    expect(read(emote, list)).toMatchObject({ kind: 'player', name: 'Zed' });
    list.pop();
    expect(read(emote, list)).toMatchObject({ kind: 'unparsed' });
    expect(read('[12:00:03] [Server thread/INFO]: [Member] Amy: hi', ['Amy'])).toMatchObject({ kind: 'unparsed' });
  });

  it('remembers at most 1000 names, forgetting the oldest', () => {
    const read = newReader();
    for (let n = 0; n <= 1_000; n++) read(`[12:00:00] [Server thread/INFO]: P${String(n)} joined the game`, []);
    expect(read('[12:00:01] [Server thread/INFO]: * P0 hi', [])).toMatchObject({ kind: 'unparsed' });
    expect(read('[12:00:01] [Server thread/INFO]: * P1 hi', [])).toMatchObject({ kind: 'player', name: 'P1' });
  });
});

describe('real list uuids answers (minecraft-list.txt)', () => {
  const entries = readCaptures('minecraft-list.txt');
  const expected = readExpected<unknown>('minecraft-list.expected.json');

  it('has a reading for every capture', () => {
    paired(entries, expected);
  });

  it.each(entries)('$key lists who is online', ({ key, text }) => {
    const parsed = parseMinecraftPlayerList(text);
    expect({ status: parsed.status, players: parsed.players, unparsed: parsed.unparsed.map((odd) => odd.line) }).toEqual(want(expected, key));
  });
});

describe('list uuids: 0, 1, many and what cannot be read', () => {
  const steve = '069a79f4-44e9-4726-a5be-fca90e38aaf5';
  const alex = '853c80ef-3c37-49fd-aa49-938b674adae6';

  it('reads nobody (with and without the trailing space), one, many, a Floodgate name, and upper-case or undashed ids', () => {
    expect(parseMinecraftPlayerList('There are 0 of a max of 20 players online:').status).toBe('none');
    expect(parseMinecraftPlayerList('There are 0/20 players online:\n').status).toBe('none');
    expect(parseMinecraftPlayerList(`There are 1 of a max of 20 players online: .Bedrock_Kid (${steve})`).players).toEqual([{ name: '.Bedrock_Kid', mojangId: steve }]);
    const many = parseMinecraftPlayerList(`There are 3 of a max of 50 players online: Steve (${steve.toUpperCase()}), Alex_1 (${alex.replaceAll('-', '')}), x (${steve})`);
    expect(many.status).toBe('players');
    expect(many.players.map((player) => player.mojangId)).toEqual([steve, alex, steve]);
  });

  it('removes colour codes from listed names', () => {
    expect(parseMinecraftPlayerList(`There are 1 of a max of 20 players online: \u00a7eSteve\u00a7r (${steve})`).players).toEqual([{ name: 'Steve', mojangId: steve }]);
  });

  it('is unrecognised, never "nobody online", for an error, a truncated answer or names without ids', () => {
    for (const answer of ['', 'Unknown or incomplete command, see below for error', 'There are 2 of a max of 20 players online: Steve (069a79f4', 'There are 2/20 players online:\nSteve, Alex']) {
      expect(parseMinecraftPlayerList(answer).status).toBe('unrecognised');
    }
    // Rows that can be read are kept; the count mismatch is noted.
    const partial = parseMinecraftPlayerList(`There are 2 of a max of 20 players online: Steve (${steve}), Alex`);
    expect(partial.status).toBe('players');
    expect(partial.unparsed.length).toBe(2);
  });

  it('is unrecognised, never "nobody online", when it says 0 but rows follow that cannot be read', () => {
    for (const answer of ['There are 0 of a max of 20 players online: Steve, Alex', 'There are 0/20 players online:\nSteve', `There are 0 of a max of 20 players online: Steve (${steve.slice(0, 8)}`]) {
      const parsed = parseMinecraftPlayerList(answer);
      expect(parsed.status, answer).toBe('unrecognised');
      expect(parsed.unparsed.length, answer).toBeGreaterThan(0);
    }
  });

  it('is unrecognised, never "nobody online", when it counts players but lists no row', () => {
    for (const answer of ['There are 2 of a max of 20 players online:', 'There are 1/20 players online:\n']) {
      expect(parseMinecraftPlayerList(answer).status, answer).toBe('unrecognised');
    }
  });

  it('a roster reading such answers keeps the players it knew: nobody leaves on a list that was not read', async () => {
    const answers = [`There are 1 of a max of 20 players online: Steve (${steve})`, 'There are 0 of a max of 20 players online: Steve', 'There are 1 of a max of 20 players online:'];
    const left: string[] = [];
    const roster = new PlayerRoster({
      readList: () => Promise.resolve(parseMinecraftPlayerList(answers.shift() ?? '')),
      logger: silentLogger(),
      onJoined: () => undefined,
      onLeft: (player) => left.push(player.name),
    });
    for (let read = 0; read < 3; read++) await roster.refresh();
    expect(answers).toEqual([]);
    expect(roster.players).toEqual([{ name: 'Steve', mojangId: steve }]);
    expect(left).toEqual([]);
  });
});

describe('tellraw against hostile names and alerts', () => {
  it('is one command whose JSON holds the cleaned alert, in red, for every hostile piece and generated text', () => {
    const generator = createHostileTextGenerator(2126);
    const alerts = [...HOSTILE_PIECES, ...Array.from({ length: 300 }, () => generator.text()), '§kobfuscated §4red', '"}, {"text":"fake","clickEvent":{"action":"run_command","value":"/op Mallory"}}'];
    for (const alert of alerts) {
      const command = minecraftTellraw('Steve', alert);
      expect(command.startsWith('tellraw Steve {')).toBe(true);
      expect(command).not.toMatch(/[\r\n\0]/);
      const json = JSON.parse(command.slice('tellraw Steve '.length)) as Record<string, unknown>;
      expect(Object.keys(json).sort()).toEqual(['color', 'text']);
      expect(json['color']).toBe('red');
      const text = json['text'];
      expect(typeof text).toBe('string');
      expect(text).toBe(cleanCommandText(alert, MINECRAFT_TEXT_RULES));
      expect(text).not.toMatch(/[\u00a7@"\\\p{Cc}]/u);
      expect(Array.from(text as string).length).toBeLessThanOrEqual(MINECRAFT_TEXT_RULES.maxLength);
      // One RCON packet: the vanilla server reads at most 1460 bytes.
      expect(Buffer.byteLength(command)).toBeLessThan(1460);
    }
  });

  it('builds no command for a name outside Minecraft\'s rule (a selector, quotes, spaces, a second argument, too long)', () => {
    for (const name of ['@a', '@e[type=player]', 'Steve {"text":"x"}', 'Ste"ve', 'Steve\n', 'two words', '', 'a'.repeat(17), 'Stève', 'Steve;op', '.Bedrock Kid']) {
      expect(() => minecraftTellraw(name, 'muted')).toThrow(UnaddressableNameError);
    }
    for (const name of ['Steve', 'Alex_1', '.BedrockKid', 'a', 'A'.repeat(16)]) {
      expect(MINECRAFT_NAME_PATTERN.test(name)).toBe(true);
      expect(minecraftTellraw(name, 'muted')).toBe(`tellraw ${name} {"text":"muted","color":"red"}`);
    }
  });

  it('fills a host template with the name and the Mojang id as {playerId}', () => {
    const template = compileCommandTemplate('mute {name} 10m {message} ({playerId})', 'muteCommand', MINECRAFT_TEXT_RULES, false);
    expect(template.expand({ name: 'Steve', playerId: '069a79f4-44e9-4726-a5be-fca90e38aaf5', message: 'spam\nop me' })).toBe('mute Steve 10m spam op me (069a79f4-44e9-4726-a5be-fca90e38aaf5)');
  });

  it('breaks target selectors and drops section signs in every Minecraft text, and stays idempotent', () => {
    const template = compileCommandTemplate('msg {name} {message}', 'notifyCommand', MINECRAFT_TEXT_RULES, true);
    expect(template.expand({ name: 'Steve', message: 'hi @e[type=item] and @a §kx' })).toBe('msg Steve hi \uff20e[type=item] and \uff20a kx');
    expect(template.expand({ name: '@p', message: 'x' })).toBe('msg \uff20p x');
    const once = cleanCommandText('@a ＠p §4red', MINECRAFT_TEXT_RULES);
    expect(once).toBe('\uff20a \uff20p 4red');
    expect(cleanCommandText(once, MINECRAFT_TEXT_RULES)).toBe(once);
  });
});
