// The line parsers against thousands of seeded hostile inputs: they never throw, every player they return has a
// valid id, and what a game would print for hostile names and texts reads back exactly (given the player list,
// for the formats that are ambiguous without it).
import { describe, expect, it } from 'vitest';
import { checkPlayerId } from '../../adapters/rcon/commandText.js';
import { parseArkChat, parseArkPlayerList } from '../../adapters/rcon/profiles/arkLines.js';
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
      const inputs = [text, `0. ${text}, ${id}`, `ID: 1 | Online IDs: EOS: ${id} | Name: ${text} | Team ID: 1 | Squad ID: 1`, `[ChatAll] [Online IDs:EOS: ${id}] ${text}`, `[${text}]`];
      for (const input of inputs) {
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
      expect(arkChat.lines, JSON.stringify(name).slice(0, 80)).toEqual([{ kind: 'player', playerName: name, characterName: 'Survivor', text }]);

      const squadList = parseSquadPlayerList(
        `----- Active Players -----\nID: 7 | Online IDs: EOS: ${eos} steam: ${steam} | Name: ${name} | Team ID: 2 | Squad ID: N/A | Is Leader: False | Role: USA_Rifleman_01\n----- Recently Disconnected Players [Max of 15] -----\n`,
      );
      // Squad rows are trimmed whole, so a name is read back trimmed; a name ending in a field's words can't be told apart.
      if (!/ \| Team ID: /.test(name)) expect(squadList.players, JSON.stringify(name).slice(0, 80)).toEqual([{ eosId: eos, steamId: steam, name, slot: 7, teamId: 2, squadId: null }]);

      const squadChat = parseSquadPush(`[ChatSquad] [Online IDs:EOS: ${eos} steam: ${steam}] ${name} : ${text}`, (id) => (id === eos ? name : undefined));
      expect(squadChat, JSON.stringify(name).slice(0, 80)).toEqual({ kind: 'chat', channel: 'ChatSquad', eosId: eos, steamId: steam, name, text: text.replace(/[\0\r\n]+$/, '') });

      const rustChat = parseRustChat(JSON.stringify({ Channel: 1, Message: text, UserId: steam, Username: name, Color: '#fff', Time: index }));
      expect(rustChat).toEqual({ ok: true, chat: { kind: 'player', channel: 'team', steamId: steam, name, text, time: index } });

      expect(parseRustPlayerList(JSON.stringify([{ SteamID: steam, DisplayName: name }])).players).toEqual([{ steamId: steam, name }]);
    }
  });
});
