// Turns process signals into an awaitable queue, so a long-running command can handle SIGHUP (reload) and
// SIGTERM/SIGINT (stop) one at a time, in order, without losing one that arrives while it is busy.
// While a command waits for a signal, the wait itself keeps the process alive: signal listeners do not, and a
// sidecar with no listener (no WebSocket adapter) would otherwise end right after starting (exit 13).

const KEEP_ALIVE_INTERVAL_MS = 2 ** 31 - 1;

export class SignalQueue {
  readonly #signals: readonly NodeJS.Signals[];
  readonly #pending: NodeJS.Signals[] = [];
  #waiter: ((signal: NodeJS.Signals) => void) | undefined;
  /** A ref'd timer held only while someone waits in next(). */
  #keepAlive: NodeJS.Timeout | undefined;
  readonly #listener = (signal: NodeJS.Signals): void => {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter === undefined) this.#pending.push(signal);
    else waiter(signal);
  };

  constructor(signals: readonly NodeJS.Signals[]) {
    this.#signals = signals;
    for (const signal of signals) process.on(signal, this.#listener);
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

  #releaseKeepAlive(): void {
    clearInterval(this.#keepAlive);
    this.#keepAlive = undefined;
  }
}
