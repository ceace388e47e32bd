// Reads Minecraft (Java) text: the lines of `logs/latest.log` and the RCON answer to `list uuids`. Pure functions:
// must never throw on what the game writes (an odd line is `unparsed` with a reason), never do I/O (tailing the file
// is the caller's), and never take an id, a join or another player's line from a player's own words.
//
// Formats (reference/games.md, Minecraft; real captures in test/fixtures/real/minecraft-*.txt):
//   log          `[12:04:31] [Server thread/INFO]: <Doobie> hi all` (vanilla, Spigot);
//                `[00:39:30] [Async Chat Thread - #0/INFO]: <Fallen_Breath> a test text` (Spigot/Paper chat thread);
//                `[01:09:31] [Netty Server IO #2/INFO]: <Fallen_Breath> hey cat` (hybrids: CatServer, Mohist);
//                `[19:23:48] [Server thread/INFO]: [Not Secure] <_AzurIce_> #bksnap make` (unsigned chat, 1.19+);
//                `[09:00:04 INFO]: [world_nether]<Alex> hello` (Bukkit's world tag before the name);
//                `[…] [Server thread/INFO] [net.minecraft.server.dedicated.DedicatedServer]: <§2Iworb§r> §rхв§r`
//                (Forge's logger field; older servers keep `§` colour codes in the file);
//                `[08:33:10] [Server thread/INFO]: * GracieBoo myserver.mcpre.co.uk NEW SERVER COME JOIN` (`/me`);
//                `[11:57:35 INFO]: [Not Secure] [Server] Hello`, `[Rcon] hi`, `[Steve] text` (`/say`);
//                `[09:00:16] [User Authenticator #8/INFO]: UUID of player DeLtA_sPaCes is fc2e97cd-…` (at login);
//                `[09:00:17] [Server thread/INFO]: DeLtA_sPaCes joined the game`, `… left the game`;
//                `[19:59:40 INFO]: UUID of player PotterCraft_ is c42bf69f-…` (Spigot/Paper's console layout, no
//                thread, kept by some hosts' panels; Arclight's adds a logger field: `[13:22:05 INFO] [Minecraft]: `).
//   list uuids   `There are 2 of a max of 20 players online: Steve (069a79f4-…), Alex_1 (853c80ef-…)`;
//                `There are 0 of a max of 20 players online: ` when nobody is on. Servers before 1.13 and some plugin
//                lists print names without ids (`There are 2/20 players online:`): not a list of ids, so unrecognised
//                unless it says 0.
// Trust: a player's text can hold anything, including a whole log line, but it always comes after the line's own
// head (time, thread, level) and the speaker's `<name> `. So only what follows the head directly counts: chat is
// `<name> ` there (after `[Not Secure] ` and a Bukkit world tag at most), from any thread (hybrids chat on Netty's);
// a join, a leave or a `UUID of player` line must start right after the head of the thread the game writes it on, so
// `<Mallory> Steve joined the game` is Mallory's chat and never a join, and Netty's thread is never trusted for them.
// `/me` (`* name text`) is tied to a player only by a name the player list shows (`knownNames`); `* word …` for any
// other word is unparsed. Colour codes (`§` and one of `0-9a-fk-orx`) are removed from the message before reading.
// A chat plugin's own format (`[Admin] Mr_RedSheep: lol`, `<[Member] Steve> hi`) is not read here (the host's
// chatPattern reads it): a line naming a listed player right before `: `, ` » `, ` >> ` or ` > `, or a `<…>` holding a
// prefix, is reported unparsed, so it is counted, never taken.
import { checkPlayerId } from '../../../src/ids/playerIds.js';
import type { ListedPlayer, PlayerListParse, UnparsedLine } from './parsedLines.js';

/** A player's chat line. Minecraft has one public chat: global. */
export interface MinecraftChat {
  readonly kind: 'player';
  readonly channel: 'global';
  /** As written between `<` and `>` (or after `* `), colour codes removed (a Floodgate Bedrock player keeps the `.`). */
  readonly name: string;
  /** As written after `> ` (may be empty), colour codes removed. */
  readonly text: string;
  /** The chat was not signed (`[Not Secure] `): said for logs only, it is gated like any other line. */
  readonly unsigned: boolean;
  /** `/me`: the line was `* name text` (an emote: needs no permission, so it is gated as chat). */
  readonly readAs?: '/me';
}

export type MinecraftLogParse =
  | MinecraftChat
  /** `UUID of player <name> is <uuid>`: the id a player logs in with. */
  | { readonly kind: 'uuid'; readonly name: string; readonly mojangId: string }
  | { readonly kind: 'join' | 'leave'; readonly name: string }
  /** `[Server] text`, `[Rcon] text` (`/say` from the console or RCON): the server's own words. */
  | { readonly kind: 'server'; readonly text: string }
  /** `[Steve] text`: `/say` by a listed player, an operator's broadcast (the command needs operator rights). */
  | { readonly kind: 'say'; readonly name: string; readonly text: string }
  | { readonly kind: 'other' }
  | { readonly kind: 'unparsed'; readonly reason: string };

/** The threads whose `UUID of player` lines are the game's own (vanilla and Spigot: the authenticator; some: the main thread). */
const UUID_THREAD = /^(?:User Authenticator #\d+|Server thread)$/;
/** `[time] [thread/LEVEL]` (+ Forge's ` [logger]`) `: `. The time is whatever the layout prints. */
const HEAD = /^\[([^\]]{1,40})\] \[([^\]/]{1,80})\/([A-Z]{3,5})\](?: \[[^\]]{1,120}\])?: /;
/** `[time LEVEL]: ` (Bukkit's console layout), with Arclight's ` [logger]` before the colon. */
const PLAIN_HEAD = /^\[(\d{1,2}:\d{2}:\d{2}) ([A-Z]{3,5})\](?: \[[^\]]{1,120}\])?: /;
/** An ANSI colour sequence (a console capture written to a file). */
// eslint-disable-next-line no-control-regex -- ESC is what starts the sequence being removed
const ANSI = /\u001b\[[0-9;]*m/g;
/**
 * A colour or format code: `§` and one of 0-9, a-f, k-o, r, or x (the start of Bukkit's hex form
 * `§x§r§r§g§g§b§b`, whose six digits are codes themselves). A `§` before anything else, or at the end, stays.
 */
const COLOUR_CODE = /\u00a7[0-9a-fk-orx]/gi;
const UNSIGNED = '[Not Secure] ';
/** `<name> text`, or Bukkit's `[world]<name> text`: the name ends at the first `> `. */
const CHAT = /^(?:\[[^[\]\s]{1,64}\])?<([^<>]{1,40})> ([\s\S]*)$/;
/**
 * Brackets never occur in a player's name: between `<` and `>` they are a prefix or suffix a plugin added (a name
 * with a space is one too, unless it is a Floodgate Bedrock name, which starts with `.`).
 */
const DECORATED_NAME = /[[\](){}]/;
/** `[sender] text`: `/say`. */
const SAY = /^\[([^[\]]{1,40})\] ([\s\S]*)$/;
/** The senders `/say` names when no player runs it. */
const SERVER_SENDERS = new Set(['Server', 'Rcon']);
const UUID_LINE = /^UUID of player (\S{1,40}) is (\S{32,36})$/;
const ROSTER_LINE = /^(\S{1,40})(?: \(formerly known as \S{1,40}\))? (joined|left) the game$/;
/** What a chat plugin puts between the speaker and the words (`Steve: hi`, `Steve » hi`, `[Steve] ➤ hi`). */
const PLUGIN_SEPARATOR = /^[\])]?\s?(?::|»|>>|>|➤|→)(?:\s|$)/u;
/** A line with none of the separators is no plugin's chat: the names need not be looked for. */
const PLUGIN_SEPARATOR_ANYWHERE = /[:»>➤→]/u;
/** A plugin's prefix before the name (`[Admin] `, `!!OWNER!! `) is short; a name deeper in is someone's words. */
const PLUGIN_PREFIX_MAX = 64;
/** The character before a plugin line's name is not part of a word: `Kicked Steve: spam` is the game's feedback. */
const PLUGIN_NAME_START = /(?:^|[^\p{L}\p{N}_\s]\s?)$/u;

/** Removes Minecraft's colour and format codes (`§e`, `§l`, `§x§r§r§g§g§b§b`). */
export function stripMinecraftColourCodes(text: string): string {
  return text.replace(COLOUR_CODE, '');
}

interface LineHead {
  /** Undefined in Bukkit's console layout, which prints no thread. */
  readonly thread: string | undefined;
  readonly level: string;
  /** What follows the head, colour codes removed. */
  readonly message: string;
}

function readHead(line: string): LineHead | undefined {
  const clean = line.replace(/^\uFEFF/, '').replace(/[\r\n\0]+$/, '').replace(ANSI, '');
  const head = HEAD.exec(clean);
  if (head !== null) return { thread: head[2] ?? '', level: head[3] ?? '', message: stripMinecraftColourCodes(clean.slice(head[0].length)) };
  const plain = PLAIN_HEAD.exec(clean);
  return plain === null ? undefined : { thread: undefined, level: plain[2] ?? '', message: stripMinecraftColourCodes(clean.slice(plain[0].length)) };
}

/** The message part of a log line, colour codes removed: what follows its head (`[time] [thread/LEVEL]: ` or `[time LEVEL]: `). */
export function minecraftMessageOf(line: string): string | undefined {
  return readHead(line)?.message;
}

/**
 * The names a line may be tied to, prepared once for many lines (a reader keeps one while the list does not change):
 * longest first, so `Steve_2` is tried before `Steve`, and as a set.
 */
export class KnownMinecraftNames {
  readonly longestFirst: readonly string[];
  readonly all: ReadonlySet<string>;

  constructor(names: Iterable<string>) {
    this.all = new Set([...names].filter((name) => name.length > 0));
    this.longestFirst = [...this.all].sort((a, b) => b.length - a.length);
  }
}

/** `* name text` (after `* `): the listed name it starts with, followed by a space or the end. */
function readEmote(rest: string, known: KnownMinecraftNames, unsigned: boolean): MinecraftLogParse {
  for (const name of known.longestFirst) {
    if (rest === name) return { kind: 'player', channel: 'global', name, text: '', unsigned, readAs: '/me' };
    if (rest.startsWith(`${name} `)) return { kind: 'player', channel: 'global', name, text: rest.slice(name.length + 1), unsigned, readAs: '/me' };
  }
  return { kind: 'unparsed', reason: 'a "/me" line ("* name text") whose name the player list does not show' };
}

/**
 * The listed player a chat plugin's line names as its speaker, if the message looks like one: a listed name, near
 * the start, after nothing or after a symbol (`[Admin] `, `!!OWNER!! `, `~`), and right before a separator. The game's
 * command feedback `[Steve: Saved the game]` is not one.
 */
export function pluginChatSpeaker(message: string, known: KnownMinecraftNames): string | undefined {
  if (!PLUGIN_SEPARATOR_ANYWHERE.test(message)) return undefined;
  for (const name of known.longestFirst) {
    for (let at = message.indexOf(name); at !== -1 && at <= PLUGIN_PREFIX_MAX; at = message.indexOf(name, at + 1)) {
      const before = message.slice(0, at);
      const after = message.slice(at + name.length);
      if (!PLUGIN_NAME_START.test(before) || (before === '[' && after.startsWith(':'))) continue;
      if (PLUGIN_SEPARATOR.test(after)) return name;
    }
  }
  return undefined;
}

/**
 * One log line → what it says. A BOM, CR, LF and NUL at the ends are framing. `knownNames`: the names the player list
 * shows (and those the caller saw log in), for `/me`, `/say` by a player and the chat-plugin check; without them such
 * lines are unparsed or other, never a player's.
 */
export function parseMinecraftLogLine(line: string, knownNames: readonly string[] | KnownMinecraftNames = []): MinecraftLogParse {
  // Prepared only for a line that needs the names (a /me, a /say, a plugin's separator), once.
  let prepared: KnownMinecraftNames | undefined;
  const known = (): KnownMinecraftNames => (prepared ??= knownNames instanceof KnownMinecraftNames ? knownNames : new KnownMinecraftNames(knownNames));
  const head = readHead(line);
  // A stack trace's continuation, a line a plugin printed raw: not the game's chat.
  if (head === undefined || head.level !== 'INFO') return { kind: 'other' };
  const { thread, message } = head;
  const unsigned = message.startsWith(UNSIGNED);
  const said = unsigned ? message.slice(UNSIGNED.length) : message;

  const chat = CHAT.exec(said);
  if (chat !== null) {
    const name = chat[1] ?? '';
    // `<[Member] Steve> hi`: a plugin put a prefix into the display name; the host's chatPattern can read it, this cannot.
    if (DECORATED_NAME.test(name) || (/\s/.test(name) && !name.startsWith('.'))) return { kind: 'unparsed', reason: 'a display name with a prefix or suffix between "<" and ">" (a chat plugin\'s; set chatPattern)' };
    return { kind: 'player', channel: 'global', name, text: chat[2] ?? '', unsigned };
  }
  if (said.startsWith('* ')) return readEmote(said.slice(2), known(), unsigned);

  // Without a thread (the console layout) the head alone is trusted: nothing a player types comes before it.
  const serverThread = thread === undefined || thread === 'Server thread';
  if (serverThread) {
    const say = SAY.exec(said);
    const sender = say?.[1] ?? '';
    const words = say?.[2] ?? '';
    if (say !== null && SERVER_SENDERS.has(sender)) return { kind: 'server', text: words };
    if (say !== null && known().all.has(sender) && !PLUGIN_SEPARATOR.test(words)) return { kind: 'say', name: sender, text: words };
  }
  if (!unsigned) {
    if (thread === undefined || UUID_THREAD.test(thread)) {
      const uuid = UUID_LINE.exec(said);
      if (uuid !== null) {
        const id = checkPlayerId(uuid[2] ?? '', ['mojang']);
        return id === undefined ? { kind: 'unparsed', reason: 'a "UUID of player" line whose id is not a Mojang UUID' } : { kind: 'uuid', name: uuid[1] ?? '', mojangId: id.id };
      }
    }
    if (serverThread) {
      const roster = ROSTER_LINE.exec(said);
      if (roster !== null) return { kind: roster[2] === 'joined' ? 'join' : 'leave', name: roster[1] ?? '' };
    }
  }
  const speaker = pluginChatSpeaker(said, known());
  if (speaker !== undefined) return { kind: 'unparsed', reason: `a chat plugin's line naming ${speaker}: not the game's "<name> text" (set chatPattern to read it)` };
  if (unsigned) return { kind: 'unparsed', reason: 'a "[Not Secure] " line without "<name> " after it (a chat plugin\'s format? set chatPattern)' };
  if (said.startsWith('<')) return { kind: 'unparsed', reason: 'a chat line without "<name> " after the head' };
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
  const text = stripMinecraftColourCodes(answer.replace(/^\uFEFF/, '').replace(ANSI, '').replace(/\0/g, ''));
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
