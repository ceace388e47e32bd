// The servers GSA says it does not know (404), each held back on its own backoff: their reviews wait while other
// servers' reviews go on, and the first answer GSA gives for a server (stored or refused) starts its backoff over.
// Must never drop a review (it only says which servers wait) and never keep the process alive for a hold.

import { backoffDelayMs } from '../time/backoff.js';

export class ServerHolds {
  /** Servers held until their own backoff ends. */
  readonly #timers = new Map<string, NodeJS.Timeout>();
  /** Rounds in a row each held server got a 404, for its backoff. */
  readonly #streaks = new Map<string, number>();
  readonly #backoff: { readonly minDelayMs: number; readonly maxDelayMs: number };
  readonly #random: () => number;

  constructor(backoff: { readonly minDelayMs: number; readonly maxDelayMs: number }, random: () => number) {
    this.#backoff = backoff;
    this.#random = random;
  }

  /** Servers held now. */
  get size(): number {
    return this.#timers.size;
  }

  has(server: string): boolean {
    return this.#timers.has(server);
  }

  /** GSA answered a review of the server: its next 404 starts from the shortest backoff again. */
  answered(server: string): void {
    this.#streaks.delete(server);
  }

  /**
   * Holds the server for its next backoff and calls `onEnd` when that is over; undefined (and nothing changes) when
   * the server is held already.
   */
  hold(server: string, onEnd: () => void): { readonly delayMs: number; readonly streak: number } | undefined {
    if (this.#timers.has(server)) return undefined;
    const streak = (this.#streaks.get(server) ?? 0) + 1;
    this.#streaks.set(server, streak);
    const delayMs = backoffDelayMs(streak, this.#backoff, this.#random);
    const timer = setTimeout(() => {
      this.#timers.delete(server);
      onEnd();
    }, delayMs);
    // Held reviews are on disk: a waiting hold is no reason to keep the process alive.
    timer.unref();
    this.#timers.set(server, timer);
    return { delayMs, streak };
  }

  /** Ends every hold without calling back (the outbox is closing). */
  clear(): void {
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
  }
}
