// Reads Minecraft (Java) text: the lines of `logs/latest.log` and the RCON answer to `list uuids`. Pure functions:
// must never throw on what the game writes (an odd line is `unparsed` with a reason), never do I/O (tailing the file
// is the caller's), and never take an id or a join from a player's own words.
//
// Formats (reference/games.md, Minecraft; real captures in test/fixtures/real/minecraft-*.txt):
//   log          `[12:04:31] [Server thread/INFO]: <Doobie> hi all` (vanilla, Spigot);
//                `[00:39:30] [Async Chat Thread - #0/INFO]: <Fallen_Breath> a test text` (Spigot/Paper chat thread);
//                `[19:23:48] [Server thread/INFO]: [Not Secure] <_AzurIce_> #bksnap make` (unsigned chat, 1.19+);
//                `[09:00:16] [User Authenticator #8/INFO]: UUID of player DeLtA_sPaCes is fc2e97cd-…` (at login);
//                `[09:00:17] [Server thread/INFO]: DeLtA_sPaCes joined the game`, `… left the game`;
//                `[19:59:40 INFO]: UUID of player PotterCraft_ is c42bf69f-…` (Spigot/Paper's console layout, no
//                thread, kept by some hosts' panels). Forge adds a logger field: `[Server thread/INFO] [minecraft/…]: `.
//   list uuids   `There are 2 of a max of 20 players online: Steve (069a79f4-…), Alex_1 (853c80ef-…)`;
//                `There are 0 of a max of 20 players online: ` when nobody is on. Servers before 1.13 and some plugin
//                lists print names without ids (`There are 2/20 players online:`): not a list of ids, so unrecognised
//                unless it says 0.
// Trust: a player's text can hold anything, including a whole log line. Only the line's own head (time, thread,
// level) and what follows it directly count: chat is `<name> ` (optionally after `[Not Secure] `) right after the
// head, and a join, a leave or a `UUID of player` line must start right after the head of a trusted thread, so
// `<Mallory> Steve joined the game` is Mallory's chat and never a join.
import { checkPlayerId } from '../../../src/ids/playerIds.js';
import type { ListedPlayer, PlayerListParse, UnparsedLine } from './parsedLines.js';

/** A player's chat line. Minecraft has one public chat: global. */
export interface MinecraftChat {
  readonly kind: 'player';
  readonly channel: 'global';
  /** As written between `<` and `>` (a Floodgate Bedrock player keeps the `.` prefix). */
  readonly name: string;
  /** Exactly as written after `> ` (may be empty). */
  readonly text: string;
  /** The chat was not signed (`[Not Secure] `): said for logs only, it is gated like any other line. */
  readonly unsigned: boolean;
}

export type MinecraftLogParse =
  | MinecraftChat
  /** `UUID of player <name> is <uuid>`: the id a player logs in with. */
  | { readonly kind: 'uuid'; readonly name: string; readonly mojangId: string }
  | { readonly kind: 'join' | 'leave'; readonly name: string }
  /** `[Server] text` (`/say` from the console) and the like: the server's own words. */
  | { readonly kind: 'server'; readonly text: string }
  | { readonly kind: 'other' }
  | { readonly kind: 'unparsed'; readonly reason: string };

/** The threads whose lines may carry a player's chat. */
const CHAT_THREAD = /^(?:Server thread|Async Chat Thread - #\d+)$/;
/** The threads whose `UUID of player` lines are the game's own (vanilla and Spigot: the authenticator; some: the main thread). */
const UUID_THREAD = /^(?:User Authenticator #\d+|Server thread)$/;
/** `[time] [thread/LEVEL]` (+ Forge's ` [logger]`) `: `, or `[time LEVEL]: `. The time is whatever the layout prints. */
const HEAD = /^\[([^\]]{1,40})\] \[([^\]/]{1,80})\/([A-Z]{3,5})\](?: \[[^\]]{1,120}\])?: /;
const PLAIN_HEAD = /^\[(\d{1,2}:\d{2}:\d{2}) ([A-Z]{3,5})\]: /;
/** An ANSI colour sequence (a console capture written to a file). */
// eslint-disable-next-line no-control-regex -- ESC is what starts the sequence being removed
const ANSI = /\u001b\[[0-9;]*m/g;
const UNSIGNED = '[Not Secure] ';
/** `<name> text`: the name ends at the first `> `. */
const CHAT = /^<([^<>]{1,40})> ([\s\S]*)$/;
const UUID_LINE = /^UUID of player (\S{1,40}) is (\S{32,36})$/;
const ROSTER_LINE = /^(\S{1,40})(?: \(formerly known as \S{1,40}\))? (joined|left) the game$/;

/** The message part of a log line: what follows its head (`[time] [thread/LEVEL]: ` or `[time LEVEL]: `). */
export function minecraftMessageOf(line: string): string | undefined {
  const clean = line.replace(/^\uFEFF/, '').replace(/[\r\n\0]+$/, '').replace(ANSI, '');
  const head = HEAD.exec(clean) ?? PLAIN_HEAD.exec(clean);
  return head === null ? undefined : clean.slice(head[0].length);
}

/** One log line → what it says. A BOM, CR, LF and NUL at the ends are framing. */
export function parseMinecraftLogLine(line: string): MinecraftLogParse {
  const clean = line.replace(/^\uFEFF/, '').replace(/[\r\n\0]+$/, '').replace(ANSI, '');
  let thread: string | undefined;
  let level: string;
  let body: string;
  const head = HEAD.exec(clean);
  if (head !== null) {
    thread = head[2] ?? '';
    level = head[3] ?? '';
    body = clean.slice(head[0].length);
  } else {
    const plain = PLAIN_HEAD.exec(clean);
    // A stack trace's continuation, a line a plugin printed raw: not the game's chat.
    if (plain === null) return { kind: 'other' };
    level = plain[2] ?? '';
    body = clean.slice(plain[0].length);
  }
  if (level !== 'INFO') return { kind: 'other' };
  // Without a thread (the console layout) the head alone is trusted: nothing a player types comes before it.
  const chatThread = thread === undefined || CHAT_THREAD.test(thread);
  if (chatThread) {
    const unsigned = body.startsWith(UNSIGNED);
    const chat = CHAT.exec(unsigned ? body.slice(UNSIGNED.length) : body);
    if (chat !== null) return { kind: 'player', channel: 'global', name: chat[1] ?? '', text: chat[2] ?? '', unsigned };
    if (body.startsWith('<') || unsigned) return { kind: 'unparsed', reason: 'a chat line without "<name> " after the head' };
  }
  if (thread === undefined || UUID_THREAD.test(thread)) {
    const uuid = UUID_LINE.exec(body);
    if (uuid !== null) {
      const id = checkPlayerId(uuid[2] ?? '', ['mojang']);
      return id === undefined ? { kind: 'unparsed', reason: 'a "UUID of player" line whose id is not a Mojang UUID' } : { kind: 'uuid', name: uuid[1] ?? '', mojangId: id.id };
    }
  }
  if (thread === undefined || thread === 'Server thread') {
    const roster = ROSTER_LINE.exec(body);
    if (roster !== null) return { kind: roster[2] === 'joined' ? 'join' : 'leave', name: roster[1] ?? '' };
    if (body.startsWith('[Server] ')) return { kind: 'server', text: body.slice('[Server] '.length) };
  }
  return { kind: 'other' };
}

/** A player row of `list uuids`: the name as listed and the Mojang id (dashed lowercase). */
export interface MinecraftListedPlayer extends ListedPlayer {
  readonly mojangId: string;
}

export interface MinecraftPlayerListParse extends PlayerListParse {
  readonly players: readonly MinecraftListedPlayer[];
}

/**
 * The head of every wording seen: `There are 2 of a max of 20 players online:` (1.13+), `There are 2/20 players
 * online:` (before 1.13, Bukkit), `There are 2 out of maximum 20 players online.` (Bukkit's own list, as plugins print it).
 */
const LIST_HEAD = /There (?:are|is) (\d+)\s*(?:of a max(?:imum)?(?: of)?|out of maximum|\/)\s*(\d+) players? online[.:]?/i;
/** `name (uuid)`; a name holds no `(`, `)` or `,`. */
const ENTRY = /^([^(),]+?) \(([0-9a-fA-F-]{32,36})\)$/;

/**
 * `list uuids` → the players. Status: `players` when rows were read; `none` when the game said 0 and listed nobody;
 * `unrecognised` for an answer with no list head (an error, a plugin's own list), names without ids, or rows none of
 * which could be read: never "nobody online" for an answer that was not read. A listed count that differs from the
 * rows read is noted as unparsed, the rows read are kept.
 */
export function parseMinecraftPlayerList(answer: string): MinecraftPlayerListParse {
  const text = answer.replace(/^\uFEFF/, '').replace(ANSI, '').replace(/\0/g, '');
  const head = LIST_HEAD.exec(text);
  if (head === null) return { status: 'unrecognised', players: [], unparsed: text.trim() === '' ? [] : [{ line: text.trim().slice(0, 200), reason: 'not a "There are N of a max of M players online:" answer' }] };
  const count = Number(head[1]);
  const rest = text.slice(head.index + head[0].length).replace(/\s*\r?\n\s*/g, ', ').trim();
  const entries = rest.split(/,\s*/).map((entry) => entry.trim()).filter((entry) => entry.length > 0);
  const players: MinecraftListedPlayer[] = [];
  const unparsed: UnparsedLine[] = [];
  for (const entry of entries) {
    const row = ENTRY.exec(entry);
    const id = row === null ? undefined : checkPlayerId(row[2] ?? '', ['mojang']);
    if (row === null || id === undefined) unparsed.push({ line: entry, reason: 'not "name (uuid)": send "list uuids" (1.13+), a list of names alone cannot be mapped to ids' });
    else players.push({ name: row[1] ?? '', mojangId: id.id });
  }
  if (players.length > 0) {
    if (players.length !== count) unparsed.push({ line: head[0], reason: `the answer counts ${String(count)} players, ${String(players.length)} rows were read` });
    return { status: 'players', players, unparsed };
  }
  return { status: count === 0 && entries.length === 0 ? 'none' : 'unrecognised', players, unparsed };
}
