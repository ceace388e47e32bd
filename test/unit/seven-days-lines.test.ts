// The 7 Days to Die console parsers (adapters/rcon/profiles/sevenDaysLines.ts) on the formats the game prints and on
// hostile input: names with quotes, colour codes, commas, `':` and `': `; platform ids of every kind; chat mods'
// handled lines and re-broadcasts; first spawns and ClientNumber; lp rows that cannot be read (never "nobody
// online"); and input that must never throw.
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

  it("reads a chat mod's handled line as that player's chat, with or without the name part", () => {
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'CSMM Patrons': Chat (from 'Steam_${STEAM}', entity id '549', to 'Global'): /ping`)).toEqual({
      kind: 'player',
      channel: 'global',
      gameChannel: 'Global',
      name: '',
      platformId: `Steam_${STEAM}`,
      steamId: STEAM,
      entityId: 549,
      text: '/ping',
      handledBy: "mod 'CSMM Patrons'",
    });
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'Botman': Chat (from 'XBL_2535400000000000', entity id '3281', to 'Party'): 'Smegz0r': /rules`)).toMatchObject({
      kind: 'player',
      channel: 'team',
      name: 'Smegz0r',
      platformId: 'XBL_2535400000000000',
      entityId: 3281,
      text: '/rules',
      handledBy: "mod 'Botman'",
    });
    // The V1.0 name rule holds inside it too: the listed name for the entity.
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'ServerTools': Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): hi`, () => 'Lake')).toMatchObject({ name: 'Lake', text: 'hi' });
  });

  it("cleans the mod's name of control and format characters and bounds it; any handler's wording is kept", () => {
    const cleaned = parseSevenDaysChat(`${P}Chat handled by mod 'Evil\u001b[31m\u202eMod${'x'.repeat(200)}': Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): 'A': b`);
    expect(cleaned.kind).toBe('player');
    if (cleaned.kind !== 'player') return;
    expect(cleaned.handledBy).toMatch(/^mod 'Evil\[31mModx+…$/);
    expect(cleaned.handledBy).toHaveLength(64);
    // A Harmony plugin host that logs its own wording (index id 15869006770).
    expect(parseSevenDaysChat(`${P}Chat handled by plugin manager: Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): 'A': b`)).toMatchObject({ kind: 'player', handledBy: 'plugin manager', text: 'b' });
    // A mod name holding the separator's start still ends at the first `: Chat (` (the mod's text, not a player's).
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'a: b': Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): 'A': b`)).toMatchObject({ handledBy: "mod 'a: b'" });
  });

  it("reads a handled line wrapping the server's or a mod's line as the server's, and an unreadable one as unparsed", () => {
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'X': Chat (from '-non-player-', entity id '-1', to 'Global'): 'Server': restart`)).toEqual({ kind: 'server', text: 'restart' });
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'X': Chat (from 'Steam_${STEAM}', entity id '-1', to 'Global'): hello`)).toEqual({ kind: 'server', text: 'hello' });
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'x': anything`)).toMatchObject({ kind: 'unparsed' });
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'x': Chat (garbage`)).toMatchObject({ kind: 'unparsed' });
    expect(parseSevenDaysChat(`${P}Chat handled by mod 'x': Chat: 'A16': line`)).toMatchObject({ kind: 'unparsed' });
  });

  it("reads a player's id with no entity (-1) as a mod speaking through their connection: the server's, never gated", () => {
    // ServerTools re-broadcasts what it handled (and its bot answers) with the player's connection and entity -1.
    expect(parseSevenDaysChat(`${P}Chat (from 'Steam_${STEAM}', entity id '-1', to 'Global'): '[FF0000]Lake[-]': hello`)).toEqual({ kind: 'server', text: 'hello' });
    expect(parseSevenDaysChat(`${P}Chat (from 'Steam_${STEAM}', entity id '-1', to 'Global'): Hello`)).toEqual({ kind: 'server', text: 'Hello' });
  });

  it('reads a -non-player- re-broadcast under any colour codes as the server, its text alone', () => {
    for (const name of ['[FF00FF]Kiro[-]', '[-]', '[B43104]{Server-Auto}[-]', '[ff0000][00ff00]Ki[-]ro[-]', "[c]O'Brien: [-]"]) {
      expect(parseSevenDaysChat(`${P}Chat (from '-non-player-', entity id '-1', to 'Global'): '${name}': @test`)).toEqual({ kind: 'server', text: '@test' });
    }
  });

  it("reads a name with no space after its closing quote, and keeps the listed-name and entity rules", () => {
    const line = (rest: string): string => `${P}Chat (from '${STEAM}', entity id '171', to 'Global'): ${rest}`;
    expect(parseSevenDaysChat(line("'Catalysm':@test"))).toMatchObject({ kind: 'player', name: 'Catalysm', text: '@test', steamId: STEAM });
    expect(parseSevenDaysChat(line("'Catalysm':/test it"))).toMatchObject({ name: 'Catalysm', text: '/test it' });
    expect(parseSevenDaysChat(line("'Lake':  two spaces"))).toMatchObject({ name: 'Lake', text: ' two spaces' });
    // The first `':` ends the name when nothing else is known: a text holding `':` is likelier than a name holding it.
    expect(parseSevenDaysChat(line("'a':b': c"))).toMatchObject({ name: 'a', text: "b': c" });
    // The entity's listed name wins, with or without the space.
    expect(parseSevenDaysChat(line("'a':b':c"), (id) => (id === 171 ? "a':b" : undefined))).toMatchObject({ name: "a':b", text: 'c' });
    // A listed name holding `':` wins over the first `':`; the longest such name when two fit.
    expect(parseSevenDaysChat(line("'x': y': z': hi"), undefined, ["x': y", "x': y': z", 'x'])).toMatchObject({ name: "x': y': z", text: 'hi' });
    expect(parseSevenDaysChat(line("'x': y': hi"), undefined, ['Bob'])).toMatchObject({ name: 'x', text: "y': hi" });
    // A name that looks like another player's id is only a name: the ids come from `from` and `entity id`.
    expect(parseSevenDaysChat(line("'Steam_76561198000000009', entity id '9', to 'Global'): 'Bob': hi"))).toMatchObject({
      platformId: STEAM,
      entityId: 171,
      name: "Steam_76561198000000009', entity id '9', to 'Global'): 'Bob",
      text: 'hi',
    });
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
      const chars = [`${P}Chat (from 'Steam_${STEAM}', entity id '171', to 'Global'): `, "'", ': ', '\r', '\n', '[-]', ',', 'é', '🎮', '-non-player-', `${P}Chat handled by mod '`, "': Chat (", "':", ", ClientNumber='1'"];
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

  it("reads a player's first spawn (EnterMultiplayer) as a join, and names followed by newer builds' ClientNumber", () => {
    expect(
      parseSevenDaysPresence(
        `${P}PlayerSpawnedInWorld (reason: EnterMultiplayer, position: 1080, 61, 1089): EntityID=3812, PltfmId='Steam_${STEAM}', CrossId='EOS_${EOS}', OwnerID='Steam_${STEAM}', PlayerName='Cata lysm', ClientNumber='6'`,
      ),
    ).toEqual({ kind: 'join', entityId: 3812, platformId: `Steam_${STEAM}`, steamId: STEAM, eosId: EOS, name: 'Cata lysm' });
    expect(parseSevenDaysPresence(`${P}Player disconnected: EntityID=171, PltfmId='XBL_1', CrossId='EOS_${EOS}', OwnerID='XBL_1', PlayerName='O'Brien, x', ClientNumber='12'`)).toEqual({
      kind: 'leave',
      entityId: 171,
      platformId: 'XBL_1',
      eosId: EOS,
      name: "O'Brien, x",
    });
    // A name that fakes the tail (or the ids) changes only the name read, never the ids: those come before it.
    expect(
      parseSevenDaysPresence(`${P}PlayerSpawnedInWorld (reason: JoinMultiplayer, position: 1, 2, 3): EntityID=171, PltfmId='Steam_${STEAM}', CrossId='EOS_${EOS}', OwnerID='Steam_${STEAM}', PlayerName='Bob', PltfmId='Steam_76561198000000009', ClientNumber='1'`),
    ).toEqual({ kind: 'join', entityId: 171, platformId: `Steam_${STEAM}`, steamId: STEAM, eosId: EOS, name: "Bob', PltfmId='Steam_76561198000000009" });
    expect(parseSevenDaysPresence(`${P}PlayerSpawnedInWorld (reason: EnterMultiplayer, position: 1, 2, 3): EntityID=5, PltfmId='Steam_${STEAM}', PlayerName='', ClientNumber='1'`)).toMatchObject({ name: '' });
    expect(parseSevenDaysPresence(`${P}PlayerSpawnedInWorld (reason: EnterMultiplayerX, position: 1, 2, 3): EntityID=5, PltfmId='Steam_${STEAM}'`)).toEqual({ kind: 'other' });
  });
});
