// What a game profile is: data plus small parsers and command builders, in one file per game (ark.ts, squad.ts,
// rust.ts), composed into the game-neutral RCON adapter (never subclassed). This file holds the types only; the
// table of profiles is index.ts. Adding a game is one new profile file and one line in that table.
// A profile never sends anything itself and never decides policy (who is muted is the bridge's answer): it says
// how its game lists players, where its chat comes from, and which builder (commandText.ts) makes each command.

import type { ChatChannel } from '../../../src/bridge/port.js';
import type { RconTransport } from '../rconConnection.js';
import type { RconProfileName } from '../options.js';
import type { PlayerIdKind } from '../commandText.js';
import type { PlayerListParse } from './parsedLines.js';
import type { RustPlayerChat, RustServerChat } from './rustLines.js';

/**
 * One chat line in the adapter's terms, whatever the game printed:
 * - `player`: a player said something; the ids the line carried (ARK's lines carry only a name, which the adapter
 *   maps to an id through the player list), and the channel in the one vocabulary (the profile maps its game's own
 *   values: the bridge gates only the channels in mute.gatedChannels);
 * - `server`: the server's own line (never gated);
 * - `ignored`: a pushed notice that is not chat (Squad's admin camera, kicks): dropped quietly;
 * - `unparsed`: it looked like chat but could not be read (worth a debug line).
 */
export type RconChatLine =
  | {
      readonly kind: 'player';
      readonly channel: ChatChannel;
      readonly name: string;
      readonly steamId?: string | undefined;
      readonly eosId?: string | undefined;
      readonly text: string;
    }
  | { readonly kind: 'server'; readonly text: string }
  | { readonly kind: 'ignored' }
  | { readonly kind: 'unparsed'; readonly reason: string };

/**
 * Where a game's chat comes from. A field of its own so a source can be swapped (ARK's GetChat drains a buffer
 * other tools read; a log-file reader can take its place later) without touching the adapter.
 */
export type RconChatSource =
  /** Asked for: the adapter sends `command` every `pollChatMs` (ARK's GetChat). `knownNames`: the listed names. */
  | { readonly kind: 'poll'; readonly command: string; read(answer: string, knownNames: Iterable<string>): readonly RconChatLine[] }
  /** Pushed by a Source RCON server as packets of type 1 (Squad). `knownName`: the listed name for an id. */
  | { readonly kind: 'pushed'; read(body: string, knownName: (id: string) => string | undefined): RconChatLine }
  /** Pushed by Rust's WebRCON, already parsed by the client. */
  | { readonly kind: 'webrcon'; read(chat: RustPlayerChat | RustServerChat): RconChatLine };

/** The builders of the commands a profile sends (each validates the id and cleans the text: commandText.ts). */
export interface RconProfileCommands {
  /** A private message to one player; absent when the game has none (Rust: only through notifyCommand). */
  readonly tell?: ((id: string, text: string) => string) | undefined;
  /** Removes a player from the server, with a reason they see: for the optional escalation (`kickAfterAlerts`). */
  readonly kick?: ((id: string, reason: string) => string) | undefined;
  /** The server's own chat mute (Rust): the game then drops the player's chat itself. Steam64 ids. */
  readonly mute?: ((steamId: string) => string) | undefined;
  readonly unmute?: ((steamId: string) => string) | undefined;
}

export interface RconProfile {
  readonly name: RconProfileName;
  /** A read-only command the game always answers: `config check --connect` sends it once after the login. */
  readonly probeCommand: string;
  /** How the game speaks RCON, and the pace its server tolerates. */
  readonly transport: RconTransport;
  /** The command that lists who is online, and its reader. Only `players` and `none` answers are diffed. */
  readonly players: { readonly command: string; read(answer: string): PlayerListParse };
  readonly chat: RconChatSource;
  /** Which of a player's ids a command addresses first (ASA and Squad: EOS; ASE: Steam64, the only one it has). */
  readonly commandIds: readonly PlayerIdKind[];
  readonly commands: RconProfileCommands;
}
