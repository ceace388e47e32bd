// ARK's game log (`ServerGame.<n>.<date>.log`, a server started with -servergamelog) read line by line: chat,
// the server's lines, joins and leaves, and the game's own notices, which are never chat. Shapes from
// reference/games.md (ARK); real lines are in test/fixtures/real/ark-gamelog.txt (real-captures.test.ts).
import { describe, expect, it } from 'vitest';
import { parseArkGameLogLine } from '../../adapters/rcon/profiles/arkGameLogLines.js';

const HEAD = '[2026.09.13-18.48.40:782][696]2026.09.13_18.48.40: ';
const EOS = '0002c0ffee11d00d4242beef00c0ffee';

describe('parseArkGameLogLine', () => {
  it('reads a chat line with both heads, with one, and with none', () => {
    const want = { kind: 'player', name: 'SteamName', characterName: 'CharacterName', text: 'text' };
    expect(parseArkGameLogLine(`${HEAD}SteamName (CharacterName): text`)).toEqual(want);
    expect(parseArkGameLogLine('2026.09.13_18.48.40: SteamName (CharacterName): text')).toEqual(want);
    expect(parseArkGameLogLine('[2026.09.13-18.48.40:782][  0]SteamName (CharacterName): text')).toEqual(want);
    expect(parseArkGameLogLine('SteamName (CharacterName): text')).toEqual(want);
  });

  it('takes CRLF, NUL and a BOM as framing, and keeps the text exactly', () => {
    expect(parseArkGameLogLine(`\uFEFF${HEAD}Bob (Rex): hi (yes): ok :) \r\n`)).toMatchObject({ kind: 'player', name: 'Bob', characterName: 'Rex', text: 'hi (yes): ok :) ' });
    expect(parseArkGameLogLine(`${HEAD}Bob (Rex): \r\n\0`)).toEqual({ kind: 'player', name: 'Bob', characterName: 'Rex', text: '' });
  });

  it('reads the server lines', () => {
    expect(parseArkGameLogLine(`${HEAD}SERVER: Restart in 10 minutes\r`)).toEqual({ kind: 'server', text: 'Restart in 10 minutes' });
  });

  it('settles names holding "(", ")" and ":" with the listed names, as GetChat does', () => {
    const line = `${HEAD}Bob (the) Builder (Char): hi`;
    // Without the list the character name starts after the last " (" before the first "): ".
    expect(parseArkGameLogLine(line)).toMatchObject({ kind: 'player', name: 'Bob (the) Builder', characterName: 'Char', text: 'hi' });
    const tricky = `${HEAD}evil): x (Char): hi`;
    expect(parseArkGameLogLine(tricky)).toMatchObject({ kind: 'unparsed' });
    expect(parseArkGameLogLine(tricky, ['evil): x', 'evil'])).toEqual({ kind: 'player', name: 'evil): x', characterName: 'Char', text: 'hi' });
    // The longest listed name wins; a listed name starting "SERVER: " is a player, not the server.
    expect(parseArkGameLogLine(`${HEAD}Bob (x) (C): hi`, ['Bob', 'Bob (x)'])).toMatchObject({ name: 'Bob (x)', characterName: 'C' });
    expect(parseArkGameLogLine(`${HEAD}SERVER: x (C): hi`, ['SERVER: x'])).toEqual({ kind: 'player', name: 'SERVER: x', characterName: 'C', text: 'hi' });
    expect(parseArkGameLogLine(`${HEAD}Ünïcødé 漢字 😀 (Чар): привет`)).toEqual({ kind: 'player', name: 'Ünïcødé 漢字 😀', characterName: 'Чар', text: 'привет' });
  });

  it('reads ASA joins and leaves with their EOS id, and ASE ones by name', () => {
    expect(parseArkGameLogLine(`${HEAD}Survivor42 [UniqueNetId:${EOS} Platform:None] joined this ARK!\r\n`)).toEqual({ kind: 'join', name: 'Survivor42', eosId: EOS });
    expect(parseArkGameLogLine(`${HEAD}Survivor42 [UniqueNetId:${EOS.toUpperCase()} Platform:None] left this ARK!`)).toEqual({ kind: 'leave', name: 'Survivor42', eosId: EOS });
    expect(parseArkGameLogLine('2017.03.13_20.52.04: sMuve joined this ARK!')).toEqual({ kind: 'join', name: 'sMuve' });
    expect(parseArkGameLogLine('2017.03.13_20.52.04: sMuve left this ARK!')).toEqual({ kind: 'leave', name: 'sMuve' });
    // A Steam64 in the id field is kept as one; an id of neither kind is left out (the name is still there).
    expect(parseArkGameLogLine(`${HEAD}Bob [UniqueNetId:76561198000000001 Platform:STEAM] joined this ARK!`)).toEqual({ kind: 'join', name: 'Bob', steamId: '76561198000000001' });
    expect(parseArkGameLogLine(`${HEAD}LilGuppy [UniqueNetId:123 Platform:STEAM] joined this ARK!`)).toEqual({ kind: 'join', name: 'LilGuppy' });
    // Names with brackets and parentheses.
    expect(parseArkGameLogLine(`${HEAD}[TAG] Bob (x) [UniqueNetId:${EOS} Platform:None] joined this ARK!`)).toEqual({ kind: 'join', name: '[TAG] Bob (x)', eosId: EOS });
  });

  it("keeps a player's words that end like a join as their chat", () => {
    expect(parseArkGameLogLine(`${HEAD}Bob (Rex): Survivor42 [UniqueNetId:${EOS} Platform:None] joined this ARK!`)).toEqual({
      kind: 'player',
      name: 'Bob',
      characterName: 'Rex',
      text: `Survivor42 [UniqueNetId:${EOS} Platform:None] joined this ARK!`,
      // Or the join of a player named `Bob (Rex): Survivor42`: the player list settles which (the adapter's roster).
      presence: { kind: 'join', name: 'Bob (Rex): Survivor42', eosId: EOS },
    });
  });

  it("reads the game's own lines as notices, never as chat", () => {
    const notices = [
      'Tribe Tribe of Guppy, ID 123: Day 1, 12:00:00: Tribemember Guppy - Lvl 49 was killed by a Direwolf - Lvl 114!',
      'Tribe X, ID 123: Day 5, 12:00:00: Bob (Rex): was killed!',
      'Tribe X, ID 123: Day 5, 12:00:00: Bob was killed!',
      'Day 5, 12:00:00: Bob (Rex): was killed!',
      'AdminCmd: ServerChat hello (PlayerName: Admin, ARKID: 123, SteamID: 76561198000000001)',
      'Tribemember Guppy - Lvl 49 was killed by a Direwolf - Lvl 114!',
      'Your Tribe Tamed a Juvenile Kentrosaurus - Lvl 24 (Kentrosaurus)!',
      'Bob - Lvl 50 was killed!',
      "Bob demolished a 'Wood Wall'!",
      'Server has completed startup and is now advertising for join.',
      'ARK Version: 88.25',
      'World Save Complete. Took: 0.67',
      '<RichColor Color="1,0,0,1">A Rex froze!</>',
    ];
    for (const notice of notices) {
      expect(parseArkGameLogLine(`${HEAD}${notice}\r\n`), notice).toEqual({ kind: 'notice' });
      expect(parseArkGameLogLine(notice), notice).toEqual({ kind: 'notice' });
    }
  });

  it('says why a line cannot be read, and never throws', () => {
    expect(parseArkGameLogLine('')).toEqual({ kind: 'unparsed', reason: 'an empty line' });
    expect(parseArkGameLogLine(`${HEAD}\r\n`)).toEqual({ kind: 'unparsed', reason: 'an empty line' });
    expect(parseArkGameLogLine(`${HEAD}no separator here`)).toMatchObject({ kind: 'unparsed' });
    expect(parseArkGameLogLine(`${HEAD}(Char): no name`)).toMatchObject({ kind: 'unparsed' });
    for (const odd of ['[', '[][]', '\uFEFF', '2026.09.13_18.48.40:', ' joined this ARK!', '(', '): ', '\0\0']) {
      expect(() => parseArkGameLogLine(odd, [odd])).not.toThrow();
    }
  });
});
