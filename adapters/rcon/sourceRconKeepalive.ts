// The keepalive of one Source RCON client: once no packet came for keepaliveIntervalMs, one cheap command the game
// answers (keepaliveCommand) proves the session alive; no answer within the command timeout ends the session, which
// the client then makes again with the normal backoff. Traffic in between proves it too, and costs no command.
// It must never: send while packets keep coming or while not logged in, hold more than one timer, end a session
// other than the current one, or take a busy session (queue_full) for a dead one.
import type { Clock } from '../../src/time/clock.js';
import { clampTimerMs } from '../../src/time/timerLimit.js';
import { RconTimeoutError, type RconError } from './errors.js';
import { formatMs } from './sessionLifecycle.js';

/** What the keepalive reads of a session. */
export interface KeepaliveSession {
  /** When its last packet came, by the client's clock. */
  readonly lastPacketAt: number;
}

/** What the keepalive needs of its client; given once. */
export interface KeepaliveClient<S extends KeepaliveSession> {
  /** The current session, if any. */
  readonly session: () => S | undefined;
  /** Logged in: a command may be sent. */
  readonly ready: () => boolean;
  /** Sends one command as a caller would (queued, rate-capped, timed out after the command timeout). */
  readonly command: (text: string) => Promise<string>;
  /** Ends this session with `reason`. */
  readonly end: (session: S, reason: RconError) => void;
}

export interface KeepaliveOptions {
  /** 0 turns the keepalive off. */
  readonly intervalMs: number;
  readonly command: string;
  /** Only for the message that ends a silent session. */
  readonly commandTimeoutMs: number;
  readonly label: string;
  readonly clock: Clock;
}

export class SourceRconKeepalive<S extends KeepaliveSession> {
  readonly #intervalMs: number;
  readonly #command: string;
  readonly #commandTimeoutMs: number;
  readonly #label: string;
  readonly #clock: Clock;
  readonly #client: KeepaliveClient<S>;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: KeepaliveOptions, client: KeepaliveClient<S>) {
    this.#intervalMs = options.intervalMs;
    this.#command = options.command;
    this.#commandTimeoutMs = options.commandTimeoutMs;
    this.#label = options.label;
    this.#clock = options.clock;
    this.#client = client;
  }

  /** Sets the timer for keepaliveIntervalMs after the current session's last packet (replacing one already set). */
  schedule(): void {
    if (this.#intervalMs <= 0 || !this.#client.ready()) return;
    const session = this.#client.session();
    if (session === undefined) return;
    const dueIn = session.lastPacketAt + this.#intervalMs - this.#clock.now();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#check(session);
    }, clampTimerMs(Math.max(1, dueIn)));
  }

  /** Drops the timer (the session ended, or the client closed). */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #check(session: S): void {
    const client = this.#client;
    if (session !== client.session() || !client.ready()) return;
    // Traffic since the last check proves the session alive: no command spent on it.
    if (this.#clock.now() - session.lastPacketAt < this.#intervalMs) {
      this.schedule();
      return;
    }
    client.command(this.#command).then(
      () => {
        this.schedule();
      },
      (error: unknown) => {
        if (session !== client.session()) return;
        if (error instanceof RconTimeoutError) {
          client.end(session, new RconTimeoutError(`the RCON server of ${this.#label} did not answer the keepalive within ${formatMs(this.#commandTimeoutMs)}: reconnecting`, error));
        } else {
          // queue_full means the session is busy, and so alive.
          this.schedule();
        }
      },
    );
  }
}
