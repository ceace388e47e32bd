// TelnetClient: one logged-in session to a 7 Days to Die telnet console (default port 8081), kept up for the client's
// life. It answers the password prompt once per connection, reads the stream as lines (CRLF or LF; bytes split or
// merged any way; UTF-8 decoded only once a line is whole; telnet negotiation bytes dropped), hands every pushed log
// line (`2021-09-15T20:42:00 1103.462 INF …`) to `onLine`, and runs commands one at a time: a command's answer is the
// non-log lines that follow it, up to a terminator the caller gives (`lp`: /^Total of \d+ in the game/) or, without
// one, until the console has been quiet for `quietMs`. Log lines keep going to `onLine` while a command waits.
// The reconnect policy (backoff, the long wait after a wrong password, fail-fast for one-shot use) is
// sessionLifecycle.ts's. Its parts: the line framing (telnetLines.ts), the login dialogue (telnetLogin.ts) and the
// command queue (telnetCommands.ts); this file joins them: the socket, each line routed by the session's phase, the
// pushed lines handed on, and how a session ends.
//
// It must never:
// - put the password in a log line, an error or an event (it is written to the socket after the prompt, nowhere else),
//   or log a line received before the login (a server that echoes input would echo the password);
// - send the password twice on one connection (a wrong one is answered by closing, then the long auth backoff);
// - hold two sockets at once, reconnect after close(), or let a socket emit an unhandled `error`;
// - send a command holding CR, LF or NUL (it would run a second command), or more than one command at a time;
// - hold more than `maxLineBytes` of an unfinished line or `maxReplyBytes` of one answer (the session is dropped).
//
//   const client = new TelnetClient({ host, port: 8081, password, label: '7dtd-main', logger, onLine: (line) => … });
//   client.start();
//   await client.whenReady({ timeoutMs: 10_000 });
//   const players = await client.command('lp', { endsAt: /^Total of \d+ in the game/ });
//   await client.close();
import { Socket } from 'node:net';
import { silentLogger } from '../../src/log/logger.js';
import { RconBufferLimitError, RconDisconnectedError, RconInvalidCommandError, RconNotConnectedError } from './errors.js';
import { isSevenDaysLogLine } from './profiles/sevenDaysLines.js';
import { SessionLifecycle, formatBytes, reconnectTuning } from './sessionLifecycle.js';
import type { RconLogger } from './sourceRconOptions.js';
import type { TelnetClientOptions, TelnetCommandOptions, TelnetStatus } from './telnetOptions.js';
import { connectTcpSocket, endTcpSession, type TcpConnectPlan, type TcpSessionEvents } from './tcpSession.js';
import { TelnetCommandQueue } from './telnetCommands.js';
import { TelnetLineFramer } from './telnetLines.js';
import { TelnetLogin, type TelnetSession as Session } from './telnetLogin.js';
import { TelnetFirstAnswer } from './wrongProtocol.js';

export type { TelnetClientOptions, TelnetCommandOptions, TelnetStatus } from './telnetOptions.js';

const FORBIDDEN_IN_COMMAND = /[\r\n\0]/;
export const DEFAULT_TELNET_QUIET_MS = 200;

export class TelnetClient {
  readonly #options: TelnetClientOptions;
  readonly #label: string;
  readonly #passwordKey: string;
  readonly #commandTimeoutMs: number;
  readonly #connectTimeoutMs: number;
  /** connectTimeoutMs + loginTimeoutMs: how long whenReady() waits by default. */
  readonly #loginWithinMs: number;
  readonly #maxLineBytes: number;
  readonly #isPushed: (line: string) => boolean;
  readonly #logger: RconLogger;
  readonly #tcpPlan: TcpConnectPlan;
  readonly #tcpEvents: TcpSessionEvents<Session> = {
    close: (session) => {
      this.#onClose(session);
    },
    connect: (session) => {
      this.#onConnect(session);
    },
    data: (session, chunk) => {
      this.#onData(session, chunk);
    },
  };
  readonly #life: SessionLifecycle;
  readonly #login: TelnetLogin;
  readonly #commands: TelnetCommandQueue;
  #session: Session | undefined;

  constructor(options: TelnetClientOptions) {
    this.#options = options;
    this.#label = options.label ?? `${options.host}:${options.port}`;
    this.#passwordKey = options.passwordKey ?? '"password"';
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
    const loginTimeoutMs = options.loginTimeoutMs ?? 10_000;
    this.#loginWithinMs = this.#connectTimeoutMs + loginTimeoutMs;
    const quietMs = Math.max(1, options.quietMs ?? DEFAULT_TELNET_QUIET_MS);
    this.#maxLineBytes = Math.max(64, options.maxLineBytes ?? 64 * 1024);
    this.#isPushed = options.isPushedLine ?? isSevenDaysLogLine;
    this.#logger = options.logger ?? silentLogger();
    this.#tcpPlan = { host: this.#options.host, port: this.#options.port, what: 'telnet', portName: 'telnet port', label: this.#label, connectTimeoutMs: this.#connectTimeoutMs, logger: this.#logger };
    this.#life = new SessionLifecycle({
      label: this.#label,
      what: 'telnet',
      connect: () => {
        this.#connect();
      },
      ...reconnectTuning(options),
      clock: options.clock,
      logger: this.#logger,
      onReady: options.onReady,
      onDisconnected: options.onDisconnected,
      onAuthFailed: options.onAuthFailed,
      onReconnectScheduled: options.onReconnectScheduled,
    });
    this.#login = new TelnetLogin(
      { host: options.host, port: options.port, password: options.password, label: this.#label, passwordKey: this.#passwordKey, loginTimeoutMs, quietMs, isPushed: this.#isPushed, life: this.#life },
      {
        isLive: (session) => this.#isLive(session),
        pushed: (line) => {
          this.#pushed(line);
        },
        loggedIn: () => {
          this.#commands.pump();
        },
      },
    );
    this.#commands = new TelnetCommandQueue(
      {
        label: this.#label,
        quietMs,
        maxQueued: Math.max(1, Math.floor(options.maxQueuedCommands ?? 100)),
        maxReplyBytes: Math.max(1, options.maxReplyBytes ?? 1024 * 1024),
        repeatSummaryIntervalMs: options.repeatSummaryIntervalMs,
        clock: options.clock,
        logger: this.#logger,
      },
      {
        socket: () => (this.#life.ready ? this.#session?.socket : undefined),
        hasSession: () => this.#session !== undefined,
        drop: (error) => {
          const session = this.#session;
          if (session !== undefined) endTcpSession(session, error);
        },
      },
    );
  }

  /** Logged in: command() sends. */
  get ready(): boolean {
    return this.#life.ready;
  }

  get label(): string {
    return this.#label;
  }

  get status(): TelnetStatus {
    const last = this.#life.lastError;
    return {
      state: this.#life.state,
      ready: this.#life.ready,
      authFailures: this.#life.authFailures,
      reconnectAttempt: this.#life.reconnectAttempt,
      reconnectDelayMs: this.#life.reconnectDelayMs,
      lastError: last === undefined ? undefined : { code: last.code, message: last.message },
      pendingCommands: this.#commands.pending,
    };
  }

  /** Connects and logs in, and keeps a session up until close(). Idempotent. */
  start(): void {
    this.#life.start();
  }

  /**
   * Resolves once logged in. Rejects with auth_failed / auth_timeout on a refused login, `closed`, not_connected after
   * `timeoutMs`, and with `failFast` on the first failed attempt of any kind. Does not start the client.
   */
  whenReady(options: { readonly timeoutMs?: number | undefined; readonly failFast?: boolean | undefined } = {}): Promise<void> {
    return this.#life.whenReady({ timeoutMs: options.timeoutMs ?? this.#loginWithinMs, failFast: options.failFast });
  }

  /**
   * Sends one command (after the ones before it have their answers) and resolves with its answer's lines joined by
   * `\n`. Fails at once with not_connected while not logged in, invalid_command for text holding CR, LF or NUL,
   * queue_full past `maxQueuedCommands`; later with timeout (the command may have run), disconnected (see `sent`),
   * reply_too_large, or closed.
   */
  command(text: string, options: TelnetCommandOptions = {}): Promise<string> {
    if (this.#life.closed) return Promise.reject(this.#life.closedError());
    if (FORBIDDEN_IN_COMMAND.test(text)) {
      return Promise.reject(new RconInvalidCommandError(`a telnet command for ${this.#label} holds CR, LF or NUL (it would end the console line early): not sent`));
    }
    if (!this.#life.ready) {
      return Promise.reject(
        new RconNotConnectedError(`not logged in to the telnet console of ${this.#label} (${this.#life.state}): the command was not sent`, this.#life.lastError),
      );
    }
    return this.#commands.add(text, options.endsAt, options.timeoutMs ?? this.#commandTimeoutMs);
  }

  /** Stops for good: pending commands fail with `closed`, no reconnect. Resolves when the socket has closed. Idempotent. */
  close(): Promise<void> {
    const done = this.#life.close();
    const error = this.#life.closedError();
    this.#commands.failAll(() => error);
    this.#commands.close();
    const session = this.#session;
    if (session !== undefined) {
      session.endReason ??= error;
      session.socket.destroy();
    }
    return done;
  }

  // ---- connection ----

  #connect(): void {
    const socket = new Socket();
    const session: Session = {
      socket,
      phase: 'connecting',
      lines: new TelnetLineFramer(this.#maxLineBytes, {
        line: (line) => {
          this.#onLine(session, line);
        },
        tooLong: () => {
          this.#lineTooLong(session);
        },
        live: () => this.#isLive(session),
        joinsLogEntries: () => session.phase === 'ready' || session.phase === 'banner',
        isPushed: this.#isPushed,
      }),
      firstAnswer: new TelnetFirstAnswer({ ...this.#options, protocol: 'telnet', label: this.#label, passwordKey: this.#passwordKey }),
      endReason: undefined,
      socketError: undefined,
      connectTimer: undefined,
      loginTimer: undefined,
      bannerTimer: undefined,
    };
    this.#session = session;
    connectTcpSocket(session, this.#tcpPlan, this.#tcpEvents);
  }

  #onConnect(session: Session): void {
    if (!this.#isLive(session)) return;
    clearTimeout(session.connectTimer);
    this.#login.begin(session);
  }

  #onData(session: Session, chunk: Buffer): void {
    if (!this.#isLive(session)) return;
    const foreign = session.phase === 'prompt' ? session.firstAnswer.observe(chunk) : undefined;
    if (foreign !== undefined) {
      endTcpSession(session, foreign);
      return;
    }
    session.lines.push(chunk);
    // A line may have ended the session (a refused login, a cap).
    if (!this.#isLive(session)) return;
    // The prompts may come without a line end.
    if (session.phase === 'prompt' || session.phase === 'password-sent') this.#login.unfinishedLine(session);
  }

  #lineTooLong(session: Session): void {
    endTcpSession(
      session,
      new RconBufferLimitError(
        `the telnet console of ${this.#label} sent a line longer than ${formatBytes(this.#maxLineBytes)} (maxLineBytes): dropping the connection; it is made again with the normal backoff`,
      ),
    );
  }

  #onLine(session: Session, line: string): void {
    if (session.phase === 'ready') this.#onSessionLine(line);
    else this.#login.line(session, line);
  }

  #onSessionLine(line: string): void {
    if (this.#isPushed(line)) {
      this.#commands.logLine(line);
      this.#pushed(line);
      return;
    }
    this.#commands.answerLine(line);
  }

  #pushed(line: string): void {
    const onLine = this.#options.onLine;
    if (onLine === undefined) return;
    this.#life.callback('onLine', () => {
      onLine(line);
    });
  }

  /** The session is the current one and nothing has begun to end it. */
  #isLive(session: Session): boolean {
    return session === this.#session && session.endReason === undefined;
  }

  #onClose(session: Session): void {
    if (session !== this.#session) return;
    this.#session = undefined;
    clearTimeout(session.connectTimer);
    clearTimeout(session.loginTimer);
    clearTimeout(session.bannerTimer);
    this.#commands.sessionEnded();
    const wasReady = session.phase === 'ready';
    const reason = session.endReason ?? (session.phase === 'prompt' ? session.firstAnswer.atEnd() : undefined) ?? this.#login.dropReason(session);
    if (!this.#life.closed) {
      this.#commands.failAll((sent) =>
        new RconDisconnectedError(
          `the telnet connection to ${this.#label} ended before the answer (${reason.message})${sent ? '; the command may have run' : '; the command was not sent'}`,
          sent,
          reason,
        ),
      );
    }
    this.#life.ended(reason, { wasReady });
  }
}
