// ARK: Survival Evolved and Ascended over Source RCON. ARK hangs on an empty EXECCOMMAND, so replies end by a
// short quiet time rather than the mirror trick; one command at a time, gently. Chat comes from the game log when
// `logFile` is set (a server started with `-servergamelog`, as GameServerApp's RconConnect requires): reading a file
// takes nothing from anyone. Without it, GetChat is polled, which drains a buffer GSA's own chat processing and
// other tools read, and the adapter says so at start. Names map to ids through ListPlayers; the polls keep the
// session alive (never GetChat as a keepalive). A muted speaker gets `ServerChatTo "<id>" <alert>`; with GSA's ASA
// mod (`gsaMod`) the mod mutes them in game (`scriptcommand gsamute`).

import { ARK_TEXT_RULES, arkGsaMute, arkKickPlayer, arkServerChatTo } from '../commandText.js';
import { arkGameLogMessageOf, parseArkGameLogLine } from './arkGameLogLines.js';
import { parseArkChat, parseArkPlayerList, type ArkSpeakerReading } from './arkLines.js';
import type { RconChatLine, RconProfile, SpeakerReading } from './profile.js';

/** A line's other splits as the roster weighs them: by the platform name (ListPlayers' name), longest first. */
function speakerReadings(readings: readonly ArkSpeakerReading[] | undefined): SpeakerReading[] | undefined {
  return readings?.map((reading) => ({ name: reading.playerName, text: reading.text }));
}

/** One line of the game log (`-servergamelog`) in the adapter's terms: chat is global, as GetChat's. */
function gameLogLineOf(line: string, knownNames: readonly string[]): RconChatLine {
  const parsed = parseArkGameLogLine(line, knownNames);
  switch (parsed.kind) {
    case 'player':
      return { kind: 'player', channel: 'global', name: parsed.name, text: parsed.text, readings: speakerReadings(parsed.readings), presence: parsed.presence };
    case 'server':
      return { kind: 'server', text: parsed.text };
    case 'join':
    case 'leave':
      return { kind: 'roster', presence: parsed };
    case 'notice':
      return { kind: 'ignored' };
    case 'unparsed':
      return { kind: 'unparsed', reason: parsed.reason };
  }
}

export const arkProfile: RconProfile = {
  name: 'ark',
  options: { logFile: 'optional', chatPattern: 'optional', gsaMod: 'optional', pollChatMs: 'optional' },
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
    console: {
      // GetChat drains a buffer that GameServerApp's own chat processing and BattleMetrics read too (docs/games/ark.md).
      kind: 'poll',
      command: 'GetChat',
      read(answer, knownNames) {
        const parsed = parseArkChat(answer, knownNames);
        // GetChat's lines carry no channel (`Name (Character): text`), so every one is named global: gated by
        // default, as GSA's mute covers global chat; any other name would let every muted ARK player through.
        const lines: RconChatLine[] = parsed.lines.map((line) =>
          line.kind === 'server'
            ? { kind: 'server', text: line.text }
            : { kind: 'player', channel: 'global', name: line.playerName, text: line.text, readings: speakerReadings(line.readings), presence: line.presence },
        );
        for (const odd of parsed.unparsed) lines.push({ kind: 'unparsed', reason: odd.reason });
        return lines;
      },
    },
    logFile: { newReader: () => gameLogLineOf, messageOf: arkGameLogMessageOf, example: 'ShooterGame/Saved/Logs/ServerGame.*.log' },
    consoleWarning:
      'chat is read with GetChat, which hands each line to one reader only: GameServerApp\'s own chat processing (chat log, Discord relay, "player chat contains" tasks) and tools such as BattleMetrics lose every line the sidecar reads. Start the server with -servergamelog and set "logFile" to ShooterGame/Saved/Logs/ServerGame.*.log to read chat from the game log instead, taking nothing from anyone',
  },
  // ASA players have an EOS id, ASE players only a Steam64: ServerChatTo takes whichever the list printed.
  commandIds: ['eos', 'steam'],
  commands: {
    tell: (id, text) => arkServerChatTo(id, text),
    kick: (id) => arkKickPlayer(id),
    // `KickPlayer <id>` carries no reason: the player is told it with ServerChatTo first.
    kickWithoutReason: true,
    gsaModMute: (id, muted, alert) => arkGsaMute(id, muted, alert),
  },
  textRules: ARK_TEXT_RULES,
};
