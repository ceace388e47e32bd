// The options, events and status of WebRconClient, with each default, and the chat line it hands on. Declarations
// only, so the client file holds behaviour and this one can be read alone.
// It must never: hold behaviour, or a default that the client does not apply (each @default is the client's).
import type { RconAuthFailedError } from '../errors.js';
import type { SessionLogger } from '../sessionLifecycle.js';
import type { RustPlayerChat, RustServerChat } from '../profiles/rustLines.js';
import type { WebRconInbound } from './wire.js';

/** A chat line as Rust pushes it: a player's (gate it) or the server's own (never gated). */
export type RustChatMessage = RustPlayerChat | RustServerChat;

/** The logger the client writes to: the lifecycle's, which pino's Logger satisfies. Failures' bindings carry `code`. */
export type WebRconLogger = SessionLogger;

export interface WebRconDisconnect {
  /** Why the session ended, already scrubbed: "closed by the server (code 1006)", "no answer to the keepalive …". */
  readonly reason: string;
  /** When the next attempt starts. */
  readonly reconnectInMs: number;
}

export interface WebRconClientOptions {
  readonly host: string;
  readonly port: number;
  /** The server's `rcon.password`. A secret: it never appears in a log line or an error. */
  readonly password: string;
  /** The adapter's id, named in every log line and error message ("… of adapter rust-main"). */
  readonly label: string;
  /** The config key messages name when the password is wrong, as written into them. @default '"password"' */
  readonly passwordKey?: string | undefined;
  readonly logger: WebRconLogger;
  /** How long one command waits for its answer. @default 5000 */
  readonly commandTimeoutMs?: number | undefined;
  /**
   * How often the keepalive command runs; one without an answer within `commandTimeoutMs` means a dead
   * connection (closed, then reconnected). 0 turns the keepalive off. @default 30000
   */
  readonly keepaliveMs?: number | undefined;
  /** A cheap command that always answers. @default 'serverinfo' */
  readonly keepaliveCommand?: string | undefined;
  /** The WebSocket opening handshake's limit (TCP connect and upgrade). @default 10000 */
  readonly connectTimeoutMs?: number | undefined;
  /**
   * First and longest wait between attempts after a drop or a refused connection (each wait is 50–100% of its step,
   * so the first is at least 1 s: Rust's `rcon.connectioncooldown` is 1 s per address). The backoff starts over once
   * a session answered. @default 2000, 60000
   */
  readonly reconnectMinDelayMs?: number | undefined;
  readonly reconnectMaxDelayMs?: number | undefined;
  /** First and longest wait after a wrong password: minutes, so the server does not ban this address. @default 60000, 900000 */
  readonly authRetryMinDelayMs?: number | undefined;
  readonly authRetryMaxDelayMs?: number | undefined;
  /**
   * Largest message accepted from the server (a full `playerlist` is ~100 KiB): one command's answer is one
   * message, and ws holds at most the message being received, so this caps what a connection holds too. A bigger
   * one drops the connection (pending commands fail with reply_too_large) and it is made again with the normal
   * backoff. @default 1048576 (1 MiB)
   */
  readonly maxMessageBytes?: number | undefined;
  /** Malformed or stray messages are logged once, then counted in one line per this. @default 60000 */
  readonly repeatSummaryIntervalMs?: number | undefined;
  /** The `Name` field of each command. @default 'WebRcon' */
  readonly clientName?: string | undefined;
  /** Jitter source for the backoff, [0, 1). @default Math.random */
  readonly random?: (() => number) | undefined;
  /** A chat line pushed by the server (Type "Chat"), its inner JSON parsed. */
  readonly onChat?: ((chat: RustChatMessage) => void) | undefined;
  /** Every other message that answers no command: console output (Identifier 0), broadcasts (-1), Warnings, Errors, Reports. */
  readonly onConsole?: ((message: WebRconInbound) => void) | undefined;
  /** A session opened (the server accepted the password). */
  readonly onConnected?: (() => void) | undefined;
  /** An open session ended; the client reconnects by itself unless closed. */
  readonly onDisconnected?: ((info: WebRconDisconnect) => void) | undefined;
  /** The server refused the password (or this address); the next attempt waits minutes. */
  readonly onAuthFailed?: ((error: RconAuthFailedError) => void) | undefined;
}

export interface CommandOptions {
  /** This command's own limit. @default the client's commandTimeoutMs */
  readonly timeoutMs?: number | undefined;
  /**
   * Rust sends nothing back for a command that prints nothing (`mute`/`unmute` that worked). With `silentOk` such a
   * command resolves with '' instead of failing: as soon as a later command on the same session is answered (Rust
   * runs RCON commands in order on its main thread) or, at the latest, when the timeout passes.
   */
  readonly silentOk?: boolean | undefined;
}

export type WebRconState = 'idle' | 'connecting' | 'open' | 'waiting' | 'closed';

export interface WebRconStatus {
  readonly state: WebRconState;
  readonly connected: boolean;
  /** Sessions that opened and answered so far (1 after the first connection, 2 after one reconnect …). */
  readonly sessions: number;
  /** Commands sent and still waiting for their answer (the keepalive included). */
  readonly pendingCommands: number;
  /** The last failure, scrubbed; undefined once a session answered. */
  readonly lastError: { readonly code: string; readonly message: string } | undefined;
}
