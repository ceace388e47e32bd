// 7 Days to Die over its telnet console (default port 8081, plaintext: keep it on loopback). The console pushes the
// server's log to every logged-in client, chat included, so chat is read from that stream and nothing is drained.
// A chat line names its speaker by platform id: `Steam_…` carries the Steam64; `XBL_…` and other platforms map to
// the EOS id (`crossid`) through `lp`. A chat mod's `Chat handled by mod '<mod>': Chat (from …` line is that player's
// chat (the game writes it instead of the plain line); `-non-player-` lines (a mod's coloured re-broadcast among them)
// are the server's own; the reader (sevenDaysReader.ts) reads a message a mod logged twice once. Vanilla has no
// private message and no mute: a server mod's command goes in notifyCommand (e.g. `pm {entityId} "{message}"`).

import { SEVEN_DAYS_TEXT_RULES, sevenDaysKick } from '../commandText.js';
import type { RconProfile } from './profile.js';
import { parseSevenDaysPlayerList, splitSevenDaysLogLine } from './sevenDaysLines.js';
import { newSevenDaysReader } from './sevenDaysReader.js';

export const sevenDaysProfile: RconProfile = {
  name: '7dtd',
  // The console's stream is its log: a chat mod's own format is read with the host's pattern.
  options: { chatPattern: 'optional' },
  probeCommand: 'lp',
  defaultPort: 8081,
  transport: {
    kind: 'telnet',
    answerEnds: [{ command: /^lp$/, endsAt: /^Total of \d+ in the game/ }],
  },
  players: { command: 'lp', read: parseSevenDaysPlayerList },
  chat: { console: { kind: 'stream', newReader: newSevenDaysReader, messageOf: (line) => splitSevenDaysLogLine(line)?.message } },
  // The kick takes the EOS id (`crossid`), or the Steam64 of a player listed without one.
  commandIds: ['eos', 'steam'],
  commands: {
    // `kick "EOS_<id>" "<reason>"` (or `"Steam_<id>"`): the id validated, the reason cleaned (no `"` left in it).
    kick: (id, reason) => sevenDaysKick(id, reason),
    // `*** ERROR: …` (an unknown command, a bad argument) and "… not found" (nobody online has that id).
    kickRefused: /\*\*\* ERROR|not found/i,
  },
  textRules: SEVEN_DAYS_TEXT_RULES,
};
