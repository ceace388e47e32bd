// TelnetClient: one logged-in session to a 7 Days to Die telnet console (default port 8081), kept up for the client's
// life. It answers the password prompt once per connection, reads the stream as lines (CRLF or LF; bytes split or
// merged any way; UTF-8 decoded only once a line is whole; telnet negotiation bytes dropped), hands every pushed log
// line (`2021-09-15T20:42:00 1103.462 INF …`) to `onLine`, and runs commands one at a time: a command's answer is the
// non-log lines that follow it, up to a terminator the caller gives (`lp`: /^Total of \d+ in the game/) or, without
// one, until the console has been quiet for `quietMs`. Log lines keep going to `onLine` while a command waits.
// The reconnect policy (backoff, the long wait after a wrong password, fail-fast for one-shot use) is
// sessionLifecycle.ts's.
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
import { clampTimerMs } from '../../src/time/timerLimit.js';
import {
  RconAuthFailedError,
  RconAuthTimeoutError,
  RconBufferLimitError,
  RconConnectError,
  RconDisconnectedError,
  RconInvalidCommandError,
  RconNotConnectedError,
  type RconError,
} from './errors.js';
import { isSevenDaysLogLine } from './profiles/sevenDaysLines.js';
import { SessionLifecycle, formatBytes, formatMs, reconnectTuning } from './sessionLifecycle.js';
import type { RconLogger } from './sourceRconOptions.js';
import type { TelnetClientOptions, TelnetCommandOptions, TelnetStatus } from './telnetOptions.js';

export type { TelnetClientOptions, TelnetCommandOptions, TelnetStatus } from './telnetOptions.js';
import { connectTcpSocket, describeSocketError, endTcpSession, type TcpConnectPlan, type TcpSession, type TcpSessionEvents } from './tcpSession.js';
import { TelnetCommandQueue } from './telnetCommands.js';
import { TelnetLineFramer } from './telnetLines.js';
import { TelnetFirstAnswer } from './wrongProtocol.js';

type Phase = 'connecting' | 'prompt' | 'password-sent' | 'banner' | 'ready';

interface Session extends TcpSession {
  phase: Phase;
  readonly lines: TelnetLineFramer;
  /** Watches what comes before the password prompt: binary or HTTP there is another protocol, not a 7DTD console. */
  readonly firstAnswer: TelnetFirstAnswer;
  loginTimer: NodeJS.Timeout | undefined;
  bannerTimer: NodeJS.Timeout | undefined;
}

const PROMPT = 'please enter password:';
const REFUSED = 'password incorrect, please enter password:';
const ACCEPTED = 'logon successful.';
/** Servers with no telnet password skip the prompt and start with the banner. */
const NO_PASSWORD_BANNER = /^\*\*\* Connected with 7DTD server/;
const BANNER_END = /^Press 'help' to get a list of all commands/;
const FORBIDDEN_IN_COMMAND = /[\r\n\0]/;
export const DEFAULT_TELNET_QUIET_MS = 200;

export class TelnetClient {
  readonly #options: TelnetClientOptions;
  readonly #label: string;
  readonly #passwordKey: string;
  readonly #commandTimeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #loginTimeoutMs: number;
  readonly #quietMs: number;
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
  readonly #commands: TelnetCommandQueue;
  #session: Session | undefined;

  constructor(options: TelnetClientOptions) {
    this.#options = options;
    this.#label = options.label ?? `${options.host}:${options.port}`;
    this.#passwordKey = options.passwordKey ?? '"password"';
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
    this.#loginTimeoutMs = options.loginTimeoutMs ?? 10_000;
    this.#quietMs = Math.max(1, options.quietMs ?? DEFAULT_TELNET_QUIET_MS);
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
    this.#commands = new TelnetCommandQueue(
      {
        label: this.#label,
        quietMs: this.#quietMs,
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
    return this.#life.whenReady({ timeoutMs: options.timeoutMs ?? this.#connectTimeoutMs + this.#loginTimeoutMs, failFast: options.failFast });
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
    session.phase = 'prompt';
    this.#life.authenticating();
    session.loginTimer = setTimeout(() => {
      const foreign = session.phase === 'prompt' ? session.firstAnswer.atEnd() : undefined;
      if (foreign !== undefined) {
        this.#end(session, foreign);
        return;
      }
      const error = new RconAuthTimeoutError(
        `no login from the telnet console of ${this.#label} within ${formatMs(this.#loginTimeoutMs)} (no password prompt, or no answer to the password): check that ${this.#options.host}:${this.#options.port} is the game's TelnetPort and ${this.#passwordKey} of adapter ${this.#label}`,
      );
      this.#life.authFailed(error);
      this.#end(session, error);
    }, clampTimerMs(this.#loginTimeoutMs));
  }

  #onData(session: Session, chunk: Buffer): void {
    if (!this.#isLive(session)) return;
    const foreign = session.phase === 'prompt' ? session.firstAnswer.observe(chunk) : undefined;
    if (foreign !== undefined) {
      this.#end(session, foreign);
      return;
    }
    session.lines.push(chunk);
    // A line may have ended the session (a refused login, a cap).
    if (!this.#isLive(session)) return;
    // The prompts may come without a line end: read an unfinished line that is exactly one.
    if (session.phase === 'prompt' || session.phase === 'password-sent') {
      const tail = session.lines.unfinishedLine();
      if (tail === PROMPT || tail === REFUSED) {
        session.lines.dropUnfinished();
        this.#onLoginLine(session, tail);
      }
    }
  }

  #lineTooLong(session: Session): void {
    this.#end(
      session,
      new RconBufferLimitError(
        `the telnet console of ${this.#label} sent a line longer than ${formatBytes(this.#maxLineBytes)} (maxLineBytes): dropping the connection; it is made again with the normal backoff`,
      ),
    );
  }

  #onLine(session: Session, line: string): void {
    switch (session.phase) {
      case 'connecting':
        return;
      case 'prompt':
      case 'password-sent':
        this.#onLoginLine(session, line.trim().toLowerCase(), line);
        return;
      case 'banner':
        if (this.#isPushed(line)) {
          this.#pushed(line);
          return;
        }
        if (BANNER_END.test(line)) this.#onLoggedIn(session);
        else this.#armBannerEnd(session);
        return;
      case 'ready':
        this.#onSessionLine(line);
        return;
    }
  }

  /** Before the login, a line is only compared: never logged (a server that echoes input would echo the password). */
  #onLoginLine(session: Session, lower: string, raw?: string): void {
    if (lower === REFUSED || (lower === PROMPT && session.phase === 'password-sent')) {
      const error = new RconAuthFailedError(
        `authentication failed: the telnet console of ${this.#label} refused the password: check ${this.#passwordKey} of adapter ${this.#label} against the server's TelnetPassword`,
      );
      this.#life.authFailed(error);
      this.#end(session, error);
      return;
    }
    if (lower === PROMPT) {
      session.phase = 'password-sent';
      session.socket.write(`${this.#options.password}\r\n`);
      return;
    }
    if (lower === ACCEPTED) {
      this.#startBanner(session);
      return;
    }
    if (session.phase === 'prompt' && raw !== undefined && NO_PASSWORD_BANNER.test(raw)) {
      this.#startBanner(session);
    }
  }

  #startBanner(session: Session): void {
    clearTimeout(session.loginTimer);
    session.phase = 'banner';
    this.#armBannerEnd(session);
  }

  /** The banner ends at its `Press 'help' …` line, or once it has been quiet for quietMs (builds differ). */
  #armBannerEnd(session: Session): void {
    clearTimeout(session.bannerTimer);
    session.bannerTimer = setTimeout(() => {
      if (this.#isLive(session) && session.phase === 'banner') this.#onLoggedIn(session);
    }, this.#quietMs);
  }

  #onLoggedIn(session: Session): void {
    clearTimeout(session.bannerTimer);
    session.phase = 'ready';
    this.#life.loggedIn();
    this.#commands.pump();
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

  /** Ends the session: marks why, destroys the socket; the rest happens once, on 'close'. */
  #end(session: Session, reason: RconError): void {
    endTcpSession(session, reason);
  }

  #onClose(session: Session): void {
    if (session !== this.#session) return;
    this.#session = undefined;
    clearTimeout(session.connectTimer);
    clearTimeout(session.loginTimer);
    clearTimeout(session.bannerTimer);
    this.#commands.sessionEnded();
    const wasReady = session.phase === 'ready';
    const reason = session.endReason ?? (session.phase === 'prompt' ? session.firstAnswer.atEnd() : undefined) ?? this.#dropReason(session);
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

  #dropReason(session: Session): RconError {
    const cause = session.socketError;
    const detail = cause === undefined ? 'closed by the server' : describeSocketError(cause);
    if (session.phase === 'connecting') {
      return new RconConnectError(`cannot connect to the telnet port of ${this.#label} (${this.#options.host}:${this.#options.port}): ${detail}`, cause);
    }
    if (session.phase !== 'ready') {
      return new RconDisconnectedError(`the telnet connection to ${this.#label} dropped during the login (${detail}): trying again with the normal backoff`, false, cause);
    }
    return new RconDisconnectedError(`the telnet connection to ${this.#label} dropped: ${detail}`, false, cause);
  }
}
