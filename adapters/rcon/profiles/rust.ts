// Rust over WebRCON. The server answers no WebSocket ping, so `serverinfo` keeps the session alive; chat arrives
// pushed as `Type: "Chat"` messages. Rust can mute a player itself (`mute <steamid>`, `unmute <steamid>`), so a
// muted speaker is muted by the server and their chat is dropped by the game; Rust has no built-in private
// message, so telling a player needs the host's `notifyCommand` template (a plugin's command).

import { rustKick, rustMute, rustUnmute } from '../commandText.js';
import type { RconProfile } from './profile.js';
import { parseRustPlayerList } from './rustLines.js';

export const rustProfile: RconProfile = {
  name: 'rust',
  probeCommand: 'serverinfo',
  transport: { kind: 'webrcon', keepaliveMs: 30_000, keepaliveCommand: 'serverinfo' },
  players: { command: 'playerlist', read: parseRustPlayerList },
  chat: {
    kind: 'webrcon',
    read: (chat) =>
      chat.kind === 'server' ? { kind: 'server', text: chat.text } : { kind: 'player', channel: chat.channel, name: chat.name, steamId: chat.steamId, text: chat.text },
  },
  commandIds: ['steam'],
  commands: {
    kick: (id, reason) => rustKick(id, reason),
    mute: (steamId) => rustMute(steamId),
    unmute: (steamId) => rustUnmute(steamId),
  },
};
