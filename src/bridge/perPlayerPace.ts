// "At most once per player per period", for a warning that a crowd of players must not turn into a flood of log
// lines: which players were last told when, bounded (the oldest forgotten first, who may then be told again).
// It never logs or decides what is said: its caller asks due() and speaks when it answers true.

import type { Clock } from '../time/clock.js';

export class PerPlayerPace {
  readonly #everyMs: number;
  readonly #maxPlayers: number;
  readonly #clock: Clock;
  /** Player key → when it was last due; a Map keeps insertion order, so the oldest go first. */
  readonly #lastAt = new Map<string, number>();

  constructor(options: { readonly everyMs: number; readonly maxPlayers: number; readonly clock: Clock }) {
    this.#everyMs = options.everyMs;
    this.#maxPlayers = options.maxPlayers;
    this.#clock = options.clock;
  }

  /** True (and remembered) when `player` was not due within the period; false otherwise. */
  due(player: string): boolean {
    const now = this.#clock.now();
    const last = this.#lastAt.get(player);
    if (last !== undefined && now - last < this.#everyMs) return false;
    this.#lastAt.delete(player);
    this.#lastAt.set(player, now);
    if (this.#lastAt.size > this.#maxPlayers) {
      const oldest = this.#lastAt.keys().next().value;
      if (oldest !== undefined) this.#lastAt.delete(oldest);
    }
    return true;
  }
}
