// WebRconClient: one reconnecting session to a Rust server's WebRCON (`ws://host:port/<password>`). It correlates
// command replies by Identifier (several commands in flight), hands pushed chat (parsed from its inner JSON) and
// console output to callbacks, and keeps the session alive with a cheap command (Rust never answers WebSocket pings,
// so the client sends none and never waits for a pong). The reconnect policy (capped, jittered backoff: minutes after
// a wrong password, since Rust bans an address after 5 wrong ones; seconds after a drop) is sessionLifecycle.ts's; a
// session is ready once it answered its first keepalive probe.
// A wrong password is what Rust (Fleck) does with one: it answers the upgrade request with bytes that are not HTTP
// (a close frame), or a proxy answers 401/403, or an opened socket is closed with a policy code before it answered.
// A connection cut with no answer at all (a restart, a proxy whose backend is down, a network cut) is a drop.
// Replies, Identifiers, chat and stray frames are webrcon/inbox.ts's.
// One message is capped at maxMessageBytes (ws holds no more than that one message per connection).
// Must never: open a second socket while one exists, emit an unhandled `error` or rejection, reconnect after close(),
// or put the password (it is in the URL) into a log line or an error: every outgoing text goes through `#scrub`.
//
//   const client = new WebRconClient({ host, port, password, label: 'rust-main', logger, onChat: (chat) => … });
//   client.start();
//   await client.ready(10_000);                       // optional: wait for the first session
//   const players = JSON.parse(await client.command('playerlist')) as unknown;
//   await client.command(`mute ${steamId}`, { silentOk: true }); // Rust answers nothing when a mute works
//   await client.close();
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocket, type RawData } from 'ws';
import {
  RconAuthFailedError,
  RconConnectError,
  RconDisconnectedError,
  RconNotConnectedError,
  RconReplyTooLargeError,
  RconTimeoutError,
  type RconWrongProtocolError,
} from './errors.js';
import { SessionLifecycle, formatBytes } from './sessionLifecycle.js';
import { passwordNeedsEncoding, passwordScrubber, redactedWebRconUrl, webRconUrl } from './webrcon/passwordUrl.js';
import { WebRconInbox } from './webrcon/inbox.js';
import { encodeWebRconCommand } from './webrcon/wire.js';
import { FIRST_BYTES_KEPT, describeFirstBytes, isForeignHttpStatus, wrongProtocolError } from './wrongProtocol.js';

export type { WebRconInbound } from './webrcon/wire.js';
export type {
  CommandOptions,
  RustChatMessage,
  WebRconClientOptions,
  WebRconDisconnect,
  WebRconLogger,
  WebRconState,
  WebRconStatus,
} from './webrcon/clientOptions.js';
import type { CommandOptions, WebRconClientOptions, WebRconLogger, WebRconState, WebRconStatus } from './webrcon/clientOptions.js';

/** What one connection attempt learned, for the verdict when its socket closes. */
interface Attempt {
  tcpConnected: boolean;
  opened: boolean;
  failure: string | undefined;
  failureCode: string | undefined;
  httpStatus: number | undefined;
  deadReason: string | undefined;
  /** The server answered the upgrade request with bytes that are not HTTP: Fleck's refusal of a wrong password. */
  answeredNotHttp: boolean;
  /** The server sent a message over maxMessageBytes. */
  tooLarge: boolean;
  /** The first bytes the server sent (at most FIRST_BYTES_KEPT), to tell another protocol from Rust's refusal. */
  head: Buffer;
  /** The port answered in another protocol (an HTTP page, a telnet prompt, binary). */
  wrongProtocol: RconWrongProtocolError | undefined;
}

const DEFAULTS = {
  commandTimeoutMs: 5_000,
  keepaliveMs: 30_000,
  keepaliveCommand: 'serverinfo',
  connectTimeoutMs: 10_000,
  reconnectMinDelayMs: 2_000,
  reconnectMaxDelayMs: 60_000,
  authRetryMinDelayMs: 60_000,
  authRetryMaxDelayMs: 900_000,
  maxMessageBytes: 1024 * 1024,
};

export class WebRconClient {
  readonly #options: WebRconClientOptions;
  readonly #logger: WebRconLogger;
  readonly #scrub: (text: string) => string;
  readonly #where: string;
  readonly #commandTimeoutMs: number;
  readonly #keepaliveMs: number;
  readonly #keepaliveCommand: string;
  readonly #maxMessageBytes: number;
  readonly #inbox: WebRconInbox;
  readonly #life: SessionLifecycle;
  /** The one socket; set from the constructor call until its `close` event, so no second one can start meanwhile. */
  #socket: WebSocket | undefined;
  /** The socket is open: commands may be sent (the first probe among them) before the session counts as ready. */
  #open = false;
  #sessions = 0;
  /** Why the ready session just ended, for onDisconnected once the lifecycle has chosen the next attempt's delay. */
  #droppedReason: string | undefined;
  #keepaliveTimer: NodeJS.Timeout | undefined;
  #keepaliveInFlight = false;
  /** Each socket's attempt record: the keepalive marks it dead before terminating, so the close names the real cause. */
  readonly #attempts = new WeakMap<WebSocket, Attempt>();

  constructor(options: WebRconClientOptions) {
    this.#options = options;
    this.#scrub = passwordScrubber(options.password);
    this.#logger = scrubbingLogger(options.logger, this.#scrub);
    this.#where = redactedWebRconUrl(options.host, options.port);
    this.#commandTimeoutMs = options.commandTimeoutMs ?? DEFAULTS.commandTimeoutMs;
    this.#keepaliveMs = options.keepaliveMs ?? DEFAULTS.keepaliveMs;
    this.#keepaliveCommand = options.keepaliveCommand ?? DEFAULTS.keepaliveCommand;
    this.#maxMessageBytes = options.maxMessageBytes ?? DEFAULTS.maxMessageBytes;
    this.#inbox = new WebRconInbox(options.label, this.#logger, options.repeatSummaryIntervalMs, {
      onChat: options.onChat,
      onConsole: options.onConsole,
      onAnswer: () => {
        if (!this.#life.ready) this.#onFirstAnswer();
      },
      call: (name, run) => {
        this.#call(name, run);
      },
    });
    const authMin = options.authRetryMinDelayMs ?? DEFAULTS.authRetryMinDelayMs;
    this.#life = new SessionLifecycle({
      label: options.label,
      what: 'WebRCON',
      connect: () => {
        this.#connect();
      },
      reconnectMinDelayMs: options.reconnectMinDelayMs ?? DEFAULTS.reconnectMinDelayMs,
      reconnectMaxDelayMs: options.reconnectMaxDelayMs ?? DEFAULTS.reconnectMaxDelayMs,
      // The lifecycle waits at least its floor (50–100% of twice it); Rust's options name the step itself, each wait
      // 50–100% of it: half the step is the same schedule.
      authFailureDelayMs: authMin / 2,
      authFailureMaxDelayMs: Math.max(authMin, options.authRetryMaxDelayMs ?? DEFAULTS.authRetryMaxDelayMs) / 2,
      // The backoff starts over once a session answered, however briefly it lived.
      stableSessionMs: 0,
      random: options.random,
      logger: this.#logger,
      failureLog: 'one-line',
      readyTimeoutError: (timeoutMs, last) =>
        new RconTimeoutError(`rust webrcon of adapter ${options.label} at ${this.#where} did not connect within ${timeoutMs} ms${last === undefined ? '' : `; last failure: ${last.message}`}`),
      onReady: options.onConnected,
      onReconnectScheduled: (plan) => {
        const reason = this.#droppedReason;
        this.#droppedReason = undefined;
        if (reason !== undefined) this.#call('onDisconnected', () => this.#options.onDisconnected?.({ reason, reconnectInMs: plan.delayMs }));
      },
    });
  }

  /** True while a session is open and has answered (its first keepalive probe). */
  get connected(): boolean {
    return this.#life.ready;
  }

  get status(): WebRconStatus {
    return {
      state: this.#state(),
      connected: this.connected,
      sessions: this.#sessions,
      pendingCommands: this.#inbox.pendingCount,
      lastError: this.#lastErrorSummary(),
    };
  }

  /** Starts connecting (and reconnecting, until close()). Calling it again does nothing. */
  start(): void {
    if (this.#life.state !== 'idle') return;
    if (passwordNeedsEncoding(this.#options.password)) {
      this.#log('warn', {}, `the rcon password of adapter ${this.#options.label} contains characters a URL must encode (space, #, ?, /, %, non-ASCII …); Rust compares the raw path, so it will likely refuse it: choose a password of letters and digits`);
    }
    this.#life.start();
  }

  /**
   * Resolves once a session is open (at once if one is). Rejects with the auth error on a wrong password, with
   * `closed` on close(), and with `timeout` (naming the last failure) when `timeoutMs` passes first.
   */
  ready(timeoutMs?: number): Promise<void> {
    return this.#life.whenReady({ timeoutMs });
  }

  /**
   * Runs one console command and resolves with its output (`Message`). Fails at once with `not_connected` while no
   * session is open, with `timeout` when no answer comes in time, with `disconnected` when the session drops first
   * (the command may have run), and with `closed` after close().
   */
  command(text: string, options: CommandOptions = {}): Promise<string> {
    if (this.#life.closed) return Promise.reject(this.#life.closedError());
    const socket = this.#socket;
    if (!this.#open || socket?.readyState !== WebSocket.OPEN) {
      const lastError = this.#life.lastError;
      const last = lastError === undefined ? '' : ` (last failure: ${lastError.message})`;
      return Promise.reject(new RconNotConnectedError(`rust webrcon of adapter ${this.#options.label} at ${this.#where} is not connected; it reconnects by itself${last}`));
    }
    const identifier = this.#inbox.takeIdentifier();
    const answer = this.#inbox.expect(identifier, options.timeoutMs ?? this.#commandTimeoutMs, options.silentOk === true);
    socket.send(encodeWebRconCommand(identifier, text, this.#options.clientName ?? 'WebRcon'), (error) => {
      if (error instanceof Error) this.#inbox.sendFailed(identifier, this.#scrub(error.message));
    });
    return answer;
  }

  /** Closes for good: pending commands and ready() waiters fail with `closed`; no reconnect. Resolves once the socket is gone. */
  close(): Promise<void> {
    const wasOpen = this.connected;
    const done = this.#life.close();
    this.#inbox.close();
    this.#stopKeepalive();
    this.#inbox.failAll(() => this.#life.closedError());
    this.#open = false;
    // Terminate rather than a close handshake: nothing is waited for, and ws's close timer would hang on fake timers.
    this.#socket?.terminate();
    if (wasOpen) this.#log('info', {}, `rust webrcon of adapter ${this.#options.label} closed`);
    return done;
  }

  // ---- Connection --------------------------------------------------------------------------------------------------

  /** Asked by the lifecycle, never while a socket exists; every attempt ends in exactly one `ended`. */
  #connect(): void {
    const attempt: Attempt = {
      tcpConnected: false,
      opened: false,
      failure: undefined,
      failureCode: undefined,
      httpStatus: undefined,
      deadReason: undefined,
      answeredNotHttp: false,
      tooLarge: false,
      head: Buffer.alloc(0),
      wrongProtocol: undefined,
    };
    let socket: WebSocket;
    try {
      socket = new WebSocket(webRconUrl(this.#options.host, this.#options.port, this.#options.password), {
        handshakeTimeout: this.#options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
        maxPayload: this.#maxMessageBytes,
        perMessageDeflate: false,
        followRedirects: false,
        // Knowing whether TCP connected tells a refused password (connected, then cut during the upgrade) from a
        // server that is down (never connected).
        finishRequest: (request: ClientRequest) => {
          request.once('socket', (tcp: Socket) => {
            const keepHead = (chunk: Buffer): void => {
              attempt.head = Buffer.concat([attempt.head, chunk]).subarray(0, FIRST_BYTES_KEPT);
              if (attempt.head.length >= FIRST_BYTES_KEPT || attempt.opened) tcp.off('data', keepHead);
            };
            // First: the HTTP parser's own listener fails on foreign bytes, and ws closes, before later listeners run.
            tcp.prependListener('data', keepHead);
            if (!tcp.connecting) attempt.tcpConnected = true;
            else
              tcp.once('connect', () => {
                attempt.tcpConnected = true;
              });
          });
          request.end();
        },
      });
    } catch (error) {
      // An invalid host makes the constructor throw; its message may quote the URL.
      const reason = this.#scrub(error instanceof Error ? error.message : String(error));
      this.#life.ended(new RconConnectError(`rust webrcon of adapter ${this.#options.label} at ${this.#where} cannot be reached: ${reason}; check host and port`), { wasReady: false });
      return;
    }
    this.#socket = socket;
    this.#attempts.set(socket, attempt);
    socket.on('error', (error: Error & { code?: string }) => {
      // Every failure also ends in `close`, which decides what happens next; here we only remember why.
      const code = typeof error.code === 'string' ? error.code : undefined;
      if (code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') {
        attempt.tooLarge = true;
        attempt.failure ??= `the server sent a message of more than ${formatBytes(this.#maxMessageBytes)} (maxMessageBytes); the connection is dropped`;
        attempt.failureCode ??= code;
        return;
      }
      // Rust's refusal (a close frame where the HTTP answer belongs) reaches us as an HTTP parser error. A hang-up
      // with no answer at all is a drop, not a refusal.
      if (!attempt.opened && code?.startsWith('HPE_') === true) {
        attempt.answeredNotHttp = true;
        attempt.failure ??= 'the server cut the connection instead of answering the WebSocket upgrade';
      }
      const hungUp = !attempt.opened && attempt.tcpConnected && (error.message === 'socket hang up' || code === 'ECONNRESET');
      attempt.failure ??= hungUp ? 'the server closed the connection before answering the WebSocket upgrade' : this.#scrub(error.message);
      attempt.failureCode ??= code;
    });
    socket.on('unexpected-response', (_request, response) => {
      attempt.httpStatus = response.statusCode;
      if (isForeignHttpStatus(response.statusCode)) attempt.wrongProtocol ??= this.#wrongProtocol(`an HTTP ${response.statusCode ?? '?'} page (no WebSocket upgrade)`);
      attempt.failure ??= `the server answered HTTP ${response.statusCode ?? '?'} instead of a WebSocket upgrade`;
      response.resume();
      socket.terminate();
    });
    socket.on('open', () => {
      attempt.opened = true;
      this.#onOpen(socket);
    });
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (this.#socket !== socket) return;
      if (isBinary) this.#inbox.binary();
      else this.#inbox.receive(rawDataText(data));
    });
    socket.on('close', (code: number) => {
      this.#onSocketClose(socket, attempt, code);
    });
    // ws checks for a listener before it emits ping/pong; Rust never pings, and we never ping it.
  }

  #onOpen(socket: WebSocket): void {
    if (this.#socket !== socket) return;
    if (this.#life.closed) {
      socket.terminate();
      return;
    }
    this.#open = true;
    this.#life.authenticating();
    this.#startKeepalive(socket);
  }

  /**
   * The session answered its first command (the probe sent on open): only now is it connected. A socket that opens
   * and then closes before answering (a server that refuses after the upgrade) never counts as a session.
   */
  #onFirstAnswer(): void {
    this.#sessions++;
    this.#log('debug', { session: this.#sessions }, `rust webrcon of adapter ${this.#options.label} answered at ${this.#where}`);
    this.#life.loggedIn();
  }

  #onSocketClose(socket: WebSocket, attempt: Attempt, code: number): void {
    if (this.#socket !== socket) return;
    this.#socket = undefined;
    const wasReady = this.#life.ready;
    const socketWasOpen = this.#open;
    this.#open = false;
    this.#stopKeepalive();
    if (this.#life.closed) {
      this.#inbox.failAll(() => this.#life.closedError());
      this.#life.ended(this.#life.closedError(), { wasReady });
      return;
    }
    const reason = attempt.deadReason ?? attempt.failure ?? `closed by the server (code ${code})`;
    this.#inbox.failAll(() =>
      attempt.tooLarge
        ? new RconReplyTooLargeError(`rust webrcon of adapter ${this.#options.label}: ${reason} before the answer; the command may have run`)
        : new RconDisconnectedError(`rust webrcon of adapter ${this.#options.label}: the connection dropped before the answer (${reason}); the command may have run`, true),
    );

    // Fleck's refusal is a WebSocket close frame (0x88 …) where the HTTP answer belongs; other bytes there are another
    // protocol.
    if (attempt.answeredNotHttp && attempt.head.length > 0 && attempt.head[0] !== 0x88) {
      attempt.wrongProtocol ??= this.#wrongProtocol(describeFirstBytes(attempt.head, this.#options.password));
    }
    if (attempt.wrongProtocol !== undefined) {
      this.#life.ended(attempt.wrongProtocol, { wasReady: false });
      return;
    }

    if (this.#looksLikeAuthFailure(attempt, socketWasOpen, wasReady, code)) {
      const key = this.#options.passwordKey ?? '"password"';
      const error = new RconAuthFailedError(
        `authentication failed: rust webrcon at ${this.#where} refused the connection of adapter ${this.#options.label} (${reason}). ` +
          `The rcon password is probably wrong: check ${key} of adapter ${this.#options.label} against the server's rcon.password. ` +
          `Rust also refuses an address for a while after 5 wrong passwords (rcon.maxpasswordfailures, rcon.banduration).`,
      );
      this.#call('onAuthFailed', () => this.#options.onAuthFailed?.(error));
      this.#life.authFailed(error);
      this.#life.ended(error, { wasReady: false });
      return;
    }

    if (wasReady) {
      const message = `rust webrcon of adapter ${this.#options.label} at ${this.#where} lost its connection: ${reason}`;
      this.#droppedReason = reason;
      this.#life.ended(attempt.tooLarge ? new RconReplyTooLargeError(message) : new RconDisconnectedError(message, false), { wasReady });
      return;
    }
    this.#life.ended(new RconConnectError(`rust webrcon of adapter ${this.#options.label} could not connect to ${this.#where}: ${reason}`), { wasReady });
  }

  /**
   * Rust (Fleck) checks the password when the upgrade request arrives and closes the TCP connection instead of
   * answering it: it writes a close frame where the HTTP answer should be, which the HTTP parser rejects (HPE_…).
   * Proxies answer 401/403; some servers open and close with 1008. Nothing else is a refusal: a connection closed
   * or reset with no answer at all (a restart, a proxy whose backend is not up, a timeout) is a drop, retried with
   * the normal backoff.
   */
  #looksLikeAuthFailure(attempt: Attempt, socketWasOpen: boolean, answered: boolean, code: number): boolean {
    if (attempt.httpStatus === 401 || attempt.httpStatus === 403) return true;
    if (socketWasOpen) return !answered && !attempt.tooLarge && (code === 1008 || code === 4001 || code === 4003 || code === 4401 || code === 4403);
    return !attempt.opened && attempt.tcpConnected && attempt.answeredNotHttp;
  }

  // ---- Keepalive ---------------------------------------------------------------------------------------------------

  #startKeepalive(socket: WebSocket): void {
    if (this.#keepaliveMs <= 0) {
      // No probe: the open socket has to do as proof.
      this.#onFirstAnswer();
      return;
    }
    // The first probe at once: it proves the session answers; only then is it connected and the backoff reset.
    this.#sendKeepalive(socket);
    this.#keepaliveTimer = setInterval(() => {
      this.#sendKeepalive(socket);
    }, this.#keepaliveMs);
  }

  #stopKeepalive(): void {
    clearInterval(this.#keepaliveTimer);
    this.#keepaliveTimer = undefined;
    this.#keepaliveInFlight = false;
  }

  #sendKeepalive(socket: WebSocket): void {
    if (this.#keepaliveInFlight || this.#socket !== socket || !this.#open) return;
    this.#keepaliveInFlight = true;
    this.command(this.#keepaliveCommand).then(
      () => {
        if (this.#socket === socket) this.#keepaliveInFlight = false;
      },
      (error: unknown) => {
        if (this.#socket !== socket) return;
        this.#keepaliveInFlight = false;
        if (error instanceof RconTimeoutError) {
          // A silent server (frozen, or a half-open TCP path): end this session and reconnect.
          const reason = `no answer to the keepalive within ${this.#commandTimeoutMs} ms`;
          const attempt = this.#attempts.get(socket);
          if (attempt !== undefined) attempt.deadReason = reason;
          this.#log('warn', { code: 'timeout' }, `rust webrcon of adapter ${this.#options.label}: ${reason}; closing the connection to reconnect`);
          socket.terminate();
        }
      },
    );
  }

  // ---- Helpers -----------------------------------------------------------------------------------------------------

  #wrongProtocol(seen: string): RconWrongProtocolError {
    const { label, host, port, passwordKey, password } = this.#options;
    return wrongProtocolError({ protocol: 'webrcon', label, host, port, passwordKey: passwordKey ?? '"password"', password }, seen);
  }

  #lastErrorSummary(): WebRconStatus['lastError'] {
    const last = this.#life.lastError;
    return last === undefined ? undefined : { code: last.code, message: last.message };
  }

  /** The lifecycle's state in this client's older words: a session is open once it answered. */
  #state(): WebRconState {
    const state = this.#life.state;
    if (state === 'ready') return 'open';
    if (state === 'authenticating') return 'connecting';
    return state;
  }

  /** Calls a user callback; one that throws is logged, never allowed to break the client. */
  #call(name: string, callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.#log('error', { callback: name }, `a ${name} callback of adapter ${this.#options.label} threw: ${this.#scrub(error instanceof Error ? error.message : String(error))}`);
    }
  }

  #log(level: keyof WebRconLogger, bindings: Record<string, unknown>, message: string): void {
    // No `adapter` field of its own: the adapter's logger carries it already (pino would write the key twice), and
    // every message names the adapter.
    this.#logger[level](bindings, message);
  }
}

/** The client's and the lifecycle's logger: every message is scrubbed of the password before it is written. */
function scrubbingLogger(logger: WebRconLogger, scrub: (text: string) => string): WebRconLogger {
  const level =
    (name: keyof WebRconLogger) =>
    (bindings: Record<string, unknown>, message: string): void => {
      logger[name](bindings, scrub(message));
    };
  return { debug: level('debug'), info: level('info'), warn: level('warn'), error: level('error') };
}

function rawDataText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

