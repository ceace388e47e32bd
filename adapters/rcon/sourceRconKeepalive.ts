// The keepalive of a Source RCON session: when nothing has come from the server for intervalMs, one cheap command
// proves the session alive; no answer within the command timeout ends the session (and the client reconnects).
// It must never: spend a command while other traffic already proves the session alive, outlive the session it
// checks, or end a session for a busy queue (queue_full is a sign of life).
import type { Clock } from '../../src/time/clock.js';
import { clampTimerMs } from '../../src/time/timerLimit.js';
import { RconTimeoutError, type RconError } from './errors.js';
import { formatMs } from './sessionLifecycle.js';

/** What the keepalive needs of the client: its current session, whether it is logged in, a command, an end. */
export interface KeepaliveLink<S extends { readonly lastPacketAt: number }> {
  readonly session: () => S | undefined;
  readonly ready: () => boolean;
  readonly command: (text: string) => Promise<string>;
  readonly end: (session: S, error: RconError) => void;
}

export interface KeepaliveOptions {
  /** 0 turns the keepalive off. */
  readonly intervalMs: number;
  readonly command: string;
  /** Only for the message: how long the keepalive command had. */
  readonly commandTimeoutMs: number;
  readonly label: string;
  readonly clock: Clock;
}

export class SourceRconKeepalive<S extends { readonly lastPacketAt: number }> {
  readonly #options: KeepaliveOptions;
  readonly #link: KeepaliveLink<S>;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: KeepaliveOptions, link: KeepaliveLink<S>) {
    this.#options = options;
    this.#link = link;
  }

  /** (Re)arms the check for intervalMs after the session's last packet; nothing while off or not logged in. */
  schedule(): void {
    const { intervalMs, clock } = this.#options;
    if (intervalMs <= 0 || !this.#link.ready()) return;
    const session = this.#link.session();
    if (session === undefined) return;
    const dueIn = session.lastPacketAt + intervalMs - clock.now();
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#check(session);
    }, clampTimerMs(Math.max(1, dueIn)));
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #check(session: S): void {
    if (session !== this.#link.session() || !this.#link.ready()) return;
    // Traffic since the last check proves the session alive: no command spent on it.
    if (this.#options.clock.now() - session.lastPacketAt < this.#options.intervalMs) {
      this.schedule();
      return;
    }
    this.#link.command(this.#options.command).then(
      () => {
        this.schedule();
      },
      (error: unknown) => {
        if (session !== this.#link.session()) return;
        if (error instanceof RconTimeoutError) {
          this.#link.end(
            session,
            new RconTimeoutError(`the RCON server of ${this.#options.label} did not answer the keepalive within ${formatMs(this.#options.commandTimeoutMs)}: reconnecting`, error),
          );
        } else {
          // queue_full means the session is busy, and so alive.
          this.schedule();
        }
      },
    );
  }
}
