// SourceRconClient: one logged-in Source RCON session to one game server, kept alive for the client's life.
// It frames the stream (sourceRconCodec.ts), correlates replies to commands by id so several can be in flight,
// joins multi-packet replies by the game's end rule (mirror trick, quiet time, or first packet), routes pushed
// packets (Squad chat) to the profile, and reconnects with capped, jittered backoff, slowly after a refused login.
// What one connection may hold is capped (one answer: maxReplyBytes; everything: maxBufferedBytes), so a server that
// never ends an answer costs a bounded amount of memory and a reconnect. Malformed or stray packets are logged once,
// then summed up once a minute (RepeatSummary), so a flood of them costs a bounded number of log lines.
// Its parts: the login (sourceRconLogin.ts), the command table (sourceRconCommands.ts), the reply assembly by end
// rule (sourceRconReplies.ts), the stray-packet log (sourceRconStrays.ts), the send-rate cap (sendRateCap.ts) and the
// keepalive (sourceRconKeepalive.ts). This file joins them: the socket, the framing and its cap, the gate on sending,
// and how a session ends.
//
// It must never:
// - put the password in a log line, an error or an event (it goes into the AUTH packet and nowhere else);
// - hold two sockets at once (Squad drops the older session of the same address, so two would kick each other);
// - let a socket emit an unhandled `error`, or leave a promise rejection unhandled;
// - hand a reply to a caller whose id it does not carry, or a pushed packet to a pending command;
// - reconnect after close(), or log in again sooner than the auth back-off after a refused or unanswered login;
// - take a connection closed during the login for a refusal: only id -1 (or silence past authTimeoutMs) is one;
// - hold more than maxBufferedBytes for one connection, or write one log line per stray packet.
//
// Usage (the profile adapter):
//   const client = new SourceRconClient({ host, port, password, label: adapterId, replyEnd: { kind: 'mirror' },
//     maxInFlight: 4, rateCap: { commands: 10, perMs: 1_000 }, keepaliveIntervalMs: 30_000, keepaliveCommand: 'ShowNextMap',
//     logger, onReady: () => …, onDisconnected: (e) => …, onUnsolicited: (p) => { if (p.type === 1) chat(p.text) } });
//   client.start();
//   const text = await client.command('ListPlayers');   // rejects with an RconError; switch on error.code
//   await client.close();
//
// One-shot use (the `rcon` CLI command, `config check --connect`): no reconnects, fail on the first problem.
//   const client = new SourceRconClient({ host, port, password, label, reconnect: false, replyEnd, logger });
//   client.start();
//   try { await client.whenReady({ failFast: true }); console.log(await client.command(text)); }
//   finally { await client.close(); }
import { silentLogger } from '../../src/log/logger.js';
import { systemClock, type Clock } from '../../src/time/clock.js';
import { steadyClock } from '../../src/time/steadyClock.js';
import { RconBufferLimitError, RconConnectError, RconDisconnectedError, RconError, RconNotConnectedError, RconReplyTooLargeError } from './errors.js';
import { SendRateCap } from './sendRateCap.js';
import { DEFAULT_MAX_PACKET_SIZE, SourceRconPacketType, encodeSourceRconPacket, type SourceRconPacket } from './sourceRconCodec.js';
import { SourceRconCommandTable, type PendingCommand } from './sourceRconCommands.js';
import { SourceRconKeepalive } from './sourceRconKeepalive.js';
import { SourceRconLogin, type SourceRconSession as Session } from './sourceRconLogin.js';
import type { CommandOptions, RconLogger, SourceRconClientOptions, SourceRconStatus, UnsolicitedPacket, WhenReadyOptions } from './sourceRconOptions.js';
import { SourceRconReplyAssembly } from './sourceRconReplies.js';
import { SourceRconStrayLog } from './sourceRconStrays.js';
import { connectTcpSocket, endTcpSession, type TcpConnectPlan, type TcpSessionEvents } from './tcpSession.js';
import { SessionLifecycle, formatBytes, reconnectTuning } from './sessionLifecycle.js';

// What callers import with the client: its options, events and status are sourceRconOptions.ts's.
export type { CommandOptions, RconLogger, ReconnectScheduled, ReplyEndRule, SourceRconClientOptions, SourceRconState, SourceRconStatus, UnsolicitedPacket, WhenReadyOptions } from './sourceRconOptions.js';

export const DEFAULT_MAX_REPLY_BYTES = 1024 * 1024;
export const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;

export class SourceRconClient {
  readonly #label: string;
  readonly #maxInFlight: number;
  readonly #commandTimeoutMs: number;
  /** connectTimeoutMs + authTimeoutMs: how long whenReady() waits by default. */
  readonly #loginWithinMs: number;
  readonly #maxBufferedBytes: number;
  readonly #clock: Clock;
  readonly #options: SourceRconClientOptions;
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
  /** The reconnect policy, the login waiters and the state: shared with the other transports. */
  readonly #life: SessionLifecycle;
  readonly #login: SourceRconLogin;
  readonly #commands: SourceRconCommandTable;
  readonly #replies: SourceRconReplyAssembly;
  readonly #rateCap: SendRateCap;
  readonly #keepalive: SourceRconKeepalive<Session>;
  readonly #strays: SourceRconStrayLog;
  #session: Session | undefined;

  constructor(options: SourceRconClientOptions) {
    this.#options = options;
    const { host, port } = options;
    const label = options.label ?? `${host}:${port}`;
    this.#label = label;
    this.#maxInFlight = Math.max(1, Math.floor(options.maxInFlight ?? 1));
    this.#commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
    const connectTimeoutMs = options.connectTimeoutMs ?? 5_000;
    const authTimeoutMs = options.authTimeoutMs ?? 5_000;
    this.#loginWithinMs = connectTimeoutMs + authTimeoutMs;
    this.#maxBufferedBytes = Math.max(1, options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES);
    const maxReplyBytes = Math.min(this.#maxBufferedBytes, Math.max(1, options.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES));
    const clock = options.clock ?? steadyClock(systemClock);
    this.#clock = clock;
    const logger: RconLogger = options.logger ?? silentLogger();
    this.#tcpPlan = { host, port, what: 'RCON', portName: 'RCON port', label, connectTimeoutMs, logger };
    this.#life = new SessionLifecycle({
      label,
      what: 'RCON',
      connect: () => {
        this.#connect();
      },
      ...reconnectTuning(options),
      clock,
      logger,
      onReady: options.onReady,
      onDisconnected: options.onDisconnected,
      onAuthFailed: options.onAuthFailed,
      onReconnectScheduled: options.onReconnectScheduled,
    });
    this.#strays = new SourceRconStrayLog(label, logger, options.repeatSummaryIntervalMs, clock);
    // One function, made once: how the table and the rate cap ask for the next send.
    const turnFree = (): void => {
      this.#pump();
    };
    this.#commands = new SourceRconCommandTable(label, options.maxQueuedCommands ?? 100, options.firstRequestId, turnFree);
    this.#replies = new SourceRconReplyAssembly(label, this.#commands, options.replyEnd ?? { kind: 'quiet', quietMs: 75 }, maxReplyBytes);
    this.#rateCap = new SendRateCap(Math.max(0, Math.floor(options.rateCap?.commands ?? 0)), Math.max(1, options.rateCap?.perMs ?? 1_000), clock, turnFree);
    this.#keepalive = new SourceRconKeepalive<Session>(
      { intervalMs: options.keepaliveIntervalMs ?? 0, command: options.keepaliveCommand ?? 'echo keepalive', commandTimeoutMs: this.#commandTimeoutMs, label, clock },
      { session: () => this.#session, ready: () => this.#life.ready, command: (text) => this.command(text), end: endTcpSession },
    );
    const passwordKey = options.passwordKey ?? 'servers[].adapters[].password';
    const maxPacketSize = options.maxPacketSize ?? DEFAULT_MAX_PACKET_SIZE;
    this.#login = new SourceRconLogin(
      { host, port, password: options.password, label, passwordKey, authTimeoutMs, maxPacketSize, clock, life: this.#life, commands: this.#commands, strays: this.#strays },
      {
        isLive: (session) => this.#isLive(session),
        loggedIn: () => {
          this.#keepalive.schedule();
          this.#pump();
        },
      },
    );
  }

  /** Where the connection stands; cheap, for readiness and metrics. */
  get status(): SourceRconStatus {
    const last = this.#life.lastError;
    return {
      state: this.#life.state,
      connected: this.#session?.tcpOpen ?? false,
      ready: this.#life.ready,
      authFailures: this.#life.authFailures,
      reconnectAttempt: this.#life.reconnectAttempt,
      reconnectDelayMs: this.#life.reconnectDelayMs,
      lastError: last === undefined ? undefined : { code: last.code, message: last.message },
      bufferedBytes: this.#commands.replyBytes + (this.#session?.decoder.bufferedBytes ?? 0),
    };
  }

  get connected(): boolean {
    return this.#session?.tcpOpen ?? false;
  }

  /** Logged in: command() sends. */
  get ready(): boolean {
    return this.#life.ready;
  }

  get label(): string {
    return this.#label;
  }

  /** Connects and logs in, and from then on keeps a session up until close(). Idempotent. */
  start(): void {
    this.#life.start();
  }

  /**
   * Resolves once logged in (at once when already). Rejects with the refused or unanswered login
   * (auth_failed / auth_timeout), with `closed`, with not_connected after `timeoutMs`, and with `failFast` on the
   * first failed connection. Does not start the client.
   */
  whenReady(options: WhenReadyOptions = {}): Promise<void> {
    return this.#life.whenReady({ timeoutMs: options.timeoutMs ?? this.#loginWithinMs, failFast: options.failFast });
  }

  /**
   * Sends one command and resolves with its whole reply, decoded as UTF-8 after its packets are joined.
   * While not logged in it fails at once with not_connected (nothing is sent, nothing waits for a reconnect:
   * a poller simply tries again on its next tick). Other failures: timeout (the command may have run),
   * disconnected (see `sent`), queue_full, closed.
   */
  command(text: string, options: CommandOptions = {}): Promise<string> {
    if (this.#life.closed) return Promise.reject(this.#life.closedError());
    if (!this.#life.ready) {
      return Promise.reject(
        new RconNotConnectedError(`not logged in to the RCON server of ${this.#label} (${this.#life.state}): the command was not sent`, this.#life.lastError),
      );
    }
    return this.#commands.add(text, options.timeoutMs ?? this.#commandTimeoutMs);
  }

  /**
   * Stops for good: no more commands, no reconnect. Pending and queued commands fail with `closed`. Resolves when
   * the socket has closed. Idempotent.
   */
  close(): Promise<void> {
    const done = this.#life.close();
    this.#keepalive.stop();
    this.#rateCap.stop();
    const error = this.#life.closedError();
    this.#commands.failAll(() => error);
    this.#strays.close();
    const session = this.#session;
    if (session !== undefined) {
      session.endReason ??= error;
      session.socket.destroy();
    }
    return done;
  }

  // ---- connection lifetime ----

  #connect(): void {
    if (this.#session !== undefined || this.#life.closed) return;
    const session = this.#login.open();
    this.#session = session;
    connectTcpSocket(session, this.#tcpPlan, this.#tcpEvents);
  }

  #onConnect(session: Session): void {
    if (!this.#isLive(session)) return;
    clearTimeout(session.connectTimer);
    session.tcpOpen = true;
    session.lastPacketAt = this.#clock.now();
    this.#life.authenticating();
    this.#life.callback('onConnected', () => this.#options.onConnected?.());
    this.#login.begin(session);
  }

  #onData(session: Session, read: Buffer): void {
    if (!this.#isLive(session)) return;
    const chunk = session.firstAnswer.push(read);
    if (chunk === undefined) return;
    if (chunk instanceof RconError) {
      endTcpSession(session, chunk);
      return;
    }
    // Checked before the read is kept: what the connection holds never passes the cap, even by one read.
    if (this.#commands.replyBytes + session.decoder.bufferedBytes + chunk.length > this.#maxBufferedBytes) {
      endTcpSession(
        session,
        new RconBufferLimitError(
          `the RCON server of ${this.#label} sent more than ${formatBytes(this.#maxBufferedBytes)} (maxBufferedBytes) that no answer completed: dropping the connection; it is made again with the normal backoff`,
        ),
      );
      return;
    }
    let packets: SourceRconPacket[];
    try {
      packets = session.decoder.push(chunk);
    } catch (error) {
      endTcpSession(session, error instanceof RconError ? error : new RconConnectError(String(error)));
      return;
    }
    for (const packet of packets) {
      // A packet may end the session (a refused login, a cap): the rest of the read belongs to no one.
      if (!this.#isLive(session)) return;
      session.lastPacketAt = this.#clock.now();
      if (session.loggedIn) this.#onSessionPacket(session, packet);
      else this.#login.packet(session, packet);
    }
  }

  /** The session is the current one and nothing has begun to end it. */
  #isLive(session: Session): boolean {
    return session === this.#session && session.endReason === undefined;
  }

  #onClose(session: Session): void {
    if (session !== this.#session) return;
    this.#session = undefined;
    clearTimeout(session.connectTimer);
    clearTimeout(session.authTimer);
    this.#keepalive.stop();
    this.#rateCap.stop();
    this.#commands.sessionEnded();
    const closing = this.#life.closed;
    // A connection closed during the login is a drop, not a refusal (sourceRconLogin.ts says why).
    const reason = session.endReason ?? session.firstAnswer.atEnd() ?? this.#login.dropReason(session);
    if (!closing) {
      this.#replies.sessionClosed();
      this.#commands.failAll((sent) =>
        new RconDisconnectedError(
          `the RCON connection to ${this.#label} ended before the answer (${reason.message})${sent ? '; the command may have run' : '; the command was not sent'}`,
          sent,
          reason,
        ),
      );
    }
    this.#life.ended(reason, { wasReady: session.loggedIn, wasOpen: session.tcpOpen });
  }

  // ---- commands ----

  /** Sends queued commands while logged in, under the pipelining depth and the rate cap. */
  #pump(): void {
    const session = this.#session;
    const commands = this.#commands;
    while (this.#life.ready && session !== undefined && commands.queued > 0 && commands.inFlightCount < this.#maxInFlight) {
      if (!this.#rateCap.take()) return;
      const pending = commands.nextQueued();
      if (pending === undefined) return;
      this.#send(session, pending);
    }
  }

  #send(session: Session, pending: PendingCommand): void {
    const id = this.#commands.newId(session.authId);
    this.#commands.sent(pending, id);
    // One packet, one write: Minecraft-derived servers fail on a packet split over writes.
    session.socket.write(encodeSourceRconPacket(id, SourceRconPacketType.EXECCOMMAND, pending.text));
    if (this.#replies.mirrors) {
      const mirrorId = this.#commands.newId(session.authId);
      this.#commands.mirrorSent(pending, mirrorId);
      session.socket.write(encodeSourceRconPacket(mirrorId, SourceRconPacketType.RESPONSE_VALUE, ''));
    }
  }

  #onSessionPacket(session: Session, packet: SourceRconPacket): void {
    if (packet.type !== SourceRconPacketType.RESPONSE_VALUE) {
      this.#unsolicited(packet, 'pushed');
      return;
    }
    const route = this.#replies.take(packet);
    if (route === 'taken') return;
    if (route instanceof RconReplyTooLargeError) {
      // The command has failed with it; the session ends, and is made again with the normal backoff.
      endTcpSession(session, route);
      return;
    }
    if (route === 'late') this.#strays.lateReply(packet);
    else this.#strays.unknownId(packet);
    this.#unsolicited(packet, route);
  }

  #unsolicited(packet: SourceRconPacket, reason: UnsolicitedPacket['reason']): void {
    const handler = this.#options.onUnsolicited;
    if (handler === undefined) return;
    const event: UnsolicitedPacket = { ...packet, text: packet.body.toString('utf8'), reason };
    this.#life.callback('onUnsolicited', () => {
      handler(event);
    });
  }
}
