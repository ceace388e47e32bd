// The options, command options and status of TelnetClient, with each default. Declarations only, so the client file
// holds behaviour and this one can be read alone.
// It must never: hold behaviour, or a default that the client does not apply (each @default is the client's).
import type { Clock } from '../../src/time/clock.js';
import type { RconAuthFailedError, RconAuthTimeoutError, RconError } from './errors.js';
import type { ReconnectPlan, ReconnectTuning, SessionState } from './sessionLifecycle.js';
import type { RconLogger } from './sourceRconOptions.js';

export interface TelnetClientOptions extends ReconnectTuning {
  readonly host: string;
  /** The telnet port (7DTD's TelnetPort). */
  readonly port: number;
  /** The telnet password. Written once per connection after the prompt; never logged, never in an error. */
  readonly password: string;
  /** Names the connection in logs and errors, e.g. the adapter id. @default `<host>:<port>` */
  readonly label?: string | undefined;
  /** The config key a host must fix when the password is wrong. @default '"password"' */
  readonly passwordKey?: string | undefined;
  /** A command's answer, from the call (time queued counts). @default 5000 */
  readonly commandTimeoutMs?: number | undefined;
  /** The TCP connection, from the attempt. @default 5000 */
  readonly connectTimeoutMs?: number | undefined;
  /** From the TCP connection to `Logon successful.`: the prompt and the answer to the password. @default 10000 */
  readonly loginTimeoutMs?: number | undefined;
  /**
   * A command without a terminator ends once no answer line came for this long (7DTD writes an answer in one go;
   * `say` answers nothing). Also how long after `Logon successful.` the banner may run before commands flow, and how
   * long the console must be quiet after a command timed out before the next is sent. @default 200
   */
  readonly quietMs?: number | undefined;
  /** Commands waiting for their turn at most; more fail with queue_full. Bounds: at least 1. @default 100 */
  readonly maxQueuedCommands?: number | undefined;
  /** The longest unfinished line held; past it the session is dropped (buffer_limit). @default 65536 */
  readonly maxLineBytes?: number | undefined;
  /** The most bytes one answer may reach; past it the command fails and the session is dropped. @default 1048576 */
  readonly maxReplyBytes?: number | undefined;
  /** Which lines the server pushed on its own (go to onLine) rather than a command's answer. @default 7DTD's log prefix */
  readonly isPushedLine?: ((line: string) => boolean) | undefined;
  /** Stray answer lines (no command waiting) are logged once, then counted once per this. @default 60000 */
  readonly repeatSummaryIntervalMs?: number | undefined;
  /** @default a steady systemClock */
  readonly clock?: Clock | undefined;
  /** @default a silent logger */
  readonly logger?: RconLogger | undefined;
  /** Every pushed log line after the login, CR/LF removed (an entry with a stack trace: its lines joined by `\n`). */
  readonly onLine?: ((line: string) => void) | undefined;
  readonly onReady?: (() => void) | undefined;
  /** A logged-in session ended; it reconnects by itself unless closed. */
  readonly onDisconnected?: ((reason: RconError) => void) | undefined;
  /** The password was refused (or the login not answered in time); the next attempt waits minutes. */
  readonly onAuthFailed?: ((error: RconAuthFailedError | RconAuthTimeoutError) => void) | undefined;
  readonly onReconnectScheduled?: ((plan: ReconnectPlan) => void) | undefined;
}

export interface TelnetCommandOptions {
  /** Overrides `commandTimeoutMs`. */
  readonly timeoutMs?: number | undefined;
  /** The answer's last line: the answer ends at the first line this matches (included), not after a quiet time. */
  readonly endsAt?: RegExp | undefined;
}

export interface TelnetStatus {
  readonly state: SessionState;
  readonly ready: boolean;
  readonly authFailures: number;
  readonly reconnectAttempt: number;
  readonly reconnectDelayMs: number | undefined;
  readonly lastError: { readonly code: string; readonly message: string } | undefined;
  /** Commands waiting, the one in flight included. */
  readonly pendingCommands: number;
}
