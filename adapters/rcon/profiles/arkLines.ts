// Reads ARK's (ASE and ASA) RCON answers: `ListPlayers` into players, `GetChat` into chat lines. Pure functions
// over the answer text: must never throw on what the game sends (an odd line is collected with a reason), never
// do I/O, and never decide policy (what to do with a muted speaker is the profile's job).
//
// Formats (reference/game-rcon.md, ARK section; read the same way by ARK Server Manager,
// ChronosWS/ARK-Dedicated-Server-Tool `ARK Server Manager/Lib/ServerRCON.cs`, which polls `listplayers` every 5 s
// and `getchat` every 1 s and matches `Server received, But no response!!`; it splits a player line on every comma,
// which breaks on names with commas: here the last comma separates):
//   ListPlayers  `0. Name, 76561198000000001` (ASE, Steam64) or `0. Name, 0002abcd…` (ASA, 32-hex EOS id),
//                one per line; `No Players Connected` when empty.
//   GetChat      `SteamName (CharacterName): text` per player line, `SERVER: text` for the server's own lines;
//                `Server received, But no response!!` when there is nothing (the buffer drains on read). A long
//                message can run on over the next lines (f4ble/pyarc `ark/tasks/task_get_chat.py` joins such
//                lines onto the message before them). The buffer also carries lines that are not chat: admin
//                commands (`AdminCmd: …`), joins and leaves (`… [UniqueNetId:… Platform:…] joined`, `… joined
//                this ARK!`) and, with tribe logs sent to RCON, `Tribe <name>, ID <n>: Day <n>, hh:mm:ss: …`.
import { checkPlayerId } from '../commandText.js';
import type { ListedPlayer, PlayerListParse, UnparsedLine } from './parsedLines.js';

/** ARK's answer to a command with no output (for GetChat: no chat since the last poll). */
const NO_RESPONSE = /^\s*Server received, But no response!!\s*$/i;
const NO_PLAYERS = /^\s*No Players Connected\s*$/i;
/** `<index>. <name>, <id>`: the greedy name makes the last comma the separator, so names may hold commas. */
const PLAYER_LINE = /^\s*(\d+)\.\s?(.*),\s*(\S+)\s*$/s;

function answerLines(answer: string): string[] {
  // The answer ends in a newline (sometimes with a NUL from the framing); blank lines carry nothing.
  return answer
    .split('\n')
    .map((line) => line.replace(/[\r\0]+$/, ''))
    .filter((line) => line.trim().length > 0);
}

/**
 * `ListPlayers` → players. The id decides the platform: 17 digits are a Steam64 (ASE), 32 hex digits an EOS id
 * (ASA, lowercased). The name is what lies between `N. ` and the last comma, trimmed; it may hold commas,
 * parentheses, colons, brackets and non-ASCII. A line whose id is neither kind is unparsed (no player without a
 * valid id: it could not be addressed by a command anyway). Status: `players` when rows were read, `none` for
 * `No Players Connected` alone, `unrecognised` when lines were there but none could be read (never "nobody
 * online": every player would leave).
 */
export function parseArkPlayerList(answer: string): PlayerListParse {
  if (NO_RESPONSE.test(answer)) return { status: 'no-response', players: [], unparsed: [] };
  const players: ListedPlayer[] = [];
  const unparsed: UnparsedLine[] = [];
  let sawNobody = false;
  for (const line of answerLines(answer)) {
    if (NO_PLAYERS.test(line)) {
      sawNobody = true;
      continue;
    }
    const match = PLAYER_LINE.exec(line);
    if (match === null) {
      unparsed.push({ line, reason: 'not a "N. Name, id" player line' });
      continue;
    }
    const rawId = match[3] ?? '';
    const id = checkPlayerId(rawId);
    if (id === undefined) {
      unparsed.push({ line, reason: 'the id after the last comma is neither a Steam64 nor an EOS id' });
      continue;
    }
    const name = (match[2] ?? '').trim();
    players.push(id.kind === 'steam' ? { steamId: id.id, name } : { eosId: id.id, name });
  }
  if (players.length > 0) return { status: 'players', players, unparsed };
  // "Nobody" beside lines that could not be read contradicts itself: never take it as an empty server.
  if (sawNobody && unparsed.length === 0) return { status: 'none', players, unparsed };
  return { status: 'unrecognised', players, unparsed };
}

/** A player's chat line. `playerName` is the platform name as ListPlayers prints it; that maps it to an id. */
export interface ArkPlayerChat {
  readonly kind: 'player';
  readonly playerName: string;
  readonly characterName: string;
  readonly text: string;
  /**
   * Every way the line splits into `Name (Character): text`, the longest player name first, when there is more than
   * one (a name holding `(X): ` makes the line ambiguous): only the player list can tell them apart, and the adapter
   * takes the longest listed one. Absent when the line splits one way only.
   */
  readonly readings?: readonly ArkSpeakerReading[] | undefined;
  /**
   * The same line read as the game's own join or leave line: a player whose name holds `(X): ` makes their join line
   * read like a listed namesake's chat (`Alice (Rex): hi joined this ARK!`). It is the join, not anyone's chat, when
   * the player list shows (or just showed) that player. Absent when the line cannot be one.
   */
  readonly presence?: ArkPresence | undefined;
}

/** A player came or went. The ids are there on ASA (`UniqueNetId`), checked; ASE lines carry the name only. */
export interface ArkPresence {
  readonly kind: 'join' | 'leave';
  readonly name: string;
  readonly eosId?: string | undefined;
  readonly steamId?: string | undefined;
}

/** ASA's presence line: the id and platform in brackets; the name is everything before (greedy: it may hold ` [`). */
const PRESENCE_WITH_ID = /^(.+) \[UniqueNetId:([^\]\s]*)\s+Platform:[^\]]*\] (joined|left) this ARK!$/;
const PRESENCE = /^(.+) (joined|left) this ARK!$/;

/** A line read as the game's own join or leave line, with the id ASA prints; undefined when it is not one. */
export function readArkPresence(body: string): ArkPresence | undefined {
  const withId = PRESENCE_WITH_ID.exec(body);
  if (withId !== null) {
    const kind = withId[3] === 'joined' ? 'join' : 'leave';
    const name = (withId[1] ?? '').trim();
    const id = checkPlayerId(withId[2] ?? '');
    if (id === undefined) return { kind, name };
    return id.kind === 'eos' ? { kind, name, eosId: id.id } : { kind, name, steamId: id.id };
  }
  const plain = PRESENCE.exec(body);
  if (plain === null) return undefined;
  return { kind: plain[2] === 'joined' ? 'join' : 'leave', name: (plain[1] ?? '').trim() };
}

/** One split of a player's chat line. */
export interface ArkSpeakerReading {
  readonly playerName: string;
  readonly characterName: string;
  readonly text: string;
}

/** A line the server itself said (`SERVER: …`, from ServerChat or a plugin): never player chat, never gated. */
export interface ArkServerChat {
  readonly kind: 'server';
  readonly text: string;
}

export type ArkChatLine = ArkPlayerChat | ArkServerChat;

/** A line of the chat buffer that is not chat: nobody said it, so it is neither gated nor worth a debug line. */
export interface ArkChatNotice {
  readonly kind: 'admin-command' | 'presence' | 'tribe-log' | 'game-log';
  readonly line: string;
}

export interface ArkChatParse {
  /** `no-response`: ARK's "nothing" answer; `lines`: anything else (possibly with every line unparsed). */
  readonly status: 'lines' | 'no-response';
  readonly lines: readonly ArkChatLine[];
  readonly unparsed: readonly UnparsedLine[];
  readonly notices: readonly ArkChatNotice[];
}

const SERVER_PREFIX = 'SERVER: ';
/**
 * The lines that are not chat. `beforeChat`: the pattern fixes the line's start, so it is tried before the
 * `Name (Character): ` rule (a tribe log may hold `): `); the others could end a player's own text
 * (`Bob (Rex): I joined this ARK!`), so they are tried only on a line that is not chat. The first match names
 * the kind (a time-stamped join is a join).
 */
const NOTICES: readonly { readonly kind: ArkChatNotice['kind']; readonly beforeChat: boolean; readonly pattern: RegExp }[] = [
  { kind: 'presence', beforeChat: false, pattern: / \[UniqueNetId:[^\]]*\] (?:joined|left)\b/ },
  { kind: 'presence', beforeChat: false, pattern: /^.+ (?:joined|left) this ARK!$/ },
  { kind: 'admin-command', beforeChat: true, pattern: /^AdminCmd: / },
  { kind: 'tribe-log', beforeChat: true, pattern: /^Tribe .+, ID \d+: Day \d+, \d{1,2}:\d{2}:\d{2}: / },
  // A tribe log's entry without its `Tribe <name>, ID <n>: ` head (how a tool or a wrapped buffer may pass it on).
  { kind: 'tribe-log', beforeChat: true, pattern: /^Day \d+, \d{1,2}:\d{2}:\d{2}: / },
  // A game-log line with ARK's own time stamp (`2026.08.31_06.01.54: …`): chat lines carry none.
  { kind: 'game-log', beforeChat: true, pattern: /^\d{4}\.\d{2}\.\d{2}_\d{2}\.\d{2}\.\d{2}: / },
  // The game's own notices of deaths, tames and demolitions (`Tribemember Guppy - Lvl 49 was killed by a Direwolf
  // - Lvl 114!`, `Your Tribe Tamed a … - Lvl 24 (Kentrosaurus)!`, `Bob demolished a 'Wood Wall'!`), seen bare when
  // a tribe log's head is missing. Tried only on a line that is not chat, and before it could continue a message.
  { kind: 'game-log', beforeChat: false, pattern: /^.+ - Lvl \d+\b.*!$/ },
  { kind: 'game-log', beforeChat: false, pattern: /^.+ (?:was killed|starved to death|was auto-decay destroyed)(?: by .+)?!$/ },
  { kind: 'game-log', beforeChat: false, pattern: /^(?:Your Tribe |Tribemember )?.+ (?:demolished|destroyed|claimed|unclaimed|Tamed) an? .+!$/ },
];
/** The notice kind of a line that is not chat, if it is one of the game's own (NOTICES, first match). */
export function arkNoticeKind(line: string): ArkChatNotice['kind'] | undefined {
  return NOTICES.find(({ pattern }) => pattern.test(line))?.kind;
}
/** The end of the character name: `): ` before the text, or `):` closing a line whose text is empty. */
const CHARACTER_END = /\): |\):$/;

/**
 * `GetChat` → chat lines.
 *
 * The format is ambiguous: `SteamName (CharacterName): text`, where a Steam name may contain ` (`, `)`, `:` and
 * even `): `, and the text may contain anything. The rule, in order:
 * 1. If the line starts with `<known> (` for a name in `knownNames` (the current ListPlayers names; the longest
 *    wins), that is the player name; the character name runs to the first `): ` after it. A known player whose
 *    name starts with `SERVER: ` is thus still read as a player.
 * 2. Otherwise a line starting with `SERVER: ` is a server line.
 * 3. Otherwise the character name ends at the first `): ` in the line and starts after the last ` (` before
 *    that; everything before is the player name. This reads `Bob (the builder) (Rex): hi (yes): ok` right
 *    (player `Bob (the builder)`, character `Rex`), since a text's own `): ` comes later. It misreads only a
 *    player name containing `): ` (or a character name containing ` (` or `): `); ARK's character names are
 *    plain, and rule 1 settles Steam names whenever the player list is passed.
 * A line that is not chat (NOTICES: admin commands, joins, tribe logs, the game's death and tame notices) is a
 * notice, and never joins onto the message before it. Any other line that cannot be read continues the message
 * right before it (a long message runs on over several lines) and is joined onto its text with a newline; with no
 * message right before it (first in the answer, or after a notice) it is unparsed.
 * Text is kept exactly as received after the separator (the chat gate and cleanComment judge it later).
 */
export function parseArkChat(answer: string, knownNames: Iterable<string> = []): ArkChatParse {
  if (NO_RESPONSE.test(answer)) return { status: 'no-response', lines: [], unparsed: [], notices: [] };
  const names = sortKnownNames(knownNames);
  const lines: ArkChatLine[] = [];
  const unparsed: UnparsedLine[] = [];
  const notices: ArkChatNotice[] = [];
  /** Whether the line before was a chat line, which a line that cannot be read continues. */
  let continuable = false;
  for (const line of answerLines(answer)) {
    const parsed = parseChatLine(line, names);
    if (typeof parsed !== 'string') {
      lines.push(parsed);
      continuable = true;
      continue;
    }
    const notice = arkNoticeKind(line);
    if (notice !== undefined) {
      notices.push({ kind: notice, line });
      continuable = false;
      continue;
    }
    const previous = lines.at(-1);
    if (continuable && previous !== undefined) lines[lines.length - 1] = continued(previous, line);
    else unparsed.push({ line, reason: parsed });
  }
  return { status: 'lines', lines, unparsed, notices };
}

/** A message that runs on over the next line: the line joins its text, in every reading of its speaker. */
function continued(previous: ArkChatLine, line: string): ArkChatLine {
  if (previous.kind === 'server' || previous.readings === undefined) return { ...previous, text: `${previous.text}\n${line}` };
  return { ...previous, text: `${previous.text}\n${line}`, readings: previous.readings.map((reading) => ({ ...reading, text: `${reading.text}\n${line}` })) };
}

/** The known names as parseChatLine wants them: distinct, not empty, the longest first (so the longest wins). */
export function sortKnownNames(knownNames: Iterable<string>): string[] {
  return [...new Set(knownNames)].filter((name) => name.length > 0).sort((a, b) => b.length - a.length);
}

/** A platform name is far shorter (Steam's are at most 32 characters): a split with a longer one is not a name. */
const MAX_PLAYER_NAME_LENGTH = 64;

/** Where the character name that starts at `from` ends: the first `): `, or a `):` that ends the line; -1: nowhere. */
function characterEnd(line: string, from: number): number {
  const end = line.indexOf('): ', from);
  if (end >= 0) return end;
  return line.endsWith('):') && line.length - 2 >= from ? line.length - 2 : -1;
}

/**
 * Every split of a chat line into `Name (Character): text` whose name is at most MAX_PLAYER_NAME_LENGTH long, the
 * longest name first: at each ` (` the character name runs to the first `): ` after it. A hostile line costs at most
 * one scan for `): ` per ` (` in its first characters.
 */
export function arkSpeakerReadings(line: string): ArkSpeakerReading[] {
  const readings: ArkSpeakerReading[] = [];
  let end = -1;
  for (let open = line.indexOf(' ('); open > 0 && open <= MAX_PLAYER_NAME_LENGTH; open = line.indexOf(' (', open + 1)) {
    if (end < open + 2) end = characterEnd(line, open + 2);
    if (end < 0) break;
    readings.push({ playerName: line.slice(0, open), characterName: line.slice(open + 2, end), text: line.slice(end + 3) });
  }
  return readings.reverse();
}

/** The line's chat reading with its other splits attached, when it has more than one. */
function withReadings(chat: ArkPlayerChat, line: string): ArkPlayerChat {
  const readings = arkSpeakerReadings(line);
  const presence = readArkPresence(line);
  if (readings.length <= 1 && presence === undefined) return chat;
  return { ...chat, ...(readings.length > 1 ? { readings } : {}), ...(presence === undefined ? {} : { presence }) };
}

/**
 * One line read as chat, with the rules of parseArkChat (known names first, then `SERVER: `, then the notices
 * whose start is fixed, then the first `): `): a chat line, or why it is not one. `knownNames` must come from
 * sortKnownNames. Shared with the game-log reader, whose chat lines have the same shape once their time stamps
 * are removed.
 */
export function parseChatLine(line: string, knownNames: readonly string[]): ArkChatLine | string {
  for (const name of knownNames) {
    if (!line.startsWith(`${name} (`)) continue;
    const afterName = line.slice(name.length + 2);
    const end = CHARACTER_END.exec(afterName);
    if (end === null) continue;
    return withReadings({ kind: 'player', playerName: name, characterName: afterName.slice(0, end.index), text: afterName.slice(end.index + 3) }, line);
  }
  if (line.startsWith(SERVER_PREFIX)) return { kind: 'server', text: line.slice(SERVER_PREFIX.length) };
  if (NOTICES.some(({ beforeChat, pattern }) => beforeChat && pattern.test(line))) return 'not chat';
  const end = CHARACTER_END.exec(line);
  if (end === null) return 'no "Name (Character): text" separator and not a SERVER line';
  const open = line.lastIndexOf(' (', end.index);
  if (open <= 0) return 'no " (" before the character name, or an empty player name';
  return withReadings(
    {
      kind: 'player',
      playerName: line.slice(0, open),
      characterName: line.slice(open + 2, end.index),
      text: line.slice(end.index + 3),
    },
    line,
  );
}
