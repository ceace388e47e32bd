// The line parsers against thousands of seeded hostile inputs: they never throw, every player they return has a
// valid id, and what a game would print for hostile names and texts reads back exactly (given the player list,
// for the formats that are ambiguous without it).
import { describe, expect, it } from 'vitest';
import { checkPlayerId } from '../../adapters/rcon/commandText.js';
import { parseArkGameLogLine } from '../../adapters/rcon/profiles/arkGameLogLines.js';
import { parseArkChat, parseArkPlayerList } from '../../adapters/rcon/profiles/arkLines.js';
import { parseConanLogLine, parseConanPlayerList } from '../../adapters/rcon/profiles/conanLines.js';
import type { ListedPlayer } from '../../adapters/rcon/profiles/parsedLines.js';
import { parseRustChat, parseRustPlayerList } from '../../adapters/rcon/profiles/rustLines.js';
import { parseSquadPlayerList, parseSquadPush } from '../../adapters/rcon/profiles/squadLines.js';
import { createHostileTextGenerator, seededRandom } from '../fixtures/hostileText.js';

const SEED = 0x9a75e;
const COUNT = 3_000;

/** A game prints a name or a chat text on one line: it cannot hold a line break (or the NUL that ends a C string). */
function oneLine(text: string): string {
  return text.replace(/[\r\n\0]/g, '');
}

function allIdsValid(players: readonly ListedPlayer[]): boolean {
  return players.every(
    (player) =>
      (player.steamId !== undefined || player.eosId !== undefined) &&
      (player.steamId === undefined || checkPlayerId(player.steamId, ['steam']) !== undefined) &&
      (player.eosId === undefined || checkPlayerId(player.eosId, ['eos'])?.id === player.eosId),
  );
}

describe(`parsers on ${COUNT} hostile inputs, seed ${SEED}`, () => {
  it('never throw, and return only players with valid ids', () => {
    const generator = createHostileTextGenerator(SEED);
    for (let index = 0; index < COUNT; index++) {
      const text = generator.text();
      const id = generator.id();
      const inputs = [
        text,
        `0. ${text}, ${id}`,
        `ID: 1 | Online IDs: EOS: ${id} | Name: ${text} | Team ID: 1 | Squad ID: 1`,
        `[ChatAll] [Online IDs:EOS: ${id}] ${text}`,
        `[${text}]`,
        `[2026.06.20-21.06.10:804][ 80]ChatWindow: Character ${text} (uid 1, player ${id}) said: ${text}`,
        `Idx | Char name | Player name | User ID | Platform ID | Platform Name\n 0 | ${text} | p | u | ${id} | STEAM`,
        `[2026.09.13-18.48.40:782][696]2026.09.13_18.48.40: ${text} [UniqueNetId:${id} Platform:None] joined this ARK!`,
      ];
      for (const input of inputs) {
        parseArkGameLogLine(input, [text]);
        parseConanLogLine(input);
        expect(allIdsValid(parseConanPlayerList(input).players)).toBe(true);
        expect(allIdsValid(parseArkPlayerList(input).players)).toBe(true);
        parseArkChat(input, [text]);
        expect(allIdsValid(parseSquadPlayerList(input).players)).toBe(true);
        parseSquadPush(input, () => text);
        parseRustChat(input);
        expect(allIdsValid(parseRustPlayerList(input).players)).toBe(true);
      }
      parseRustChat(JSON.stringify({ Channel: index % 8, Message: text, UserId: id, Username: text }));
      expect(allIdsValid(parseRustPlayerList(JSON.stringify([{ SteamID: id, DisplayName: text }])).players)).toBe(true);
    }
  });

  it('read back what the games print for hostile names and texts', () => {
    const generator = createHostileTextGenerator(SEED + 1);
    const random = seededRandom(SEED + 2);
    const steamId = (): string => `7656119${String(Math.floor(random() * 1e10)).padStart(10, '0')}`;
    const eosId = (): string => Array.from({ length: 32 }, () => '0123456789abcdef'.charAt(Math.floor(random() * 16))).join('');
    for (let index = 0; index < COUNT; index++) {
      // Names as the list shows them: one line, trimmed (the parsers trim list names), not empty.
      const name = oneLine(generator.text()).trim() || 'x';
      const text = oneLine(generator.text());
      const steam = steamId();
      const eos = eosId();

      const ark = parseArkPlayerList(`0. ${name}, ${steam}\n1. ${name}, ${eos}\n`);
      expect(ark.players, JSON.stringify(name).slice(0, 80)).toEqual([{ steamId: steam, name }, { eosId: eos, name }]);

      const arkChat = parseArkChat(`${name} (Survivor): ${text}\n`, [name]);
      // A name or text holding `(x): ` adds readings beside the line's own (the roster weighs them): the own one is the listed name's.
      expect(arkChat.lines, JSON.stringify(name).slice(0, 80)).toMatchObject([{ kind: 'player', playerName: name, characterName: 'Survivor', text }]);

      const squadList = parseSquadPlayerList(
        `----- Active Players -----\nID: 7 | Online IDs: EOS: ${eos} steam: ${steam} | Name: ${name} | Team ID: 2 | Squad ID: N/A | Is Leader: False | Role: USA_Rifleman_01\n----- Recently Disconnected Players [Max of 15] -----\n`,
      );
      // Squad rows are trimmed whole, so a name is read back trimmed; a name ending in a field's words can't be told apart.
      if (!/ \| Team ID: /.test(name)) expect(squadList.players, JSON.stringify(name).slice(0, 80)).toEqual([{ eosId: eos, steamId: steam, name, slot: 7, teamId: 2, squadId: null }]);

      const squadChat = parseSquadPush(`[ChatSquad] [Online IDs:EOS: ${eos} steam: ${steam}] ${name} : ${text}`, (id) => (id === eos ? name : undefined));
      expect(squadChat, JSON.stringify(name).slice(0, 80)).toEqual({ kind: 'chat', channel: 'ChatSquad', eosId: eos, steamId: steam, name, text: text.replace(/[\0\r\n]+$/, '') });

      const arkLog = parseArkGameLogLine(`[2026.09.13-18.48.40:782][696]2026.09.13_18.48.40: ${name} (Survivor): ${text}\r\n`, [name]);
      expect(arkLog, JSON.stringify(name).slice(0, 80)).toMatchObject({ kind: 'player', name, characterName: 'Survivor', text });

      // Conan splits at the first " said: " and trims the name (a name holding it, or "|" in the table, can't be told apart).
      if (!name.includes(' said: ')) {
        const conanChat = parseConanLogLine(`[2026.06.20-21.06.10:804][ 80]ChatWindow: Character ${name} (uid 9, player ${steam}) said: ${text}\r\n`);
        expect(conanChat, JSON.stringify(name).slice(0, 80)).toMatchObject({ kind: 'player', channel: 'global', name, steamId: steam, text });
      }
      if (!name.includes('|')) {
        const conanList = parseConanPlayerList(`Idx | Char name | Player name | User ID | Platform ID | Platform Name\n  0 | ${name} | p | u | ${steam} | STEAM\n`);
        expect(conanList.players, JSON.stringify(name).slice(0, 80)).toEqual([{ steamId: steam, name, idx: 0, playerName: 'p', userId: 'u', platformName: 'STEAM' }]);
      }

      const rustChat = parseRustChat(JSON.stringify({ Channel: 1, Message: text, UserId: steam, Username: name, Color: '#fff', Time: index }));
      expect(rustChat).toEqual({ ok: true, chat: { kind: 'player', channel: 'team', steamId: steam, name, text, time: index } });

      expect(parseRustPlayerList(JSON.stringify([{ SteamID: steam, DisplayName: name }])).players).toEqual([{ steamId: steam, name }]);
    }
  });
});
