// The log files the fake consoles write where the real games write theirs (reference/games.md), so the sidecar's log
// tail can be tried with no game: ARK's `ServerGame.<n>.<date>.log` (CRLF, a new file per start), Conan's
// `ConanSandbox.log` (the old one renamed to `ConanSandbox-backup-<date>.log` at each start, a UTF-8 BOM, CRLF), and
// Minecraft's `logs/latest.log` (the old one rolled to `<date>-<n>.log.gz` at each start, LF).
// Writes are synchronous appends, so a line is in the file when the call returns (tests read it at once).
// It must never write anywhere but the path it is given (and the rename or roll beside it).
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { ScriptedPlayer } from './scriptedChat.js';

export interface GameLog {
  /** The file written now (for ARK, the pattern's newest file). */
  readonly path: string;
  join(player: ScriptedPlayer): void;
  leave(player: ScriptedPlayer): void;
  chat(player: ScriptedPlayer, text: string): void;
  /**
   * The game rolls its log while running (Minecraft at midnight): the file is moved aside and a new one begun under
   * the same name. Absent for games that only roll at a start.
   */
  roll?(): void;
  /** A player's emote (Minecraft's `/me`), where the game has one. */
  emote?(player: ScriptedPlayer, text: string): void;
}

export interface GameLogOptions {
  /** @default Date.now */
  readonly now?: () => number;
}

/** How the fake Minecraft server writes a player's chat, as the servers hosts run do (reference/games.md). */
export interface MinecraftChatStyle {
  /**
   * The thread chat lines come from: vanilla's `Server thread`, Paper's `Async Chat Thread - #0`, or a hybrid's
   * (CatServer, Mohist) `Netty Server IO #2`. @default 'Server thread'
   */
  readonly thread?: string | undefined;
  /** A colour code (`e`) put around names in chat and `/me` (`<§eAlex§r>`), as nickname plugins do. @default none */
  readonly nameColour?: string | undefined;
}

export interface MinecraftLogOptions extends GameLogOptions {
  readonly chat?: MinecraftChatStyle | undefined;
}

const two = (value: number): string => String(value).padStart(2, '0');
const three = (value: number): string => String(value).padStart(3, '0');

/** `2026.09.13-18.48.40:782` in local time, as Unreal writes it. */
function unrealStamp(at: Date): string {
  return `${at.getFullYear()}.${two(at.getMonth() + 1)}.${two(at.getDate())}-${two(at.getHours())}.${two(at.getMinutes())}.${two(at.getSeconds())}:${three(at.getMilliseconds())}`;
}

/** `2026.09.13_18.48.40`: ARK's own stamp after the engine's. */
function arkStamp(at: Date): string {
  return `${at.getFullYear()}.${two(at.getMonth() + 1)}.${two(at.getDate())}_${two(at.getHours())}.${two(at.getMinutes())}.${two(at.getSeconds())}`;
}

/** `2026.06.20-21.06.10`: Conan's backup suffix. */
function backupStamp(at: Date): string {
  return `${at.getFullYear()}.${two(at.getMonth() + 1)}.${two(at.getDate())}-${two(at.getHours())}.${two(at.getMinutes())}.${two(at.getSeconds())}`;
}

function prepareDir(path: string): void {
  mkdirSync(dirname(path), { recursive: true });
}

/**
 * ARK with `-servergamelog`. `path` is a file, or a pattern with `*` in its last segment (the sidecar's
 * `…/ServerGame.*.log`): the `*` becomes `<n>.<date>`, n one above the highest already there, so every start makes
 * a new file as the game does. A plain path is created anew (emptied) at each start.
 */
export function openArkGameLog(path: string, options: GameLogOptions = {}): GameLog {
  const now = options.now ?? Date.now;
  prepareDir(path);
  let file = path;
  const name = basename(path);
  if (name.includes('*')) {
    const [before = '', after = ''] = name.split('*', 2);
    const taken = readdirSync(dirname(path))
      .filter((entry) => entry.startsWith(before) && entry.endsWith(after))
      .map((entry) => Number(/^(\d+)/.exec(entry.slice(before.length))?.[1] ?? 0));
    const next = Math.max(0, ...taken) + 1;
    file = join(dirname(path), `${before}${next}.${arkStamp(new Date(now()))}${after}`);
  }
  writeFileSync(file, '');
  let frame = 0;
  const line = (text: string): void => {
    const at = new Date(now());
    frame = (frame + 1) % 1000;
    appendFileSync(file, `[${unrealStamp(at)}][${three(frame)}]${arkStamp(at)}: ${text}\r\n`);
  };
  return {
    path: file,
    join: (player) => {
      line(`${player.name} [UniqueNetId:${player.eosId} Platform:None] joined this ARK!`);
    },
    leave: (player) => {
      line(`${player.name} [UniqueNetId:${player.eosId} Platform:None] left this ARK!`);
    },
    chat: (player, text) => {
      line(`${player.name} (${player.character}): ${text}`);
    },
  };
}

/**
 * Conan Exiles' `ConanSandbox.log`: an existing one is renamed to `ConanSandbox-backup-YYYY.MM.DD-HH.MM.SS.log`
 * beside it (its last change's time is not known here: the start's time is used), and a new one starts with a BOM.
 */
export function openConanLog(path: string, options: GameLogOptions = {}): GameLog {
  const now = options.now ?? Date.now;
  prepareDir(path);
  if (existsSync(path)) {
    const stem = basename(path).replace(/\.log$/i, '');
    let backup = join(dirname(path), `${stem}-backup-${backupStamp(new Date(now()))}.log`);
    // Two starts in one second (tests) must not overwrite the first backup.
    for (let extra = 2; existsSync(backup); extra++) backup = join(dirname(path), `${stem}-backup-${backupStamp(new Date(now()))}-${extra}.log`);
    renameSync(path, backup);
  }
  writeFileSync(path, '\uFEFF');
  let frame = 0;
  const uids = new Map<string, number>();
  const line = (text: string): void => {
    frame = (frame + 1) % 1000;
    appendFileSync(path, `[${unrealStamp(new Date(now()))}][${String(frame).padStart(3, ' ')}]${text}\r\n`);
  };
  const uidOf = (player: ScriptedPlayer): number => {
    const known = uids.get(player.steamId);
    if (known !== undefined) return known;
    const uid = 100 + uids.size * 9 + 9;
    uids.set(player.steamId, uid);
    return uid;
  };
  return {
    path,
    join: (player) => {
      line(`LogNet: Join succeeded: ${player.character}`);
    },
    leave: (player) => {
      line(`LogNet: Player disconnected: ${player.character}`);
    },
    chat: (player, text) => {
      line(`ChatWindow: Character ${player.character} (uid ${uidOf(player)}, player ${player.steamId}) said: ${text}`);
    },
  };
}

/** Moves latest.log to the day's next free `YYYY-MM-DD-N.log.gz` (gzipped, as the server does) and begins it anew. */
function rollMinecraftLog(path: string, now: () => number): void {
  if (existsSync(path)) {
    const at = new Date(now());
    const day = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
    let n = 1;
    while (existsSync(join(dirname(path), `${day}-${n}.log.gz`))) n++;
    writeFileSync(join(dirname(path), `${day}-${n}.log.gz`), gzipSync(readFileSync(path)));
    rmSync(path);
  }
  writeFileSync(path, '');
}

/**
 * Minecraft's `logs/latest.log`: an existing one is rolled to `YYYY-MM-DD-N.log.gz` beside it at each start, as the
 * server does, and again on roll() (the server's midnight roll). Chat comes from `Server thread` as vanilla writes
 * it (or the thread `chat` says), `/me` from `Server thread` (commands run there), a login's UUID line from
 * `User Authenticator #1`.
 */
export function openMinecraftLog(path: string, options: MinecraftLogOptions = {}): GameLog {
  const now = options.now ?? Date.now;
  const chatThread = options.chat?.thread ?? 'Server thread';
  const colour = options.chat?.nameColour;
  const shown = (player: ScriptedPlayer): string => (colour === undefined ? player.name : `\u00a7${colour}${player.name}\u00a7r`);
  prepareDir(path);
  rollMinecraftLog(path, now);
  const line = (thread: string, text: string): void => {
    const at = new Date(now());
    appendFileSync(path, `[${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}] [${thread}/INFO]: ${text}\n`);
  };
  return {
    path,
    join: (player) => {
      line('User Authenticator #1', `UUID of player ${player.name} is ${player.uuid}`);
      line('Server thread', `${player.name} joined the game`);
    },
    leave: (player) => {
      line('Server thread', `${player.name} left the game`);
    },
    chat: (player, text) => {
      line(chatThread, `<${shown(player)}> ${text}`);
    },
    emote: (player, text) => {
      line('Server thread', `* ${shown(player)} ${text}`);
    },
    roll: () => {
      rollMinecraftLog(path, now);
    },
  };
}
