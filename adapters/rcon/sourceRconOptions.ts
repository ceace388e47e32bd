// The options, events and status of SourceRconClient: what a profile or a caller may set, with each default, and
// what the client reports. Declarations only, so the client file holds behaviour and this one can be read alone.
// It must never: hold behaviour, or a default that the client does not apply (each @default is the client's).
import type { Logger } from 'pino';
import type { Clock } from '../../src/time/clock.js';
import type { RconAuthFailedError, RconAuthTimeoutError, RconError } from './errors.js';
import type { SourceRconPacket } from './sourceRconCodec.js';
import type { ReconnectPlan, ReconnectTuning, SessionState } from './sessionLifecycle.js';

/** The part of pino's Logger the client uses; pino's Logger satisfies it. */
export type RconLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

/**
 * How the client knows a (possibly multi-packet) reply is complete. Chosen per game by its profile.
 * - `mirror`: after each command, an empty RESPONSE_VALUE with its own id is sent; SRCDS and Squad mirror it back
 *   (then send a packet with body 00 01 00 00, which is swallowed). The reply is every packet before the mirror.
 *   Exact and fast; only for games that mirror (ARK does not: it hangs on an empty packet).
 * - `quiet`: the reply ends `quietMs` after its last packet. Because replies come back in order, a packet for a
 *   later command also ends every earlier one at once. `endsBelowBodyBytes`, when set, ends a reply at once on a
 *   packet whose body is shorter than that (a game that splits only at a fixed size cannot continue after a short
 *   packet), which saves the quiet time on the common short answer.
 * - `single`: the first packet is the whole reply (games that never split).
 */
export type ReplyEndRule =
  | { readonly kind: 'mirror' }
  | {
      readonly kind: 'quiet';
      readonly quietMs?: number | undefined;
      readonly endsBelowBodyBytes?: number | undefined;
      /** The server closes the connection after each answer (Conan Exiles): a close after part of a reply ends it. */
      readonly endsAtClose?: boolean | undefined;
    }
  | { readonly kind: 'single' };

/** A packet no pending command owns: pushed by the server (Squad chat, type 1), or a reply for an unknown id. */
export interface UnsolicitedPacket extends SourceRconPacket {
  /** The body decoded as UTF-8 (one packet: a pushed line is never split). */
  readonly text: string;
  /**
   * `pushed`: a type other than RESPONSE_VALUE (what Squad pushes chat as).
   * `late`: a reply for a command that timed out earlier (already logged at debug).
   * `unknown_id`: a RESPONSE_VALUE whose id no command of this session carries (logged at warn).
   */
  readonly reason: 'pushed' | 'late' | 'unknown_id';
}

export type SourceRconState = SessionState;

export interface SourceRconStatus {
  readonly state: SourceRconState;
  /** A TCP connection is open (logged in or not). */
  readonly connected: boolean;
  /** Logged in: commands are accepted. */
  readonly ready: boolean;
  /** Refused or unanswered logins in a row (reset by a successful login). */
  readonly authFailures: number;
  /** Failed connections in a row since the last stable session. */
  readonly reconnectAttempt: number;
  /** When `state` is `waiting`: the reconnect timer's delay in ms. */
  readonly reconnectDelayMs: number | undefined;
  /** Why the last session ended or the last attempt failed; undefined after a clean start. */
  readonly lastError: { readonly code: string; readonly message: string } | undefined;
  /** Bytes held for the connection now: an unfinished packet plus the answers still being joined. */
  readonly bufferedBytes: number;
}

/** A reconnect timer was set (sessionLifecycle.ts). */
export type ReconnectScheduled = ReconnectPlan;

/** The reconnect keys (reconnect, delays, auth backoff, stableSessionMs, random) are sessionLifecycle.ts's ReconnectTuning. */
export interface SourceRconClientOptions extends ReconnectTuning {
  readonly host: string;
  readonly port: number;
  /** The RCON password. Sent in the AUTH packet only; never logged, never in an error. */
  readonly password: string;
  /** Names the connection in logs and errors, e.g. the adapter id `ark-main`. @default `<host>:<port>` */
  readonly label?: string | undefined;
  /** The config key a host must fix when the password is wrong. @default `servers[].adapters[].password` */
  readonly passwordKey?: string | undefined;
  /** @default { kind: 'quiet', quietMs: 75 } */
  readonly replyEnd?: ReplyEndRule | undefined;
  /** Commands sent before their replies came (pipelining depth), at least 1. @default 1 */
  readonly maxInFlight?: number | undefined;
  /** A command's answer, from the call (time spent queued counts). @default 5000 */
  readonly commandTimeoutMs?: number | undefined;
  /** The TCP connection, from the attempt. @default 5000 */
  readonly connectTimeoutMs?: number | undefined;
  /** The answer to the login. ARK says nothing to a wrong password: this bound turns that into an error. @default 5000 */
  readonly authTimeoutMs?: number | undefined;
  /** Send `keepaliveCommand` when nothing came from the server for this long; 0 turns it off. A keepalive
   * that gets no answer within `commandTimeoutMs` closes the session, which then reconnects. @default 0 */
  readonly keepaliveIntervalMs?: number | undefined;
  /** A cheap command the game answers. @default 'echo keepalive' — profiles should set their own. */
  readonly keepaliveCommand?: string | undefined;
  /**
   * At most `commands` commands sent in any `perMs` window (sliding); excess commands wait in the queue. Conan
   * locks RCON out after ~10–20 requests in 30 s, so e.g. `{ commands: 8, perMs: 30_000 }` there. The keepalive
   * counts; mirror packets do not. @default no cap
   */
  readonly rateCap?: { readonly commands: number; readonly perMs: number } | undefined;
  /** Commands waiting for their turn (the cap or the pipelining depth) at most; more fail with queue_full. @default 100 */
  readonly maxQueuedCommands?: number | undefined;
  /** The cap on a packet's size field; a bigger one drops the connection. @default 1048576 */
  readonly maxPacketSize?: number | undefined;
  /**
   * The most bytes one command's answer (its packets joined) may reach. A server that goes past it (an answer that
   * never ends) fails the command with reply_too_large and the connection is dropped and made again with the
   * normal backoff. The biggest real answers (ListPlayers of a full server) are tens of KB. @default 1048576 (1 MiB)
   */
  readonly maxReplyBytes?: number | undefined;
  /**
   * The most bytes held for one connection: an unfinished packet plus every answer still being joined. Past it the
   * connection is dropped (buffer_limit) and made again with the normal backoff. @default 4194304 (4 MiB)
   */
  readonly maxBufferedBytes?: number | undefined;
  /** Stray packets (unknown ids, late replies) are logged once, then counted in one line per this. @default 60000 */
  readonly repeatSummaryIntervalMs?: number | undefined;
  /** The first request id (then +1 per packet, wrapping from 2^31-1 to 1). Tests start near the top to see the wrap. @default 1 */
  readonly firstRequestId?: number | undefined;
  /** Time for the rate window and the keepalive. @default a steady systemClock */
  readonly clock?: Clock | undefined;
  /** @default a silent logger */
  readonly logger?: RconLogger | undefined;
  /** A TCP connection opened (before the login). */
  readonly onConnected?: (() => void) | undefined;
  /** Logged in: commands are accepted from now on. */
  readonly onReady?: (() => void) | undefined;
  /** A connection that had opened has ended; `reason` says why. Not called after close(). */
  readonly onDisconnected?: ((reason: RconError) => void) | undefined;
  /**
   * The login was refused (id -1) or not answered in time; the next attempt waits `authFailureDelayMs` or more.
   * Not called for a connection closed during the login: that is a drop, retried with the normal backoff.
   */
  readonly onAuthFailed?: ((error: RconAuthFailedError | RconAuthTimeoutError) => void) | undefined;
  /** A reconnect timer was set. */
  readonly onReconnectScheduled?: ((event: ReconnectScheduled) => void) | undefined;
  /** Packets no pending command owns (Squad's pushed chat among them). */
  readonly onUnsolicited?: ((packet: UnsolicitedPacket) => void) | undefined;
}

export interface CommandOptions {
  /** Overrides `commandTimeoutMs` for this command. */
  readonly timeoutMs?: number | undefined;
}

export interface WhenReadyOptions {
  /** Give up after this long with not_connected (carrying the last failure as its cause). @default connectTimeoutMs + authTimeoutMs */
  readonly timeoutMs?: number | undefined;
  /** Reject on the first failed attempt of any kind (refused, unreachable), not only on a refused login. @default false */
  readonly failFast?: boolean | undefined;
}
