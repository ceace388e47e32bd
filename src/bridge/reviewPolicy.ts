// Decides whether a player's review may be queued: stars within the configured range, control characters
// stripped from the comment, the comment within the length limit, and one review per player per cooldown.
// It never stores or sends a review; it only admits it (the outbox stores, the client sends).

import type { ReviewsConfig } from '../config/index.js';
import { characterCount, cleanComment } from '../gsa/index.js';
import { BridgeRefusal, type PlayerIdentity } from './port.js';


export function playerKey(player: PlayerIdentity): string {
  return player.steamId !== undefined ? `steam:${player.steamId}` : `eos:${player.eosId ?? ''}`;
}

export class ReviewPolicy {
  readonly #config: Pick<ReviewsConfig, 'minStars' | 'maxStars' | 'maxCommentLength' | 'cooldownMs'>;
  readonly #now: () => number;
  /** Player key → when their last review was accepted. Pruned as entries expire. */
  readonly #lastAccepted = new Map<string, number>();

  constructor(config: Pick<ReviewsConfig, 'minStars' | 'maxStars' | 'maxCommentLength' | 'cooldownMs'>, now: () => number = Date.now) {
    this.#config = config;
    this.#now = now;
  }

  /** The comment as it will be stored and sent; throws BridgeRefusal when the review may not be queued. */
  admit(player: PlayerIdentity, stars: number, comment: string): string {
    const { minStars, maxStars, maxCommentLength } = this.#config;
    if (!Number.isInteger(stars) || stars < minStars || stars > maxStars) {
      throw new BridgeRefusal('bad_message', `stars must be a whole number from ${minStars} to ${maxStars}`, 'stars');
    }
    const cleaned = cleanComment(comment);
    if (characterCount(cleaned) > maxCommentLength) {
      throw new BridgeRefusal('bad_message', `comment must be at most ${maxCommentLength} characters`, 'comment');
    }
    const waitMs = this.#cooldownLeftMs(playerKey(player));
    if (waitMs > 0) {
      throw new BridgeRefusal('rate_limited', `this player reviewed recently; try again in ${Math.ceil(waitMs / 1000)} s`);
    }
    return cleaned;
  }

  /** Starts the player's cooldown; called once the review is durably queued, so a failed write costs no cooldown. */
  recordAccepted(player: PlayerIdentity): void {
    if (this.#config.cooldownMs === 0) return;
    const now = this.#now();
    const key = playerKey(player);
    // Deleting first moves the key to the end, keeping the map ordered by time for #prune.
    this.#lastAccepted.delete(key);
    this.#lastAccepted.set(key, now);
    this.#prune(now);
  }

  #cooldownLeftMs(key: string): number {
    const last = this.#lastAccepted.get(key);
    return last === undefined ? 0 : last + this.#config.cooldownMs - this.#now();
  }

  /** Keeps the map from growing with every player who ever reviewed: Map iterates oldest first. */
  #prune(now: number): void {
    for (const [key, at] of this.#lastAccepted) {
      if (at + this.#config.cooldownMs > now) break;
      this.#lastAccepted.delete(key);
    }
  }
}
