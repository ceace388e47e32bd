// "One per player per period", reserved in the same synchronous step as the check, for requests a player can repeat
// faster than they should (a review, a shop order or token spend): the reservation can be given back when storing or
// recording fails, and only by the request that took it. Kept under the project's one player key; pruned as
// reservations expire, so the map holds only players inside their period. The period is passed at each call, so a
// reload's new value applies to the reservations already made.
// It never refuses or words anything itself: its callers do.

import { playerKeyOf, type KnownPlayerIds } from '../ids/playerIds.js';

export class PlayerCooldowns {
  readonly #now: () => number;
  /** Player key → when their last request was admitted (an object, so a release can tell its own slot). Oldest first. */
  readonly #lastAt = new Map<string, { readonly at: number }>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Milliseconds left of the player's period; 0 or less when they may go. */
  leftMs(player: KnownPlayerIds, periodMs: number): number {
    const last = this.#lastAt.get(keyOf(player));
    return last === undefined ? 0 : last.at + periodMs - this.#now();
  }

  /** Takes the player's period from now; returns what gives it back (a no-op once a later request took the slot). */
  reserve(player: KnownPlayerIds, periodMs: number): () => void {
    if (periodMs === 0) return () => undefined;
    const key = keyOf(player);
    const slot = { at: this.#now() };
    this.#record(key, slot, periodMs);
    return () => {
      if (this.#lastAt.get(key) === slot) this.#lastAt.delete(key);
    };
  }

  /** A request admitted at `at` (from a journal, after a restart) counts for the player's period. */
  restore(player: KnownPlayerIds, at: number, periodMs: number): void {
    if (periodMs === 0 || at + periodMs <= this.#now()) return;
    const key = keyOf(player);
    const known = this.#lastAt.get(key);
    if (known === undefined || known.at < at) this.#record(key, { at }, periodMs);
  }

  #record(key: string, slot: { readonly at: number }, periodMs: number): void {
    // Deleting first moves the key to the end, keeping the map ordered by time for the prune (restore() is fed oldest first).
    this.#lastAt.delete(key);
    this.#lastAt.set(key, slot);
    const now = this.#now();
    for (const [known, { at }] of this.#lastAt) {
      if (at + periodMs > now) break;
      this.#lastAt.delete(known);
    }
  }
}

/** The project's one player key; '' for a player with no id. */
function keyOf(player: KnownPlayerIds): string {
  return playerKeyOf(player) ?? '';
}
