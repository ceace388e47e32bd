// What a game profile is: the composition of three parts, in one file per game (ark.ts, conan.ts, …), given to the
// game-neutral adapter (never subclassed):
// - where chat comes from: a polled command, pushed packets, the console's stream of lines, or a log file;
// - how commands go: Source RCON, WebRCON or telnet, with the pace the game tolerates (rconConnection.ts);
// - how a speaker becomes a player id: the ids on the line, else the game's player list by platform id or by name.
// This file holds the types only; the table of profiles is index.ts. Adding a game is one profile file and one line
// in that table, plus a transport or chat source only if the game brings a new one.
// A profile never sends anything itself and never decides policy (who is muted is the bridge's answer): it says how
// its game lists players, where its chat comes from, and which builder (commandText.ts) makes each command.

import type { ChatChannel } from '../../../src/bridge/port.js';
import type { RconTransport } from '../transport.js';
import type { CommandTextRules, PlayerIdKind } from '../commandText.js';
import type { PlayerListParse } from './parsedLines.js';
import type { RustPlayerChat, RustServerChat } from './rustLines.js';

/**
 * One chat line in the adapter's terms, whatever the game printed:
 * - `player`: a player said something; the ids the line carried (ARK's and Conan's old lines carry only a name,
 *   7 Days to Die's an Xbox or PlayStation id: the adapter maps them to ids through the player list), and the
 *   channel in the one vocabulary (the bridge gates only the channels in mute.gatedChannels);
 * - `server`: the server's own line (never gated);
 * - `roster`: a join or leave the log saw: the player list is read again soon (never gated);
 * - `ignored`: a line that is not chat (a notice, a mod's duplicate of a line already read): dropped quietly;
 * - `unparsed`: it looked like chat but could not be read (worth a debug line).
 */
export type RconChatLine =
  | {
      readonly kind: 'player';
      readonly channel: ChatChannel;
      readonly name: string;
      readonly steamId?: string | undefined;
      readonly eosId?: string | undefined;
      /** The game's own id on the line (7 Days to Die `Steam_…`, `XBL_…`): matched against the player list. */
      readonly platformId?: string | undefined;
      /** 7 Days to Die's entity id, for a template's `{entityId}`. */
      readonly entityId?: number | undefined;
      readonly text: string;
      /**
       * How the line was read when it is not the game's plain chat line (`handled by mod 'Botman'`, `/me`,
       * `chatPattern`): shown by `log check` and debug lines, never a decision.
       */
      readonly readAs?: string | undefined;
      /**
       * Every way the line's speaker can be read, when the game's format lets a name end at more than one place (an
       * ARK name holding `(X): `, a Conan character name holding `(uid 1, player <id>) said: `): the longest name
       * first, each with the text that reading leaves. The roster takes the longest one the player list confirms.
       * Absent: the line has one reading, its own fields.
       */
      readonly readings?: readonly SpeakerReading[] | undefined;
      /**
       * Where the ids on the line may be believed from: `line` (the game wrote them before anything a player
       * chooses: Squad, Rust, 7 Days to Die) or `list` (a name the player chose comes first and could spell them out:
       * Conan), so they count only where the player list shows them for that name. @default 'line'
       */
      readonly idsFrom?: 'line' | 'list' | undefined;
      /**
       * The same line read as the game's own join or leave line (ARK: a name holding `(X): ` makes a join line read
       * like a listed namesake's chat). The roster takes it for that join or leave, not for anyone's chat, when the
       * player list shows (or just showed) that player.
       */
      readonly presence?: RosterPresence | undefined;
    }
  | { readonly kind: 'server'; readonly text: string }
  /**
   * A join or leave the log saw; `learned`: the log named a player's id as they logged in (Minecraft's `UUID of
   * player <name> is <uuid>`), kept until the player list shows them.
   */
  | {
      readonly kind: 'roster';
      readonly learned?: { readonly name: string; readonly mojangId: string } | undefined;
      /** What the line said, for `log check`: who came or went, with the ids the line carries. */
      readonly presence?: RosterPresence | undefined;
    }
  /**
   * A line that is not a line of chat of its own. `echo`: a copy of a chat line already read (a chat mod's second
   * line of one message, Pippi's copy): never read again as chat, not even by the host's `chatPattern`. `reason`: why,
   * for `log check`, when it is worth saying.
   */
  | { readonly kind: 'ignored'; readonly echo?: true | undefined; readonly reason?: string | undefined }
  | { readonly kind: 'unparsed'; readonly reason: string };

/** One way to read a chat line's speaker: a name, the ids printed with it, and the text that reading leaves. */
export interface SpeakerReading {
  readonly name: string;
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  readonly text: string;
}

/** A join or leave as a log line or the console's stream said it (the player list is the judge of who is on). */
export interface RosterPresence {
  readonly kind: 'join' | 'leave';
  readonly name?: string | undefined;
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  readonly mojangId?: string | undefined;
  readonly platformId?: string | undefined;
  /** The engine's entity number (7 Days to Die `EntityID=171`). */
  readonly entityId?: number | undefined;
}

/** Reads one line of a log file or of a console's stream. `knownNames`: the names the player list shows. */
export type RconLineReader = (line: string, knownNames: readonly string[]) => RconChatLine;

/**
 * Where a profile's lines come from when they are log lines (a log file, or a console that pushes its log): how
 * they are read, one reader per source, and where a line's own message starts. The live adapter and the offline
 * `log check` both read through this, so they read a file alike.
 */
export interface RconLineSource {
  /**
   * A reader for one source (one log file's tail, one console session, one `log check` run). It may keep state
   * between the lines of that source, in order (7 Days to Die pairs a chat mod's line with the plain line of the
   * same message); it must never keep anything that grows without bound.
   */
  newReader(): RconLineReader;
  /**
   * The line's message part, after the game's own timestamp and thread or level prefix; undefined for a line
   * without that prefix. The host's `chatPattern` is tried on it.
   */
  messageOf(line: string): string | undefined;
}

/** Where a game's chat comes from when no `logFile` is configured (or the game writes none). */
export type RconConsoleChat =
  /** Asked for: the adapter sends `command` every `pollChatMs` (ARK's GetChat, which drains a buffer other tools read). */
  | { readonly kind: 'poll'; readonly command: string; read(answer: string, knownNames: readonly string[]): readonly RconChatLine[] }
  /** Pushed by a Source RCON server as packets of type 1 (Squad). `knownName`: the listed name for an id. */
  | { readonly kind: 'pushed'; read(body: string, knownName: (id: string) => string | undefined): RconChatLine }
  /** Pushed by Rust's WebRCON, already parsed by the client. */
  | { readonly kind: 'webrcon'; read(chat: RustPlayerChat | RustServerChat): RconChatLine }
  /** The console's own stream of log lines (7 Days to Die's telnet pushes its log to every client). */
  | ({ readonly kind: 'stream' } & RconLineSource);

export interface RconChatSources {
  /** Without `logFile`; absent when the game's console carries no chat (Conan): `logFile` is then required. */
  readonly console?: RconConsoleChat | undefined;
  /**
   * With `logFile`: each new line of the game's log (ARK with `-servergamelog`, Conan). The console source is then
   * never used for chat, so nothing is taken from other readers of the console. Absent: `logFile` is refused.
   */
  readonly logFile?: (RconLineSource & { readonly example: string }) | undefined;
  /**
   * Said once at start when chat comes from the console although a log file would do (ARK's GetChat hands each line
   * to one reader only, so GSA's own chat processing and other tools lose what the sidecar reads).
   */
  readonly consoleWarning?: string | undefined;
}

/** The builders of the commands a profile sends (each validates the id and cleans the text: commandText.ts). */
export interface RconProfileCommands {
  /** A private message to one player; absent when the game has none (Rust, Conan, 7 Days to Die: notifyCommand). */
  readonly tell?: ((id: string, text: string) => string) | undefined;
  /**
   * A private message addressed by the player's name, for a game whose commands take names (Minecraft's `tellraw`).
   * Used when `tell` is absent. @throws UnaddressableNameError for a name the game's name rule refuses.
   */
  readonly tellByName?: ((name: string, text: string) => string) | undefined;
  /**
   * Removes a player from the server, with a reason they see: for access at the door (the adapter's removePlayer) and
   * the optional escalation (`kickAfterAlerts`). `id` as commandIds choose. The host's `kickCommand` replaces it.
   */
  readonly kick?: ((id: string, reason: string) => string) | undefined;
  /**
   * A kick addressed by the player's name, for a game whose commands take names (Minecraft's `kick`). Used when `kick`
   * is absent. @throws UnaddressableNameError for a name the game's name rule refuses.
   */
  readonly kickByName?: ((name: string, reason: string) => string) | undefined;
  /** The kick shows the player no reason (ARK's `KickPlayer <id>`): they are told it privately first, where the game can. */
  readonly kickWithoutReason?: true | undefined;
  /**
   * The game's words for "not kicked" in a kick's answer (no such player online, an unknown command), also for the
   * host's `kickCommand`. Absent: the game's answer says nothing either way, and only a failed send rejects.
   */
  readonly kickRefused?: RegExp | undefined;
  /** The server's own chat mute (Rust): the game then drops the player's chat itself. Steam64 ids. */
  readonly mute?: ((steamId: string) => string) | undefined;
  readonly unmute?: ((steamId: string) => string) | undefined;
  /**
   * With `"gsaMod": true` (GameServerApp's ASA mod is installed): the mod's own mute, `id` as commandIds choose,
   * `alert` shown by the mod. Replaces `mute`/`unmute` when set.
   */
  readonly gsaModMute?: ((id: string, muted: boolean, alert: string) => string) | undefined;
}

/**
 * The option keys of an rcon adapter that only some games read. Each profile says which it reads, and whether one is
 * required (adapters/rcon/options.ts refuses the others, so a key meant for another game is never silently ignored).
 */
export type ProfileOptionKey = 'logFile' | 'chatPattern' | 'gsaMod' | 'pollChatMs' | 'enforceMute';

export type ProfileOptions = { readonly [Key in ProfileOptionKey]?: 'optional' | 'required' };

export interface RconProfile {
  readonly name: string;
  /**
   * The game's own option keys, beyond those every profile reads. `logFile` and `chatPattern` for a game whose chat
   * is read from log lines; `gsaMod` and `pollChatMs` for ARK's GetChat and GSA's ASA mod; `enforceMute` for Rust.
   */
  readonly options: ProfileOptions;
  /** A read-only command the game always answers: `config check --connect` sends it once after the login. */
  readonly probeCommand: string;
  /** How the game's console is reached, and the pace its server tolerates. */
  readonly transport: RconTransport;
  /** The console's port when the config gives none (7 Days to Die's telnet: 8081); absent: `port` is required. */
  readonly defaultPort?: number | undefined;
  /** The command that lists who is online, and its reader. Only `players` and `none` answers are diffed. */
  readonly players: { readonly command: string; read(answer: string): PlayerListParse };
  readonly chat: RconChatSources;
  /** Which of a player's ids a command addresses first (ASA and Squad: EOS; ASE: Steam64, the only one it has). */
  readonly commandIds: readonly PlayerIdKind[];
  readonly commands: RconProfileCommands;
  /** How free text (an alert, a name) is cleaned for this game's console, also inside a host's templates. */
  readonly textRules: CommandTextRules;
  /**
   * Why this game's players can only be checked through GSA's System API (their ids are of a kind the mod API's mute
   * check cannot take: Minecraft's Mojang ids); absent when the mod API can check them. `config check` and `run`
   * warn with it when api.system has no key.
   */
  readonly needsSystemApi?: string | undefined;
}
