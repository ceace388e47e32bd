// The login dialogue of one telnet console client, for each connection it opens: the password prompt (which may come
// without a line end), the password written once, the answer (`Logon successful.`, or the prompt again after
// `Password incorrect`), a server with no password that starts with its banner, the banner up to its `Press 'help'`
// line or quietMs of quiet, the bound on the whole login (loginTimeoutMs), and what a session that ended with no
// stated reason ended of: no connection, a drop during the login, or a drop.
// It must never: log or hand on a line before the banner (a server that echoes input would echo the password); write
// the password twice on one connection (a wrong one is answered by closing, then the long auth backoff); put the
// password anywhere but the socket; or refuse or admit a session that is no longer the client's live one.
import { clampTimerMs } from '../../src/time/timerLimit.js';
import { RconAuthFailedError, RconAuthTimeoutError, RconConnectError, RconDisconnectedError, type RconError } from './errors.js';
import { formatMs, type SessionLifecycle } from './sessionLifecycle.js';
import { describeSocketError, endTcpSession, type TcpSession } from './tcpSession.js';
import type { TelnetLineFramer } from './telnetLines.js';
import type { TelnetFirstAnswer } from './wrongProtocol.js';

/** Where a connection stands: `prompt` and `password-sent` are the login, `banner` the text after it. */
export type TelnetPhase = 'connecting' | 'prompt' | 'password-sent' | 'banner' | 'ready';

/** One connection of a telnet client, from the attempt to its close. */
export interface TelnetSession extends TcpSession {
  phase: TelnetPhase;
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

export interface TelnetLoginOptions {
  readonly host: string;
  readonly port: number;
  readonly password: string;
  readonly label: string;
  readonly passwordKey: string;
  readonly loginTimeoutMs: number;
  /** How long the banner may be quiet before it is taken as ended. */
  readonly quietMs: number;
  /** Which lines are the server's own log lines (handed on even during the banner). */
  readonly isPushed: (line: string) => boolean;
  /** Told of the login's start, of a refused or unanswered login, and of a login that went through. */
  readonly life: SessionLifecycle;
}

/** What the login needs of its client; given once. */
export interface TelnetLoginClient {
  /** The session is the client's current one and nothing has begun to end it. */
  readonly isLive: (session: TelnetSession) => boolean;
  /** A log line came during the banner: hand it on as any pushed line. */
  readonly pushed: (line: string) => void;
  /** The login went through (the lifecycle knows already): the client may send. */
  readonly loggedIn: () => void;
}

export class TelnetLogin {
  readonly #options: TelnetLoginOptions;
  readonly #client: TelnetLoginClient;

  constructor(options: TelnetLoginOptions, client: TelnetLoginClient) {
    this.#options = options;
    this.#client = client;
  }

  /** The TCP connection is up: the prompt is awaited, within loginTimeoutMs for the whole login. */
  begin(session: TelnetSession): void {
    const { life, label, host, port, passwordKey, loginTimeoutMs } = this.#options;
    session.phase = 'prompt';
    life.authenticating();
    session.loginTimer = setTimeout(() => {
      const foreign = session.phase === 'prompt' ? session.firstAnswer.atEnd() : undefined;
      if (foreign !== undefined) {
        endTcpSession(session, foreign);
        return;
      }
      const error = new RconAuthTimeoutError(
        `no login from the telnet console of ${label} within ${formatMs(loginTimeoutMs)} (no password prompt, or no answer to the password): check that ${host}:${port} is the game's TelnetPort and ${passwordKey} of adapter ${label}`,
      );
      life.authFailed(error);
      endTcpSession(session, error);
    }, clampTimerMs(loginTimeoutMs));
  }

  /** After a read during the login: the prompts may come without a line end, so an unfinished line that is exactly one counts. */
  unfinishedLine(session: TelnetSession): void {
    const tail = session.lines.unfinishedLine();
    if (tail === PROMPT || tail === REFUSED) {
      session.lines.dropUnfinished();
      this.#onLoginLine(session, tail);
    }
  }

  /** A whole line of a session that is not logged in yet. */
  line(session: TelnetSession, line: string): void {
    switch (session.phase) {
      case 'connecting':
      case 'ready':
        return;
      case 'prompt':
      case 'password-sent':
        this.#onLoginLine(session, line.trim().toLowerCase(), line);
        return;
      case 'banner':
        if (this.#options.isPushed(line)) {
          this.#client.pushed(line);
          return;
        }
        if (BANNER_END.test(line)) this.#onLoggedIn(session);
        else this.#armBannerEnd(session);
        return;
    }
  }

  /** Why a session ended that no one ended on purpose: it never connected, it dropped during the login, or later. */
  dropReason(session: TelnetSession): RconError {
    const { label, host, port } = this.#options;
    const cause = session.socketError;
    const detail = cause === undefined ? 'closed by the server' : describeSocketError(cause);
    if (session.phase === 'connecting') {
      return new RconConnectError(`cannot connect to the telnet port of ${label} (${host}:${port}): ${detail}`, cause);
    }
    if (session.phase !== 'ready') {
      return new RconDisconnectedError(`the telnet connection to ${label} dropped during the login (${detail}): trying again with the normal backoff`, false, cause);
    }
    return new RconDisconnectedError(`the telnet connection to ${label} dropped: ${detail}`, false, cause);
  }

  /** Before the login, a line is only compared: never logged (a server that echoes input would echo the password). */
  #onLoginLine(session: TelnetSession, lower: string, raw?: string): void {
    if (lower === REFUSED || (lower === PROMPT && session.phase === 'password-sent')) {
      const { label, passwordKey } = this.#options;
      const error = new RconAuthFailedError(
        `authentication failed: the telnet console of ${label} refused the password: check ${passwordKey} of adapter ${label} against the server's TelnetPassword`,
      );
      this.#options.life.authFailed(error);
      endTcpSession(session, error);
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

  #startBanner(session: TelnetSession): void {
    clearTimeout(session.loginTimer);
    session.phase = 'banner';
    this.#armBannerEnd(session);
  }

  /** The banner ends at its `Press 'help' …` line, or once it has been quiet for quietMs (builds differ). */
  #armBannerEnd(session: TelnetSession): void {
    clearTimeout(session.bannerTimer);
    session.bannerTimer = setTimeout(() => {
      if (this.#client.isLive(session) && session.phase === 'banner') this.#onLoggedIn(session);
    }, this.#options.quietMs);
  }

  #onLoggedIn(session: TelnetSession): void {
    clearTimeout(session.bannerTimer);
    session.phase = 'ready';
    this.#options.life.loggedIn();
    this.#client.loggedIn();
  }
}
