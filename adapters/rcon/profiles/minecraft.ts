// Minecraft (Java). RCON carries no chat: chat is written only to `logs/latest.log` (rolled to
// `logs/YYYY-MM-DD-N.log.gz` at each start and at midnight, a new latest.log begun: the log reader follows a file
// replaced under its name), so `logFile` is required. Chat lines carry names only: `list uuids` maps a name to the
// player's Mojang id, and the log's own `UUID of player <name> is <uuid>` line teaches it as a player logs in. GSA
// knows Mojang ids only through its System API, so the bridge looks these players up there (mojangLookup).
// RCON is Source framing with no mirror (the server answers an empty RESPONSE_VALUE with nothing useful), replies
// are split at 4096 characters, and every packet goes in one socket write (the Source client always does). A muted
// speaker gets `tellraw <name> {"text":"<alert>","color":"red"}`; there is no vanilla mute (a plugin's through
// muteCommand). It must never address a name that fails Minecraft's name rule, nor read chat from RCON.
import { MINECRAFT_TEXT_RULES, minecraftTellraw } from '../commandText.js';
import { minecraftMessageOf, parseMinecraftLogLine, parseMinecraftPlayerList } from './minecraftLines.js';
import type { RconChatLine, RconProfile } from './profile.js';

function chatLineOf(line: string): RconChatLine {
  const parsed = parseMinecraftLogLine(line);
  switch (parsed.kind) {
    case 'player':
      return { kind: 'player', channel: parsed.channel, name: parsed.name, text: parsed.text };
    case 'uuid':
      return { kind: 'roster', learned: { name: parsed.name, mojangId: parsed.mojangId } };
    case 'join':
    case 'leave':
      return { kind: 'roster' };
    case 'server':
      return { kind: 'server', text: parsed.text };
    case 'unparsed':
      return { kind: 'unparsed', reason: parsed.reason };
    case 'other':
      return { kind: 'ignored' };
  }
}

export const minecraftProfile: RconProfile = {
  name: 'minecraft',
  options: { logFile: 'required', chatPattern: 'optional' },
  probeCommand: 'list uuids',
  transport: {
    kind: 'source',
    // No mirror: a reply ends with its first packet under the 4096-character split, else after a quiet time.
    replyEnd: { kind: 'quiet', quietMs: 100, endsBelowBodyBytes: 4096 },
    maxInFlight: 1,
    rateCap: { commands: 10, perMs: 1_000 },
    keepaliveIntervalMs: 0,
  },
  defaultPort: 25575,
  players: { command: 'list uuids', read: parseMinecraftPlayerList },
  chat: {
    logFile: { newReader: () => chatLineOf, messageOf: minecraftMessageOf, example: 'logs/latest.log' },
  },
  // Commands address names (tellraw); the Mojang id is for the service and a host's {playerId}.
  commandIds: [],
  needsSystemApi: "Minecraft players have Mojang ids, which GSA's mod API cannot check for a mute; only GSA's System API can",
  commands: {
    tellByName: (name, text) => minecraftTellraw(name, text),
  },
  textRules: MINECRAFT_TEXT_RULES,
};
