// Each RCON profile names a chat line's channel in the one vocabulary (global, local, team, squad, tribe, clan,
// admin, other), from the game's own values: Squad's Chat* tags, Rust's ConVar.Chat.ChatChannel numbers (unknown
// numbers are `other`), ARK's GetChat (no channel: global). The bridge gates by these names.
import { describe, expect, it } from 'vitest';
import { arkProfile } from '../../adapters/rcon/profiles/ark.js';
import type { RconChatLine } from '../../adapters/rcon/profiles/profile.js';
import { rustProfile } from '../../adapters/rcon/profiles/rust.js';
import { parseRustChat } from '../../adapters/rcon/profiles/rustLines.js';
import { squadProfile } from '../../adapters/rcon/profiles/squad.js';

const EOS = '0002aaaaaaaaaaaaaaaaaaaaaaaaaaa1';
const STEAM = '76561198000000001';

function channelOf(line: RconChatLine | readonly RconChatLine[]): string | undefined {
  const first = Array.isArray(line) ? (line as readonly RconChatLine[])[0] : (line as RconChatLine);
  return first?.kind === 'player' ? first.channel : undefined;
}

describe('chat channels of the RCON profiles', () => {
  it.each([
    ['ChatAll', 'global'],
    ['ChatTeam', 'team'],
    ['ChatSquad', 'squad'],
    ['ChatAdmin', 'admin'],
  ])('squad: %s is %s', (tag, channel) => {
    if (squadProfile.chat.console?.kind !== 'pushed') throw new Error('squad chat is pushed');
    expect(channelOf(squadProfile.chat.console.read(`[${tag}] [Online IDs:EOS: ${EOS} steam: ${STEAM}] Name : hello`, () => undefined))).toBe(channel);
  });

  it.each([
    [0, 'global'],
    [1, 'team'],
    [3, 'other'],
    [4, 'local'],
    [5, 'clan'],
    [6, 'other'],
    [7, 'other'],
    [42, 'other'],
  ])('rust: Channel %i is %s', (number, channel) => {
    if (rustProfile.chat.console?.kind !== 'webrcon') throw new Error('rust chat is webrcon');
    const parsed = parseRustChat(JSON.stringify({ Channel: number, Message: 'hello', UserId: STEAM, Username: 'Name' }));
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(channelOf(rustProfile.chat.console.read(parsed.chat))).toBe(channel);
  });

  it("rust: Channel 2 is the server's own line, never a player's", () => {
    if (rustProfile.chat.console?.kind !== 'webrcon') throw new Error('rust chat is webrcon');
    const parsed = parseRustChat(JSON.stringify({ Channel: 2, Message: 'restart soon', UserId: STEAM, Username: 'SERVER' }));
    if (!parsed.ok) throw new Error(parsed.reason);
    expect(rustProfile.chat.console.read(parsed.chat)).toEqual({ kind: 'server', text: 'restart soon' });
  });

  it('ark: GetChat carries no channel, so every player line is global', () => {
    if (arkProfile.chat.console?.kind !== 'poll') throw new Error('ark chat is polled');
    expect(channelOf(arkProfile.chat.console.read('Some Name (Rex): hello\n', ['Some Name']))).toBe('global');
  });
});
