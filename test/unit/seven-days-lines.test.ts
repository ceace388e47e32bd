// The 7 Days to Die console parsers (adapters/rcon/profiles/sevenDaysLines.ts) on the formats the game prints and on
// hostile input: names with quotes, colour codes, commas and `': `; platform ids of every kind; mod re-emits; lp rows
// that cannot be read (never "nobody online"); and input that must never throw.
import { describe, expect, it } from 'vitest';
import {
  isSevenDaysLogLine,
  parseSevenDaysChat,
  parseSevenDaysPlayerList,
  parseSevenDaysPresence,
  splitSevenDaysLogLine,
} from '../../adapters/rcon/profiles/sevenDaysLines.js';

const P = '2021-09-15T20:42:00 1103.462 INF ';
const STEAM = '76561198145251396';
const EOS = '0002bfc568d6401ca9de387e0ae914c9';

describe('parseSevenDaysChat', () => {
  it('reads a Steam player on Global chat', () => {
    expect(parseSevenDaysChat(`${P}Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): 'Lake': the quick brown fox\r`)).toEqual({
      kind: 'player',
      channel: 'global',
      gameChannel: 'Global',
      name: 'Lake',
      platformId: `Steam_${STEAM}`,
      steamId: STEAM,
      entityId: 171,
      text: 'the quick brown fox',
    });
  });

  it.each([
    ['Party', 'team'],
    ['Friends', 'other'],
    ['Guild', 'other'],
    ['Whisper', 'other'],
  ])('maps the %s channel to %s', (gameChannel, channel) => {
    expect(parseSevenDaysChat(`${P}Chat (from 'Steam_${STEAM}', entity id '171', to '${gameChannel}'): 'A': b`)).toMatchObject({ kind: 'player', channel, gameChannel });
  });

  it.each([
    [`XBL_2535400000000000`, {}],
    [`PSN_1234567890`, {}],
    [`EOS_${EOS.toUpperCase()}`, { eosId: EOS }],
    [STEAM, { steamId: STEAM }],
    ['Steam_123', {}],
    ['Local_Player', {}],
  ])('keeps the platform id %s as printed, with only the ids it really carries', (from, ids) => {
    const parsed = parseSevenDaysChat(`${P}Chat (from '${from}', entity id '9', to 'Global'): 'N': t`);
    expect(parsed.kind).toBe('player');
    if (parsed.kind !== 'player') return;
    expect(parsed.platformId).toBe(from);
    expect({ steamId: parsed.steamId, eosId: parsed.eosId }).toEqual({ steamId: undefined, eosId: undefined, ...ids });
  });

  it('reads names with quotes, brackets, colour codes and commas, and text holding the separator', () => {
    expect(parseSevenDaysChat(`${P}Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): '[94CBFF]O'Brien, [Clan][-]': hi ': there: 'x'`)).toMatchObject({
      kind: 'player',
      name: "[94CBFF]O'Brien, [Clan][-]",
      text: "hi ': there: 'x'",
    });
  });

  it("splits at the listed name when the name itself holds `': `", () => {
    const line = `${P}Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): 'a': b': hello`;
    expect(parseSevenDaysChat(line)).toMatchObject({ name: 'a', text: "b': hello" });
    expect(parseSevenDaysChat(line, (id) => (id === 171 ? "a': b" : undefined))).toMatchObject({ name: "a': b", text: 'hello' });
  });

  it('keeps an empty message', () => {
    expect(parseSevenDaysChat(`${P}Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): 'Lake': `)).toMatchObject({ kind: 'player', name: 'Lake', text: '' });
    expect(parseSevenDaysChat(`${P}Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): 'Lake':`)).toMatchObject({ kind: 'player', name: 'Lake', text: '' });
  });

  it('reads a V1.0 line without a name: all of it is text, the name is the listed one or empty', () => {
    const line = `2024-07-21T15:44:58 26527.982 INF Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): kusa`;
    expect(parseSevenDaysChat(line)).toMatchObject({ kind: 'player', name: '', text: 'kusa', entityId: 171, steamId: STEAM });
    expect(parseSevenDaysChat(line, () => 'Aona')).toMatchObject({ name: 'Aona', text: 'kusa' });
  });

  it('reads -non-player- lines as the server, with or without a name part', () => {
    expect(parseSevenDaysChat(`${P}Chat (from '-non-player-', entity id '-1', to 'Global'): 'Server': restart in 5`)).toEqual({ kind: 'server', text: 'restart in 5' });
    expect(parseSevenDaysChat(`${P}Chat (from '-non-player-', entity id '-1', to 'Global'): restart in 5`)).toEqual({ kind: 'server', text: 'restart in 5' });
  });

  it('drops a mod re-emit as a duplicate, whatever follows it', () => {
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'CSMM Patrons': Chat (from 'Steam_${STEAM}', entity id '549', to 'Global'): /ping`)).toEqual({ kind: 'duplicate', mod: 'CSMM Patrons' });
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'x': anything`)).toMatchObject({ kind: 'duplicate' });
  });

  it('tells other log lines from chat it cannot read', () => {
    expect(parseSevenDaysChat(`${P}GMSG: Player 'Lake' left the game`)).toEqual({ kind: 'other' });
    expect(parseSevenDaysChat(`${P}Chat system initialised`)).toEqual({ kind: 'other' });
    expect(parseSevenDaysChat(`Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): 'A': no prefix`)).toEqual({ kind: 'other' });
    expect(parseSevenDaysChat(`${P}Chat (from 'Steam_${STEAM}', entity id 'x', to 'Global'): 'A': b`)).toMatchObject({ kind: 'unparsed' });
    expect(parseSevenDaysChat(`${P}Chat: 'Lake': A17 line`)).toMatchObject({ kind: 'unparsed' });
    expect(parseSevenDaysChat(`${P}Chat (from '', entity id '1', to 'Global'): 'A': b`)).toMatchObject({ kind: 'unparsed' });
  });

  it('never throws, whatever it is given', () => {
    const inputs = ['', '\0', P, `${P}Chat (`, `${P}Chat (from '`, `${P}Chat handled by mod '`, "'".repeat(10_000), `${P}${'Chat (from '.repeat(500)}`];
    for (let seed = 1; seed < 300; seed++) {
      const chars = [`${P}Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): `, "'", ': ', '\r', '\n', '[-]', ',', 'é', '🎮', '-non-player-'];
      let text = '';
      for (let step = 0; step < 12; step++) text += chars[(seed * 31 + step * 17) % chars.length] ?? '';
      inputs.push(text);
    }
    for (const input of inputs) {
      expect(() => parseSevenDaysChat(input, () => "'")).not.toThrow();
      expect(() => parseSevenDaysPresence(input)).not.toThrow();
      expect(() => parseSevenDaysPlayerList(input)).not.toThrow();
    }
  });
});

describe('log lines', () => {
  it('tells pushed log lines from answers', () => {
    expect(isSevenDaysLogLine(`${P}Time: 1.0m`)).toBe(true);
    expect(isSevenDaysLogLine('2021-09-15T20:42:00 1103.462 WRN x')).toBe(true);
    expect(isSevenDaysLogLine('Total of 1 in the game')).toBe(false);
    expect(isSevenDaysLogLine("0. id=171, 2021-09-15T20:42:00 1103.462 INF , pos=(")).toBe(false);
    expect(splitSevenDaysLogLine(`${P}Hello\r`)).toEqual({ timestamp: '2021-09-15T20:42:00', uptimeSeconds: 1103.462, level: 'INF', message: 'Hello' });
  });
});

const row = (index: number, id: number, name: string, tail: string): string =>
  `${index}. id=${id}, ${name}, pos=(-1022.3, 61.1, 1384.8), rot=(-21.1, -149.1, 0.0), remote=True, health=92, deaths=0, zombies=0, players=0, score=0, level=1, ${tail}, ip=10.0.0.1, ping=0`;

describe('parseSevenDaysPlayerList', () => {
  it('reads rows with pltfmid and crossid, and names holding commas and fake fields', () => {
    const hostile = 'Bob, pos=(1, 2, 3), pltfmid=Steam_76561198000000009, crossid=EOS_ffffffffffffffffffffffffffffffff';
    const answer = [
      row(0, 171, 'Aona Suzutsuki', `pltfmid=Steam_${STEAM}, crossid=EOS_${EOS.toUpperCase()}`),
      row(1, 172, hostile, 'pltfmid=XBL_2535400000000000, crossid=EOS_00027c24c9be4607b57f74c1689fa7c5'),
      'Total of 2 in the game',
    ].join('\r\n');
    expect(parseSevenDaysPlayerList(answer)).toEqual({
      status: 'players',
      players: [
        { name: 'Aona Suzutsuki', entityId: 171, platformId: `Steam_${STEAM}`, steamId: STEAM, eosId: EOS },
        { name: hostile, entityId: 172, platformId: 'XBL_2535400000000000', eosId: '00027c24c9be4607b57f74c1689fa7c5' },
      ],
      unparsed: [],
    });
  });

  it('reads A19 rows (steamid=) and skips log lines among the rows', () => {
    const answer = [`${P}Executing command 'lp' by Telnet from 127.0.0.1:5000`, row(0, 171, 'Halp', `steamid=${STEAM}`), 'Total of 1 in the game'].join('\n');
    expect(parseSevenDaysPlayerList(answer)).toEqual({ status: 'players', players: [{ name: 'Halp', entityId: 171, platformId: STEAM, steamId: STEAM }], unparsed: [] });
  });

  it('says none only for Total of 0', () => {
    expect(parseSevenDaysPlayerList('Total of 0 in the game\r\n')).toEqual({ status: 'none', players: [], unparsed: [] });
  });

  it('is unrecognised when rows cannot be read, the total does not match, or there is no total: never "nobody online"', () => {
    expect(parseSevenDaysPlayerList('0. garbage\nTotal of 1 in the game').status).toBe('unrecognised');
    expect(parseSevenDaysPlayerList(`${row(0, 171, 'A', 'ip2=1')}\nTotal of 1 in the game`)).toMatchObject({ status: 'unrecognised', unparsed: [{ reason: 'a player row without pltfmid= or steamid=' }] });
    expect(parseSevenDaysPlayerList(`${row(0, 171, 'A', `pltfmid=Steam_${STEAM}`)}\nTotal of 2 in the game`).status).toBe('unrecognised');
    expect(parseSevenDaysPlayerList(row(0, 171, 'A', `pltfmid=Steam_${STEAM}`)).status).toBe('unrecognised');
    expect(parseSevenDaysPlayerList("*** ERROR: unknown command 'lp'").status).toBe('unrecognised');
    expect(parseSevenDaysPlayerList('Total of 0 in the game\n0. id=1, x').status).toBe('unrecognised');
  });

  it('is no-response for an empty answer', () => {
    expect(parseSevenDaysPlayerList('').status).toBe('no-response');
    expect(parseSevenDaysPlayerList('\r\n\r\n').status).toBe('no-response');
  });
});

describe('parseSevenDaysPresence', () => {
  it('reads a join with PltfmId and CrossId, and a name with quotes and commas', () => {
    expect(
      parseSevenDaysPresence(
        `${P}PlayerSpawnedInWorld (reason: JoinMultiplayer, position: 1873, 66, 347): EntityID=171, PltfmId='Steam_${STEAM}', CrossId='EOS_${EOS}', OwnerID='Steam_${STEAM}', PlayerName='O'Brien, the'`,
      ),
    ).toEqual({ kind: 'join', entityId: 171, platformId: `Steam_${STEAM}`, steamId: STEAM, eosId: EOS, name: "O'Brien, the" });
  });

  it('reads an A16 join (PlayerID) and a leave; other spawns are not joins', () => {
    expect(parseSevenDaysPresence(`${P}PlayerSpawnedInWorld (reason: JoinMultiplayer, position: -3121, 91, 1078): EntityID=171, PlayerID='${STEAM}', OwnerID='${STEAM}', PlayerName='Halp'`)).toEqual({
      kind: 'join',
      entityId: 171,
      platformId: STEAM,
      steamId: STEAM,
      name: 'Halp',
    });
    expect(parseSevenDaysPresence(`${P}Player disconnected: EntityID=171, PltfmId='XBL_123456abcdef', CrossId='EOS_${EOS}', OwnerID='Steam_${STEAM}', PlayerName='Catalysm'`)).toEqual({
      kind: 'leave',
      entityId: 171,
      platformId: 'XBL_123456abcdef',
      eosId: EOS,
      name: 'Catalysm',
    });
    expect(parseSevenDaysPresence(`${P}PlayerSpawnedInWorld (reason: Teleport, position: 1, 2, 3): EntityID=171, PltfmId='Steam_${STEAM}'`)).toEqual({ kind: 'other' });
    expect(parseSevenDaysPresence(`${P}Player disconnected: EntityID=-1, PltfmId='', CrossId='', OwnerID='', PlayerName=''`)).toEqual({ kind: 'other' });
  });
});
