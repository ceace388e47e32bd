// The mod WebSocket listener (mod protocol v1) of one game server: authenticates mods at the HTTP upgrade (the
// gate's pieces in upgradeGate.ts), keeps its connections (modConnection.ts), hands their frames to the dispatch
// (frameDispatch.ts), sends with backpressure, and hands what mods are told unasked to modPushes.ts (mute changes,
// review and report results, access refusals at the door).
// Must never let a frame crash the process or close a connection (only a bad token and an oversize frame end
// one), never log the token, and never let a peer that does not read make memory grow without bound.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { hostForAddress } from '../../src/net/endpoint.js';
import { isLoopbackHost } from '../../src/net/loopback.js';
import { describeListenError } from '../../src/net/listenFailure.js';
import { systemClock, type Clock } from '../../src/time/clock.js';
import type { Adapter, BridgeSink, ListeningAddress, PlayerIdentity, RemovalReason, ReportOutcome, ReviewOrigin, ReviewOutcome } from '../../src/bridge/port.js';
import { FrameDispatch } from './frameDispatch.js';
import { ModConnection } from './modConnection.js';
import { ModPushes } from './modPushes.js';
import { PROTOCOL_VERSION } from './protocol.js';
import type { WebsocketOptions } from './options.js';
import { UnauthenticatedConnections } from './unauthenticatedConnections.js';
import {
  deadlineCheckIntervalMs,
  ignoreSocketError,
  logAuthFailures,
  logDroppedConnections,
  presentsToken,
  refuseWrongToken,
  rejectUpgrade,
  remoteOf,
  sha256,
} from './upgradeGate.js';
import { UpgradeThrottle } from './upgradeThrottle.js';
import { UnattributedChat } from '../base/unattributedChat.js';

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
const LISTEN_BACKLOG = 4096;
const CLOSE_GOING_AWAY = 1001;

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
  /** Mute changes, review and report results, access refusals: what the mods are told unasked. */
  readonly #pushes: ModPushes;
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
  readonly #frames: FrameDispatch;

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
              logAuthFailures(this.#logger, summary);
            },
          });
    this.#unauthenticated = new UnauthenticatedConnections({
      max: options.options.maxUnauthenticatedConnections,
      onDropped: (report) => {
        logDroppedConnections(this.#logger, report);
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
    // Invalid UTF-8 is answered with bad_json by the dispatch rather than closing the socket (ws would close with 1007).
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: options.options.maxFrameBytes, skipUTF8Validation: true, perMessageDeflate: false });
    this.#frames = new FrameDispatch({
      adapterId: this.id,
      logger: this.#logger,
      maxMessagesPerSecond: this.#config.maxMessagesPerSecond,
      now: this.#now,
      stopping: () => this.#stopping,
      sink: () => this.#sink,
      unattributed: new UnattributedChat({
        logger: this.#logger,
        label: `mod WebSocket ${this.id}`,
        fix: () => "The mod sent chat frames whose player cannot be read (see the mod's bad_message errors at path player): fix the mod (docs/mod-protocol.md, Common fields).",
        count: (reason) => {
          this.#sink?.chatLineRead?.(reason);
        },
        now: () => (options.clock ?? systemClock).now(),
      }),
      gatedChannels: this.#gatedChannels,
      send: (connection, frame) => this.#send(connection, frame),
      requestStarted: () => {
        this.#inFlight++;
      },
      requestAnswered: () => {
        this.#inFlight--;
        if (this.#inFlight === 0 && this.#onIdle !== undefined) this.#onIdle();
      },
    });
    this.#pushes = new ModPushes({ adapterId: this.id, connections: this.#connections, send: (connection, frame) => this.#send(connection, frame), logger: this.#logger });
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
    this.#pushes.muteChanged(player, muted, alert);
  }

  reviewResult(origin: ReviewOrigin, outcome: ReviewOutcome): void {
    this.#pushes.reviewResult(origin, outcome);
  }

  /** AdapterPushes.reportResult: routed as a review's result is. */
  reportResult(origin: ReviewOrigin, outcome: ReportOutcome): void {
    this.#pushes.reportResult(origin, outcome);
  }

  /**
   * Adapter.removePlayer: the mods that said the player joined (else every one) are told unasked, with a
   * `player.access.result` of `allowed: false`, and remove the player. Rejects with NoModConnectionError when no mod is
   * connected.
   */
  removePlayer(player: PlayerIdentity, reason: RemovalReason): Promise<void> {
    return this.#pushes.removePlayer(player, reason);
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
      if (!presentsToken(request, this.#tokenDigest)) {
        refuseWrongToken(socket, this.#throttle, request.socket.remoteAddress ?? '?');
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
      this.#frames.onFrame(connection, data, isBinary);
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
      connection.joined.clear();
      this.#logger.info({ connectionId: connection.id, remote: connection.remote, code }, 'mod disconnected');
    });
    this.#send(connection, this.#welcome);
    this.#pushes.flushTo(connection);
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
