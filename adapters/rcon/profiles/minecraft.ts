// Minecraft (Java). RCON carries no chat: chat is written only to `logs/latest.log` (rolled to
// `logs/YYYY-MM-DD-N.log.gz` at each start and at midnight, a new latest.log begun: the log reader follows a file
// replaced under its name), so `logFile` is required. Chat lines carry names only: `list uuids` maps a name to the
// player's Mojang id, and the log's own `UUID of player <name> is <uuid>` line teaches it as a player logs in. GSA
// knows Mojang ids only through its System API, so the bridge looks these players up there (mojangLookup).
// RCON is Source framing with no mirror (the server answers an empty RESPONSE_VALUE with nothing useful), replies
// are split at 4096 characters, and every packet goes in one socket write (the Source client always does). A muted
// speaker gets `tellraw <name> {"text":"<alert>","color":"red"}`; there is no vanilla mute (a plugin's through
// muteCommand). It must never address a name that fails Minecraft's name rule, nor read chat from RCON.
// What the log says reaches the adapter as: chat (`<name> text` from any thread, `/me` of a known name) → a player's
// line; `/say` (the console's, RCON's or an operator's) → the server's, never gated; joins, leaves and login UUID lines
// → roster lines with who came or went; a line that looks like chat but cannot be tied to anyone → unparsed.
import { MINECRAFT_TEXT_RULES, minecraftKick, minecraftTellraw } from '../commandText.js';
import { KnownMinecraftNames, minecraftMessageOf, parseMinecraftLogLine, parseMinecraftPlayerList, type MinecraftLogParse } from './minecraftLines.js';
import type { RconChatLine, RconLineReader, RconProfile } from './profile.js';

/** Most names one reader remembers from login lines; the oldest go first. */
const MAX_SEEN_NAMES = 1_000;

function chatLineOf(parsed: MinecraftLogParse): RconChatLine {
  switch (parsed.kind) {
    case 'player':
      return { kind: 'player', channel: parsed.channel, name: parsed.name, text: parsed.text, ...(parsed.readAs === undefined ? {} : { readAs: parsed.readAs }) };
    case 'uuid':
      return { kind: 'roster', learned: { name: parsed.name, mojangId: parsed.mojangId }, presence: { kind: 'join', name: parsed.name, mojangId: parsed.mojangId } };
    case 'join':
    case 'leave':
      return { kind: 'roster', presence: { kind: parsed.kind, name: parsed.name } };
    case 'server':
      return { kind: 'server', text: parsed.text };
    // An operator's broadcast (`/say` needs operator rights): the server's voice, never gated.
    case 'say':
      return { kind: 'server', text: parsed.text };
    case 'unparsed':
      return { kind: 'unparsed', reason: parsed.reason };
    case 'other':
      return { kind: 'ignored' };
  }
}

/**
 * A reader for one log: besides the names the player list shows, it knows those this log saw log in and not leave
 * (the game's own lines), so a `/me` of a player who joined a moment ago, or in a file read offline, is tied to them.
 */
function newMinecraftReader(): RconLineReader {
  const seen = new Set<string>();
  // Prepared once while neither the list nor the logins change, not once a line.
  let listed: readonly string[] = [];
  let names = new KnownMinecraftNames([]);
  let stale = false;
  const namesWith = (knownNames: readonly string[]): KnownMinecraftNames => {
    if (stale || knownNames.length !== listed.length || knownNames.some((name, index) => name !== listed[index])) {
      listed = [...knownNames];
      names = new KnownMinecraftNames([...listed, ...seen]);
      stale = false;
    }
    return names;
  };
  return (line, knownNames) => {
    const parsed = parseMinecraftLogLine(line, namesWith(knownNames));
    if (parsed.kind === 'uuid' || parsed.kind === 'join') {
      seen.delete(parsed.name);
      seen.add(parsed.name);
      if (seen.size > MAX_SEEN_NAMES) {
        const oldest = seen.values().next().value;
        if (oldest !== undefined) seen.delete(oldest);
      }
      stale = true;
    } else if (parsed.kind === 'leave') {
      stale = seen.delete(parsed.name) || stale;
    }
    return chatLineOf(parsed);
  };
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
    logFile: { newReader: newMinecraftReader, messageOf: minecraftMessageOf, example: 'logs/latest.log' },
  },
  // Commands address names (tellraw); the Mojang id is for the service and a host's {playerId}.
  commandIds: [],
  needsSystemApi: "Minecraft players have Mojang ids, which GSA's mod API cannot check for a mute; only GSA's System API can",
  commands: {
    tellByName: (name, text) => minecraftTellraw(name, text),
    kickByName: (name, reason) => minecraftKick(name, reason),
    // Vanilla's words when the name matches nobody online, and for a command the console does not know.
    kickRefused: /^(No player was found|Unknown or incomplete command)/,
  },
  textRules: MINECRAFT_TEXT_RULES,
};
