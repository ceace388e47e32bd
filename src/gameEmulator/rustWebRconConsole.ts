// A fake Rust WebRCON console (shipped: `gsa-bridge emulator --game rust`, and the tests' fake): a real `ws` server,
// on 127.0.0.1 and any free port unless told otherwise, that speaks what a Rust dedicated server sends, quirks included (shapes checked against the decompiled server: Facepunch.RCon, Facepunch.Rcon.Listener,
// ConVar.Chat, ConVar.Admin):
// - the password is the URL path; a wrong one is refused the way Fleck does it: the connection is cut during the
//   upgrade with a close frame where the HTTP answer should be (modes for a 401 proxy and open-then-1008 too);
//   after 5 wrong ones the address is banned for 300 s, and then even the right password is refused;
// - replies echo the Identifier, JSON indented like Newtonsoft's, Stacktrace "" for replies and null for broadcasts;
// - `playerlist` answers a JSON array of Admin.PlayerInfo; `serverinfo` a ServerInfoOutput; `mute`/`unmute` of an
//   online player answer nothing at all (like Rust), "Player not found" otherwise;
// - chat is pushed as Type "Chat" with Identifier -1 and the ChatEntry as a JSON string in Message;
// - it never answers WebSocket pings (autoPong off), and it can drop every session, go silent, or restart
//   (close everything, refuse connections for a while, listen again on the same port).
// - it can cut the next upgrades with no answer at all, whatever the password (a drop mid-login: a restart, a proxy
//   whose backend is not up), which is not how it refuses a password.
// It records every command, every session, wrong-password attempts, pings and the peak of concurrent sessions.
// Loaded only by the `emulator` command and tests, never by `run`; it must never reach a real game or service.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

export interface RustConsolePlayer {
  readonly steamId: string;
  readonly name: string;
  readonly ping?: number;
  readonly address?: string;
  readonly connectedSeconds?: number;
}

export interface ReceivedCommand {
  /** Which session (1, 2, …) sent it. */
  readonly session: number;
  readonly identifier: unknown;
  readonly message: string;
  readonly name: unknown;
}

/** What the scripted responder returns: a reply text, a reply with a type, `null` for no reply at all, or undefined to fall back to the built-ins. */
export type RustConsoleAnswer = string | { readonly message: string; readonly type?: string; readonly delayMs?: number } | null | undefined;

export type WrongPasswordBehaviour = 'fleck' | 'http401' | 'closeAfterOpen';

export interface RustWebRconConsoleOptions {
  readonly password: string;
  /** How a wrong password is refused. @default 'fleck' (the real server) */
  readonly wrongPassword?: WrongPasswordBehaviour;
  /** Scripted answers; return undefined to use the built-in commands. */
  readonly respond?: (command: string, session: number) => RustConsoleAnswer;
  readonly players?: readonly RustConsolePlayer[];
  /**
   * Like Rust's rcon.maxpasswordfailures / rcon.banduration: after this many wrong passwords the address is refused
   * for `banMs` (by Date.now, so fake timers drive it), even with the right password. 0 turns the ban off.
   * @default 5, 300000
   */
  readonly maxPasswordFailures?: number;
  readonly banMs?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
  /** @default 0 (any free port) */
  readonly port?: number;
}

export interface ChatToPush {
  readonly channel?: number;
  readonly message: string;
  readonly userId: string;
  readonly username: string;
  readonly color?: string;
  readonly time?: number;
}

interface Session {
  readonly id: number;
  readonly socket: WebSocket;
}

// A WebSocket close frame (opcode 8, code 1000), as Fleck writes it when Listener closes a socket in its
// connection callback, before the handshake's HTTP answer.
const FLECK_CLOSE_FRAME = Buffer.from([0x88, 0x02, 0x03, 0xe8]);

export class RustWebRconConsole {
  readonly commands: ReceivedCommand[] = [];
  /** Every mute/unmute that hit an online player, in order. */
  readonly muteLog: { readonly action: 'mute' | 'unmute'; readonly steamId: string }[] = [];
  readonly muted = new Set<string>();
  sessionsOpened = 0;
  maxConcurrentSessions = 0;
  wrongPasswordAttempts = 0;
  /** Attempts refused because the address was banned after too many wrong passwords (the right password included). */
  bannedRefusals = 0;
  /** Connection attempts that arrived while the server was "restarting" are refused by the OS: not counted here. */
  pingsReceived = 0;
  players: RustConsolePlayer[];
  /** The next this-many upgrade requests are cut with no answer at all, whatever the password (a drop, not a refusal). */
  dropNextUpgrades = 0;
  /** Upgrade requests cut that way. */
  droppedUpgrades = 0;
  /** When true, commands are recorded but never answered (a frozen server). */
  silent = false;
  respond: ((command: string, session: number) => RustConsoleAnswer) | undefined;

  readonly #options: RustWebRconConsoleOptions;
  readonly #sessions = new Set<Session>();
  readonly #rawSockets = new Set<Socket>();
  #http: Server;
  #wss: WebSocketServer;
  #port = 0;
  #nextSession = 1;
  #failuresSinceBan = 0;
  #bannedUntil = 0;

  private constructor(options: RustWebRconConsoleOptions) {
    this.#options = options;
    this.respond = options.respond;
    this.players = [...(options.players ?? [])];
    this.#http = this.#makeHttp();
    this.#wss = new WebSocketServer({ noServer: true, autoPong: false, perMessageDeflate: false });
  }

  static async start(options: RustWebRconConsoleOptions): Promise<RustWebRconConsole> {
    const server = new RustWebRconConsole(options);
    await server.#listen(options.port ?? 0);
    return server;
  }

  get port(): number {
    return this.#port;
  }

  get openSessions(): number {
    return this.#sessions.size;
  }

  /** Commands received, text only, optionally without the client's keepalives. */
  commandTexts(options: { withoutKeepalive?: string } = {}): string[] {
    return this.commands.map((command) => command.message).filter((text) => text !== options.withoutKeepalive);
  }

  /** Pushes a chat line in Rust's shape: the ChatEntry JSON (indented) inside Message, Identifier -1, Stacktrace null. */
  pushChat(chat: ChatToPush): void {
    const entry = {
      Channel: chat.channel ?? 0,
      Message: chat.message,
      UserId: chat.userId,
      Username: chat.username,
      Color: chat.color ?? '#5af',
      Time: chat.time ?? Math.floor(Date.now() / 1000),
    };
    this.pushChatRaw(JSON.stringify(entry, null, 2));
  }

  /** Pushes a Type "Chat" message whose Message is exactly `inner` (for malformed or old-style entries). */
  pushChatRaw(inner: string): void {
    this.pushRaw(JSON.stringify({ Message: inner, Identifier: -1, Type: 'Chat', Stacktrace: null }, null, 2));
  }

  /** Console output that answers no command: Identifier 0, like Rust's log lines. */
  pushConsole(message: string, type = 'Generic'): void {
    this.pushRaw(JSON.stringify({ Message: message, Identifier: 0, Type: type, Stacktrace: '' }, null, 2));
  }

  /** Sends `text` as one frame to every session. */
  pushRaw(text: string): void {
    for (const session of this.#sessions) session.socket.send(text);
  }

  /** Sends `bytes` as one binary frame to every session (Rust never does). */
  pushBinary(bytes: Buffer): void {
    for (const session of this.#sessions) session.socket.send(bytes, { binary: true });
  }

  /** Sends a reply with any Identifier to every session (unknown or stale identifiers). */
  pushReply(identifier: number, message: string): void {
    this.pushRaw(this.#reply(identifier, message, 'Generic'));
  }

  /** Cuts every session at the TCP level (no close frame), like a crash or a network drop. */
  dropAll(): void {
    for (const session of this.#sessions) session.socket.terminate();
  }

  /**
   * A server restart: every session and the listener close, connections are refused for `downMs` (real time), then
   * the server listens again on the same port. Resolves once it listens again.
   */
  async restart(downMs = 50): Promise<void> {
    await this.goDown();
    await new Promise((resolve) => setTimeoutReal(resolve, downMs));
    await this.comeBack();
  }

  /** The first half of a restart: every session and the listener close; connections are refused until comeBack(). */
  async goDown(): Promise<void> {
    await this.#shutdown();
  }

  /** The second half of a restart: listens again on the same port. */
  async comeBack(): Promise<void> {
    this.#http = this.#makeHttp();
    this.#wss = new WebSocketServer({ noServer: true, autoPong: false, perMessageDeflate: false });
    await this.#listen(this.#port);
  }

  async stop(): Promise<void> {
    await this.#shutdown();
  }

  // ---- internals ----------------------------------------------------------------------------------------------------

  #makeHttp(): Server {
    const http = createServer((_request, response) => {
      response.writeHead(404).end();
    });
    http.on('connection', (socket) => {
      this.#rawSockets.add(socket);
      socket.once('close', () => this.#rawSockets.delete(socket));
    });
    http.on('upgrade', (request, socket, head) => {
      this.#onUpgrade(request, socket, head);
    });
    return http;
  }

  #listen(port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#http.once('error', reject);
      this.#http.listen(port, this.#options.host ?? '127.0.0.1', () => {
        this.#http.off('error', reject);
        this.#port = (this.#http.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  async #shutdown(): Promise<void> {
    for (const session of this.#sessions) session.socket.terminate();
    for (const socket of this.#rawSockets) socket.destroy();
    await new Promise<void>((resolve) => {
      this.#wss.close(() => {
        resolve();
      });
    });
    await new Promise<void>((resolve) => {
      this.#http.close(() => {
        resolve();
      });
    });
  }

  #onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => undefined);
    if (this.dropNextUpgrades > 0) {
      this.dropNextUpgrades--;
      this.droppedUpgrades++;
      socket.destroy();
      return;
    }
    const mode = this.#options.wrongPassword ?? 'fleck';
    // Fleck compares the raw path with "/" + password: no decoding, no trailing slash. Every test client comes from
    // 127.0.0.1, so the ban of Listener.IsBannedIP is one flag for the whole fake.
    const banned = this.#bannedUntil > Date.now();
    if (!banned && this.#bannedUntil !== 0) {
      this.#bannedUntil = 0;
      this.#failuresSinceBan = 0;
    }
    const authorised = !banned && request.url === `/${this.#options.password}`;
    if (!authorised) {
      if (banned) this.bannedRefusals++;
      else {
        this.wrongPasswordAttempts++;
        const limit = this.#options.maxPasswordFailures ?? 5;
        if (limit > 0 && ++this.#failuresSinceBan >= limit) this.#bannedUntil = Date.now() + (this.#options.banMs ?? 300_000);
      }
      if (mode === 'fleck') {
        socket.end(FLECK_CLOSE_FRAME);
        return;
      }
      if (mode === 'http401') {
        socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
    }
    this.#wss.handleUpgrade(request, socket, head, (ws) => {
      if (!authorised) {
        ws.close(1008, 'Invalid password');
        return;
      }
      this.#onSession(ws);
    });
  }

  #onSession(ws: WebSocket): void {
    const session: Session = { id: this.#nextSession++, socket: ws };
    this.#sessions.add(session);
    this.sessionsOpened++;
    this.maxConcurrentSessions = Math.max(this.maxConcurrentSessions, this.#sessions.size);
    ws.on('error', () => undefined);
    ws.on('ping', () => {
      this.pingsReceived++;
    });
    ws.on('close', () => {
      this.#sessions.delete(session);
    });
    ws.on('message', (data: RawData) => {
      this.#onCommand(session, Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8'));
    });
  }

  #onCommand(session: Session, text: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return; // Rust's JsonConvert would throw in its listener thread; nothing is answered.
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    const record = parsed as Record<string, unknown>;
    const message = typeof record['Message'] === 'string' ? record['Message'] : '';
    const identifier = record['Identifier'];
    this.commands.push({ session: session.id, identifier, message, name: record['Name'] });
    if (this.silent) return;
    const answer = this.respond?.(message, session.id) ?? this.#builtIn(message);
    if (answer === null || answer === undefined) return;
    const replyIdentifier = typeof identifier === 'number' ? identifier : 0;
    const { message: replyText, type, delayMs } = typeof answer === 'string' ? { message: answer, type: 'Generic', delayMs: 0 } : { type: 'Generic', delayMs: 0, ...answer };
    const send = (): void => {
      if (session.socket.readyState === session.socket.OPEN) session.socket.send(this.#reply(replyIdentifier, replyText, type));
    };
    if (delayMs > 0) setTimeoutReal(send, delayMs);
    else send();
  }

  #builtIn(command: string): RustConsoleAnswer {
    const [verb = '', ...args] = command.trim().split(/\s+/);
    const target = args[0]?.replace(/^"|"$/g, '') ?? '';
    switch (verb.toLowerCase()) {
      case 'serverinfo':
      case 'global.serverinfo':
        return JSON.stringify(this.#serverInfo(), null, 2);
      case 'playerlist':
      case 'global.playerlist':
        return JSON.stringify(this.players.map(playerInfo), null, 2);
      case 'mute':
      case 'global.mute':
      case 'unmute':
      case 'global.unmute': {
        const online = this.players.find((player) => player.steamId === target || player.name === target);
        if (online === undefined) return 'Player not found';
        const action = verb.toLowerCase().endsWith('unmute') ? 'unmute' : 'mute';
        this.muteLog.push({ action, steamId: online.steamId });
        if (action === 'mute') this.muted.add(online.steamId);
        else this.muted.delete(online.steamId);
        return null; // Rust prints nothing when it worked, so WebRCON sends no reply at all.
      }
      case 'mutelist':
      case 'global.mutelist':
        return JSON.stringify(
          this.players.filter((player) => this.muted.has(player.steamId)).map((player) => ({ SteamId: player.steamId, DisplayName: player.name })),
          null,
          2,
        );
      case 'echo':
        return args.join(' ');
      default:
        return `Command not found: ${verb}`;
    }
  }

  #serverInfo(): Record<string, unknown> {
    return {
      Hostname: 'Fake Rust Server',
      MaxPlayers: 100,
      Players: this.players.length,
      Queued: 0,
      Joining: 0,
      EntityCount: 123456,
      GameTime: '11/21/2026 12:00:00',
      Uptime: 3600,
      Map: 'Procedural Map',
      Framerate: 60,
      Memory: 8000,
      Collections: 12,
      NetworkIn: 1000,
      NetworkOut: 2000,
      Restarting: false,
      SaveCreatedTime: '11/21/2026 10:00:00',
      Version: 2560,
      Protocol: '2560.250.1',
    };
  }

  #reply(identifier: number, message: string, type: string): string {
    return JSON.stringify({ Message: message, Identifier: identifier, Type: type, Stacktrace: '' }, null, 2);
  }
}

function playerInfo(player: RustConsolePlayer): Record<string, unknown> {
  return {
    SteamID: player.steamId,
    OwnerSteamID: '0',
    DisplayName: player.name,
    Ping: player.ping ?? 42,
    Address: player.address ?? '203.0.113.7:51234',
    ConnectedSeconds: player.connectedSeconds ?? 600,
    VoiationLevel: 0.0,
    CurrentLevel: 0.0,
    UnspentXp: 0.0,
    Health: 100.0,
  };
}

// Real timers even while a test fakes them: the restart pause and delayed answers are real-time I/O concerns.
const setTimeoutReal: typeof setTimeout = globalThis.setTimeout.bind(globalThis);
