// The login of one Source RCON client, for each connection it opens: the session's record (with the judge of its
// first bytes and its decoder), the AUTH packet once the TCP connection is up, the answer to it (an AUTH_RESPONSE
// with the login's id lets the session in; id -1 is a refusal), the bound on silence (ARK answers a wrong password
// with nothing), and what a session that ended with no stated reason ended of: no connection, a drop during the
// login, or a drop.
// It must never: put the password anywhere but the AUTH packet and the first-answer judge (which keeps it out of
// what it shows); take a connection closed during the login for a refusal (only id -1, or silence past
// authTimeoutMs, is one); or refuse or admit a session that is no longer the client's live one.
import { Socket } from 'node:net';
import type { Clock } from '../../src/time/clock.js';
import { clampTimerMs } from '../../src/time/timerLimit.js';
import { RconAuthFailedError, RconAuthTimeoutError, RconConnectError, RconDisconnectedError, type RconError } from './errors.js';
import { SourceRconDecoder, SourceRconPacketType, encodeSourceRconPacket, type SourceRconPacket } from './sourceRconCodec.js';
import type { SourceRconCommandTable } from './sourceRconCommands.js';
import type { SourceRconStrayLog } from './sourceRconStrays.js';
import { formatMs, type SessionLifecycle } from './sessionLifecycle.js';
import { describeSocketError, endTcpSession, type TcpSession } from './tcpSession.js';
import { SourceRconFirstAnswer } from './wrongProtocol.js';

/** One connection of a Source RCON client, from the attempt to its close. */
export interface SourceRconSession extends TcpSession {
  /** Judges the connection's first bytes before the decoder sees them: another protocol is named, not framed. */
  readonly firstAnswer: SourceRconFirstAnswer;
  readonly decoder: SourceRconDecoder;
  authId: number;
  loggedIn: boolean;
  tcpOpen: boolean;
  lastPacketAt: number;
  authTimer: NodeJS.Timeout | undefined;
}

export interface SourceRconLoginOptions {
  readonly host: string;
  readonly port: number;
  readonly password: string;
  readonly label: string;
  readonly passwordKey: string;
  readonly authTimeoutMs: number;
  readonly maxPacketSize: number;
  readonly clock: Clock;
  /** Told of a refused or unanswered login, and of a login that went through. */
  readonly life: SessionLifecycle;
  /** Hands out the login's id, so no command's id is ever the login's. */
  readonly commands: SourceRconCommandTable;
  readonly strays: SourceRconStrayLog;
}

/** What the login needs of its client; given once. */
export interface LoginClient {
  /** The session is the client's current one and nothing has begun to end it. */
  readonly isLive: (session: SourceRconSession) => boolean;
  /** The login went through (the lifecycle knows already): the client may send. */
  readonly loggedIn: () => void;
}

export class SourceRconLogin {
  readonly #options: SourceRconLoginOptions;
  readonly #client: LoginClient;

  constructor(options: SourceRconLoginOptions, client: LoginClient) {
    this.#options = options;
    this.#client = client;
  }

  /** A new session's record, its socket not yet connected. */
  open(): SourceRconSession {
    const { host, port, label, passwordKey, password, maxPacketSize } = this.#options;
    return {
      socket: new Socket(),
      firstAnswer: new SourceRconFirstAnswer({ protocol: 'source-rcon', label, host, port, passwordKey, password }, maxPacketSize),
      decoder: new SourceRconDecoder({ maxPacketSize }),
      authId: 0,
      loggedIn: false,
      tcpOpen: false,
      lastPacketAt: this.#options.clock.now(),
      endReason: undefined,
      socketError: undefined,
      connectTimer: undefined,
      authTimer: undefined,
    };
  }

  /** The TCP connection is up: sends the AUTH packet and starts the bound on its answer. */
  begin(session: SourceRconSession): void {
    const { label, passwordKey, authTimeoutMs } = this.#options;
    session.authId = this.#options.commands.newId(session.authId);
    session.authTimer = setTimeout(() => {
      const foreign = session.firstAnswer.atEnd();
      if (foreign !== undefined) {
        endTcpSession(session, foreign);
        return;
      }
      this.#refused(
        session,
        new RconAuthTimeoutError(
          `no answer to the RCON login within ${formatMs(authTimeoutMs)}: the password (${passwordKey} of adapter ${label}) is probably wrong (ARK says nothing to a wrong password), or the port is not an RCON port`,
        ),
      );
    }, clampTimerMs(authTimeoutMs));
    session.socket.write(encodeSourceRconPacket(session.authId, SourceRconPacketType.AUTH, this.#options.password));
  }

  /** One packet of a live session that is not logged in yet. */
  packet(session: SourceRconSession, packet: SourceRconPacket): void {
    if (packet.id === -1) {
      const { label, passwordKey } = this.#options;
      this.#refused(session, new RconAuthFailedError(`the RCON server refused the login of ${label} (wrong password): check ${passwordKey} of adapter ${label}`));
      return;
    }
    if (packet.type === SourceRconPacketType.AUTH_RESPONSE && packet.id === session.authId) {
      clearTimeout(session.authTimer);
      session.loggedIn = true;
      this.#options.life.loggedIn();
      this.#client.loggedIn();
      return;
    }
    // SRCDS sends an empty RESPONSE_VALUE before the AUTH_RESPONSE: not an answer yet.
    this.#options.strays.beforeLogin(packet);
  }

  /**
   * Why a session ended that no one ended on purpose: it never connected, it dropped during the login, or later.
   * A connection closed before the login was answered is a drop, not a refusal: a refusal is what the protocol says
   * (id -1), or ARK's silence past authTimeoutMs. A game restarting, a proxy in front of a server that is not up
   * yet, or a network cut look exactly like this, and must not cost minutes. Squad is said to close on a wrong
   * password too: the normal backoff still spaces those attempts up to reconnectMaxDelayMs, and the lifecycle's
   * warn line (the reason's message) says what to check.
   */
  dropReason(session: SourceRconSession): RconError {
    const { label, passwordKey, host, port } = this.#options;
    const cause = session.socketError;
    const detail = cause === undefined ? 'closed by the server' : describeSocketError(cause);
    if (session.tcpOpen && !session.loggedIn) {
      return new RconDisconnectedError(
        `the RCON connection to ${label} dropped during the login, before any answer (${detail}): trying again with the normal backoff; if this repeats while the game is up, check ${passwordKey} of adapter ${label} (Squad closes the connection on a wrong password)`,
        false,
        cause,
      );
    }
    return session.tcpOpen
      ? new RconDisconnectedError(`the RCON connection to ${label} dropped: ${detail}`, false, cause)
      : new RconConnectError(`cannot connect to the RCON port of ${label} (${host}:${port}): ${detail}`, cause);
  }

  #refused(session: SourceRconSession, error: RconAuthFailedError | RconAuthTimeoutError): void {
    if (!this.#client.isLive(session)) return;
    this.#options.life.authFailed(error);
    endTcpSession(session, error);
  }
}
