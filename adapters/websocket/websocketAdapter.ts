// The mod WebSocket listener (mod protocol v1) of one game server: authenticates mods at the HTTP upgrade, turns
// their frames into calls on the bridge, answers each request, and pushes mute changes and review results back.
// Must never let a frame crash the process or close a connection (only a bad token and an oversize frame end
// one), never log the token, and never let a peer that does not read make memory grow without bound.
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { setImmediate as afterThisTurn } from 'node:timers';
import type { Logger } from 'pino';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { hostForAddress } from '../../src/net/endpoint.js';
import { isLoopbackHost } from '../../src/net/loopback.js';
import { describeListenError } from '../../src/net/listenFailure.js';
import type { Clock } from '../../src/time/clock.js';
import {
  BridgeRefusal,
  CHAT_CHANNELS,
  isChatChannel,
  type Adapter,
  type BridgeSink,
  type ChatVerdict,
  type ListeningAddress,
  type PlayerIdentity,
  type ReviewOrigin,
  type ReviewOutcome,
} from '../../src/bridge/port.js';
import {
  parseModMessage,
  PROTOCOL_VERSION,
  validIdOf,
  type ChatMessage,
  type ModMessage,
  type ModPlayer,
  type MuteCheckMessage,
  type ProtocolErrorCode,
  type ReviewMessage,
  type ServerActionMessage,
} from './protocol.js';
import type { WebsocketOptions } from './options.js';
import { UnauthenticatedConnections, type DroppedConnections } from './unauthenticatedConnections.js';
import { UpgradeThrottle, type FailureSummary } from './upgradeThrottle.js';
import { refusalWireCode, resultWireCode } from './wireCodes.js';

export interface WebSocketAdapterOptions {
  /** host (default 127.0.0.1), port (0 = ephemeral, read it back from `port`), token?, maxFrameBytes, maxMessagesPerSecond,
   * maxUnauthenticatedConnections, handshakeTimeoutMs. */
  readonly options: WebsocketOptions;
  /** The adapter's stable id (see adapters/index.ts adapterIdOf): review origins, log lines and messages name it. */
  readonly id: string;
  /** GSA container name of the game server this listener belongs to; sent in the welcome. */
  readonly serverName: string;
  /** '<name>/<version>' of the sidecar, sent in the welcome. */
  readonly sidecar: string;
  readonly logger: Logger;
  /** Interval of protocol pings; a peer that has not answered (or sent anything) since the last one is dropped. Default 30000. */
  readonly heartbeatMs?: number;
  /**
   * Time for the wrong-token throttle and the per-connection message window (maxMessagesPerSecond); default the
   * system clock for the throttle and performance.now for the window. Tests pass their own.
   */
  readonly clock?: Clock | undefined;
  /** Jitter of the wrong-token throttle's refusal period, [0, 1); default Math.random. */
  readonly random?: (() => number) | undefined;
  /** `mute.gatedChannels` as it is now, named in the warning about a channel outside the vocabulary. */
  readonly gatedChannels?: (() => readonly string[]) | undefined;
}

const DEFAULT_HEARTBEAT_MS = 30_000;
/** Above this many unsent bytes a connection stops being read until its peer catches up. */
const HIGH_WATER_BYTES = 1024 * 1024;
/** Reading resumes once the unsent bytes fall below this. */
const LOW_WATER_BYTES = 256 * 1024;
/** A peer this far behind gets only pushes (we stopped reading it) and still does not read: it is dropped. */
const DROP_PEER_BYTES = 8 * 1024 * 1024;
/** stop() waits this long for handlers that are still talking to the bridge. */
const STOP_GRACE_MS = 2_000;
/** stop() waits this long for peers to acknowledge the close before cutting them off. */
const CLOSE_GRACE_MS = 1_000;
/** Review results kept while no mod is connected; beyond that the oldest are dropped (the reviews themselves were handled). */
const MAX_UNDELIVERED_RESULTS = 10_000;
const RATE_WINDOW_MS = 1_000;
const LISTEN_BACKLOG = 4096;
const CLOSE_GOING_AWAY = 1001;
const ID_KEY = Buffer.from('"id"');
const INTERNAL_ERROR_MESSAGE = 'internal error in the sidecar; the details are in its log';

/** One mod connection and the little state the hot path needs. */
class ModConnection {
  readonly id: string;
  readonly socket: WebSocket;
  readonly remote: string;
  /** Answered a ping (or sent anything) since the last heartbeat. */
  alive = true;
  /** Not being read because the peer is not reading our replies. */
  paused = false;
  windowStartedAt = 0;
  framesInWindow = 0;
  /** Told the host once that this mod sends a channel outside the vocabulary (its lines are never gated). */
  warnedChannel = false;
  /** The one send callback of this connection: a per-message closure would cost an allocation on the hot path. */
  readonly afterSend: (error?: Error) => void;
  /** The TCP socket under `socket`, corked while one turn of the event loop piles up replies. */
  readonly #tcp: Duplex;
  #corked = false;
  readonly #uncork = (): void => {
    this.#corked = false;
    this.#tcp.uncork();
  };

  constructor(id: string, socket: WebSocket, tcp: Duplex, remote: string, afterSend: (connection: ModConnection) => void) {
    this.id = id;
    this.socket = socket;
    this.#tcp = tcp;
    this.remote = remote;
    this.afterSend = () => {
      afterSend(this);
    };
  }

  /**
   * Holds this turn's frames back until the loop's check phase, then writes them together: a batch of chat
   * lines read at once (or of verdicts whose deadline passed at once) costs one write system call, not one
   * each, which is most of what a reply costs. Adds no wait beyond the end of the current loop turn.
   */
  holdWritesForThisTurn(): void {
    if (this.#corked) return;
    this.#corked = true;
    this.#tcp.cork();
    afterThisTurn(this.#uncork);
  }
}

export class WebSocketAdapter implements Adapter {
  readonly type = 'websocket';
  /** The stable id: names this listener in review origins and messages. */
  readonly id: string;
  readonly #config: WebsocketOptions;
  readonly #logger: Logger;
  readonly #heartbeatMs: number;
  /** The message window's clock: only differences between readings count. */
  readonly #now: () => number;
  readonly #welcome: string;
  /** sha256 of the configured token; undefined when any local client is accepted. */
  readonly #tokenDigest: Buffer | undefined;
  /** Counts wrong tokens (log summary, 429 waits); never consulted for the right one. Undefined without a token. */
  readonly #throttle: UpgradeThrottle | undefined;
  /** Connections that have not completed an authenticated upgrade: bounded in number (their deadline is node:http's). */
  readonly #unauthenticated: UnauthenticatedConnections;
  /** Open connections in connection order: the last one is the newest. */
  readonly #connections = new Map<string, ModConnection>();
  /** Serialized review.result frames waiting for a connection. */
  readonly #undeliveredResults: string[] = [];
  readonly #http: Server;
  readonly #wss: WebSocketServer;
  #sink: BridgeSink | undefined;
  readonly #gatedChannels: (() => readonly string[]) | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #boundPort: number | undefined;
  #listening = false;
  #stopping = false;
  #stopped: Promise<void> | undefined;
  /** Requests handed to the bridge and not answered yet. */
  #inFlight = 0;
  #onIdle: (() => void) | undefined;

  constructor(options: WebSocketAdapterOptions) {
    this.#config = options.options;
    this.id = options.id;
    this.#logger = options.logger;
    this.#gatedChannels = options.gatedChannels;
    this.#heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    const clock = options.clock;
    this.#now = clock === undefined ? () => performance.now() : () => clock.now();
    this.#welcome = JSON.stringify({ type: 'welcome', protocol: PROTOCOL_VERSION, server: options.serverName, sidecar: options.sidecar });
    // A blank token is no token: config validation already refuses it wherever a token is mandatory.
    const token = options.options.token?.trim() === '' ? undefined : options.options.token;
    this.#tokenDigest = token === undefined ? undefined : sha256(token);
    this.#throttle =
      token === undefined
        ? undefined
        : new UpgradeThrottle({
            clock: options.clock,
            random: options.random,
            onSummary: (summary) => {
              this.#logAuthFailures(summary);
            },
          });
    this.#unauthenticated = new UnauthenticatedConnections({
      max: options.options.maxUnauthenticatedConnections,
      onDropped: (report) => {
        this.#logDroppedConnections(report);
      },
    });
    // The handshake deadline is node:http's: headersTimeout closes (408) a connection whose request has not fully
    // arrived that long after it connected, idle or sending slowly; requestTimeout does the same for a request body.
    // A plain request is answered with `Connection: close`, a wrong token is closed, and an upgraded socket leaves
    // node:http's accounting, so together they bound every connection that has not upgraded with the right token.
    const handshakeMs = options.options.handshakeTimeoutMs;
    this.#http = createServer(
      { headersTimeout: handshakeMs, requestTimeout: handshakeMs, connectionsCheckingInterval: deadlineCheckIntervalMs(handshakeMs) },
      (request, response) => {
        this.#onPlainRequest(request, response);
      },
    );
    this.#http.on('connection', (socket: Socket) => {
      this.#unauthenticated.admit(socket);
    });
    this.#http.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      this.#onUpgrade(request, socket, head);
    });
    // Invalid UTF-8 is answered with bad_json below rather than closing the socket (ws would close with 1007).
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: options.options.maxFrameBytes, skipUTF8Validation: true, perMessageDeflate: false });
  }

  /** The port actually bound (differs from the config when it asked for 0); the configured port before start(). */
  get port(): number {
    return this.#boundPort ?? this.#config.port;
  }

  /** Adapter.listeningAddress: the bound port once listening, the configured one before. */
  listeningAddress(): ListeningAddress {
    const { host } = this.#config;
    return { host, port: this.port, url: `ws://${hostForAddress(host)}:${String(this.port)}/` };
  }

  get ready(): boolean {
    return this.#listening;
  }

  /** Open connections that have not completed an authenticated upgrade (tests of the bound). */
  get unauthenticatedConnectionCount(): number {
    return this.#unauthenticated.size;
  }

  /** Open mod connections (metrics, tests). */
  get connectionCount(): number {
    return this.#connections.size;
  }

  async start(sink: BridgeSink): Promise<void> {
    if (this.#sink !== undefined) throw new Error(`websocket adapter ${this.id} was already started`);
    const { host, port } = this.#config;
    const where = `${host.includes(':') ? `[${host}]` : host}:${port} (adapter ${this.id})`;
    // Defence in depth: config validation refuses this too, but an open listener off this machine would let anyone mute-check and review.
    if (this.#tokenDigest === undefined && !isLoopbackHost(host)) {
      throw new Error(`refusing to listen on ${where} without a token: set its token, or bind 127.0.0.1`);
    }
    this.#sink = sink;
    await new Promise<void>((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        reject(new Error(`cannot listen on ${where}: ${describeListenError(error)}`, { cause: error }));
      };
      this.#http.once('error', onError);
      // A deeper accept queue than node's 511 (the kernel caps it at net.core.somaxconn): under a connection
      // flood a full queue drops the mod's SYN, and the kernel retries it only after a second or more.
      this.#http.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
        this.#http.off('error', onError);
        resolve();
      });
    });
    this.#http.on('error', (error) => {
      this.#logger.error({ err: error }, 'websocket listener error');
    });
    this.#boundPort = (this.#http.address() as AddressInfo).port;
    this.#listening = true;
    this.#heartbeat = setInterval(() => {
      this.#checkHeartbeats();
    }, this.#heartbeatMs);
    this.#heartbeat.unref();
    this.#logger.info(
      { host, port: this.#boundPort, auth: this.#tokenDigest === undefined ? 'none (loopback)' : 'token' },
      `mod WebSocket listening on ws://${host.includes(':') ? `[${host}]` : host}:${this.#boundPort}/`,
    );
  }

  stop(): Promise<void> {
    this.#stopped ??= this.#shutDown();
    return this.#stopped;
  }

  muteChanged(player: PlayerIdentity, muted: boolean, alert: string | undefined): void {
    try {
      if (this.#connections.size === 0) return;
      const frame = JSON.stringify({ type: 'mute.changed', player: toModPlayer(player), muted, alert: muted ? alert : undefined });
      for (const connection of this.#connections.values()) this.#send(connection, frame);
    } catch (error) {
      this.#logger.error({ err: error }, 'could not push mute.changed');
    }
  }

  reviewResult(origin: ReviewOrigin, outcome: ReviewOutcome): void {
    try {
      const frame = JSON.stringify(
        outcome.ok
          ? { type: 'review.result', id: origin.requestId, ok: true }
          : { type: 'review.result', id: origin.requestId, ok: false, error: { code: resultWireCode(outcome.error.code), message: outcome.error.message } },
      );
      const original = this.#connections.get(origin.ref);
      if (original !== undefined && this.#send(original, frame)) return;
      // The mod reconnected (or restarted): its new connection is the one that cares.
      const newest = this.#newestConnection();
      if (newest !== undefined && this.#send(newest, frame)) return;
      this.#keepUndelivered(frame);
    } catch (error) {
      this.#logger.error({ err: error }, 'could not deliver review.result');
    }
  }

  // ---- HTTP and the upgrade ---------------------------------------------------------------------------------------

  #onPlainRequest(_request: IncomingMessage, response: ServerResponse): void {
    const body = 'This is the gsa-bridge mod WebSocket endpoint (mod protocol v1): connect with a WebSocket client.\n';
    // `Connection: close`: a keep-alive loop of plain requests would otherwise hold the connection past the deadline.
    response.writeHead(426, { 'content-type': 'text/plain; charset=utf-8', 'content-length': Buffer.byteLength(body), upgrade: 'websocket', connection: 'close' });
    response.end(body);
  }

  #onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // A peer that resets mid-handshake must not become an uncaught 'error'.
    socket.on('error', ignoreSocketError);
    try {
      if (this.#stopping) {
        rejectUpgrade(socket, 503, 'Service Unavailable', 'the sidecar is shutting down\n');
        return;
      }
      // Always compared, whatever the address did before: every local process shares 127.0.0.1, so refusing an
      // address unchecked would let any of them lock the real mod out. The comparison costs microseconds.
      if (!this.#authorized(request)) {
        this.#refuseWrongToken(socket, request.socket.remoteAddress ?? '?');
        return;
      }
      this.#unauthenticated.authenticated(request.socket);
      this.#wss.handleUpgrade(request, socket, head, (ws) => {
        socket.off('error', ignoreSocketError);
        this.#onConnection(ws, request);
      });
    } catch (error) {
      this.#logger.error({ err: error }, 'mod upgrade failed');
      socket.destroy();
    }
  }

  /**
   * Answers a wrong or missing token: 401, or 429 with Retry-After once its address has failed too often (a hint
   * to a misconfigured mod to slow down; a right token from the same address is let in all the same). Logged as
   * a summary per interval by the throttle: one line per guess would fill the disk.
   */
  #refuseWrongToken(socket: Duplex, address: string): void {
    const waitMs = this.#throttle?.failed(address) ?? 0;
    if (waitMs > 0) {
      const seconds = String(Math.ceil(waitMs / 1000));
      rejectUpgrade(socket, 429, 'Too Many Requests', `too many wrong tokens from this address; try again in ${seconds} s\n`, { 'Retry-After': seconds });
      return;
    }
    rejectUpgrade(socket, 401, 'Unauthorized', 'wrong or missing token: send "Authorization: Bearer <token>" or ?token=<token>\n', {
      'WWW-Authenticate': 'Bearer',
    });
  }

  #logDroppedConnections(report: DroppedConnections): void {
    const limit = `maxUnauthenticatedConnections (${String(report.max)})`;
    if (report.first) {
      this.#logger.warn(
        { max: report.max },
        `closed the oldest mod connection that had not completed an authenticated upgrade, to stay within ${limit} (further drops are summarized every ${String(report.intervalMs / 1000)} s)`,
      );
      return;
    }
    this.#logger.warn(
      { dropped: report.dropped, max: report.max },
      `closed ${String(report.dropped)} mod connections in the last ${String(report.intervalMs / 1000)} s that had not completed an authenticated upgrade, to stay within ${limit}`,
    );
  }

  #logAuthFailures(summary: FailureSummary): void {
    const addresses = Object.fromEntries(summary.top);
    if (summary.first) {
      const address = summary.top[0]?.[0] ?? '?';
      this.#logger.warn(
        { remote: address, addresses },
        `mod connection refused from ${address}: wrong or missing token (further refusals are summarized every ${String(summary.intervalMs / 1000)} s)`,
      );
      return;
    }
    const top = summary.top.map(([address, failures]) => `${address} ×${String(failures)}`).join(', ');
    const more = summary.otherAddresses > 0 ? ` and ${String(summary.otherAddresses)} more addresses` : '';
    this.#logger.warn(
      { rejected: summary.rejected, throttled: summary.throttled, addresses, otherAddresses: summary.otherAddresses },
      `mod connections refused in the last ${String(summary.intervalMs / 1000)} s: ${String(summary.rejected)} wrong or missing tokens answered 401, ${String(summary.throttled)} answered 429 after repeated failures; from ${top}${more}`,
    );
  }

  #authorized(request: IncomingMessage): boolean {
    if (this.#tokenDigest === undefined) return true;
    const presented = presentedToken(request);
    // Hashing first gives both sides the same length, so timingSafeEqual cannot leak the token's length either.
    return presented !== undefined && timingSafeEqual(sha256(presented), this.#tokenDigest);
  }

  #onConnection(socket: WebSocket, request: IncomingMessage): void {
    if (this.#stopping) {
      socket.close(CLOSE_GOING_AWAY, 'sidecar shutting down');
      return;
    }
    const connection = new ModConnection(randomUUID(), socket, request.socket, remoteOf(request), (sent) => {
      this.#afterSend(sent);
    });
    this.#connections.set(connection.id, connection);
    this.#logger.info({ connectionId: connection.id, remote: connection.remote }, 'mod connected');
    socket.on('message', (data: RawData, isBinary: boolean) => {
      this.#onFrame(connection, data, isBinary);
    });
    socket.on('pong', () => {
      connection.alive = true;
    });
    socket.on('error', (error: Error) => {
      // ws closes the socket itself after these (1009 for an oversize frame, 1002 for a protocol violation).
      this.#logger.info({ connectionId: connection.id, err: error }, 'mod connection error');
    });
    socket.on('close', (code: number) => {
      this.#connections.delete(connection.id);
      this.#logger.info({ connectionId: connection.id, remote: connection.remote, code }, 'mod disconnected');
    });
    this.#send(connection, this.#welcome);
    this.#flushUndelivered(connection);
  }

  // ---- Frames -----------------------------------------------------------------------------------------------------

  #onFrame(connection: ModConnection, data: RawData, isBinary: boolean): void {
    try {
      connection.alive = true;
      if (connection.socket.readyState !== WebSocket.OPEN) return;
      const bytes = asBuffer(data);
      if (this.#stopping) {
        this.#sendError(connection, 'unavailable', 'the sidecar is shutting down; send it again after it restarts', idInFrame(bytes));
        return;
      }
      const cap = this.#config.maxMessagesPerSecond;
      if (cap > 0 && !admitFrame(connection, cap, this.#now())) {
        this.#sendError(connection, 'rate_limited', `more than ${cap} messages in one second on this connection; this one was not processed`, idInFrame(bytes));
        return;
      }
      if (isBinary) {
        this.#logger.debug({ connectionId: connection.id }, 'binary frame refused');
        this.#sendError(connection, 'bad_json', 'text frames only: send one JSON object per text frame', idInFrame(bytes));
        return;
      }
      if (!isUtf8(bytes)) {
        this.#logger.debug({ connectionId: connection.id }, 'frame is not UTF-8');
        this.#sendError(connection, 'bad_json', 'not valid UTF-8 text');
        return;
      }
      const parsed = parseModMessage(bytes.toString('utf8'));
      if (!parsed.ok) {
        const { error } = parsed;
        this.#logger.debug({ connectionId: connection.id, code: error.code, path: error.path }, 'bad frame');
        this.#sendError(connection, error.code, error.message, error.id, error.path);
        return;
      }
      this.#dispatch(connection, parsed.message);
    } catch (error) {
      this.#logger.error({ connectionId: connection.id, err: error }, 'mod frame handler failed');
      this.#sendError(connection, 'internal', INTERNAL_ERROR_MESSAGE);
    }
  }

  #dispatch(connection: ModConnection, message: ModMessage): void {
    const sink = this.#sink;
    if (sink === undefined) throw new Error('frame before start()');
    switch (message.type) {
      case 'ping':
        this.#send(connection, JSON.stringify({ type: 'pong', id: message.id }));
        return;
      case 'player.join':
        sink.playerJoined(toPlayerIdentity(message.player));
        return;
      case 'player.leave':
        sink.playerLeft(toPlayerIdentity(message.player));
        return;
      case 'chat': {
        // The common case, a cached player, is answered in this tick: no promise, no await.
        const verdict = sink.chatNow?.(toPlayerIdentity(message.player), message.channel, message.text);
        if (verdict !== undefined) {
          if (verdict.reason === 'not_gated') this.#checkChannel(connection, message.channel);
          this.#send(connection, verdictFrame(message.id, verdict));
          return;
        }
        this.#inFlight++;
        void this.#answer(connection, sink, message);
        return;
      }
      case 'mute.check':
      case 'review':
      case 'server.action':
        this.#inFlight++;
        void this.#answer(connection, sink, message);
        return;
    }
  }

  /**
   * A line let through unchecked: when its channel is not a name of the vocabulary (a mod that says "all" for
   * global chat), the mod's muted players are never gated, and its author needs to know why. Once per connection,
   * not per line (a chatty server would flood the log).
   */
  #checkChannel(connection: ModConnection, channel: string): void {
    if (connection.warnedChannel || isChatChannel(channel)) return;
    connection.warnedChannel = true;
    const gated = this.#gatedChannels?.();
    const checked = gated === undefined ? '' : `: ${gated.length === 0 ? 'none' : gated.join(', ')}`;
    this.#logger.warn(
      { connectionId: connection.id, remote: connection.remote },
      `a mod sent chat on channel ${JSON.stringify(clipChannel(channel))}, which is not a channel name (${CHAT_CHANNELS.join(', ')}): such lines are never gated, so muted players are let through; the mod should send one of those names (mute.gatedChannels lists the ones checked${checked}). Said once per connection.`,
    );
  }

  /** Asks the bridge and sends the one reply; never rejects. */
  async #answer(connection: ModConnection, sink: BridgeSink, message: ChatMessage | MuteCheckMessage | ReviewMessage | ServerActionMessage): Promise<void> {
    let reply: string;
    try {
      reply = await this.#replyTo(connection, sink, message);
    } catch (error) {
      reply = this.#errorReply(connection, message, error);
    }
    try {
      this.#send(connection, reply);
    } catch (error) {
      this.#logger.error({ connectionId: connection.id, err: error }, 'could not send a reply');
    } finally {
      this.#inFlight--;
      if (this.#inFlight === 0 && this.#onIdle !== undefined) this.#onIdle();
    }
  }

  async #replyTo(connection: ModConnection, sink: BridgeSink, message: ChatMessage | MuteCheckMessage | ReviewMessage | ServerActionMessage): Promise<string> {
    switch (message.type) {
      case 'chat': {
        const verdict = await sink.chat(toPlayerIdentity(message.player), message.channel, message.text);
        if (verdict.reason === 'not_gated') this.#checkChannel(connection, message.channel);
        return verdictFrame(message.id, verdict);
      }
      case 'mute.check': {
        const verdict = await sink.checkMute(toPlayerIdentity(message.player));
        return JSON.stringify({
          type: 'mute.status',
          id: message.id,
          player: message.player,
          muted: verdict.muted,
          alert: verdict.muted ? verdict.alert : undefined,
          source: verdict.source,
        });
      }
      case 'review': {
        await sink.submitReview({
          player: toPlayerIdentity(message.player),
          stars: message.stars,
          comment: message.comment,
          origin: { adapter: this.id, ref: connection.id, requestId: message.id },
        });
        return JSON.stringify({ type: 'review.queued', id: message.id });
      }
      case 'server.action': {
        const outcome = await sink.serverAction(message.action, message.countdown);
        return JSON.stringify(
          outcome.ok
            ? { type: 'server.action.result', id: message.id, ok: true, status: outcome.status, message: outcome.message }
            : { type: 'server.action.result', id: message.id, ok: false, error: { code: resultWireCode(outcome.error.code), message: outcome.error.message } },
        );
      }
    }
  }

  #errorReply(connection: ModConnection, message: ModMessage, error: unknown): string {
    if (error instanceof BridgeRefusal) {
      this.#logger.debug({ connectionId: connection.id, type: message.type, code: error.code, path: error.path }, 'request refused');
      return errorFrame(refusalWireCode(error.code), error.message, message.id, error.path);
    }
    this.#logger.error({ connectionId: connection.id, type: message.type, err: error }, 'mod request failed');
    return errorFrame('internal', INTERNAL_ERROR_MESSAGE, message.id);
  }

  #sendError(connection: ModConnection, code: ProtocolErrorCode, message: string, id?: string, path?: string): void {
    this.#send(connection, errorFrame(code, message, id, path));
  }

  // ---- Sending and backpressure -----------------------------------------------------------------------------------

  /** Sends one frame; false when the connection cannot take it (closed, or dropped for not reading). */
  #send(connection: ModConnection, frame: string): boolean {
    const { socket } = connection;
    if (socket.readyState !== WebSocket.OPEN) return false;
    if (socket.bufferedAmount > DROP_PEER_BYTES) {
      this.#logger.warn({ connectionId: connection.id, bufferedBytes: socket.bufferedAmount }, 'mod does not read its messages; dropping the connection');
      socket.terminate();
      return false;
    }
    connection.holdWritesForThisTurn();
    socket.send(frame, connection.afterSend);
    if (!connection.paused && socket.bufferedAmount > HIGH_WATER_BYTES) {
      // Every reply is caused by a frame we read: not reading stops the growth at its source.
      connection.paused = true;
      socket.pause();
      this.#logger.debug({ connectionId: connection.id }, 'mod is slow to read; pausing its input');
    }
    return true;
  }

  #afterSend(connection: ModConnection): void {
    // The last callback of a backlog runs once it has all been written, so a paused socket always gets here below the mark.
    if (!connection.paused || this.#stopping || connection.socket.bufferedAmount >= LOW_WATER_BYTES) return;
    connection.paused = false;
    connection.socket.resume();
  }

  #newestConnection(): ModConnection | undefined {
    let newest: ModConnection | undefined;
    for (const connection of this.#connections.values()) if (connection.socket.readyState === WebSocket.OPEN) newest = connection;
    return newest;
  }

  #keepUndelivered(frame: string): void {
    if (this.#undeliveredResults.length >= MAX_UNDELIVERED_RESULTS) {
      this.#undeliveredResults.shift();
      this.#logger.warn({ kept: MAX_UNDELIVERED_RESULTS }, 'too many review results waiting for a mod to connect; dropped the oldest');
    }
    this.#undeliveredResults.push(frame);
  }

  #flushUndelivered(connection: ModConnection): void {
    while (this.#undeliveredResults.length > 0) {
      const frame = this.#undeliveredResults[0];
      if (frame === undefined || !this.#send(connection, frame)) return;
      this.#undeliveredResults.shift();
    }
  }

  // ---- Liveness and shutdown --------------------------------------------------------------------------------------

  #checkHeartbeats(): void {
    for (const connection of this.#connections.values()) {
      try {
        if (!connection.alive) {
          this.#logger.info({ connectionId: connection.id, remote: connection.remote }, 'mod did not answer the heartbeat; dropping the connection');
          connection.socket.terminate();
          continue;
        }
        connection.alive = false;
        if (connection.socket.readyState === WebSocket.OPEN) connection.socket.ping();
      } catch (error) {
        this.#logger.warn({ connectionId: connection.id, err: error }, 'heartbeat failed');
      }
    }
  }

  async #shutDown(): Promise<void> {
    this.#stopping = true;
    this.#listening = false;
    if (this.#heartbeat !== undefined) clearInterval(this.#heartbeat);
    this.#throttle?.close();
    this.#unauthenticated.close();
    const httpClosed = new Promise<void>((resolve) => {
      this.#http.close(() => {
        resolve();
      });
    });
    for (const connection of this.#connections.values()) connection.socket.pause();
    await this.#inFlightAnswered(STOP_GRACE_MS);

    const closing = [...this.#connections.values()].map((connection) => connection.socket);
    await new Promise<void>((resolve) => {
      let open = closing.length;
      if (open === 0) {
        resolve();
        return;
      }
      const timer = setTimeout(() => {
        for (const socket of closing) socket.terminate();
        resolve();
      }, CLOSE_GRACE_MS);
      for (const socket of closing) {
        socket.once('close', () => {
          open--;
          if (open === 0) {
            clearTimeout(timer);
            resolve();
          }
        });
        socket.close(CLOSE_GOING_AWAY, 'sidecar shutting down');
        // The peer's close frame has to be read for the closing handshake to finish.
        socket.resume();
      }
    });
    this.#wss.close();
    this.#http.closeAllConnections();
    await httpClosed;
    this.#logger.info('mod WebSocket stopped');
  }

  #inFlightAnswered(timeoutMs: number): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#onIdle = undefined;
        this.#logger.warn({ unanswered: this.#inFlight }, 'stopping with mod requests still unanswered');
        resolve();
      }, timeoutMs);
      this.#onIdle = () => {
        clearTimeout(timer);
        this.#onIdle = undefined;
        resolve();
      };
    });
  }
}

// ---- Small pure helpers -------------------------------------------------------------------------------------------

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * The token from `Authorization: Bearer <token>`, else from `?token=`; a Bearer header wins when both are there.
 * Another kind of Authorization header (some engines add their own) does not hide the query token.
 */
function presentedToken(request: IncomingMessage): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(request.headers.authorization?.trim() ?? '')?.[1];
  if (bearer !== undefined) return bearer;
  const url = request.url ?? '/';
  if (!url.includes('token=')) return undefined;
  return new URL(url, 'http://mod.invalid').searchParams.get('token') ?? undefined;
}

function rejectUpgrade(socket: Duplex, status: number, reason: string, body: string, headers: Readonly<Record<string, string>> = {}): void {
  const lines = [
    `HTTP/1.1 ${status} ${reason}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.once('finish', () => {
    socket.destroy();
  });
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** How often node:http checks the handshake deadline: a fifth of it, between 10 ms and 1 s (5 s closes within 5–6 s). */
function deadlineCheckIntervalMs(handshakeMs: number): number {
  return Math.min(1000, Math.max(10, Math.floor(handshakeMs / 5)));
}

function ignoreSocketError(): void {
  // The socket is destroyed anyway; a reset during the handshake is the peer's business.
}

function remoteOf(request: IncomingMessage): string {
  const { remoteAddress, remotePort } = request.socket;
  return `${remoteAddress ?? '?'}:${remotePort ?? '?'}`;
}

/** Counts the frame in the connection's current one-second window; false when it is over the cap. */
function admitFrame(connection: ModConnection, cap: number, now: number): boolean {
  if (now - connection.windowStartedAt >= RATE_WINDOW_MS) {
    connection.windowStartedAt = now;
    connection.framesInWindow = 0;
  }
  connection.framesInWindow++;
  return connection.framesInWindow <= cap;
}

function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

/** The id of a frame we will not process, so that even its refusal can be matched to the request. */
function idInFrame(bytes: Buffer): string | undefined {
  // Cheap test first: a flood of junk must not cost a JSON.parse exception per frame.
  if (!bytes.includes(ID_KEY) || !isUtf8(bytes)) return undefined;
  try {
    const frame: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof frame === 'object' && frame !== null && !Array.isArray(frame) ? validIdOf(frame as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

// chat.verdict frames are built as text: fixed shapes, and the allow answers are the same for every chat line
// but the id. Field order and content are what JSON.stringify of the ChatVerdictMessage gives.
const ALLOW_OK_TAIL = ',"allow":true,"reason":"ok"}';
const ALLOW_UNKNOWN_TAIL = ',"allow":true,"reason":"unknown"}';
const ALLOW_NOT_GATED_TAIL = ',"allow":true,"reason":"not_gated"}';
const VERDICT_HEAD = '{"type":"chat.verdict"';

function verdictFrame(id: string | undefined, verdict: ChatVerdict): string {
  const head = id === undefined ? VERDICT_HEAD : `${VERDICT_HEAD},"id":${JSON.stringify(id)}`;
  if (verdict.allow) return head + (verdict.reason === 'ok' ? ALLOW_OK_TAIL : verdict.reason === 'not_gated' ? ALLOW_NOT_GATED_TAIL : ALLOW_UNKNOWN_TAIL);
  return `${head},"allow":false,"reason":"${verdict.reason}","alert":${JSON.stringify(verdict.alert)}}`;
}

function errorFrame(code: ProtocolErrorCode, message: string, id?: string, path?: string): string {
  return JSON.stringify({ type: 'error', id, code, message, path });
}

/** A mod's channel string in a log line: the mod may send anything, of any length. */
function clipChannel(channel: string): string {
  return channel.length > 32 ? `${channel.slice(0, 32)}…` : channel;
}

function toPlayerIdentity(player: ModPlayer): PlayerIdentity {
  return { steamId: player.steam_id, eosId: player.eos_id, name: player.name };
}

function toModPlayer(player: PlayerIdentity): ModPlayer {
  return { steam_id: player.steamId, eos_id: player.eosId, name: player.name };
}
