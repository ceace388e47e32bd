// 7 Days to Die over its telnet console (default port 8081, plaintext: keep it on loopback). The console pushes the
// server's log to every logged-in client, chat included, so chat is read from that stream and nothing is drained.
// A chat line names its speaker by platform id: `Steam_…` carries the Steam64; `XBL_…` and other platforms map to
// the EOS id (`crossid`) through `lp`. A chat mod's `Chat handled by mod '<mod>': Chat (from …` line is that player's
// chat (the game writes it instead of the plain line); `-non-player-` lines (a mod's coloured re-broadcast among them)
// are the server's own; the reader (sevenDaysReader.ts) reads a message a mod logged twice once. Vanilla has no
// private message and no mute: a server mod's command goes in notifyCommand (e.g. `pm {entityId} "{message}"`).

import { cleanCommandText, requirePlayerId, type CommandTextRules } from '../commandText.js';
import type { RconProfile } from './profile.js';
import { parseSevenDaysPlayerList, splitSevenDaysLogLine } from './sevenDaysLines.js';
import { newSevenDaysReader } from './sevenDaysReader.js';

/** The console takes Unicode; a chat box shows about two lines. */
const SEVEN_DAYS_TEXT_RULES: CommandTextRules = { maxLength: 200, asciiOnly: false, fallback: 'You are muted.' };

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
  commandIds: ['eos'],
  commands: {
    // `kick "EOS_<id>" "<reason>"`: the id validated, the reason cleaned (it holds no `"` after cleaning).
    kick: (id, reason) => `kick "EOS_${requirePlayerId(id, ['eos']).id}" "${cleanCommandText(reason, SEVEN_DAYS_TEXT_RULES)}"`,
  },
  textRules: SEVEN_DAYS_TEXT_RULES,
};
