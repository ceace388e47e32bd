// Squad's pushed chat lines and ListPlayers answer, read into chat events and players. The samples follow the
// shapes SquadJS reads (Team-Silver-Sphere/SquadJS squad-server/rcon.js, core/id-parser.js) and real captures
// published with Squad tools (the two spaces after `Name:`, the disconnected section with `Since Disconnect`).
import { describe, expect, it } from 'vitest';
import { parseSquadPlayerList, parseSquadPush } from '../../adapters/rcon/profiles/squadLines.js';

const EOS = '0002a10186d9414496bf20d22d3860ba';
const STEAM = '76561198012345678';
const steam = (n: number): string => `765611980${String(n).padStart(8, '0')}`;
const eos = (n: number): string => `0002${String(n).padStart(28, '0')}`;

describe('parseSquadPush: chat', () => {
  it.each(['ChatAll', 'ChatTeam', 'ChatSquad', 'ChatAdmin'] as const)('reads a %s line with both ids', (channel) => {
    expect(parseSquadPush(`[${channel}] [Online IDs:EOS: ${EOS} steam: ${STEAM}] TestPlayer : Hello world`)).toEqual({
      kind: 'chat',
      channel,
      eosId: EOS,
      steamId: STEAM,
      name: 'TestPlayer',
      text: 'Hello world',
    });
  });

  it('reads a line with only an EOS id (a player without Steam), uppercase hex lowercased', () => {
    expect(parseSquadPush(`[ChatAll] [Online IDs:EOS: ${EOS.toUpperCase()}] Console Player : gg`)).toEqual({
      kind: 'chat',
      channel: 'ChatAll',
      eosId: EOS,
      name: 'Console Player',
      text: 'gg',
    });
  });

  it('strips only the packet framing: an empty message keeps its separator', () => {
    expect(parseSquadPush(`[ChatAll] [Online IDs:EOS: ${EOS} steam: ${STEAM}] A : \0\n`)).toMatchObject({ name: 'A', text: '' });
    expect(parseSquadPush(`[ChatAll] [Online IDs:EOS: ${EOS} steam: ${STEAM}] A :  two  spaces `)).toMatchObject({ text: ' two  spaces ' });
  });

  it('reads odd names: spaces, parentheses, colons, brackets, non-ASCII', () => {
    const names = ['[TAG] Sgt. Pepper', 'Bob (the builder)', 'x:y', '<(^^<) pixlcrashr', '何意味山炮团-Jack杰克', 'a ]b['];
    for (const name of names) {
      expect(parseSquadPush(`[ChatTeam] [Online IDs:EOS: ${EOS} steam: ${STEAM}] ${name} : !review 5 Great : admins`)).toMatchObject({
        name,
        text: '!review 5 Great : admins',
      });
    }
  });

  it('splits a name containing " : " at the first separator, or by the name the player list holds for the id', () => {
    const line = `[ChatAll] [Online IDs:EOS: ${EOS} steam: ${STEAM}] Mr : Colon : hello`;
    expect(parseSquadPush(line)).toMatchObject({ name: 'Mr', text: 'Colon : hello' });
    const knownName = (id: string): string | undefined => (id === EOS ? 'Mr : Colon' : undefined);
    expect(parseSquadPush(line, knownName)).toMatchObject({ name: 'Mr : Colon', text: 'hello' });
    // A stale hint that does not fit the line falls back to the first separator.
    expect(parseSquadPush(line, () => 'Someone Else')).toMatchObject({ name: 'Mr', text: 'Colon : hello' });
  });

  it('passes over the other notices quietly', () => {
    for (const body of [
      `[Online Ids:EOS: ${EOS} steam: ${STEAM}] Admin has possessed admin camera.`,
      'Remote admin has warned player Bob. Message was "stop"',
      `Kicked player 3. [Online IDs=EOS: ${EOS} steam: ${STEAM}] Bob`,
      `Bob (Online IDs: EOS: ${EOS} steam: ${STEAM}) has created Squad 1 (Squad Name: Alpha) on USA`,
      '',
    ]) {
      expect(parseSquadPush(body)).toEqual({ kind: 'other' });
    }
  });

  it('reads the chat lines of Squad before v7: a [SteamID:…] tag instead of the online ids', () => {
    expect(parseSquadPush('[ChatAll] [SteamID:76561197989362395] ✯RAIDR✯creaman : text')).toEqual({
      kind: 'chat',
      channel: 'ChatAll',
      steamId: '76561197989362395',
      name: '✯RAIDR✯creaman',
      text: 'text',
    });
    // The first v7 builds printed the EOS id in that tag (SquadJS rewrote such lines, core/rcon.js history).
    expect(parseSquadPush(`[ChatSquad] [SteamID:${EOS.toUpperCase()}] Bob : hi`)).toEqual({ kind: 'chat', channel: 'ChatSquad', eosId: EOS, name: 'Bob', text: 'hi' });
    expect(parseSquadPush('[ChatAll] [SteamID:12345] Bob : hi')).toMatchObject({ kind: 'unparsed', reason: expect.stringContaining('id') as unknown });
  });

  it("reads the server's own line in a chat channel as a notice, never as a player's chat", () => {
    expect(parseSquadPush('[ChatAdmin] ASQKillDeathRuleset : Player X Team Killed Player Y')).toEqual({
      kind: 'other',
      notice: { channel: 'ChatAdmin', sender: 'ASQKillDeathRuleset', text: 'Player X Team Killed Player Y' },
    });
  });

  it('reports a chat line it cannot read, with a reason', () => {
    expect(parseSquadPush('[ChatAll] Bob : hi')).toMatchObject({ kind: 'unparsed' });
    expect(parseSquadPush(`[ChatAll] [Online IDs:EOS: xyz steam: 123] Bob : hi`)).toMatchObject({ kind: 'unparsed', reason: expect.stringContaining('id') as unknown });
    expect(parseSquadPush(`[ChatAll] [Online IDs:EOS: ${EOS}] Bob says hi`)).toMatchObject({ kind: 'unparsed', reason: expect.stringContaining('" : "') as unknown });
  });
});

const ACTIVE = '----- Active Players -----';
const DISCONNECTED = '----- Recently Disconnected Players [Max of 15] -----';
const row = (slot: number, ids: string, name: string, team = '1', squad = 'N/A', leader = 'False', role = 'USA_Rifleman_01'): string =>
  `ID: ${slot} | Online IDs: ${ids} | Name: ${name} | Team ID: ${team} | Squad ID: ${squad} | Is Leader: ${leader} | Role: ${role}`;

describe('parseSquadPlayerList', () => {
  it('reads the active players and ignores the recently disconnected ones', () => {
    const answer = [
      ACTIVE,
      'ID: 3 | Online IDs: EOS: 0002fac23f7e47a682750a2b969b3701 steam: 76561198080109192 | Name:  ComboAz | Team ID: 1 | Squad ID: N/A | Is Leader: False | Role: INS_Sapper_01',
      'ID: 12 | Online IDs: EOS: 0002d291d3f04069b0f5d3f11be15888 steam: 76561198012236668 | Name:  JO Diabolo | Team ID: 1 | Squad ID: 1 | Is Leader: True | Role: INS_Grenadier_01',
      DISCONNECTED,
      'ID: 13 | Online IDs: EOS: 00025153363e436bbc1c97879b9138f3 steam: 76561199178518625 | Since Disconnect: 01m.32s | Name:  pennytide13951',
      '',
    ].join('\n');
    expect(parseSquadPlayerList(answer)).toEqual({
      status: 'players',
      players: [
        { eosId: '0002fac23f7e47a682750a2b969b3701', steamId: '76561198080109192', name: 'ComboAz', slot: 3, teamId: 1, squadId: null },
        { eosId: '0002d291d3f04069b0f5d3f11be15888', steamId: '76561198012236668', name: 'JO Diabolo', slot: 12, teamId: 1, squadId: 1 },
      ],
      unparsed: [],
    });
  });

  it('reads odd names, including pipes and the words of a field', () => {
    const names = ['<(^^<) pixlcrashr', 'a | b', 'x: y (z) [w]', '駒井健一郎', 'Name | Team ID: 9 | x', 'trailing  '];
    const answer = [ACTIVE, ...names.map((name, index) => row(index, `EOS: ${eos(index)} steam: ${steam(index)}`, name)), DISCONNECTED].join('\n');
    const parsed = parseSquadPlayerList(answer);
    expect(parsed.unparsed).toEqual([]);
    expect(parsed.players.map((player) => player.name)).toEqual(names.map((name) => name.trim()));
  });

  it('reads rows with only an EOS id, N/A teams, and the pre-v7 SteamID rows without leader and role', () => {
    const answer = [
      ACTIVE,
      row(0, `EOS: ${eos(0)}`, 'EOS Only', 'N/A', 'N/A'),
      `ID: 1 | SteamID: ${steam(1)} | Name: (WTH) Heidegger | Team ID: 2 | Squad ID: 4`,
      DISCONNECTED,
    ].join('\r\n');
    expect(parseSquadPlayerList(answer).players).toEqual([
      { eosId: eos(0), name: 'EOS Only', slot: 0, teamId: null, squadId: null },
      { steamId: steam(1), name: '(WTH) Heidegger', slot: 1, teamId: 2, squadId: 4 },
    ]);
  });

  it('says nobody is online when the headers come with no rows', () => {
    expect(parseSquadPlayerList(`${ACTIVE}\n${DISCONNECTED}\n`)).toEqual({ status: 'none', players: [], unparsed: [] });
    expect(parseSquadPlayerList(`${ACTIVE}\n`)).toEqual({ status: 'none', players: [], unparsed: [] });
  });

  it('marks an empty or foreign answer unrecognised, so it is not taken as "everybody left"', () => {
    expect(parseSquadPlayerList('').status).toBe('unrecognised');
    expect(parseSquadPlayerList('Unknown command').status).toBe('unrecognised');
  });

  it('collects rows it cannot read, with a reason', () => {
    const answer = [ACTIVE, row(0, 'EOS: nothex steam: 1', 'Bad ids'), 'ID: 1 | Name: S | Squad: 3 | Role: X', row(2, `EOS: ${eos(2)}`, 'Good'), DISCONNECTED].join('\n');
    const parsed = parseSquadPlayerList(answer);
    expect(parsed.players.map((player) => player.name)).toEqual(['Good']);
    expect(parsed.unparsed).toHaveLength(2);
    expect(parsed.unparsed.every((line) => line.reason.length > 0)).toBe(true);
  });

  it('reads the current rows, with Party ID between Team ID and Squad ID and a trailing Vehicle', () => {
    const answer = [
      ACTIVE,
      `ID: 0 | Online IDs: EOS: ${eos(0)} steam: ${steam(0)} | Name: Bob | Team ID: 1 | Party ID: N/A | Squad ID: 1 | Is Leader: True | Role: USA_SL_01 | Vehicle: N/A`,
      `ID: 14 | Online IDs: EOS: ${eos(14)} | Name:  grey275 | Team ID: 2 | Party ID: #0 | Squad ID: N/A | Is Leader: False | Role: MEI_Rifleman_01 | Vehicle: minsk400 (Driver)`,
      `ID: 8 | Online IDs: EOS: ${eos(8)} steam: ${steam(8)} | Name: [TAG] Nick | Party ID: 3 | Team ID: 1 | Party ID: 12 | Squad ID: 4 | Is Leader: False | Role: USA_Rifleman_01 | Vehicle: BAF_LPPV (Driver)`,
      `ID: 9 | Online IDs: EOS: ${eos(9)} | Name: КУНГФУ ПАДЛА | Team ID: N/A | Party ID: N/A | Squad ID: N/A | Is Leader: False | Role: IMF_Rifleman_01 | Vehicle: N/A`,
      DISCONNECTED,
      `ID: 7 | Online IDs: EOS: ${eos(7)} | Since Disconnect: 00m.30s | Name: gone`,
    ].join('\r\n');
    expect(parseSquadPlayerList(answer)).toEqual({
      status: 'players',
      players: [
        { eosId: eos(0), steamId: steam(0), name: 'Bob', slot: 0, teamId: 1, squadId: 1 },
        { eosId: eos(14), name: 'grey275', slot: 14, teamId: 2, squadId: null },
        { eosId: eos(8), steamId: steam(8), name: '[TAG] Nick | Party ID: 3', slot: 8, teamId: 1, squadId: 4 },
        { eosId: eos(9), name: 'КУНГФУ ПАДЛА', slot: 9, teamId: null, squadId: null },
      ],
      unparsed: [],
    });
  });

  it('is unrecognised, never "nobody online", when the header is there but no row can be read', () => {
    // A layout this parser does not know: every player would otherwise leave on every poll.
    const answer = [ACTIVE, `ID: 0 | Online IDs: EOS: ${eos(0)} | Name: A | Faction: 1 | Group: 2 | Role: X`, `ID: 1 | Online IDs: EOS: nothex | Name: B | Team ID: 1 | Squad ID: 1`, DISCONNECTED].join('\n');
    const parsed = parseSquadPlayerList(answer);
    expect(parsed.status).toBe('unrecognised');
    expect(parsed.players).toEqual([]);
    expect(parsed.unparsed).toHaveLength(2);
    // Rows of the disconnected section are not the active list: they never make it unrecognised.
    expect(parseSquadPlayerList([ACTIVE, DISCONNECTED, 'ID: 2 | Online IDs: EOS: x | Since Disconnect: 01m.00s | Name: gone'].join('\n')).status).toBe('none');
  });

  it('reads a full 100-player list (a multi-packet reply once joined)', () => {
    const rows = Array.from({ length: 100 }, (_, index) =>
      row(index, index % 10 === 0 ? `EOS: ${eos(index)}` : `EOS: ${eos(index)} steam: ${steam(index)}`, `[CLAN${index % 7}] Player ${index}`, String(1 + (index % 2)), index % 3 === 0 ? 'N/A' : String(index % 9), index % 9 === 1 ? 'True' : 'False'),
    );
    const disconnected = Array.from({ length: 15 }, (_, index) => `ID: ${200 + index} | Online IDs: EOS: ${eos(200 + index)} | Since Disconnect: 00m.${index}s | Name: Gone ${index}`);
    const parsed = parseSquadPlayerList([ACTIVE, ...rows, DISCONNECTED, ...disconnected, ''].join('\n'));
    expect(parsed.status).toBe('players');
    expect(parsed.unparsed).toEqual([]);
    expect(parsed.players).toHaveLength(100);
    expect(parsed.players[10]).toEqual({ eosId: eos(10), name: '[CLAN3] Player 10', slot: 10, teamId: 1, squadId: 1 });
    expect(parsed.players[99]).toEqual({ eosId: eos(99), steamId: steam(99), name: '[CLAN1] Player 99', slot: 99, teamId: 2, squadId: null });
  });
});
