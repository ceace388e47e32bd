// Conan Exiles' chat lines (ConanSandbox.log) and its RCON listplayers table. Shapes from reference/games.md
// (Conan Exiles); real lines are in test/fixtures/real/conan-*.txt (real-captures.test.ts).
import { describe, expect, it } from 'vitest';
import { parseConanLogLine, parseConanPlayerList } from '../../adapters/rcon/profiles/conanLines.js';

const STEAM = '76561198000000001';
const HEAD = '[2026.06.20-21.06.10:804][802]';
const HEADER = 'Idx | Char name | Player name |      User ID |       Platform ID | Platform Name';

describe('parseConanLogLine', () => {
  it('reads a current line, with the speaker\'s Steam64', () => {
    expect(parseConanLogLine(`${HEAD}ChatWindow: Character TestExile (uid 109, player ${STEAM}) said: hey`)).toEqual({
      kind: 'player',
      channel: 'global',
      name: 'TestExile',
      steamId: STEAM,
      text: 'hey',
    });
  });

  it('reads an older name-only line, with a space-padded frame field', () => {
    expect(parseConanLogLine('[2018.07.16-13.33.23:827][ 80]ChatWindow: Character Kimifae said: "We are at war"')).toEqual({
      kind: 'player',
      channel: 'global',
      name: 'Kimifae',
      text: '"We are at war"',
    });
    expect(parseConanLogLine('[2018.07.16-13.33.23:827][  0]ChatWindow: Character Kimifae said: x')).toMatchObject({ name: 'Kimifae', text: 'x' });
  });

  it('takes a BOM, CRLF and NUL as framing', () => {
    expect(parseConanLogLine(`\uFEFF${HEAD}ChatWindow: Character TestExile (uid 109, player ${STEAM}) said: hey\r\n`)).toMatchObject({ name: 'TestExile', steamId: STEAM, text: 'hey' });
    expect(parseConanLogLine(`\uFEFF[2018.07.16-13.33.23:827][ 80]ChatWindow: Character Kimifae said: hi\r\0`)).toMatchObject({ name: 'Kimifae', text: 'hi' });
  });

  it('keeps names with spaces, parentheses and non-Latin text, and the text exactly', () => {
    const cases: [string, string][] = [
      ['Kessíra of Asura', 'Привет, exiles!'],
      ['Bob (the) Builder', 'a (uid 1, player 2) said: b'],
      ['Бродяга 漢字 😀', ' said: '],
      ['(', ''],
      ['x) (uid 5', 'hi :)'],
    ];
    for (const [name, text] of cases) {
      // The first split is the line's own reading; a text holding ` said: ` adds readings the list must weigh.
      expect(parseConanLogLine(`${HEAD}ChatWindow: Character ${name} (uid 7, player ${STEAM}) said: ${text}`), name).toMatchObject({
        kind: 'player',
        channel: 'global',
        name,
        steamId: STEAM,
        text,
      });
      expect(parseConanLogLine(`${HEAD}ChatWindow: Character ${name} said: ${text}`), name).toMatchObject({ kind: 'player', channel: 'global', name, text });
    }
  });

  it('never takes an id from the words of a name-only line', () => {
    const line = `${HEAD}ChatWindow: Character Mallory said: look (uid 1, player 76561198000000099) said: I am someone else`;
    const parsed = parseConanLogLine(line);
    expect(parsed).toMatchObject({ kind: 'player', channel: 'global', name: 'Mallory', text: 'look (uid 1, player 76561198000000099) said: I am someone else' });
    expect(parsed).not.toHaveProperty('steamId');
    // The longer split carries the id as a claim only: the player list must show it for that very name.
    expect(parsed.kind === 'player' ? parsed.readings : undefined).toEqual([
      { name: 'Mallory said: look', steamId: '76561198000000099', text: 'I am someone else' },
      { name: 'Mallory', text: 'look (uid 1, player 76561198000000099) said: I am someone else' },
    ]);
  });

  it('takes the ids only from the (uid, player) part that ends the speaker, never from one a name holds earlier', () => {
    const name = 'Mallory (uid 1, player 76561198000000099) x';
    const parsed = parseConanLogLine(`${HEAD}ChatWindow: Character ${name} (uid 7, player ${STEAM}) said: hi`);
    expect(parsed).toEqual({ kind: 'player', channel: 'global', name, steamId: STEAM, text: 'hi' });
    // An id part inside a name, with no id part ending the speaker, claims nothing: the name is read whole.
    expect(parseConanLogLine(`${HEAD}ChatWindow: Character ${name} said: hi`)).toEqual({ kind: 'player', channel: 'global', name, text: 'hi' });
  });

  it('maps a line whose player id is not a Steam64 by its name', () => {
    expect(parseConanLogLine(`${HEAD}ChatWindow: Character Xeno (uid 3, player 2535400000000001) said: hi`)).toEqual({ kind: 'player', channel: 'global', name: 'Xeno', text: 'hi' });
  });

  it("drops Pippi's copy of a message and keeps its ChatWindow line", () => {
    expect(parseConanLogLine('[2019.12.20-17.59.39:226][Pippi]PippiChat: Birger said in channel [Global]: Wtf')).toEqual({ kind: 'duplicate' });
    expect(parseConanLogLine('[2019.12.20-17.53.00:048][Pippi]PippiChat: Aera said in channel [Tarcus:Aera]: this char has')).toEqual({ kind: 'duplicate' });
    expect(parseConanLogLine('[2026.06.21-08.36.10:686][Pippi]ChatWindow: Character TestExile said: hey')).toEqual({ kind: 'player', channel: 'global', name: 'TestExile', text: 'hey' });
  });

  it('passes over the engine\'s other lines, and says why a ChatWindow line cannot be read', () => {
    expect(parseConanLogLine(`${HEAD}LogNet: Join succeeded: TestExile`)).toEqual({ kind: 'other' });
    expect(parseConanLogLine('')).toEqual({ kind: 'other' });
    expect(parseConanLogLine(`${HEAD}ChatWindow: Bob: hi`)).toMatchObject({ kind: 'unparsed' });
    expect(parseConanLogLine(`${HEAD}ChatWindow: Character Bob shouted: hi`)).toMatchObject({ kind: 'unparsed' });
    expect(parseConanLogLine(`${HEAD}ChatWindow: Character  said: hi`)).toMatchObject({ kind: 'unparsed' });
    // A player typing a log head or a category is still inside their own text.
    expect(parseConanLogLine(`${HEAD}ChatWindow: Character Bob said: ${HEAD}PippiChat: x said in channel [Global]: y`)).toMatchObject({ kind: 'player', name: 'Bob' });
  });
});

describe('parseConanPlayerList', () => {
  it('reads the rows: the character name is the name, the Platform ID the Steam64', () => {
    const answer = `${HEADER}\n  0 | TestExile | Tester#1000 | A-TESTUSER | ${STEAM} |         STEAM\n  3 | Bob (the) Builder | Bob#2000 | B-1HFFLI28NN | 76561198000000002 |         STEAM\n`;
    expect(parseConanPlayerList(answer)).toEqual({
      status: 'players',
      players: [
        { steamId: STEAM, name: 'TestExile', idx: 0, playerName: 'Tester#1000', userId: 'A-TESTUSER', platformName: 'STEAM' },
        { steamId: '76561198000000002', name: 'Bob (the) Builder', idx: 3, playerName: 'Bob#2000', userId: 'B-1HFFLI28NN', platformName: 'STEAM' },
      ],
      unparsed: [],
    });
  });

  it('takes a BOM, CRLF and NUL as framing, and reads non-Latin names', () => {
    const parsed = parseConanPlayerList(`\uFEFF${HEADER}\r\n  0 | 玩家 Бродяга | p | u | ${STEAM} | STEAM\r\n\0`);
    expect(parsed.status).toBe('players');
    expect(parsed.players.map((player) => player.name)).toEqual(['玩家 Бродяга']);
  });

  it('says nobody is on for the header alone', () => {
    expect(parseConanPlayerList(`${HEADER}\n`)).toEqual({ status: 'none', players: [], unparsed: [] });
    expect(parseConanPlayerList(HEADER)).toEqual({ status: 'none', players: [], unparsed: [] });
  });

  it('is unrecognised, never "nobody online", when rows are there but none can be read', () => {
    const parsed = parseConanPlayerList(`${HEADER}\n  0 | Pipe | Name | P | u | ${STEAM} | STEAM\n  1 | NoId | p | u | n/a | STEAM\n  2 | Short | p\n`);
    expect(parsed.status).toBe('unrecognised');
    expect(parsed.players).toEqual([]);
    expect(parsed.unparsed.map((odd) => odd.line)).toEqual([`0 | Pipe | Name | P | u | ${STEAM} | STEAM`, '1 | NoId | p | u | n/a | STEAM', '2 | Short | p']);
    expect(parsed.unparsed.every((odd) => odd.reason.length > 0)).toBe(true);
  });

  it('is unrecognised for an answer with neither header nor row', () => {
    expect(parseConanPlayerList('').status).toBe('unrecognised');
    expect(parseConanPlayerList('Too many commands, try again later.').status).toBe('unrecognised');
    expect(parseConanPlayerList('42').status).toBe('unrecognised');
  });

  it('reads the rows it can and lists the others', () => {
    const parsed = parseConanPlayerList(`${HEADER}\n  0 | Good | g | u | ${STEAM} | STEAM\n  x | Bad | b | u | ${STEAM} | STEAM\n`);
    expect(parsed.status).toBe('players');
    expect(parsed.players.map((player) => player.name)).toEqual(['Good']);
    expect(parsed.unparsed).toHaveLength(1);
  });
});
