// Turns process signals into an awaitable queue, so a long-running command can handle SIGHUP (reload) and
// SIGTERM/SIGINT (stop) one at a time, in order, without losing one that arrives while it is busy.

export class SignalQueue {
  readonly #signals: readonly NodeJS.Signals[];
  readonly #pending: NodeJS.Signals[] = [];
  #waiter: ((signal: NodeJS.Signals) => void) | undefined;
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
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  close(): void {
    for (const signal of this.#signals) process.off(signal, this.#listener);
  }
}
