// ARK's ListPlayers and GetChat answers, as ASE and ASA print them, read into players and chat lines; the
// join/leave diff of two player lists. Samples use the shapes from reference/game-rcon.md (ARK section).
import { describe, expect, it } from 'vitest';
import { parseArkChat, parseArkPlayerList } from '../../adapters/rcon/profiles/arkLines.js';
import { diffPlayerLists, type ListedPlayer } from '../../adapters/rcon/profiles/parsedLines.js';

const steam = (n: number): string => `765611980${String(n).padStart(8, '0')}`;
const eos = (n: number): string => `0002${String(n).padStart(28, '0')}`;

describe('parseArkPlayerList', () => {
  it('reads an ASE list (Steam64 ids), with the trailing newline ARK sends', () => {
    const answer = `0. Rex Hunter, ${steam(1)}\n1. Dodo, ${steam(2)}\n`;
    expect(parseArkPlayerList(answer)).toEqual({
      status: 'players',
      players: [
        { steamId: steam(1), name: 'Rex Hunter' },
        { steamId: steam(2), name: 'Dodo' },
      ],
      unparsed: [],
    });
  });

  it('reads an ASA list (EOS ids, lowercased), CRLF line ends and a leading blank line', () => {
    const answer = `\r\n0. Survivor, ${eos(1)}\r\n1. Other, ${eos(2).toUpperCase()} \r\n`;
    expect(parseArkPlayerList(answer).players).toEqual([
      { eosId: eos(1), name: 'Survivor' },
      { eosId: eos(2), name: 'Other' },
    ]);
  });

  it('keeps odd names whole: commas (split on the last one), spaces, parentheses, colons, brackets, non-ASCII', () => {
    const names = ['Smith, John', 'a, b, c', '  spaced  out  ', 'Bob (the builder)', 'x: y', '[TAG] Name', 'Ünïcødé 漢字 😀', '0. Nested, 1', '(', ','];
    const answer = names.map((name, index) => `${index}. ${name}, ${steam(index)}`).join('\n');
    const parsed = parseArkPlayerList(answer);
    expect(parsed.unparsed).toEqual([]);
    expect(parsed.players.map((player) => player.name)).toEqual(names.map((name) => name.trim()));
    expect(parsed.players.map((player) => player.steamId)).toEqual(names.map((_, index) => steam(index)));
  });

  it('says nobody is online for "No Players Connected"', () => {
    expect(parseArkPlayerList('No Players Connected\n')).toEqual({ status: 'none', players: [], unparsed: [] });
  });

  it('tells "Server received, But no response!!" apart from an empty server', () => {
    expect(parseArkPlayerList('Server received, But no response!! \n')).toEqual({ status: 'no-response', players: [], unparsed: [] });
  });

  it('collects lines it cannot read, with a reason, and keeps the rest', () => {
    const answer = [`0. Good, ${steam(1)}`, '1. No id here', `2. Bad id, ${steam(2)}9`, 'garbage', `3. Short, 1234`].join('\n');
    const parsed = parseArkPlayerList(answer);
    expect(parsed.status).toBe('players');
    expect(parsed.players).toEqual([{ steamId: steam(1), name: 'Good' }]);
    expect(parsed.unparsed.map((line) => line.line)).toEqual(['1. No id here', `2. Bad id, ${steam(2)}9`, 'garbage', '3. Short, 1234']);
    expect(parsed.unparsed.every((line) => line.reason.length > 0)).toBe(true);
  });

  it('marks an answer with nothing like a list as unrecognised', () => {
    expect(parseArkPlayerList('').status).toBe('unrecognised');
    expect(parseArkPlayerList('Unknown command').status).toBe('unrecognised');
  });

  it('is unrecognised, never "nobody online", when lines are there but none can be read', () => {
    const rows = `0. Bob, ${steam(1)}9\n1. Amy, not-an-id\n`;
    expect(parseArkPlayerList(rows)).toMatchObject({ status: 'unrecognised', players: [] });
    expect(parseArkPlayerList(`No Players Connected\n${rows}`)).toMatchObject({ status: 'unrecognised', players: [] });
    expect(parseArkPlayerList(`No Players Connected\n${rows}`).unparsed).toHaveLength(2);
  });

  it('reads a full 100-player list', () => {
    const answer = Array.from({ length: 100 }, (_, index) => `${index}. Player ${index} (Tribe, of ${index}), ${index % 2 === 0 ? steam(index) : eos(index)}`).join('\n');
    const parsed = parseArkPlayerList(`${answer}\n`);
    expect(parsed.status).toBe('players');
    expect(parsed.unparsed).toEqual([]);
    expect(parsed.players).toHaveLength(100);
    expect(parsed.players[99]).toEqual({ eosId: eos(99), name: 'Player 99 (Tribe, of 99)' });
    expect(parsed.players[42]).toEqual({ steamId: steam(42), name: 'Player 42 (Tribe, of 42)' });
  });
});

describe('parseArkChat', () => {
  it('reads player lines and server lines', () => {
    const answer = 'Rex Hunter (Bob): hello all\nSERVER: Restart in 10 minutes\nDodo (Dodo): !review 5 Great admins\n';
    expect(parseArkChat(answer)).toEqual({
      status: 'lines',
      lines: [
        { kind: 'player', playerName: 'Rex Hunter', characterName: 'Bob', text: 'hello all' },
        { kind: 'server', text: 'Restart in 10 minutes' },
        { kind: 'player', playerName: 'Dodo', characterName: 'Dodo', text: '!review 5 Great admins' },
      ],
      unparsed: [],
      notices: [],
    });
  });

  it('says there was no chat for "Server received, But no response!!"', () => {
    expect(parseArkChat('Server received, But no response!!\n')).toEqual({ status: 'no-response', lines: [], unparsed: [], notices: [] });
    // As servers send it: with a space, a newline and a space after it.
    expect(parseArkChat('Server received, But no response!! \n ')).toMatchObject({ status: 'no-response' });
  });

  it('keeps the text exactly, including colons, parentheses and its own "): "', () => {
    // The line's own reading, and its other split: a name may hold `(B): x` as far as the text alone can tell.
    expect(parseArkChat('A (B): x (y): z :) ').lines).toEqual([
      {
        kind: 'player',
        playerName: 'A',
        characterName: 'B',
        text: 'x (y): z :) ',
        readings: [
          { playerName: 'A (B): x', characterName: 'y', text: 'z :) ' },
          { playerName: 'A', characterName: 'B', text: 'x (y): z :) ' },
        ],
      },
    ]);
    expect(parseArkChat('A (B): ').lines).toEqual([{ kind: 'player', playerName: 'A', characterName: 'B', text: '' }]);
    expect(parseArkChat('A (B):').lines).toEqual([{ kind: 'player', playerName: 'A', characterName: 'B', text: '' }]);
  });

  it('reads player names with parentheses, colons, brackets and non-ASCII by the rule: the last " (" before the first "): "', () => {
    const lines = [
      'Bob (the builder) (Rex): hi',
      'x: y (Char): text',
      '[TAG] Name (Chär Name): ok',
      'Ünïcødé 漢字 😀 (C): привет',
      'a (b) c (d) (E): f',
    ];
    // The other splits ride along as readings (the adapter weighs them against the player list).
    expect(parseArkChat(lines.join('\n')).lines).toMatchObject([
      { kind: 'player', playerName: 'Bob (the builder)', characterName: 'Rex', text: 'hi' },
      { kind: 'player', playerName: 'x: y', characterName: 'Char', text: 'text' },
      { kind: 'player', playerName: '[TAG] Name', characterName: 'Chär Name', text: 'ok' },
      { kind: 'player', playerName: 'Ünïcødé 漢字 😀', characterName: 'C', text: 'привет' },
      { kind: 'player', playerName: 'a (b) c (d)', characterName: 'E', text: 'f' },
    ]);
  });

  it('settles the ambiguous cases with the names ListPlayers gave', () => {
    // A Steam name containing "): " misreads without the hint, and reads right with it.
    const line = 'evil): name (Char): hi';
    expect(parseArkChat(line).unparsed).toHaveLength(1);
    expect(parseArkChat(line, ['evil): name']).lines).toEqual([{ kind: 'player', playerName: 'evil): name', characterName: 'Char', text: 'hi' }]);
    // A player whose name starts with "SERVER: " is a player when listed (so a muted one cannot pose as the server).
    expect(parseArkChat('SERVER: fake (Char): hi', ['SERVER: fake']).lines).toEqual([
      { kind: 'player', playerName: 'SERVER: fake', characterName: 'Char', text: 'hi' },
    ]);
    expect(parseArkChat('SERVER: fake (Char): hi').lines).toEqual([{ kind: 'server', text: 'fake (Char): hi' }]);
    // The longest known name wins when one is a prefix of another.
    expect(parseArkChat('Bob (x) (C): hi', ['Bob', 'Bob (x)']).lines[0]).toMatchObject({ playerName: 'Bob (x)', characterName: 'C' });
  });

  it('joins a message GetChat carries over several lines onto its first line, as pyarc does', () => {
    const parsed = parseArkChat('Bob (Rex): first part\nsecond part\nthird\nSERVER: long notice\ncontinued\nAmy (Ann): hi\n');
    expect(parsed.lines).toEqual([
      { kind: 'player', playerName: 'Bob', characterName: 'Rex', text: 'first part\nsecond part\nthird' },
      { kind: 'server', text: 'long notice\ncontinued' },
      { kind: 'player', playerName: 'Amy', characterName: 'Ann', text: 'hi' },
    ]);
    expect(parsed.unparsed).toEqual([]);
  });

  it('tells the other lines GetChat carries (admin commands, joins, tribe logs) from chat, and never joins them onto a message', () => {
    const parsed = parseArkChat(
      [
        'Bob (Rex): hi',
        'AdminCmd: getchat (PlayerName: , ARKID: 1, SteamID: 76561198000000001)',
        'stray after a notice',
        '2026.08.31_06.01.54: Bethii_94 [UniqueNetId:0002abcd Platform:None] joined',
        'Dodo joined this ARK!',
        'Tribe Tribe of Guppy, ID 123: Day 1, 12:00:00: Your Tribe Tamed a Juvenile Kentrosaurus - Lvl 24 (Kentrosaurus)!',
      ].join('\n'),
    );
    expect(parsed.lines).toEqual([{ kind: 'player', playerName: 'Bob', characterName: 'Rex', text: 'hi' }]);
    expect(parsed.notices.map((notice) => notice.kind)).toEqual(['admin-command', 'presence', 'presence', 'tribe-log']);
    expect(parsed.unparsed.map((line) => line.line)).toEqual(['stray after a notice']);
    // A player's own words that end like a join notice are still their chat; the join reading rides along, for the
    // player list to settle (a player named `Bob (Rex): I` would make it a join).
    expect(parseArkChat('Bob (Rex): I joined this ARK!').lines).toEqual([
      { kind: 'player', playerName: 'Bob', characterName: 'Rex', text: 'I joined this ARK!', presence: { kind: 'join', name: 'Bob (Rex): I' } },
    ]);
  });

  it('never joins a game notice that lost its tribe-log head onto the message before it', () => {
    const notices = [
      'Day 1, 12:00:00: Tribemember Guppy - Lvl 49 was killed by a Direwolf - Lvl 114!',
      'Day 212, 3:04:05: Bob was killed!',
      'Tribemember Guppy - Lvl 49 was killed by a Direwolf - Lvl 114!',
      'Your Tribe Tamed a Juvenile Kentrosaurus - Lvl 24 (Kentrosaurus)!',
      'Bob - Lvl 50 was killed!',
      'Bob starved to death!',
      "Bob demolished a 'Wood Wall'!",
    ];
    for (const notice of notices) {
      const parsed = parseArkChat(`Bob (Rex): hello\n${notice}\n`);
      expect(parsed.lines, notice).toEqual([{ kind: 'player', playerName: 'Bob', characterName: 'Rex', text: 'hello' }]);
      expect(parsed.notices, notice).toHaveLength(1);
      expect(parsed.unparsed, notice).toEqual([]);
    }
    // A tribe entry without its head is not read as a player whose name is its day and time.
    expect(parseArkChat('Day 5, 12:00:00: Bob (Rex): hi').lines).toEqual([]);
    // Plain words after a message still continue it.
    expect(parseArkChat('Bob (Rex): he was killed\nby a Rex, sadly\n').lines).toEqual([
      { kind: 'player', playerName: 'Bob', characterName: 'Rex', text: 'he was killed\nby a Rex, sadly' },
    ]);
  });

  it('collects lines it cannot read, with a reason', () => {
    const parsed = parseArkChat('no separator here\n(Char): no name\nok (C): fine\n');
    expect(parsed.lines).toEqual([{ kind: 'player', playerName: 'ok', characterName: 'C', text: 'fine' }]);
    expect(parsed.unparsed.map((line) => line.line)).toEqual(['no separator here', '(Char): no name']);
  });
});

describe('diffPlayerLists', () => {
  const a: ListedPlayer = { steamId: steam(1), name: 'A' };
  const b: ListedPlayer = { eosId: eos(2), name: 'B' };
  const c: ListedPlayer = { steamId: steam(3), name: 'C' };

  it('reports who joined and who left, by id', () => {
    expect(diffPlayerLists([a, b], [b, c])).toEqual({ joined: [c], left: [a] });
    expect(diffPlayerLists([], [a, b])).toEqual({ joined: [a, b], left: [] });
    expect(diffPlayerLists([a, b], [])).toEqual({ joined: [], left: [a, b] });
  });

  it('ignores a rename, an id case change and a duplicate row', () => {
    expect(diffPlayerLists([a, b], [{ ...a, name: 'A renamed' }, { eosId: eos(2).toUpperCase(), name: 'B' }, a])).toEqual({ joined: [], left: [] });
  });

  it('diffs two parsed 100-player lists', () => {
    const list = (from: number): string => Array.from({ length: 100 }, (_, index) => `${index}. P${from + index}, ${steam(from + index)}`).join('\n');
    const diff = diffPlayerLists(parseArkPlayerList(list(0)).players, parseArkPlayerList(list(10)).players);
    expect(diff.joined.map((player) => player.name)).toEqual(Array.from({ length: 10 }, (_, index) => `P${100 + index}`));
    expect(diff.left.map((player) => player.name)).toEqual(Array.from({ length: 10 }, (_, index) => `P${index}`));
  });
});
