// Reads 7 Days to Die's telnet console: the log lines the server pushes (chat, joins, leaves) and the `lp` answer.
// Pure functions: must never throw on what the game sends (an odd line is a result with a reason), never do I/O,
// and never decide policy (who is gated is the bridge's business).
//
// Formats (reference/games.md "7 Days to Die"; real captures in test/fixtures/real/7dtd-*.txt):
//   log line   `2021-09-15T20:42:00 1103.462 INF <message>`: a local timestamp, seconds since start, a level.
//   chat       `Chat (from 'Steam_76561198145251396', entity id '171', to 'Global'): 'Name': text`
//              `from`: `Steam_<17 digits>`, `XBL_…`, `PSN_…`, `EOS_…` (platform-prefixed since A20), a bare id
//              (A18/A19 builds), or `-non-player-` (the server's own line; its `'Name': ` part may be missing).
//              Channels: Global, Party, Friends (and Guild / Whisper on some builds: kept as `other`).
//              `'Name':text` (no space) comes from some mods' re-sends; `entity id '-1'` is no entity (a mod speaking).
//   mod chat   `Chat handled by mod '<mod>': Chat (from …` (the same chat line, maybe without `'Name': `): the game
//              writes it *instead of* the plain line when a chat mod takes the message; the mod then re-broadcasts
//              the words as the server's (`-non-player-`, a coloured name) or through the player's connection with
//              entity id -1; some mods also leave a plain line of the same message a few ms apart.
//   lp row     `0. id=171, Name, pos=(…), rot=(…), remote=True, health=92, …, pltfmid=Steam_…, crossid=EOS_…, ip=…, ping=0`
//              (A19: `steamid=<17 digits>` instead of pltfmid/crossid), then `Total of N in the game`.
//   join       `PlayerSpawnedInWorld (reason: JoinMultiplayer, position: …): EntityID=171, PltfmId='Steam_…', CrossId='EOS_…', …`
//              (`reason: EnterMultiplayer` on a player's very first spawn; newer builds end `, ClientNumber='6'`)
//   leave      `Player disconnected: EntityID=171, PltfmId='Steam_…', CrossId='EOS_…', OwnerID='…', PlayerName='…'`
import type { ChatChannel } from '../../../src/bridge/port.js';
import { checkPlayerId } from '../commandText.js';
import type { ListedPlayer, PlayerListStatus, UnparsedLine } from './parsedLines.js';

/** A log line's prefix: date and time, uptime in seconds, level. Levels seen: INF, WRN, ERR, EXC, LOG. */
const LOG_PREFIX = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}) (\d+(?:\.\d+)?) ([A-Z]{3}) /;

export interface SevenDaysLogLine {
  /** As printed: the server's local time, no zone. */
  readonly timestamp: string;
  /** Seconds since the server started. */
  readonly uptimeSeconds: number;
  readonly level: string;
  /** What follows the level. */
  readonly message: string;
}

/** Whether a console line is a pushed log line (has the prefix) rather than a command's answer. */
export function isSevenDaysLogLine(line: string): boolean {
  return LOG_PREFIX.test(line);
}

/** A console line split into its log prefix and message; undefined for a line without the prefix. */
export function splitSevenDaysLogLine(line: string): SevenDaysLogLine | undefined {
  const clean = stripLineEnd(line);
  const head = LOG_PREFIX.exec(clean);
  if (head === null) return undefined;
  return { timestamp: head[1] ?? '', uptimeSeconds: Number(head[2]), level: head[3] ?? '', message: clean.slice(head[0].length) };
}

// ---- chat ------------------------------------------------------------------------------------------------------------

/** 7DTD's channel names in the sidecar's vocabulary. Any other channel is `other`. */
const CHANNELS: Readonly<Record<string, ChatChannel>> = { Global: 'global', Party: 'team', Friends: 'other' };

export interface SevenDaysPlayerChat {
  readonly kind: 'player';
  readonly channel: ChatChannel;
  /** The channel as the game printed it (`Global`, `Party`, `Friends`, …). */
  readonly gameChannel: string;
  /**
   * As printed, colour codes (`[94CBFF]…[-]`) and all. V1.0 lines (and some chat mods' lines) carry no name: then
   * the one `knownName` gives for the entity id, else '' (look the player up by `entityId` or `platformId`).
   */
  readonly name: string;
  /** The `from` field as printed: `Steam_7656…`, `XBL_…`, `EOS_…`, or a bare id on old builds. */
  readonly platformId: string;
  /** The Steam64, when `from` carries one (`Steam_<17 digits>` or a bare 17-digit id). */
  readonly steamId?: string | undefined;
  /** The EOS id (lowercased), when `from` is `EOS_<32 hex>`; for other platforms it comes from `lp`'s crossid. */
  readonly eosId?: string | undefined;
  readonly entityId: number;
  /** Exactly as received after the name's `':` and the one space the game puts after it (may be empty). */
  readonly text: string;
  /**
   * Who stopped the game's own handling, as the `Chat handled by <who>: Chat (from …` line says it (`mod 'Botman'`),
   * cleaned of control characters and bounded; absent on the game's plain line.
   */
  readonly handledBy?: string | undefined;
}

/**
 * One console line, read for chat:
 * - `player`: a player's chat line: the game's plain line, or the `Chat handled by mod '<mod>': Chat (from …` line the
 *   game writes instead of it when a chat mod (ServerTools, CSMM Patrons, Botman, PrismaCore…) takes the message;
 * - `server`: the server's own line (`-non-player-`: `say` from the console, a mod's broadcast or its re-broadcast of a
 *   player's words under a coloured name), or a mod speaking with a player's connection but no entity (`entity id
 *   '-1'`: ServerTools' re-broadcast and bot answers): never gated;
 * - `other`: a log line that is not chat, or a line that is not a log line;
 * - `unparsed`: a chat line that cannot be read (with why: worth a rate-limited log line).
 */
export type SevenDaysChatParse =
  | SevenDaysPlayerChat
  | { readonly kind: 'server'; readonly text: string }
  | { readonly kind: 'other' }
  | { readonly kind: 'unparsed'; readonly reason: string };

const CHAT_HEAD = /^Chat \(from '([^']*)', entity id '(-?\d+)', to '([^']*)'\): /;
const HANDLED_HEAD = 'Chat handled by ';
/** Where the handler's name ends: the game writes the chat line it would have written right after it. */
const HANDLED_END = ': Chat (';
/** A mod's name is the mod author's text, not a player's: still cleaned and cut, as it goes into logs. */
const MAX_HANDLER_CHARS = 64;
const NON_PLAYER = '-non-player-';
/** The entity id of no entity: the console, or a mod speaking (with or without a player's connection). */
const NO_ENTITY = -1;
const NAME_END = "':";

/**
 * One pushed console line → chat, server line, other, or unparsed.
 *
 * Who spoke is read from `from` and `entity id` only: they come before anything a player controls (the name and the
 * text), so a name can never lend a line another player's id. A chat mod's line (`Chat handled by mod '<mod>': …`)
 * is read as the chat line it wraps, with `handledBy`; pairing it with the game's plain line of the same message is
 * the profile's reader's work (sevenDaysReader.ts), not this function's.
 *
 * The name part: `'Name': text`, or `'Name':text` (no space: some mods' re-sends), or none at all (V1.0 builds, and
 * CSMM's handled lines). Names may hold `'`, `':` and `': `, which makes the split ambiguous. The rule, in order:
 * 1. the name `knownName` gives for this line's entity id, when the rest starts with `'<that name>':`;
 * 2. the longest of `listedNames` (the player list's names) that holds `':` and starts the rest as `'<name>':`;
 * 3. the first `':` after the opening quote (a text holding `':` is likelier than a name holding it).
 * A line whose rest does not start with `'`, or holds no `':`, has no name part: all of it is the text. So a V1.0
 * line whose text starts with `'` and holds `':` is misread as `'name':text` (its speaker is still read from the ids).
 */
export function parseSevenDaysChat(
  line: string,
  knownName?: (entityId: number) => string | undefined,
  listedNames: readonly string[] = [],
): SevenDaysChatParse {
  const log = splitSevenDaysLogLine(line);
  if (log === undefined) return { kind: 'other' };
  if (log.message.startsWith(HANDLED_HEAD)) {
    const end = log.message.indexOf(HANDLED_END, HANDLED_HEAD.length);
    if (end < 0) return { kind: 'unparsed', reason: "a 'Chat handled by' line without the chat line it wraps" };
    const handledBy = cleanHandler(log.message.slice(HANDLED_HEAD.length, end));
    const wrapped = readChat(log.message.slice(end + 2), knownName, listedNames);
    if (wrapped.kind === 'other') return { kind: 'unparsed', reason: "a 'Chat handled by' line whose chat line cannot be read" };
    return wrapped.kind === 'player' ? { ...wrapped, handledBy } : wrapped;
  }
  return readChat(log.message, knownName, listedNames);
}

function readChat(message: string, knownName: ((entityId: number) => string | undefined) | undefined, listedNames: readonly string[]): SevenDaysChatParse {
  const head = CHAT_HEAD.exec(message);
  if (head === null) {
    if (message.startsWith('Chat (')) return { kind: 'unparsed', reason: "a chat line without the (from '…', entity id '…', to '…') part" };
    // A16/A17 builds: `Chat: 'Name': text`, no id at all; the sidecar cannot gate a speaker it cannot name by id.
    if (message.startsWith("Chat: '")) return { kind: 'unparsed', reason: 'a chat line of a pre-A18 build, with no sender id' };
    return { kind: 'other' };
  }
  const from = head[1] ?? '';
  const entityId = Number(head[2]);
  const gameChannel = head[3] ?? '';
  const rest = message.slice(head[0].length);
  // A player's own chat always carries their entity; `-1` with a player's id is a mod speaking through their
  // connection (ServerTools re-broadcasts the words it handled, and its bot answers, that way; CSMM skips such lines
  // too): the player's own line is the `Chat handled by mod` one.
  if (from === NON_PLAYER || entityId === NO_ENTITY) return { kind: 'server', text: splitName(rest, undefined, [])?.text ?? rest };
  if (from.length === 0) return { kind: 'unparsed', reason: "a chat line with an empty 'from'" };
  const known = knownName?.(entityId);
  const split = splitName(rest, known, listedNames) ?? { name: known ?? '', text: rest };
  const ids = platformIds(from);
  return {
    kind: 'player',
    channel: CHANNELS[gameChannel] ?? 'other',
    gameChannel,
    name: split.name,
    platformId: from,
    ...ids,
    entityId,
    text: split.text,
  };
}

function splitName(rest: string, known: string | undefined, listedNames: readonly string[]): { name: string; text: string } | undefined {
  if (!rest.startsWith("'")) return undefined;
  const named = known !== undefined && known.length > 0 && rest.startsWith(`'${known}${NAME_END}`) ? known : longestListedName(rest, listedNames);
  if (named !== undefined) return { name: named, text: textAfter(rest, 1 + named.length + NAME_END.length) };
  const end = rest.indexOf(NAME_END, 1);
  if (end < 0) return undefined;
  return { name: rest.slice(1, end), text: textAfter(rest, end + NAME_END.length) };
}

/** Only a listed name holding `':` can change the split: any other is found by the first `':` already. */
function longestListedName(rest: string, listedNames: readonly string[]): string | undefined {
  let longest: string | undefined;
  for (const name of listedNames) {
    if (name.includes(NAME_END) && rest.startsWith(`'${name}${NAME_END}`) && name.length > (longest?.length ?? -1)) longest = name;
  }
  return longest;
}

/** The text after the name's `':`: the game puts one space there; a mod's re-send may put none. */
function textAfter(rest: string, at: number): string {
  return rest.startsWith(' ', at) ? rest.slice(at + 1) : rest.slice(at);
}

/** Control and format characters (line breaks, bidi overrides) out, cut to a bound: it is shown in logs. */
function cleanHandler(raw: string): string {
  const clean = raw.replace(/[\p{Cc}\p{Cf}]/gu, '').trim();
  return clean.length > MAX_HANDLER_CHARS ? `${clean.slice(0, MAX_HANDLER_CHARS - 1)}…` : clean;
}

/** The ids a platform id carries: `Steam_<17 digits>` or a bare Steam64 → steamId; `EOS_<32 hex>` → eosId. */
function platformIds(platformId: string): { steamId?: string; eosId?: string } {
  const underscore = platformId.indexOf('_');
  const platform = underscore < 0 ? '' : platformId.slice(0, underscore);
  const value = underscore < 0 ? platformId : platformId.slice(underscore + 1);
  if (platform === '' || platform === 'Steam') {
    const steam = checkPlayerId(value, ['steam']);
    return steam === undefined ? {} : { steamId: steam.id };
  }
  if (platform === 'EOS') {
    const eos = checkPlayerId(value, ['eos']);
    return eos === undefined ? {} : { eosId: eos.id };
  }
  return {};
}

/** `EOS_<32 hex>` → the EOS id, lowercased; anything else → undefined. */
function crossEosId(crossId: string | undefined): string | undefined {
  if (crossId?.startsWith('EOS_') !== true) return undefined;
  return checkPlayerId(crossId.slice(4), ['eos'])?.id;
}

// ---- lp --------------------------------------------------------------------------------------------------------------

export interface SevenDaysListedPlayer extends ListedPlayer {
  readonly name: string;
  readonly entityId: number;
  /** `pltfmid` as printed (`Steam_7656…`, `XBL_…`), or `steamid` on A19 builds. */
  readonly platformId: string;
  readonly steamId?: string | undefined;
  /** From `crossid=EOS_<32 hex>`, lowercased: the id GameServerApp takes. */
  readonly eosId?: string | undefined;
}

export interface SevenDaysPlayerListParse {
  readonly status: PlayerListStatus;
  readonly players: readonly SevenDaysListedPlayer[];
  readonly unparsed: readonly UnparsedLine[];
}

const LP_ROW_HEAD = /^\d+\. id=(-?\d+), /;
const LP_TOTAL = /^Total of (\d+) in the game$/;
/** The name ends at the row's last `, pos=(`: everything after it is the game's own fields. */
const POS_FIELD = ', pos=(';
const FIELD = /(?:^|, )([a-z]+)=([^,]*)/g;

/**
 * An `lp` answer → who is online. Lines that are not rows (pushed log lines the client let through, blank lines)
 * are ignored. Status: `none` on `Total of 0 in the game` and nothing else; `players` when the total matches the rows read;
 * `unrecognised` when the total is missing or does not match the rows read (a player who cannot be read must never
 * look like a player who left); `no-response` for an empty answer.
 */
export function parseSevenDaysPlayerList(answer: string): SevenDaysPlayerListParse {
  const players: SevenDaysListedPlayer[] = [];
  const unparsed: UnparsedLine[] = [];
  let total: number | undefined;
  let sawText = false;
  for (const rawLine of answer.split('\n')) {
    const line = stripLineEnd(rawLine).trim();
    if (line.length === 0) continue;
    sawText = true;
    const totalMatch = LP_TOTAL.exec(line);
    if (totalMatch !== null) {
      total = Number(totalMatch[1]);
      continue;
    }
    if (isSevenDaysLogLine(line)) continue;
    const head = LP_ROW_HEAD.exec(line);
    if (head === null) {
      unparsed.push({ line, reason: 'not an "n. id=…, Name, pos=(…), …" row' });
      continue;
    }
    const row = readRow(line, head);
    if (typeof row === 'string') unparsed.push({ line, reason: row });
    else players.push(row);
  }
  let status: PlayerListStatus;
  if (!sawText) status = 'no-response';
  else if (total === 0 && players.length === 0 && unparsed.length === 0) status = 'none';
  else if (total !== undefined && total > 0 && total === players.length) status = 'players';
  else status = 'unrecognised';
  return { status, players, unparsed };
}

function readRow(line: string, head: RegExpExecArray): SevenDaysListedPlayer | string {
  const afterId = line.slice(head[0].length);
  const pos = afterId.lastIndexOf(POS_FIELD);
  if (pos < 0) return 'a player row without ", pos=("';
  const name = afterId.slice(0, pos);
  const fields = new Map<string, string>();
  // The position and rotation hold commas inside their parentheses: drop them before reading key=value pairs.
  const tail = afterId.slice(pos + 2).replace(/\([^)]*\)/g, '()');
  for (const match of tail.matchAll(FIELD)) fields.set(match[1] ?? '', (match[2] ?? '').trim());
  const platformId = fields.get('pltfmid') ?? fields.get('steamid');
  if (platformId === undefined || platformId.length === 0) return 'a player row without pltfmid= or steamid=';
  const ids = platformIds(platformId);
  const eosId = crossEosId(fields.get('crossid')) ?? ids.eosId;
  return {
    name,
    entityId: Number(head[1]),
    platformId,
    ...(ids.steamId === undefined ? {} : { steamId: ids.steamId }),
    ...(eosId === undefined ? {} : { eosId }),
  };
}

// ---- joins and leaves ------------------------------------------------------------------------------------------------

export type SevenDaysPresence =
  | {
      readonly kind: 'join' | 'leave';
      readonly entityId: number;
      /** `PltfmId` (A20+) or `PlayerID` (A19), as printed. */
      readonly platformId: string;
      readonly steamId?: string | undefined;
      readonly eosId?: string | undefined;
      readonly name?: string | undefined;
    }
  | { readonly kind: 'other' };

const JOIN_HEAD = /^PlayerSpawnedInWorld \(reason: (?:JoinMultiplayer|EnterMultiplayer)[,)]/;
/** Newer builds end the line with the client's number, after the name. */
const CLIENT_NUMBER_TAIL = /', ClientNumber='\d+'$/;
const LEAVE_HEAD = /^Player disconnected: /;
const QUOTED_FIELD = /(?:^|, )(EntityID|PltfmId|PlayerID|CrossId|PlayerName)=(?:'([^']*)'|(-?\d+))/g;

/**
 * A pushed log line → a join (`PlayerSpawnedInWorld (reason: JoinMultiplayer …)`, or `EnterMultiplayer` on a
 * player's very first spawn: the player is in the world) or a leave (`Player disconnected: …`), with the ids the line
 * carries; `other` for anything else, or a line missing its EntityID or platform id. The ids are read only before
 * `PlayerName=` (the game's fields; the name is the player's). The name is read only when it is the line's last field,
 * or is followed only by `, ClientNumber='<n>'` (it may hold quotes and commas).
 */
export function parseSevenDaysPresence(line: string): SevenDaysPresence {
  const log = splitSevenDaysLogLine(line);
  if (log === undefined) return { kind: 'other' };
  let kind: 'join' | 'leave';
  let body: string;
  if (JOIN_HEAD.test(log.message)) {
    kind = 'join';
    const colon = log.message.indexOf('): ');
    if (colon < 0) return { kind: 'other' };
    body = log.message.slice(colon + 3);
  } else if (LEAVE_HEAD.test(log.message)) {
    kind = 'leave';
    body = log.message.replace(LEAVE_HEAD, '');
  } else {
    return { kind: 'other' };
  }
  const nameAt = body.indexOf("PlayerName='");
  const named = nameAt >= 0 ? body.slice(nameAt + "PlayerName='".length).replace(CLIENT_NUMBER_TAIL, "'") : '';
  const name = nameAt >= 0 && named.endsWith("'") ? named.slice(0, -1) : undefined;
  const fields = new Map<string, string>();
  for (const match of (nameAt >= 0 ? body.slice(0, nameAt) : body).matchAll(QUOTED_FIELD)) {
    fields.set(match[1] ?? '', match[2] ?? match[3] ?? '');
  }
  const entity = fields.get('EntityID');
  const platformId = fields.get('PltfmId') ?? fields.get('PlayerID');
  if (entity === undefined || !/^-?\d+$/.test(entity) || platformId === undefined || platformId.length === 0) return { kind: 'other' };
  const ids = platformIds(platformId);
  const eosId = crossEosId(fields.get('CrossId')) ?? ids.eosId;
  return {
    kind,
    entityId: Number(entity),
    platformId,
    ...(ids.steamId === undefined ? {} : { steamId: ids.steamId }),
    ...(eosId === undefined ? {} : { eosId }),
    ...(name === undefined ? {} : { name }),
  };
}

function stripLineEnd(line: string): string {
  return line.replace(/[\r\n\0]+$/, '');
}
