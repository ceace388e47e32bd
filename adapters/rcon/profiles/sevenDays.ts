// 7 Days to Die over its telnet console (default port 8081, plaintext: keep it on loopback). The console pushes the
// server's log to every logged-in client, chat included, so chat is read from that stream and nothing is drained.
// A chat line names its speaker by platform id: `Steam_…` carries the Steam64; `XBL_…` and other platforms map to
// the EOS id (`crossid`) through `lp`. `-non-player-` lines are the server's own; a mod's `Chat handled by mod …`
// re-emit duplicates a line already read. Vanilla has no private message and no mute: a server mod's command goes in
// notifyCommand (e.g. `pm {entityId} "{message}"`) and muteCommand.

import { cleanCommandText, requirePlayerId, type CommandTextRules } from '../commandText.js';
import type { RconChatLine, RconProfile } from './profile.js';
import { parseSevenDaysChat, parseSevenDaysPlayerList, parseSevenDaysPresence, splitSevenDaysLogLine } from './sevenDaysLines.js';

/** The console takes Unicode; a chat box shows about two lines. */
const SEVEN_DAYS_TEXT_RULES: CommandTextRules = { maxLength: 200, asciiOnly: false, fallback: 'You are muted.' };

function chatLineOf(line: string): RconChatLine {
  const parsed = parseSevenDaysChat(line);
  switch (parsed.kind) {
    case 'player':
      return {
        kind: 'player',
        channel: parsed.channel,
        name: parsed.name,
        steamId: parsed.steamId,
        eosId: parsed.eosId,
        platformId: parsed.platformId,
        entityId: parsed.entityId,
        text: parsed.text,
      };
    case 'server':
      return { kind: 'server', text: parsed.text };
    case 'unparsed':
      return { kind: 'unparsed', reason: parsed.reason };
    case 'duplicate':
      return { kind: 'ignored' };
    case 'other':
      // A join or leave is news for the player list; every other log line is nothing to the adapter.
      return parseSevenDaysPresence(line).kind === 'other' ? { kind: 'ignored' } : { kind: 'roster' };
  }
}

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
  chat: { console: { kind: 'stream', newReader: () => chatLineOf, messageOf: (line) => splitSevenDaysLogLine(line)?.message } },
  commandIds: ['eos'],
  commands: {
    // `kick "EOS_<id>" "<reason>"`: the id validated, the reason cleaned (it holds no `"` after cleaning).
    kick: (id, reason) => `kick "EOS_${requirePlayerId(id, ['eos']).id}" "${cleanCommandText(reason, SEVEN_DAYS_TEXT_RULES)}"`,
  },
  textRules: SEVEN_DAYS_TEXT_RULES,
};
