// Decides whether a player's review may be queued: stars within the configured range, control characters
// stripped from the comment, the comment within the length limit, and one review per player per cooldown.
// The cooldown is reserved in the same synchronous step as the check, so ten reviews sent at once admit one;
// the caller releases the reservation when storing fails. It never stores or sends a review; it only admits it
// (the outbox stores, the client sends). It forgets on restart: the caller restores it from the journal.

import { characterCount, cleanComment } from '../gsa/index.js';
import type { ReviewOptions } from './options.js';
import { BadInputRefusal, CooldownRefusal } from './errors.js';
import type { PlayerIdentity } from './port.js';
import { playerKeyOf } from '../ids/playerIds.js';


/** The key a player's cooldown is kept under: the project's one player key; '' for a player with no id. */
function cooldownKey(player: PlayerIdentity): string {
  return playerKeyOf(player) ?? '';
}

/** An admitted review: its comment as stored and sent, and how to give the cooldown back if storing fails. */
export interface Admission {
  readonly comment: string;
  /** Undoes this admission's cooldown reservation; does nothing once a later review took the player's slot. */
  release(): void;
}

export class ReviewPolicy {
  #config: ReviewOptions;
  readonly #now: () => number;
  /** Player key → when their last review was accepted (an object, so a release can tell its own slot). Pruned as entries expire. */
  readonly #lastAccepted = new Map<string, { readonly at: number }>();

  constructor(config: ReviewOptions, now: () => number = Date.now) {
    this.#config = config;
    this.#now = now;
  }

  /** New limits (a config reload); the players' cooldowns so far are kept and measured against the new period. */
  setOptions(config: ReviewOptions): void {
    this.#config = config;
  }

  /**
   * Checks the review and reserves the player's cooldown at once (no await between them: the check and the record
   * are one step). Throws a BridgeRefusal (BadInputRefusal, CooldownRefusal) when the review may not be queued, and then reserves nothing.
   */
  admit(player: PlayerIdentity, stars: number, comment: string): Admission {
    const { minStars, maxStars, maxCommentLength } = this.#config;
    if (!Number.isInteger(stars) || stars < minStars || stars > maxStars) {
      throw new BadInputRefusal(`stars must be a whole number from ${minStars} to ${maxStars}`, 'stars');
    }
    const cleaned = cleanComment(comment);
    if (characterCount(cleaned) > maxCommentLength) {
      throw new BadInputRefusal(`comment must be at most ${maxCommentLength} characters`, 'comment');
    }
    const key = cooldownKey(player);
    const waitMs = this.#cooldownLeftMs(key);
    if (waitMs > 0) {
      throw new CooldownRefusal(`this player reviewed recently; try again in ${Math.ceil(waitMs / 1000)} s`);
    }
    if (this.#config.cooldownMs === 0) return { comment: cleaned, release: () => undefined };
    const slot = { at: this.#now() };
    this.#record(key, slot);
    return {
      comment: cleaned,
      release: () => {
        if (this.#lastAccepted.get(key) === slot) this.#lastAccepted.delete(key);
      },
    };
  }

  /** A review accepted at `at` (from the journal, after a restart or a reload) counts for the player's cooldown. */
  restore(player: PlayerIdentity, at: number): void {
    if (this.#config.cooldownMs === 0 || at + this.#config.cooldownMs <= this.#now()) return;
    const key = cooldownKey(player);
    const known = this.#lastAccepted.get(key);
    if (known === undefined || known.at < at) this.#record(key, { at });
  }

  #record(key: string, slot: { readonly at: number }): void {
    // Deleting first moves the key to the end, keeping the map ordered by time for #prune (restore() feeds it oldest first).
    this.#lastAccepted.delete(key);
    this.#lastAccepted.set(key, slot);
    this.#prune(this.#now());
  }

  #cooldownLeftMs(key: string): number {
    const last = this.#lastAccepted.get(key);
    return last === undefined ? 0 : last.at + this.#config.cooldownMs - this.#now();
  }

  /** Keeps the map from growing with every player who ever reviewed: Map iterates oldest first. */
  #prune(now: number): void {
    for (const [key, { at }] of this.#lastAccepted) {
      if (at + this.#config.cooldownMs > now) break;
      this.#lastAccepted.delete(key);
    }
  }
}
