// Conan Exiles. Chat is written only to the game's log (`ConanSandbox/Saved/Logs/ConanSandbox.log`, renamed to a
// backup at each start and begun anew with a BOM: the log reader follows it), so `logFile` is required. Current
// lines carry the speaker's Steam64 after the character name, which a player chooses and which can spell out a
// whole fake `(uid 1, player <someone's Steam64>) said: `: so the id counts only where `listplayers` shows it for
// that character, the longest confirmed split wins, and older name-only lines map by character name.
// Conan's RCON answers one command per connection and then closes it, never answers an empty mirror packet, and
// refuses bursts ("Too many commands", RconMaxKarma) or locks RCON out for minutes after a flood: so one short
// session per command, one at a time, at most one every three seconds. The game has no private message and no mute:
// a host with a mod sets notifyCommand (e.g. Pippi's `directmessage`) and muteCommand.

import type { RconChatLine, RconProfile } from './profile.js';
import { conanMessageOf, parseConanLogLine, parseConanPlayerList } from './conanLines.js';

function chatLineOf(line: string): RconChatLine {
  const parsed = parseConanLogLine(line);
  switch (parsed.kind) {
    case 'player':
      // A character name comes before the ids and may spell out another player's: only the list confirms them.
      return {
        kind: 'player',
        channel: parsed.channel,
        name: parsed.name,
        steamId: parsed.steamId,
        text: parsed.text,
        readings: parsed.readings,
        idsFrom: 'list',
      };
    case 'unparsed':
      return { kind: 'unparsed', reason: parsed.reason };
    case 'duplicate':
      // Pippi's copy of a ChatWindow line already read.
      return { kind: 'ignored', echo: true };
    case 'other':
      return { kind: 'ignored' };
  }
}

export const conanProfile: RconProfile = {
  name: 'conan',
  options: { logFile: 'required', chatPattern: 'optional' },
  probeCommand: 'listplayers',
  transport: {
    kind: 'source-per-command',
    // The server closes after its answer: the close ends a reply that has begun, else a short quiet time does.
    replyEnd: { kind: 'quiet', quietMs: 150, endsAtClose: true },
    rateCap: { commands: 1, perMs: 3_000 },
    probeCommand: 'listplayers',
  },
  players: { command: 'listplayers', read: parseConanPlayerList },
  chat: {
    logFile: { newReader: () => chatLineOf, messageOf: conanMessageOf, example: 'ConanSandbox/Saved/Logs/ConanSandbox.log' },
  },
  commandIds: ['steam'],
  // No kick by default: not every host's console takes one by id; a host sets kickCommand (a mod's or the console's).
  commands: {
    // The console's words for a command it does not know, also for the host's kickCommand.
    kickRefused: /^Couldn't find the command/,
  },
  // Unreal's console: the shared cleaning (no `|`, `//`, quotes or line breaks) applies; Unicode reaches the chat.
  textRules: { maxLength: 200, asciiOnly: false, fallback: 'You are muted.' },
};
