// Bounds how many connections to the mod listener may be open without having completed an authenticated upgrade
// (raw TCP sockets that send nothing, half-sent requests, plain HTTP, wrong tokens not yet closed): beyond the
// bound the oldest of them is closed to make room for the newest. The oldest, not the newest, so a flood of idle
// sockets can never keep the real mod out: its connection is the newest one and sends its upgrade at once, while
// a flood has to open `max` more connections before that upgrade is read to push it out.
// The time limit on each of them (the handshake deadline) is node:http's own headersTimeout/requestTimeout, set
// by the adapter; this module only counts. It must never touch a connection once its upgrade was authenticated,
// and never log per connection: dropped connections are told once, then as one summary per interval.

import type { Socket } from 'node:net';
import { RepeatSummary } from '../../src/log/repeatSummary.js';

export interface UnauthenticatedConnectionsOptions {
  /** Most connections open at once without an authenticated upgrade. */
  readonly max: number;
  /** How often drops are summarized, while there are any. Default 60 000 ms. */
  readonly summaryIntervalMs?: number | undefined;
  /** Told of the first drop after a quiet interval at once, then once per interval that had drops. */
  readonly onDropped: (report: DroppedConnections) => void;
}

export interface DroppedConnections {
  /** True for the immediate report of the first drop after a quiet interval. */
  readonly first: boolean;
  /** Connections closed to stay within the bound since the last report. */
  readonly dropped: number;
  readonly max: number;
  readonly intervalMs: number;
}

export class UnauthenticatedConnections {
  readonly #max: number;
  readonly #onDropped: (report: DroppedConnections) => void;
  /** In order of arrival, oldest first: the first one is the one to close when full. */
  readonly #sockets = new Set<Socket>();
  /** The first drop after a quiet interval is told at once, the rest as one summary per interval. */
  readonly #repeats: RepeatSummary<'dropped'>;

  constructor(options: UnauthenticatedConnectionsOptions) {
    this.#max = options.max;
    this.#onDropped = options.onDropped;
    this.#repeats = new RepeatSummary<'dropped'>({
      intervalMs: options.summaryIntervalMs,
      onSummary: ({ repeats }) => {
        this.#report(false, repeats);
      },
    });
  }

  /** Connections open now without an authenticated upgrade (metrics, tests). */
  get size(): number {
    return this.#sockets.size;
  }

  /** A new connection: counted until it closes or its upgrade is authenticated; the oldest goes if over the bound. */
  admit(socket: Socket): void {
    this.#sockets.add(socket);
    socket.once('close', () => {
      this.#sockets.delete(socket);
    });
    while (this.#sockets.size > this.#max) {
      const oldest = this.#sockets.values().next().value;
      if (oldest === undefined) break;
      this.#sockets.delete(oldest);
      oldest.destroy();
      this.#countDrop();
    }
  }

  /** Its upgrade carried the right token: no longer counted, never closed from here. */
  authenticated(socket: Socket): void {
    this.#sockets.delete(socket);
  }

  /** Stops the summary timer, reporting what is left. */
  close(): void {
    this.#repeats.close();
  }

  #countDrop(): void {
    if (this.#repeats.first('dropped')) this.#report(true, 1);
  }

  #report(first: boolean, dropped: number): void {
    this.#onDropped({ first, dropped, max: this.#max, intervalMs: this.#repeats.intervalMs });
  }
}
