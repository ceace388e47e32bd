// Turns process signals into an awaitable queue, so a long-running command can handle SIGHUP (reload) and
// SIGTERM/SIGINT (stop) one at a time, in order, without losing one that arrives while it is busy.
// While a command waits for a signal, the wait itself keeps the process alive: signal listeners do not, and a
// sidecar with no listener (no WebSocket adapter) would otherwise end right after starting (exit 13).
// A queue may take over the signals the entry point held while the process was loading (startupSignals.ts), and
// may coalesce a signal whose repeats mean nothing more (five SIGHUPs before a reload are one reload).
// A request that is not a signal (`gsa-bridge reload` through the control channel, for hosts without SIGHUP) is
// posted into the same queue, so it is handled in the same loop, one at a time, in order with the signals.

import { takeHeldSignals } from './startupSignals.js';

const KEEP_ALIVE_INTERVAL_MS = 2 ** 31 - 1;


export interface SignalQueueOptions<Posted extends string = never> {
  /**
   * Signals kept at most once in the queue: a repeat that arrives while one is still waiting to be taken is
   * dropped. Default none.
   * @example ['SIGHUP'] (a reload reads the file as it is then; a second one queued behind it adds nothing)
   */
  readonly coalesce?: readonly (NodeJS.Signals | Posted)[];
  /** Starts with the signals held since the process started (startupSignals.ts), in order. Default false. */
  readonly takeOverStartupSignals?: boolean;
}

/** Hands out signals, and the requests of type `Posted` the process posts itself (none unless given). */
export class SignalQueue<Posted extends string = never> {
  readonly #signals: readonly NodeJS.Signals[];
  readonly #pending: (NodeJS.Signals | Posted)[] = [];
  #waiter: ((trigger: NodeJS.Signals | Posted) => void) | undefined;
  /** A ref'd timer held only while someone waits in next(). */
  #keepAlive: NodeJS.Timeout | undefined;
  readonly #coalesce: ReadonlySet<NodeJS.Signals | Posted>;
  readonly #listener = (trigger: NodeJS.Signals | Posted): void => {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter !== undefined) waiter(trigger);
    else this.#enqueue(trigger);
  };

  constructor(signals: readonly NodeJS.Signals[], options: SignalQueueOptions<Posted> = {}) {
    this.#signals = signals;
    this.#coalesce = new Set(options.coalesce ?? []);
    for (const signal of signals) process.on(signal, this.#listener);
    // After our listeners are on, so a signal is always either held or ours.
    if (options.takeOverStartupSignals === true) {
      for (const signal of takeHeldSignals()) if (signals.includes(signal)) this.#enqueue(signal);
    }
  }

  /** Signals (and posted requests) that arrived and were not taken yet, oldest first. */
  get pending(): readonly (NodeJS.Signals | Posted)[] {
    return this.#pending;
  }

  /** Queues a request as if it were a signal: handed to a waiting next() at once, else queued (and coalesced). */
  post(trigger: Posted): void {
    this.#listener(trigger);
  }

  next(): Promise<NodeJS.Signals | Posted> {
    const queued = this.#pending.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    // The longest interval Node takes; it never fires in practice, it only holds the event loop open.
    this.#keepAlive ??= setInterval(() => undefined, KEEP_ALIVE_INTERVAL_MS);
    return new Promise((resolve) => {
      this.#waiter = (trigger) => {
        this.#releaseKeepAlive();
        resolve(trigger);
      };
    });
  }

  close(): void {
    for (const signal of this.#signals) process.off(signal, this.#listener);
    this.#releaseKeepAlive();
  }

  #enqueue(trigger: NodeJS.Signals | Posted): void {
    if (this.#coalesce.has(trigger) && this.#pending.includes(trigger)) return;
    this.#pending.push(trigger);
  }

  #releaseKeepAlive(): void {
    clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}
