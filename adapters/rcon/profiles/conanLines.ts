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
 * One log line → what it says.
 *
 * A character name may hold spaces, parentheses and non-Latin text, and the text anything, so the line splits at
 * its first ` said: `: the text's own ` said: ` comes later. The ids count only when `(uid <n>, player <id>)` ends
 * the speaker part just before that split, so words like `look (uid 1, player 7656…) said: hi` in a name-only
 * line cannot lend a player someone else's id. A character name holding ` said: ` is misread (cut short); the
 * name is then not listed, so the line maps to nobody. The name is trimmed, as listplayers' columns are. A BOM,
 * CR, LF and NUL at the ends are framing.
 */
export function parseConanLogLine(line: string): ConanLogParse {
  const clean = line.replace(/^\uFEFF/, '').replace(/[\r\n\0]+$/, '');
  const body = clean.replace(LOG_HEAD, '');
  if (body.startsWith(PIPPI_CATEGORY)) return { kind: 'duplicate' };
  if (!body.startsWith(CHAT_CATEGORY)) return { kind: 'other' };
  const message = body.slice(CHAT_CATEGORY.length);
  if (!message.startsWith(CHARACTER)) return { kind: 'unparsed', reason: 'a ChatWindow line without "Character <name> said: "' };
  const rest = message.slice(CHARACTER.length);
  const said = rest.indexOf(SAID);
  if (said < 0) return { kind: 'unparsed', reason: 'a ChatWindow line without " said: " after the character name' };
  const speaker = rest.slice(0, said);
  const text = rest.slice(said + SAID.length);
  const ids = SPEAKER_IDS.exec(speaker);
  // Trimmed as listplayers' columns are, so a name looks the same in both.
  const name = (ids === null ? speaker : speaker.slice(0, ids.index)).trim();
  if (name.length === 0) return { kind: 'unparsed', reason: 'a ChatWindow line with an empty character name' };
  if (ids === null) return { kind: 'player', channel: 'global', name, text };
  const steam = checkPlayerId(ids[2] ?? '', ['steam']);
  // A platform id that is not a Steam64 (another platform) leaves the line to be mapped by name.
  return steam === undefined ? { kind: 'player', channel: 'global', name, text } : { kind: 'player', channel: 'global', name, steamId: steam.id, text };
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
