// The 7 Days to Die profile's reader (sevenDaysProfile.chat.console.newReader(), adapters/rcon/profiles/sevenDaysReader.ts):
// one message a chat mod logged twice (the plain line and `Chat handled by mod …`) is read once, by the lines' own
// clock; everything else is read line by line: two identical plain lines are two messages, a server line never pairs,
// a restart or a gap past 2 s never pairs, and the memory stays bounded. Joins and leaves say who, for `log check`.
import { describe, expect, it } from 'vitest';
import type { RconChatLine, RconLineReader } from '../../adapters/rcon/profiles/profile.js';
import { sevenDaysProfile } from '../../adapters/rcon/profiles/sevenDays.js';

const STEAM = '76561198028175941';
const EOS = '0002b5d970954287afdcb5dc35af0424';

function newReader(): RconLineReader {
  const chat = sevenDaysProfile.chat.console;
  if (chat?.kind !== 'stream') throw new Error('7dtd reads the console stream');
  return chat.newReader();
}

/** A console line at `uptime` seconds (and the matching second of one day). */
function at(uptime: number, message: string): string {
  const seconds = Math.floor(uptime);
  const stamp = `2021-07-27T12:${String(Math.floor(seconds / 60) % 60).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}`;
  return `${stamp} ${uptime.toFixed(3)} INF ${message}`;
}

const plain = (text: string, entity = 171, from = `Steam_${STEAM}`, channel = 'Global'): string => `Chat (from '${from}', entity id '${entity}', to '${channel}'): 'Catalysm': ${text}`;
const handled = (text: string, entity = 171, from = `Steam_${STEAM}`, mod = 'CSMM Patrons', channel = 'Global'): string =>
  `Chat handled by mod '${mod}': Chat (from '${from}', entity id '${entity}', to '${channel}'): ${text}`;
const rebroadcast = (text: string): string => `Chat (from '-non-player-', entity id '-1', to 'Global'): '[FF00FF]Catalysm[-]': ${text}`;

function readAll(reader: RconLineReader, lines: readonly string[], knownNames: readonly string[] = []): RconChatLine[] {
  return lines.map((line) => reader(line, knownNames));
}

const kinds = (read: readonly RconChatLine[]): string[] => read.map((line) => line.kind);

describe('the 7dtd reader: a chat mod pair is one message', () => {
  it('reads the plain line, then folds the handled line of the same message 2 ms later (CSMM with hccp)', () => {
    const read = readAll(newReader(), [at(6141.643, plain('@test').replace("': @test", "':@test")), at(6141.645, handled("'Catalysm': @test"))]);
    expect(read[0]).toEqual({ kind: 'player', channel: 'global', name: 'Catalysm', steamId: STEAM, eosId: undefined, platformId: `Steam_${STEAM}`, entityId: 171, text: '@test' });
    expect(read[1]).toEqual({ kind: 'ignored', echo: true, reason: 'the second line of one message a chat mod logged twice (read once)' });
  });

  it('reads the handled line first and folds a plain line after it, with readAs naming the mod', () => {
    const read = readAll(newReader(), [at(10, handled('hello', 171, `Steam_${STEAM}`, 'PrismaCore')), at(10.5, plain('hello'))]);
    expect(read[0]).toMatchObject({ kind: 'player', name: '', text: 'hello', entityId: 171, readAs: "handled by mod 'PrismaCore'" });
    expect(read[1]).toMatchObject({ kind: 'ignored' });
  });

  it("reads a mod's re-broadcast as the server's and the handled line as the player's: one player line", () => {
    const read = readAll(newReader(), [at(6688.447, rebroadcast('@test')), at(6688.448, handled("'Catalysm': @test"))]);
    expect(read).toEqual([
      { kind: 'server', text: '@test' },
      expect.objectContaining({ kind: 'player', name: 'Catalysm', text: '@test', readAs: "handled by mod 'CSMM Patrons'" }),
    ]);
    // ServerTools' re-broadcast through the player's connection (entity -1) is the server's too.
    expect(readAll(newReader(), [at(5, handled('Hello', 2196446, `Steam_${STEAM}`, 'ServerTools')), at(5, plain('Hello', -1))]).map((line) => line.kind)).toEqual(['player', 'server']);
  });

  it('never folds two lines of one kind: two identical plain lines, or two identical handled lines, are two messages', () => {
    expect(kinds(readAll(newReader(), [at(1, plain('spam')), at(1.001, plain('spam'))]))).toEqual(['player', 'player']);
    expect(kinds(readAll(newReader(), [at(1, handled('spam')), at(1.001, handled('spam'))]))).toEqual(['player', 'player']);
    // A pair is used up once: plain, handled, handled → the third is a message of its own.
    expect(kinds(readAll(newReader(), [at(1, plain('spam')), at(1.001, handled('spam')), at(1.002, handled('spam'))]))).toEqual(['player', 'ignored', 'player']);
    // Two messages each logged twice, interleaved: two player lines, two folded.
    expect(kinds(readAll(newReader(), [at(1, plain('a')), at(1, plain('a')), at(1.001, handled('a')), at(1.002, handled('a'))]))).toEqual(['player', 'player', 'ignored', 'ignored']);
  });

  it('pairs only the same speaker, entity, channel and text', () => {
    const first = at(1, plain('hello'));
    for (const second of [
      handled('hello there'),
      handled('hello', 172),
      handled('hello', 171, 'Steam_76561198000000009'),
      handled('hello', 171, `Steam_${STEAM}`, 'CSMM Patrons', 'Party'),
    ]) {
      expect(kinds(readAll(newReader(), [first, at(1.001, second)]))).toEqual(['player', 'player']);
    }
    // The spaces a re-send adds or drops around the text do not make it another message.
    expect(kinds(readAll(newReader(), [first, at(1.001, handled('hello '))]))).toEqual(['player', 'ignored']);
  });

  it("pairs within 2 s of the lines' own clock only, and never across a restart", () => {
    expect(kinds(readAll(newReader(), [at(100, plain('x')), at(102, handled('x'))]))).toEqual(['player', 'ignored']);
    expect(kinds(readAll(newReader(), [at(100, plain('x')), at(102.001, handled('x'))]))).toEqual(['player', 'player']);
    // The server restarted: the uptime went back, even though the timestamp is within the window.
    const beforeRestart = `2021-07-27T12:00:00 5000.000 INF ${plain('x')}`;
    const afterRestart = `2021-07-27T12:00:01 4999.500 INF ${handled('x')}`;
    expect(kinds(readAll(newReader(), [beforeRestart, afterRestart]))).toEqual(['player', 'player']);
    // The same uptime a day later (a restart that happens to land there): the timestamps tell them apart.
    expect(kinds(readAll(newReader(), [`2021-07-27T12:00:00 50.000 INF ${plain('x')}`, `2021-07-28T12:00:00 50.500 INF ${handled('x')}`]))).toEqual(['player', 'player']);
  });

  it('keeps a bounded memory: a pair more than 32 chat lines apart is read twice', () => {
    const reader = newReader();
    const filler = Array.from({ length: 32 }, (_, index) => at(1, plain(`line ${index}`, 200 + index)));
    expect(kinds(readAll(reader, [at(1, plain('first')), ...filler, at(1.001, handled('first'))])).at(-1)).toBe('player');
    const fewer = Array.from({ length: 31 }, (_, index) => at(1, plain(`line ${index}`, 200 + index)));
    expect(kinds(readAll(newReader(), [at(1, plain('first')), ...fewer, at(1.001, handled('first'))])).at(-1)).toBe('ignored');
  });

  it('gives each source its own memory', () => {
    const one = newReader();
    const two = newReader();
    expect(one(at(1, plain('x')), [])).toMatchObject({ kind: 'player' });
    expect(two(at(1, handled('x')), [])).toMatchObject({ kind: 'player' });
  });

  it('never reads an unprefixed line as chat (a command answer): nothing without a clock is paired', () => {
    expect(readAll(newReader(), [plain('x'), handled('x')])).toEqual([{ kind: 'ignored' }, { kind: 'ignored' }]);
  });

  it('splits at a listed name holding the separator, and reads a name with no space after it', () => {
    const reader = newReader();
    expect(reader(at(1, "Chat (from '76561198028175941', entity id '171', to 'Global'): 'Catalysm':@test"), [])).toMatchObject({ name: 'Catalysm', text: '@test', steamId: STEAM });
    expect(reader(at(2, "Chat (from 'XBL_1', entity id '172', to 'Global'): 'a': b': hello"), ["a': b"])).toMatchObject({ name: "a': b", text: 'hello' });
  });
});

describe('the 7dtd reader: joins and leaves', () => {
  it('says who came or went, with the ids the line carries', () => {
    const reader = newReader();
    expect(
      reader(
        at(1, `PlayerSpawnedInWorld (reason: EnterMultiplayer, position: 1080, 61, 1089): EntityID=3812, PltfmId='Steam_${STEAM}', CrossId='EOS_${EOS}', OwnerID='Steam_${STEAM}', PlayerName='Catalysm', ClientNumber='6'`),
        [],
      ),
    ).toEqual({ kind: 'roster', presence: { kind: 'join', name: 'Catalysm', steamId: STEAM, eosId: EOS, platformId: `Steam_${STEAM}`, entityId: 3812 } });
    expect(reader(at(2, `Player disconnected: EntityID=171, PltfmId='XBL_123456abcdef', CrossId='EOS_${EOS}', OwnerID='XBL_123456abcdef', PlayerName='Catalysm'`), [])).toEqual({
      kind: 'roster',
      presence: { kind: 'leave', name: 'Catalysm', steamId: undefined, eosId: EOS, platformId: 'XBL_123456abcdef', entityId: 171 },
    });
    expect(reader(at(3, "GMSG: Player 'Catalysm' joined the game"), [])).toEqual({ kind: 'ignored' });
    expect(reader(at(4, 'Chat (garbage'), [])).toMatchObject({ kind: 'unparsed' });
  });
});
