// Reads one line of ARK's game log (ASE, ASA and Atlas servers started with `-servergamelog`), so chat can be
// taken from the file instead of GetChat, which drains the buffer GSA and other tools read. Pure: must never throw
// on what the file holds (an odd line is `unparsed` with a reason), never do I/O (the tail is the caller's), and
// never turn a line the game wrote for itself (a join, a death, a tribe log, an admin command) into a player's chat.
//
// Format (reference/games.md, ARK; from parsers and tests of other tools, no verbatim chat capture: unconfirmed),
// `ShooterGame/Saved/Logs/ServerGame.<n>.<date>.log`, CRLF:
//   `[2026.09.13-18.48.40:782][696]2026.09.13_18.48.40: SteamName (CharacterName): text`: the engine's
//   `[time][frame]` head and the game's own `yyyy.mm.dd_hh.mm.ss: ` stamp, each absent on some lines or tools;
//   then what GetChat would print (`SERVER: text`, `AdminCmd: …`, `Tribe <name>, ID <n>: Day <n>, hh:mm:ss: …`),
//   and the presence lines `Name [UniqueNetId:<id> Platform:<p>] joined this ARK!` (ASA) or
//   `Name joined this ARK!` (ASE), `left this ARK!` alike.
import { arkNoticeKind, parseChatLine, readArkPresence, sortKnownNames, type ArkPresence, type ArkSpeakerReading } from './arkLines.js';

/** A player's chat line. `name` is the platform name as ListPlayers prints it: that maps it to an id. */
export interface ArkGameLogChat {
  readonly kind: 'player';
  readonly name: string;
  readonly characterName: string;
  /** Exactly as written after the `): ` separator (may be empty). */
  readonly text: string;
  /** Every split of an ambiguous line, the longest name first (arkLines.ts ArkPlayerChat.readings). */
  readonly readings?: readonly ArkSpeakerReading[] | undefined;
  /** The same line read as the game's join or leave (arkLines.ts ArkPlayerChat.presence). */
  readonly presence?: ArkPresence | undefined;
}

/** A player came or went (arkLines.ts ArkPresence). */
export type ArkGameLogPresence = ArkPresence;

export type ArkGameLogLine =
  | ArkGameLogChat
  | { readonly kind: 'server'; readonly text: string }
  | ArkGameLogPresence
  /** A line the game wrote for itself (admin command, tribe log, death, tame, start-up): nobody's chat. */
  | { readonly kind: 'notice' }
  | { readonly kind: 'unparsed'; readonly reason: string };

/** The engine's `[2026.09.13-18.48.40:782][696]` head; the frame field may be space-padded (`[  0]`). */
const ENGINE_HEAD = /^\[\d{4}\.\d{2}\.\d{2}-\d{2}\.\d{2}\.\d{2}:\d{3}\]\[[^\]]*\]/;
/** The game's own `2026.09.13_18.48.40: ` stamp. */
const GAME_STAMP = /^\d{4}\.\d{2}\.\d{2}_\d{2}\.\d{2}\.\d{2}: ?/;
/**
 * Lines the server writes at start and stop, with no stamp of the game's own: not chat. Kept short on purpose:
 * anything else that is not chat is `unparsed` (a debug line) rather than silently dropped.
 */
const ENGINE_NOTICES: readonly RegExp[] = [
  /^Log file (?:open|closed)\b/,
  /^ARK Version: /,
  /^Server has completed startup\b/,
  /^Server: ".*" has successfully started!$/,
  /^Steam Subsystem initialized\b/,
  /^(?:Saving world\.\.\.|World Save Complete\b)/,
  // The game's coloured notices (`<RichColor Color="1,0,0,1">A Rex froze!</>`): chat never starts with markup.
  /^<RichColor\b/,
];

/**
 * One game-log line → what it says.
 *
 * The line is read with GetChat's rules once its heads are removed (arkLines.ts parseChatLine): `knownNames`
 * (the current ListPlayers names) settle a Steam name holding ` (`, `)` or `): `, so `Bob (the) Builder (Char): hi`
 * is Bob (the) Builder's when that name is listed; without the list the character name is read as the last ` (`
 * before the first `): `. Chat is tried before the presence rules, since a player can type `… joined this ARK!`;
 * a line with neither chat's separator nor a presence shape is a notice when it is one of the game's own, else
 * `unparsed`. A BOM (the file's first line), CR, LF and NUL at the ends are framing, not text.
 */
export function parseArkGameLogLine(line: string, knownNames: Iterable<string> = []): ArkGameLogLine {
  const body = stripHeads(line.replace(/^\uFEFF/, '').replace(/[\r\n\0]+$/, ''));
  if (body.trim().length === 0) return { kind: 'unparsed', reason: 'an empty line' };
  const chat = parseChatLine(body, sortKnownNames(knownNames));
  if (typeof chat !== 'string') {
    return chat.kind === 'server'
      ? { kind: 'server', text: chat.text }
      : { kind: 'player', name: chat.playerName, characterName: chat.characterName, text: chat.text, readings: chat.readings, presence: chat.presence };
  }
  const presence = readArkPresence(body);
  if (presence !== undefined) return presence;
  if (arkNoticeKind(body) !== undefined || ENGINE_NOTICES.some((pattern) => pattern.test(body))) return { kind: 'notice' };
  return { kind: 'unparsed', reason: chat };
}

/** The message part of a game-log line: what follows the engine's head and the game's stamp, each if present. */
export function arkGameLogMessageOf(line: string): string {
  return stripHeads(line.replace(/^\uFEFF/, '').replace(/[\r\n\0]+$/, ''));
}

/** The engine head, then the game's stamp, each if present (a line may carry either, both or neither). */
function stripHeads(line: string): string {
  const afterHead = line.replace(ENGINE_HEAD, '');
  return afterHead.replace(GAME_STAMP, '');
}

