// Reads Conan Exiles' text: the chat lines of `ConanSandbox/Saved/Logs/ConanSandbox.log` and the RCON
// `listplayers` table. Pure functions: must never throw on what the game writes (an odd line is `unparsed` with a
// reason), never do I/O (tailing the file is the caller's), and never take an id from a player's own words.
//
// Formats (reference/games.md, Conan Exiles; gettakaro/connectors conan-exiles reads the same):
//   chat         `[2026.06.20-21.06.10:804][802]ChatWindow: Character TestExile (uid 109, player 76561198000000001) said: hey`;
//                older builds `ChatWindow: Character Kimifae said: …` (name only). The engine's frame field is
//                space-padded (`[ 80]`), or `[Pippi]` on a line the Pippi mod wrote. Pippi also writes each message
//                again as `PippiChat: Name said in channel [Global]: …` (channels Global, Local, Emote, Shout, Mumble,
//                `A:B` whispers, clan names): that copy is a duplicate, dropped.
//   listplayers  `Idx | Char name | Player name | User ID | Platform ID | Platform Name`, then one row a player,
//                columns space-padded (`  0 | TestExile | Tester#1000 | A-TESTUSER | 76561198000000001 |  STEAM`);
//                only the header when nobody is on.
import { checkPlayerId } from '../commandText.js';
import type { ListedPlayer, PlayerListParse, UnparsedLine } from './parsedLines.js';

/** A player's chat line. Conan's ChatWindow has one channel, read as global. */
export interface ConanChat {
  readonly kind: 'player';
  readonly channel: 'global';
  /** The character name (what name-only lines carry, and listplayers' `Char name`). */
  readonly name: string;
  /** The Steam64 on current builds' lines, checked; absent on older name-only lines. */
  readonly steamId?: string | undefined;
  /** Exactly as written after ` said: ` (may be empty). */
  readonly text: string;
  /**
   * Every way the line can be split at a ` said: `, the longest character name first (this line's own fields are the
   * shortest: the first ` said: `). A character name may hold a whole `(uid 1, player <id>) said: ` part, so only the
   * player list can tell which split is the speaker's: the adapter takes the longest one the list confirms.
   * Absent when the line splits one way only.
   */
  readonly readings?: readonly ConanSpeakerReading[] | undefined;
}

/** One split of a chat line: the character name, the Steam64 printed after it (when one is), the text after it. */
export interface ConanSpeakerReading {
  readonly name: string;
  readonly steamId?: string | undefined;
  readonly text: string;
}

/**
 * A log line → chat; `duplicate` for Pippi's copy of a message the ChatWindow line already carries; `other` for
 * every other log line (the log is mostly the engine's); `unparsed` for a ChatWindow line that cannot be read.
 */
export type ConanLogParse =
  | ConanChat
  | { readonly kind: 'duplicate' }
  | { readonly kind: 'other' }
  | { readonly kind: 'unparsed'; readonly reason: string };

/** The engine's `[time][frame]` head (the frame space-padded, or a mod's name such as `Pippi`). */
const LOG_HEAD = /^\[\d{4}\.\d{2}\.\d{2}-\d{2}\.\d{2}\.\d{2}:\d{3}\]\[[^\]]*\]/;
const CHAT_CATEGORY = 'ChatWindow: ';
const PIPPI_CATEGORY = 'PippiChat: ';
const CHARACTER = 'Character ';
const SAID = ' said: ';
/** What current builds put between the name and ` said: `. */
const SPEAKER_IDS = / \(uid (\d+), player ([^)]*)\)$/;

/** The message part of a log line: what follows the engine's `[time][frame]` head. */
export function conanMessageOf(line: string): string | undefined {
  const clean = line.replace(/^\uFEFF/, '').replace(/[\r\n\0]+$/, '');
  const head = LOG_HEAD.exec(clean);
  return head === null ? undefined : clean.slice(head[0].length);
}

/**
 * Splits considered per line: a character name is short (the game caps it well under this many ` said: `s), and a
 * line a player filled with ` said: ` must not cost more than a few splits.
 */
const MAX_READINGS = 8;
/** The longest speaker part a split may have: a character name and its `(uid …, player …)` part, with room to spare. */
const MAX_SPEAKER_LENGTH = 200;

/**
 * One log line → what it says.
 *
 * A character name may hold spaces, parentheses and non-Latin text, even a whole `(uid 1, player <id>) said: ` part,
 * and the text anything. The line's own fields are its first ` said: ` split (the usual reading); `readings` holds
 * every split (at most MAX_READINGS; past the first, speaker parts up to MAX_SPEAKER_LENGTH), the longest name first. In each, ids
 * count only when `(uid <n>, player <id>)` ends the speaker part just before that split, and even then only as a
 * claim: the player list must confirm the id for that name (the adapter's roster checks). The name is trimmed, as
 * listplayers' columns are. A BOM, CR, LF and NUL at the ends are framing.
 */
export function parseConanLogLine(line: string): ConanLogParse {
  const clean = line.replace(/^\uFEFF/, '').replace(/[\r\n\0]+$/, '');
  const body = clean.replace(LOG_HEAD, '');
  if (body.startsWith(PIPPI_CATEGORY)) return { kind: 'duplicate' };
  if (!body.startsWith(CHAT_CATEGORY)) return { kind: 'other' };
  const message = body.slice(CHAT_CATEGORY.length);
  if (!message.startsWith(CHARACTER)) return { kind: 'unparsed', reason: 'a ChatWindow line without "Character <name> said: "' };
  const rest = message.slice(CHARACTER.length);
  const readings: ConanSpeakerReading[] = [];
  // The first split is always read (the usual reading, whatever its length); the others only within reach of a name.
  for (let said = rest.indexOf(SAID); said >= 0 && (readings.length === 0 || (said <= MAX_SPEAKER_LENGTH && readings.length < MAX_READINGS)); said = rest.indexOf(SAID, said + 1)) {
    const reading = readSplit(rest.slice(0, said), rest.slice(said + SAID.length));
    if (reading !== undefined) readings.push(reading);
  }
  const [first] = readings;
  if (first === undefined) {
    return rest.includes(SAID)
      ? { kind: 'unparsed', reason: 'a ChatWindow line with an empty character name' }
      : { kind: 'unparsed', reason: 'a ChatWindow line without " said: " after the character name' };
  }
  return readings.length === 1 ? { kind: 'player', channel: 'global', ...first } : { kind: 'player', channel: 'global', ...first, readings: readings.reverse() };
}

function readSplit(speaker: string, text: string): ConanSpeakerReading | undefined {
  const ids = SPEAKER_IDS.exec(speaker);
  // Trimmed as listplayers' columns are, so a name looks the same in both.
  const name = (ids === null ? speaker : speaker.slice(0, ids.index)).trim();
  if (name.length === 0) return undefined;
  // A platform id that is not a Steam64 (another platform) leaves the line to be mapped by name.
  const steam = ids === null ? undefined : checkPlayerId(ids[2] ?? '', ['steam']);
  return steam === undefined ? { name, text } : { name, steamId: steam.id, text };
}

/** A Conan player row: `name` is the character name (what chat lines carry), with the row's other columns. */
export interface ConanListedPlayer extends ListedPlayer {
  readonly idx: number;
  /** The `Player name` column (the Funcom account name, e.g. `Tester#1000`). */
  readonly playerName: string;
  /** The `User ID` column (the Funcom id, e.g. `A-TESTUSER`), as printed. */
  readonly userId: string;
  /** The `Platform Name` column (e.g. `STEAM`). */
  readonly platformName: string;
}

export interface ConanPlayerListParse extends PlayerListParse {
  readonly players: readonly ConanListedPlayer[];
}

const HEADER = /^Idx\s*\|\s*Char name\s*\|\s*Player name\s*\|\s*User ID\s*\|\s*Platform ID\s*\|\s*Platform Name$/i;
const COLUMNS = 6;

/**
 * `listplayers` → the players. Columns are trimmed. A row must have the six columns, a number first and a
 * Steam64 as its Platform ID; a row with more columns (a name holding `|`, which cannot be told from the next
 * column) or no valid id is unparsed. Status: `players` when rows were read; `none` when the header came alone;
 * `unrecognised` when rows were there but none could be read, or there was neither header nor row (`Too many
 * commands, try again later.`, a truncated reply): never "nobody online" for an answer that was not read.
 */
export function parseConanPlayerList(answer: string): ConanPlayerListParse {
  const players: ConanListedPlayer[] = [];
  const unparsed: UnparsedLine[] = [];
  let sawHeader = false;
  for (const rawLine of answer.replace(/^\uFEFF/, '').split('\n')) {
    const line = rawLine.replace(/[\r\0]+$/, '').trim();
    if (line.length === 0) continue;
    if (HEADER.test(line)) {
      sawHeader = true;
      continue;
    }
    const row = readRow(line);
    if (typeof row === 'string') unparsed.push({ line, reason: row });
    else players.push(row);
  }
  const status = players.length > 0 ? 'players' : sawHeader && unparsed.length === 0 ? 'none' : 'unrecognised';
  return { status, players, unparsed };
}

function readRow(line: string): ConanListedPlayer | string {
  const cells = line.split('|').map((cell) => cell.trim());
  if (cells.length !== COLUMNS) {
    return cells.length > COLUMNS
      ? 'more than six columns: a name holds "|", so the character name cannot be told apart'
      : 'not an "Idx | Char name | Player name | User ID | Platform ID | Platform Name" row';
  }
  const [idx = '', name = '', playerName = '', userId = '', platformId = '', platformName = ''] = cells;
  if (!/^\d+$/.test(idx)) return 'the first column is not a row number';
  if (name.length === 0) return 'an empty character name';
  const steam = checkPlayerId(platformId, ['steam']);
  if (steam === undefined) return 'the Platform ID is not a Steam64';
  return { steamId: steam.id, name, idx: Number(idx), playerName, userId, platformName };
}
