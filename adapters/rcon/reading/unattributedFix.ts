// What a host can do about a game's chat line that could not be tied to a player, by reason, in the rcon adapter's
// terms (the host's `chatPattern`, the game's player list, `log check`): the text of the unattributed-chat warning
// (adapters/unattributedChat.ts). Words only: it must never name a player or quote a line.

import type { UnattributedReason } from '../../../src/bridge/port.js';
import type { RconProfile } from '../profiles/profile.js';

/** The fix the warning names for a line of `reason` on an adapter of `profile`. */
export function rconUnattributedFix(profile: RconProfile): (reason: UnattributedReason) => string {
  const check = `\`gsa-bridge log check --profile ${profile.name} <log file>\` shows how each line of a log is read`;
  const patternCapable = profile.options.chatPattern !== undefined;
  return (reason) => {
    switch (reason) {
      case 'unreadable':
        return patternCapable
          ? `If a chat mod or plugin rewrites chat lines, set "chatPattern" on this adapter to read its format (docs/configuration.md); ${check}.`
          : 'The line has a chat shape this profile does not read; please report it with the line (remove player names first).';
      case 'not_listed':
        return `The speaker's name is not on the player list (\`${profile.players.command}\`): a nickname or chat plugin may print another name than the list (match the listed name in "chatPattern"), or the list cannot be read (see earlier lines); ${check}.`;
      case 'ambiguous':
        return 'Several listed players fit that name, so the speaker cannot be told apart (the sidecar never guesses).';
      case 'unconfirmed_id':
        return "The id printed on the line is not the one the player list shows for that name (a name built to carry someone else's id?), so nobody was looked up.";
    }
  };
}
