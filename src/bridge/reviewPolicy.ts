// Decides whether a player's review may be queued: stars within the configured range, control characters
// stripped from the comment, the comment within the length limit, and one review per player per cooldown.
// The cooldown is reserved in the same synchronous step as the check, so ten reviews sent at once admit one;
// the caller releases the reservation when storing fails. It never stores or sends a review; it only admits it
// (the outbox stores, the client sends). It forgets on restart: the caller restores it from the journal.

import { characterCount, cleanComment } from '../gsa/index.js';
import type { ReviewOptions } from './options.js';
import { BadInputRefusal, CooldownRefusal } from './errors.js';
import type { PlayerIdentity } from './port.js';
import { PlayerCooldowns } from './playerCooldowns.js';


/** An admitted review: its comment as stored and sent, and how to give the cooldown back if storing fails. */
export interface Admission {
  readonly comment: string;
  /** Undoes this admission's cooldown reservation; does nothing once a later review took the player's slot. */
  release(): void;
}

export class ReviewPolicy {
  #config: ReviewOptions;
  readonly #cooldowns: PlayerCooldowns;

  constructor(config: ReviewOptions, now: () => number = Date.now) {
    this.#config = config;
    this.#cooldowns = new PlayerCooldowns(now);
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
    const waitMs = this.#cooldowns.leftMs(player, this.#config.cooldownMs);
    if (waitMs > 0) {
      throw new CooldownRefusal(`this player reviewed recently; try again in ${Math.ceil(waitMs / 1000)} s`);
    }
    return { comment: cleaned, release: this.#cooldowns.reserve(player, this.#config.cooldownMs) };
  }

  /** A review accepted at `at` (from the journal, after a restart or a reload) counts for the player's cooldown. */
  restore(player: PlayerIdentity, at: number): void {
    this.#cooldowns.restore(player, at, this.#config.cooldownMs);
  }
}
