// Turns process signals into an awaitable queue, so a long-running command can handle SIGHUP (reload) and
// SIGTERM/SIGINT (stop) one at a time, in order, without losing one that arrives while it is busy.
// While a command waits for a signal, the wait itself keeps the process alive: signal listeners do not, and a
// sidecar with no listener (no WebSocket adapter) would otherwise end right after starting (exit 13).
// A queue may take over the signals the entry point held while the process was loading (startupSignals.ts), and
// may coalesce a signal whose repeats mean nothing more (five SIGHUPs before a reload are one reload).

import { takeHeldSignals } from './startupSignals.js';

const KEEP_ALIVE_INTERVAL_MS = 2 ** 31 - 1;

export interface SignalQueueOptions {
  /**
   * Signals kept at most once in the queue: a repeat that arrives while one is still waiting to be taken is
   * dropped. Default none.
   * @example ['SIGHUP'] (a reload reads the file as it is then; a second one queued behind it adds nothing)
   */
  readonly coalesce?: readonly NodeJS.Signals[];
  /** Starts with the signals held since the process started (startupSignals.ts), in order. Default false. */
  readonly takeOverStartupSignals?: boolean;
}

export class SignalQueue {
  readonly #signals: readonly NodeJS.Signals[];
  readonly #pending: NodeJS.Signals[] = [];
  #waiter: ((signal: NodeJS.Signals) => void) | undefined;
  /** A ref'd timer held only while someone waits in next(). */
  #keepAlive: NodeJS.Timeout | undefined;
  readonly #coalesce: ReadonlySet<NodeJS.Signals>;
  readonly #listener = (signal: NodeJS.Signals): void => {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter !== undefined) waiter(signal);
    else this.#enqueue(signal);
  };

  constructor(signals: readonly NodeJS.Signals[], options: SignalQueueOptions = {}) {
    this.#signals = signals;
    this.#coalesce = new Set(options.coalesce ?? []);
    for (const signal of signals) process.on(signal, this.#listener);
    // After our listeners are on, so a signal is always either held or ours.
    if (options.takeOverStartupSignals === true) {
      for (const signal of takeHeldSignals()) if (signals.includes(signal)) this.#enqueue(signal);
    }
  }

  /** Signals that arrived and were not taken yet, oldest first. */
  get pending(): readonly NodeJS.Signals[] {
    return this.#pending;
  }

  next(): Promise<NodeJS.Signals> {
    const queued = this.#pending.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    // The longest interval Node takes; it never fires in practice, it only holds the event loop open.
    this.#keepAlive ??= setInterval(() => undefined, KEEP_ALIVE_INTERVAL_MS);
    return new Promise((resolve) => {
      this.#waiter = (signal) => {
        this.#releaseKeepAlive();
        resolve(signal);
      };
    });
  }

  close(): void {
    for (const signal of this.#signals) process.off(signal, this.#listener);
    this.#releaseKeepAlive();
  }

  #enqueue(signal: NodeJS.Signals): void {
    if (this.#coalesce.has(signal) && this.#pending.includes(signal)) return;
    this.#pending.push(signal);
  }

  #releaseKeepAlive(): void {
    clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}
