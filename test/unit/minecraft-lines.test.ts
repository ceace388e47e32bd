// Minecraft's text as the minecraft profile reads and writes it: real latest.log lines and `list uuids` answers
// (test/fixtures/real/minecraft-*.txt, read as a person reads them), a player's words that imitate the game's own
// lines (a join, another player's chat, a UUID line), and `tellraw` built from hostile names and alerts: the command
// must stay one command whose JSON parses back to the cleaned alert, and a name outside Minecraft's rule builds none.
// Pure functions only: no I/O, no timers.
import { describe, expect, it } from 'vitest';
import { MINECRAFT_NAME_PATTERN, cleanCommandText, MINECRAFT_TEXT_RULES, minecraftTellraw } from '../../adapters/rcon/commandText.js';
import { compileCommandTemplate } from '../../adapters/rcon/commandTemplate.js';
import { UnaddressableNameError } from '../../adapters/rcon/errors.js';
import { minecraftProfile } from '../../adapters/rcon/profiles/minecraft.js';
import { parseMinecraftLogLine, parseMinecraftPlayerList } from '../../adapters/rcon/profiles/minecraftLines.js';
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

describe('real latest.log lines (minecraft-log.txt)', () => {
  const entries = readCaptures('minecraft-log.txt');
  const expected = readExpected<unknown>('minecraft-log.expected.json');

  it('has a reading for every capture', () => {
    paired(entries, expected);
  });

  it.each(entries)('$key reads as a person reads it, as written and with CRLF', ({ key, text }) => {
    const reading = want(expected, key);
    expect(parseMinecraftLogLine(text)).toEqual(reading);
    expect(parseMinecraftLogLine(`${text}\r\n`)).toEqual(reading);
  });

  it('maps each reading to the adapter: chat is global, a UUID line teaches an id, joins re-read the list', () => {
    const read = minecraftProfile.chat.logFile?.newReader();
    if (read === undefined) throw new Error('the minecraft profile reads no log');
    const line = (key: string): string => entries.find((entry) => entry.key === key)?.text ?? '';
    expect(read(line('M01'), [])).toEqual({ kind: 'player', channel: 'global', name: 'Fallen_Breath', text: 'a test text' });
    expect(read(line('M02'), [])).toEqual({ kind: 'roster', learned: { name: 'Fallen_Breath', mojangId: '85dbd009-69ed-3cc4-b6b6-ac1e6d07202e' } });
    expect(read(line('M05'), [])).toEqual({ kind: 'roster' });
    expect(read(line('M04'), [])).toEqual({ kind: 'ignored' });
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
  ])('%s is Mallory speaking, never a join, a UUID or Steve', (line, text) => {
    expect(parseMinecraftLogLine(line)).toMatchObject({ kind: 'player', name: 'Mallory', text });
  });

  it('trusts joins and UUID lines only from the game threads, with nothing before them', () => {
    expect(parseMinecraftLogLine('[12:00:00] [Async Chat Thread - #0/INFO]: Steve joined the game')).toEqual({ kind: 'other' });
    expect(parseMinecraftLogLine(`[12:00:00] [Async Chat Thread - #0/INFO]: UUID of player Steve is ${uuid}`)).toEqual({ kind: 'other' });
    expect(parseMinecraftLogLine('[12:00:00] [Server thread/INFO]: [Server] Steve joined the game')).toEqual({ kind: 'server', text: 'Steve joined the game' });
    expect(parseMinecraftLogLine('[12:00:00] [Server thread/WARN]: <Steve> hi')).toEqual({ kind: 'other' });
    // A plugin's thread writing chat-like text is not the game's chat.
    expect(parseMinecraftLogLine('[12:00:00] [Craft Scheduler Thread - 3/INFO]: <Steve> hi')).toEqual({ kind: 'other' });
    expect(parseMinecraftLogLine(`[12:00:00] [User Authenticator #2/INFO]: UUID of player Steve is not-a-uuid-at-all-000000000000000`)).toMatchObject({ kind: 'unparsed' });
    expect(parseMinecraftLogLine('\tat net.minecraft.server.MinecraftServer.run(MinecraftServer.java:1)')).toEqual({ kind: 'other' });
  });

  it('reads a Forge line with its logger field, and an ANSI-coloured console line', () => {
    expect(parseMinecraftLogLine('[18:29:30] [Server thread/INFO] [minecraft/DedicatedServer]: <Steve> tests')).toMatchObject({ kind: 'player', name: 'Steve', text: 'tests' });
    expect(parseMinecraftLogLine('\u001b[0;37m[12:00:00 INFO]: <Alex> hi there\u001b[m')).toMatchObject({ kind: 'player', name: 'Alex', text: 'hi there' });
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

  it('is unrecognised, never "nobody online", for an error, a truncated answer or names without ids', () => {
    for (const answer of ['', 'Unknown or incomplete command, see below for error', 'There are 2 of a max of 20 players online: Steve (069a79f4', 'There are 2/20 players online:\nSteve, Alex']) {
      expect(parseMinecraftPlayerList(answer).status).toBe('unrecognised');
    }
    // Rows that can be read are kept; the count mismatch is noted.
    const partial = parseMinecraftPlayerList(`There are 2 of a max of 20 players online: Steve (${steve}), Alex`);
    expect(partial.status).toBe('players');
    expect(partial.unparsed.length).toBe(2);
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
