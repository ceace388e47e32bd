// Hands out the AbortSignal that ends a request which has had no answer after the timeout. Requests that
// start within one short slice of time share a controller and a timer: a timer and controller per request
// cost more CPU than the rest of the client together (bench/mute-check-throughput). A signal never fires
// before `timeoutMs` has passed since its request started, and at most one slice after.
// It never aborts for any reason but time.

import { setMaxListeners } from 'node:events';

export class SharedDeadlines {
  readonly #timeoutMs: number;
  readonly #sliceMs: number;
  #controller: AbortController | undefined;
  #sliceEnd = 0;

  /** The slice is 5% of the timeout, between 1 and 50 ms. */
  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#sliceMs = Math.min(50, Math.max(1, Math.floor(timeoutMs / 20)));
  }

  /** The signal for a request starting now. */
  signal(): AbortSignal {
    const now = performance.now();
    // An aborted controller is never handed out again, even if timers ran ahead of performance.now() (fake timers).
    if (this.#controller === undefined || now >= this.#sliceEnd || this.#controller.signal.aborted) {
      const controller = new AbortController();
      // Every request of the slice listens on this one signal; that is the point, not a leak.
      setMaxListeners(0, controller.signal);
      this.#controller = controller;
      this.#sliceEnd = now + this.#sliceMs;
      // Started at the latest just before the slice ends, so firing a slice after the timeout is never early.
      const timer = setTimeout(() => {
        controller.abort();
      }, this.#timeoutMs + this.#sliceMs);
      // Pending requests keep the process alive through their sockets; the timer alone must not.
      timer.unref();
    }
    return this.#controller.signal;
  }
}
