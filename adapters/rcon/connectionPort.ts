// What one logged-in RCON session is to those who use it, whichever transport opens it: the adapter, the `rcon`
// command and `config check --connect` talk to RconConnection, and each transport's session (rconConnection.ts,
// perCommandSession.ts) is one. Types only: it imports no client.

import type { Clock } from '../../src/time/clock.js';
import type { RconError } from './errors.js';
import type { RconOptions } from './options.js';
import type { RconLogger } from './sourceRconOptions.js';
import type { RconTransport } from './transport.js';
import type { RustChatMessage } from './webrcon/clientOptions.js';

/** What the game pushes without being asked. */
export interface RconPushHandlers {
  /** The session is logged in and answers. */
  readonly onReady?: (() => void) | undefined;
  /** The session ended (it reconnects by itself unless closed). */
  readonly onDown?: ((reason: string) => void) | undefined;
  /** The server refused the password (or did not answer the login): the client now waits minutes. */
  readonly onAuthFailed?: ((error: RconError) => void) | undefined;
  /** Source RCON: a packet the server pushed (Squad chat arrives as type 1). */
  readonly onPushedText?: ((text: string) => void) | undefined;
  /** Rust WebRCON: a chat line, already read by the rust profile's parser. */
  readonly onRustChat?: ((chat: RustChatMessage) => void) | undefined;
  /** Telnet (7DTD): every log line the console pushed, CR/LF removed. */
  readonly onLine?: ((line: string) => void) | undefined;
}

export interface RconConnectionOptions {
  readonly options: RconOptions;
  readonly transport: RconTransport;
  /** The adapter's id: every message names it. */
  readonly label: string;
  readonly logger: RconLogger;
  /** One command's answer. @default 5000 */
  readonly commandTimeoutMs?: number | undefined;
  /** `rcon` and `config check --connect`: one attempt, no reconnect after a drop. @default false */
  readonly oneShot?: boolean | undefined;
  readonly handlers?: RconPushHandlers | undefined;
  /**
   * How a refused login names the password's key: `servers[0].adapters[1].password` when the caller knows where the
   * adapter sits in the file (`gsa-bridge rcon`). @default '"password"' (with the adapter id beside it)
   */
  readonly passwordKey?: string | undefined;
  /**
   * The clock a console that takes one command per session (Conan) is paced on, in milliseconds. Tests of what the
   * sidecar does with the answers give one that is always a pace ahead. @default performance.now()
   */
  readonly paceClock?: Clock | undefined;
}

export interface RconCommandOptions {
  readonly timeoutMs?: number | undefined;
  /** Rust answers a working `mute` with nothing: resolve '' instead of timing out. */
  readonly silentOk?: boolean | undefined;
}

export interface RconConnection {
  /** Connects and logs in, and keeps doing so (with backoff) until close(). Idempotent. */
  start(): void;
  /** Resolves once logged in; rejects on a refused login, on close, or after `timeoutMs`. */
  waitReady(timeoutMs: number): Promise<void>;
  /** The answer's text; rejects with an RconError (not_connected, timeout, disconnected, …). */
  command(text: string, options?: RconCommandOptions): Promise<string>;
  /** Logged in right now: readiness and the adapter gauge. */
  readonly ready: boolean;
  /** Ends the session; no reconnect after it. */
  close(): Promise<void>;
}
