// Reads Rust's WebRCON payloads: the inner JSON of a pushed `Type: "Chat"` message, and the `playerlist` answer.
// The WebRCON client unwraps the outer frame ({Identifier, Message, Type}); these functions get its `Message`.
// Pure: must never throw (malformed JSON is a result with a reason), never do I/O, never decide policy.
//
// Formats (Facepunch's WebRCON, as Rust RCON tools read it):
//   chat        {"Channel":0,"Message":"hi","UserId":"76561198000000001","Username":"Name","Color":"#5af","Time":1700000000}
//               Channel: 0 global, 1 team, 2 server, 3 cards, 4 local, 5 clan, 6 external DM. Older servers and some
//               tools write UserId as a JSON number: a 17-digit number does not survive JSON.parse (above 2^53),
//               so the digits are read from the raw text.
//               With the Better Chat plugin (umod, LaserHydra/BetterChat `BetterChat.cs`), the entry's Message is
//               the plugin's console line, `{Title} {Username}: {Message}` by default with its rich text stripped
//               (`[Player] vetmon: hi`, or `vetmon: hi` without titles), while Username stays the bare name; its
//               5.1 versions set no Channel (so 0). The text is what follows that prefix (betterChatText).
//   playerlist  [{"SteamID":"76561198000000001","OwnerSteamID":"0","DisplayName":"Name","Ping":30,"Address":"…",
//               "ConnectedSeconds":120,"VoiationLevel":0.0,"CurrentLevel":0.0,"UnspentXp":0.0,"Health":100.0}, …]
import { checkPlayerId } from '../commandText.js';
import type { ListedPlayer, PlayerListParse, UnparsedLine } from './parsedLines.js';

const CHANNELS = ['global', 'team', 'server', 'cards', 'local', 'clan', 'external-dm'] as const;
/** The chat channel by name; a number this list does not know yet is kept as `channel-<n>`. */
export type RustChatChannel = (typeof CHANNELS)[number] | `channel-${number}`;

export interface RustPlayerChat {
  readonly kind: 'player';
  readonly channel: RustChatChannel;
  readonly steamId: string;
  readonly name: string;
  /** As received, after Better Chat's `[Title] Name: ` prefix when the line carries one. */
  readonly text: string;
  /** Unix seconds, when the server sent it. */
  readonly time?: number | undefined;
}

/** The server's own line (channel 2, or no player id: `say` from the console): never player chat, never gated. */
export interface RustServerChat {
  readonly kind: 'server';
  readonly channel: RustChatChannel;
  readonly text: string;
}

export type RustChatParse =
  | { readonly ok: true; readonly chat: RustPlayerChat | RustServerChat }
  | { readonly ok: false; readonly reason: string };

type JsonObject = Record<string, unknown>;

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A 17-digit id written as a JSON number has lost its last digits after JSON.parse; read the digits from the
 * raw text instead: the `occurrence`-th numeric value of that field in the whole payload (a list's elements
 * are counted in order; a field name inside a JSON string is escaped, so it never matches).
 */
function rawNumberField(raw: string, field: string, occurrence: number): string | undefined {
  const pattern = new RegExp(`"${field}"\\s*:\\s*(-?\\d+)`, 'g');
  let index = 0;
  for (const match of raw.matchAll(pattern)) {
    if (index === occurrence) return match[1];
    index++;
  }
  return undefined;
}

function idText(value: unknown, raw: string, field: string, occurrence: number): string | undefined {
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number') return rawNumberField(raw, field, occurrence);
  return undefined;
}

function channelName(value: unknown): RustChatChannel | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return undefined;
  return CHANNELS[value] ?? `channel-${value}`;
}

/** Rich-text tags as Rust prints them (`<color=#5af>`, `</color>`, `<size=12>`, `<b>`, …). */
const RICH_TEXT_TAG = /<\/?[a-zA-Z]+(?:=[^>]*)?>/g;
/** Better Chat's own markup (`[#5af]`, `[/#]`, `[+15]`, `[/+]`), which it turns into plain text on the console. */
const BETTER_CHAT_MARKUP = /\[(?:#[0-9a-zA-Z]+|\/#|\+\d+|\/\+)\]/g;
/** One piece of what may stand before the name in Better Chat's prefix: a title in brackets, a tag, a space. */
const PREFIX_PIECE = /<\/?[a-zA-Z]+(?:=[^>]*)?>|\[[^\]]*\]|[ \t]/y;
/** What ends the prefix after the name: tags the name was wrapped in, then `: `. */
const PREFIX_END = /(?:<\/?[a-zA-Z]+(?:=[^>]*)?>)*: /y;

/**
 * Bounds on the search, so a hostile entry costs little: real titles are a few words, and Rust names are short
 * (the game cuts them at 32 characters). A longer prefix or name is not taken for the plugin's.
 */
const MAX_PREFIX_LENGTH = 1_024;
const MAX_NAME_LENGTH = 256;

/**
 * Where the name may start in Better Chat's prefix: 0, and the end of every title, tag or space that follows
 * from the start. Each piece is told by its first character, so one pass finds them all (no regex is built from
 * a name, which could be of any length).
 */
function prefixEnds(message: string): number[] {
  const ends = [0];
  PREFIX_PIECE.lastIndex = 0;
  while (PREFIX_PIECE.lastIndex < MAX_PREFIX_LENGTH && PREFIX_PIECE.exec(message) !== null) ends.push(PREFIX_PIECE.lastIndex);
  return ends;
}

/**
 * The text of a chat entry Better Chat formatted: the Message after `<titles><name>: `, where the titles are only
 * bracketed words, spaces and rich-text tags (the plugin's `{Title} {Username}: ` with any title setting), and the
 * name is the entry's Username as sent or as the plugin prints it (its tags stripped). The leftmost such prefix
 * wins. A Message whose name stands elsewhere (`hello vetmon: hi`, `[vetmon] hi`) is returned whole: only a line
 * that starts with the prefix is the plugin's. Without a name, the Message is kept.
 */
export function betterChatText(message: string, username: string): string {
  const plainName = username.replace(RICH_TEXT_TAG, '').replace(BETTER_CHAT_MARKUP, '');
  const names = [...new Set([username, plainName, plainName.trim()])].filter((name) => name.length > 0 && name.length <= MAX_NAME_LENGTH);
  for (const start of prefixEnds(message)) {
    for (const name of names) {
      if (!message.startsWith(name, start)) continue;
      PREFIX_END.lastIndex = start + name.length;
      if (PREFIX_END.exec(message) !== null) return message.slice(PREFIX_END.lastIndex);
    }
  }
  return message;
}

/** The `Message` of a `Type: "Chat"` WebRCON message → a player's line, the server's line, or why not. */
export function parseRustChat(message: string): RustChatParse {
  const parsed = parseJson(message);
  if (!parsed.ok) return { ok: false, reason: `chat payload is ${parsed.reason}` };
  const entry = parsed.value;
  if (!isObject(entry)) return { ok: false, reason: 'chat payload is not a JSON object' };
  const channel = channelName(entry.Channel);
  if (channel === undefined) return { ok: false, reason: 'chat payload has no numeric Channel' };
  if (typeof entry.Message !== 'string') return { ok: false, reason: 'chat payload has no Message text' };
  const rawId = idText(entry.UserId, message, 'UserId', 0);
  if (channel === 'server' || rawId === undefined || rawId === '0' || rawId === '') {
    return { ok: true, chat: { kind: 'server', channel, text: entry.Message } };
  }
  const id = checkPlayerId(rawId, ['steam']);
  if (id === undefined) return { ok: false, reason: 'chat payload UserId is not a Steam64 id' };
  const name = typeof entry.Username === 'string' ? entry.Username : '';
  const time = typeof entry.Time === 'number' && Number.isFinite(entry.Time) ? entry.Time : undefined;
  return { ok: true, chat: { kind: 'player', channel, steamId: id.id, name, text: betterChatText(entry.Message, name), time } };
}

/**
 * The `Message` of the `playerlist` answer → players. `[]` is `none`; anything that is not a JSON array is
 * `unrecognised` with the reason as its one unparsed entry; an element without a valid SteamID is unparsed.
 */
export function parseRustPlayerList(message: string): PlayerListParse {
  const parsed = parseJson(message);
  if (!parsed.ok) return { status: 'unrecognised', players: [], unparsed: [{ line: clip(message), reason: `playerlist answer is ${parsed.reason}` }] };
  if (!Array.isArray(parsed.value)) {
    return { status: 'unrecognised', players: [], unparsed: [{ line: clip(message), reason: 'playerlist answer is not a JSON array' }] };
  }
  const players: ListedPlayer[] = [];
  const unparsed: UnparsedLine[] = [];
  let numericIds = 0;
  for (const element of parsed.value as unknown[]) {
    if (!isObject(element)) {
      unparsed.push({ line: clip(JSON.stringify(element)), reason: 'playerlist entry is not an object' });
      continue;
    }
    const occurrence = typeof element.SteamID === 'number' ? numericIds++ : -1;
    const rawId = idText(element.SteamID, message, 'SteamID', occurrence);
    const id = rawId === undefined ? undefined : checkPlayerId(rawId, ['steam']);
    if (id === undefined) {
      unparsed.push({ line: clip(JSON.stringify(element)), reason: 'playerlist entry has no valid SteamID' });
      continue;
    }
    players.push({ steamId: id.id, name: typeof element.DisplayName === 'string' ? element.DisplayName : '' });
  }
  // Entries that were all unreadable are not "nobody is online": a diff would make everyone leave.
  const status = players.length > 0 ? 'players' : unparsed.length > 0 ? 'unrecognised' : 'none';
  return { status, players, unparsed };
}

/** Unparsed lines end up in logs: keep a garbage answer from flooding them. */
function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
