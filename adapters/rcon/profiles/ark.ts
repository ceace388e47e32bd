// ARK: Survival Evolved and Ascended over Source RCON. ARK hangs on an empty EXECCOMMAND, so replies end by a
// short quiet time rather than the mirror trick; one command at a time, gently. Chat is polled (GetChat) and the
// player list too (ListPlayers); the polls keep the session alive, so no keepalive of its own (and never GetChat
// as one: it drains the chat buffer other tools read). A muted speaker gets `ServerChatTo "<id>" <alert>`: ARK has
// no chat mute of its own, and RCON cannot un-send a line.

import { arkKickPlayer, arkServerChatTo } from '../commandText.js';
import { parseArkChat, parseArkPlayerList } from './arkLines.js';
import type { RconChatLine, RconProfile } from './profile.js';

export const arkProfile: RconProfile = {
  name: 'ark',
  probeCommand: 'ListPlayers',
  transport: {
    kind: 'source',
    replyEnd: { kind: 'quiet', quietMs: 100 },
    maxInFlight: 1,
    rateCap: { commands: 5, perMs: 1_000 },
    keepaliveIntervalMs: 0,
  },
  players: { command: 'ListPlayers', read: parseArkPlayerList },
  chat: {
    // GetChat drains a buffer that GameServerApp's own RCON chat log and BattleMetrics read too (README).
    kind: 'poll',
    command: 'GetChat',
    read(answer, knownNames) {
      const parsed = parseArkChat(answer, knownNames);
      // GetChat's lines carry no channel (`Name (Character): text`), so every one is named global: gated by
      // default, as GSA's mute covers global chat; any other name would let every muted ARK player through.
      const lines: RconChatLine[] = parsed.lines.map((line) =>
        line.kind === 'server' ? { kind: 'server', text: line.text } : { kind: 'player', channel: 'global', name: line.playerName, text: line.text },
      );
      for (const odd of parsed.unparsed) lines.push({ kind: 'unparsed', reason: odd.reason });
      return lines;
    },
  },
  // ASA players have an EOS id, ASE players only a Steam64: ServerChatTo takes whichever the list printed.
  commandIds: ['eos', 'steam'],
  commands: {
    tell: (id, text) => arkServerChatTo(id, text),
    kick: (id) => arkKickPlayer(id),
  },
};
