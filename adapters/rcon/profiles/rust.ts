// Rust over WebRCON. The server answers no WebSocket ping, so `serverinfo` keeps the session alive; chat arrives
// pushed as `Type: "Chat"` messages. Rust can mute a player itself (`mute <steamid>`, `unmute <steamid>`), so a
// muted speaker is muted by the server and their chat is dropped by the game; Rust has no built-in private
// message, so telling a player needs the host's `notifyCommand` template (a plugin's command).

import type { ChatChannel } from '../../../src/bridge/port.js';
import { RUST_TEXT_RULES, rustKick, rustMute, rustUnmute } from '../commandText.js';
import type { RconProfile } from './profile.js';
import { parseRustPlayerList, type RustChatChannel } from './rustLines.js';

/**
 * Rust's chat channels in the one vocabulary (interfaces.md, "Chat channels"). rustLines.ts names the WebRCON
 * `Channel` numbers by the game's own enum, `ConVar.Chat.ChatChannel` in RustDedicated's Assembly-CSharp:
 * Global = 0, Team = 1, Server = 2, Cards = 3, Local = 4, Clan = 5, ExternalDM = 6, MaxValue = 6 (decompiled
 * server code, github.com/SeiferUwU/RustServerManaged `ConVar/Chat.cs` @ 715fe402, whose sayAs() passes the value
 * to Oxide's IOnPlayerChat hook and records it as the ChatEntry's Channel that RCon.Broadcast sends; older builds
 * end earlier: Global … Local in github.com/Ailtop/RustDocuments @ 08895ffa, … Clan, MaxValue in
 * github.com/MillionthOdin16/RustChangelog @ 36a2af88, Dec 2023). Server (2) lines are the server's own and never
 * reach here as a player's. Cards (card-table chat), ExternalDM and any number Rust adds later (`channel-<n>`)
 * are `other`.
 */
function channelOf(channel: RustChatChannel): ChatChannel {
  switch (channel) {
    case 'global':
      return 'global';
    case 'team':
      return 'team';
    case 'local':
      return 'local';
    case 'clan':
      return 'clan';
    default:
      return 'other';
  }
}

export const rustProfile: RconProfile = {
  name: 'rust',
  options: { enforceMute: 'optional' },
  probeCommand: 'serverinfo',
  transport: { kind: 'webrcon', keepaliveMs: 30_000, keepaliveCommand: 'serverinfo' },
  players: { command: 'playerlist', read: parseRustPlayerList },
  chat: {
    console: {
      kind: 'webrcon',
      read: (chat) =>
        chat.kind === 'server'
          ? { kind: 'server', text: chat.text }
          : { kind: 'player', channel: channelOf(chat.channel), name: chat.name, steamId: chat.steamId, text: chat.text },
    },
  },
  commandIds: ['steam'],
  commands: {
    kick: (id, reason) => rustKick(id, reason),
    // The server's `kick` answers "Player not found" when nobody online has that Steam64.
    kickRefused: /player not found/i,
    mute: (steamId) => rustMute(steamId),
    unmute: (steamId) => rustUnmute(steamId),
  },
  textRules: RUST_TEXT_RULES,
};
