// A fake Source RCON game console on a real TCP port, for `gsa-bridge emulator --game ark|atlas|squad|conan|minecraft`
// and the tests: real framing through the project's codec, each game's login, mirror and answer quirks
// (sourceConsoleGames.ts), its chat where the game puts it (ARK's GetChat buffer, Squad's pushed type-1 packets, the
// game log of ARK, Conan and Minecraft through gameLogs.ts), and replies written whole, split at random byte points
// or merged with the next packet. It records commands and connections so tests assert on what was really sent.
// It must never log or print the password, and never be loaded by `run`.
import { createServer, type Server, type Socket } from 'node:net';
import { SourceRconDecoder, SourceRconPacketType, encodeSourceRconPacket, type SourceRconPacket } from '../../adapters/rcon/sourceRconCodec.js';
import { openArkGameLog, openConanLog, openMinecraftLog, type GameLog, type MinecraftChatStyle } from './gameLogs.js';
import type { ChatStage, ScriptedPlayer } from './scriptedChat.js';
import { CONAN_TOO_MANY, SOURCE_GAME_RULES, type ConsoleWorld, type SourceConsoleGame, type SourceGameRules } from './sourceConsoleGames.js';

/** `whole`: one write per packet. `split`: every write cut at random points into 1–7 byte pieces. `merged`: what one
 * tick produces (a reply, its mirror, the next reply) in one write. */
export type ConsoleWriteMode = 'whole' | 'split' | 'merged';

export interface SourceRconConsoleOptions {
  readonly game: SourceConsoleGame;
  readonly password: string;
  /** @default '127.0.0.1' */
  readonly host?: string | undefined;
  /** @default 0 (any free port) */
  readonly port?: number | undefined;
  /** Online from the start (the scripted chat joins its own). @default none */
  readonly players?: readonly ScriptedPlayer[] | undefined;
  /** @default 'whole' */
  readonly writeMode?: ConsoleWriteMode | undefined;
  /** For split writes, [0, 1). @default a fixed-seed generator */
  readonly random?: (() => number) | undefined;
  /** Where the game writes its log (ark: a file or a `ServerGame.*.log` pattern; conan: ConanSandbox.log;
   * minecraft: logs/latest.log). Each start makes a new file as the game does. @default no log */
  readonly logFile?: string | undefined;
  /** minecraft: the thread chat comes from and the names' colour (a hybrid server, a nickname plugin). @default vanilla's */
  readonly minecraftChat?: MinecraftChatStyle | undefined;
  /** conan: commands accepted in `karmaWindowMs` before `Too many commands, try again later.` (RconMaxKarma). @default 60 */
  readonly maxKarma?: number | undefined;
  /** conan: the window the karma counts in. @default 60000 */
  readonly karmaWindowMs?: number | undefined;
  /** @default Date.now */
  readonly now?: (() => number) | undefined;
}

interface Session {
  readonly socket: Socket;
  loggedIn: boolean;
  /** Conan: close once the pending bytes are written. */
  endAfterWrite: boolean;
  merged: Buffer[];
}

const MIRROR_TRAILER_BODY = Buffer.from([0x00, 0x01, 0x00, 0x00]);
/** Squad's type for pushed chat. */
const PUSHED_TYPE = 1;

function seededRandom(): () => number {
  let state = 0x2545f491;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 16) / 65536;
  };
}

function openLog(game: SourceConsoleGame, path: string, now: () => number, minecraftChat: MinecraftChatStyle | undefined): GameLog | undefined {
  switch (game) {
    case 'ark':
    case 'atlas':
      return openArkGameLog(path, { now });
    case 'conan':
      return openConanLog(path, { now });
    case 'minecraft':
      return openMinecraftLog(path, { now, chat: minecraftChat });
    case 'squad':
      return undefined;
  }
}

export class SourceRconConsole implements ChatStage {
  readonly game: SourceConsoleGame;
  /** Every EXECCOMMAND body from a logged-in session, as UTF-8, in order. */
  readonly commands: string[] = [];
  connections = 0;
  loginAttempts = 0;
  logins = 0;
  writeMode: ConsoleWriteMode;
  /** The log this start writes, if any. */
  readonly log: GameLog | undefined;

  readonly #options: SourceRconConsoleOptions;
  readonly #rules: SourceGameRules;
  readonly #server: Server;
  readonly #sessions = new Set<Session>();
  readonly #online: ScriptedPlayer[];
  readonly #departed: { player: ScriptedPlayer; atMs: number }[] = [];
  #chatBuffer: string[] = [];
  readonly #karma: number[] = [];
  readonly #random: () => number;
  readonly #now: () => number;
  #mergeScheduled = false;
  #port = 0;

  private constructor(options: SourceRconConsoleOptions) {
    this.#options = options;
    this.game = options.game;
    this.#rules = SOURCE_GAME_RULES[options.game];
    this.writeMode = options.writeMode ?? 'whole';
    this.#random = options.random ?? seededRandom();
    this.#now = options.now ?? Date.now;
    this.#online = [...(options.players ?? [])];
    this.log = options.logFile === undefined ? undefined : openLog(options.game, options.logFile, this.#now, options.minecraftChat);
    this.#server = createServer((socket) => {
      this.#onConnection(socket);
    });
  }

  /** A start of the game: listens, and (with a log file) makes the game's new log. */
  static async start(options: SourceRconConsoleOptions): Promise<SourceRconConsole> {
    const started = new SourceRconConsole(options);
    await started.#listen(options.port ?? 0, options.host ?? '127.0.0.1');
    return started;
  }

  get port(): number {
    return this.#port;
  }

  /** Connections open now. */
  get sessions(): number {
    return this.#sessions.size;
  }

  get online(): readonly ScriptedPlayer[] {
    return this.#online;
  }

  /** ARK: the chat not yet taken by a GetChat. */
  get pendingChat(): readonly string[] {
    return this.#chatBuffer;
  }

  join(player: ScriptedPlayer): void {
    if (this.#online.some((known) => known.steamId === player.steamId)) return;
    this.#online.push(player);
    this.log?.join(player);
  }

  leave(player: ScriptedPlayer): void {
    const index = this.#online.findIndex((known) => known.steamId === player.steamId);
    if (index === -1) return;
    this.#online.splice(index, 1);
    this.#departed.push({ player, atMs: this.#now() });
    this.log?.leave(player);
  }

  /** A player says `text` in global chat, wherever this game puts it. */
  say(player: ScriptedPlayer, text: string): void {
    this.log?.chat(player, text);
    if (this.game === 'ark' || this.game === 'atlas') this.#chatBuffer.push(`${player.name} (${player.character}): ${text}`);
    if (this.game === 'squad') this.push(`[ChatAll] [Online IDs:EOS: ${player.eosId} steam: ${player.steamId}] ${player.name} : ${text}`);
  }

  /** A player's emote (Minecraft's `/me`) in the game's log; false when this game's log has none. */
  emote(player: ScriptedPlayer, text: string): boolean {
    if (this.log?.emote === undefined) return false;
    this.log.emote(player, text);
    return true;
  }

  /** The game rolls its log while running (Minecraft's midnight roll); false when this game's log does not. */
  rollLog(): boolean {
    if (this.log?.roll === undefined) return false;
    this.log.roll();
    return true;
  }

  /** Writes `text` as a pushed packet (type 1, id 0) to every logged-in session, as Squad pushes chat. */
  push(text: string): void {
    for (const session of this.#sessions) if (session.loggedIn) this.#write(session, [encodeSourceRconPacket(0, PUSHED_TYPE, text)]);
  }

  async close(): Promise<void> {
    for (const session of this.#sessions) session.socket.destroy();
    await new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
  }

  #listen(port: number, host: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject);
        const address = this.#server.address();
        if (address !== null && typeof address === 'object') this.#port = address.port;
        resolve();
      });
    });
  }

  #world(): ConsoleWorld {
    return {
      online: this.#online,
      departed: this.#departed,
      drainChat: () => {
        const lines = this.#chatBuffer;
        this.#chatBuffer = [];
        return lines;
      },
      now: this.#now,
    };
  }

  #onConnection(socket: Socket): void {
    socket.setNoDelay(true);
    this.connections += 1;
    const session: Session = { socket, loggedIn: false, endAfterWrite: false, merged: [] };
    this.#sessions.add(session);
    const decoder = new SourceRconDecoder({ skipSquadMirrorJunk: false });
    socket.on('error', () => {
      // A client reset is part of the game.
    });
    socket.on('close', () => {
      this.#sessions.delete(session);
    });
    socket.on('data', (chunk: Buffer) => {
      let packets: SourceRconPacket[];
      try {
        packets = decoder.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const packet of packets) this.#onPacket(session, packet);
    });
  }

  #onPacket(session: Session, packet: SourceRconPacket): void {
    const rules = this.#rules;
    if (packet.type === SourceRconPacketType.AUTH) {
      this.loginAttempts += 1;
      const accepted = packet.body.toString('utf8') === this.#options.password;
      if (!accepted && rules.wrongPassword === 'silence') return;
      const answer: Buffer[] = [];
      if (rules.emptyPacketBeforeAuth) answer.push(encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, ''));
      answer.push(encodeSourceRconPacket(accepted ? packet.id : -1, SourceRconPacketType.AUTH_RESPONSE, ''));
      if (accepted) {
        this.logins += 1;
        session.loggedIn = true;
      }
      this.#write(session, answer);
      return;
    }
    if (!session.loggedIn) return;
    if (packet.type === SourceRconPacketType.RESPONSE_VALUE) {
      // Only SRCDS-style games mirror; ARK, Conan and Minecraft never answer it.
      if (!rules.mirrors) return;
      this.#write(session, [
        encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, ''),
        encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, MIRROR_TRAILER_BODY),
      ]);
      return;
    }
    if (packet.type !== SourceRconPacketType.EXECCOMMAND) return;
    const command = packet.body.toString('utf8');
    this.commands.push(command);
    if (packet.body.length === 0 && !rules.answersEmptyCommand) return; // ARK hangs.
    const text = this.#overKarma() ? CONAN_TOO_MANY : rules.respond(command, this.#world());
    const body = Buffer.from(text, 'utf8');
    const parts: Buffer[] = [];
    const splitAt = rules.splitBodyAt ?? Math.max(1, body.length);
    for (let offset = 0; offset < body.length || parts.length === 0; offset += splitAt) {
      parts.push(encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, body.subarray(offset, offset + splitAt)));
    }
    if (rules.closesAfterAnswer) session.endAfterWrite = true;
    this.#write(session, parts);
  }

  /** Conan: counts this command; true when more than maxKarma came in the window. */
  #overKarma(): boolean {
    if (!this.#rules.karma) return false;
    const now = this.#now();
    const windowMs = this.#options.karmaWindowMs ?? 60_000;
    while (this.#karma.length > 0 && (this.#karma[0] ?? 0) <= now - windowMs) this.#karma.shift();
    this.#karma.push(now);
    return this.#karma.length > (this.#options.maxKarma ?? 60);
  }

  #write(session: Session, packets: readonly Buffer[]): void {
    const socket = session.socket;
    if (socket.destroyed) return;
    switch (this.writeMode) {
      case 'whole':
        for (const packet of packets) socket.write(packet);
        break;
      case 'split': {
        const bytes = Buffer.concat(packets);
        for (let offset = 0; offset < bytes.length; ) {
          const length = 1 + Math.floor(this.#random() * 7);
          socket.write(bytes.subarray(offset, offset + length));
          offset += length;
        }
        break;
      }
      case 'merged':
        session.merged.push(...packets);
        this.#scheduleMerged();
        return;
    }
    if (session.endAfterWrite) socket.end();
  }

  #scheduleMerged(): void {
    if (this.#mergeScheduled) return;
    this.#mergeScheduled = true;
    setImmediate(() => {
      this.#mergeScheduled = false;
      for (const session of this.#sessions) {
        if (session.merged.length === 0 || session.socket.destroyed) continue;
        session.socket.write(Buffer.concat(session.merged));
        session.merged = [];
        if (session.endAfterWrite) session.socket.end();
      }
    });
  }
}
