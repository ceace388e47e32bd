// The bridge's port for keeping a player's review: what the bridge needs from the durable outbox (src/reviews) and
// nothing more, so the core names no storage module. The outbox satisfies it; a test may pass any object that does.
// It must never describe how a review is stored or delivered: that is the outbox's job.

import type { PlayerIdentity, ReviewOrigin } from './port.js';

/** A review the bridge admitted, to be stored byte-exact (the comment is already cleaned). */
export interface ReviewToStore {
  /** GSA container name. */
  readonly server: string;
  readonly player: PlayerIdentity;
  readonly stars: number;
  readonly comment: string;
  /** Routed back with the result. */
  readonly origin: ReviewOrigin;
}

/** A review the store still knows was accepted: for the cooldowns, which survive restarts and reloads. */
export interface RememberedReview {
  readonly server: string;
  readonly player: PlayerIdentity;
  /** When it was accepted, wall-clock ms. */
  readonly at: number;
}

export interface ReviewStore {
  /** Reviews accepted recently enough to count for a cooldown, oldest first. */
  readonly accepted: readonly RememberedReview[];
  /** Reviews stored and not yet settled with GSA. */
  readonly pending: number;
  /**
   * Stores the review durably before it resolves with the store's id for it. Rejects with a ReviewNotStoredError
   * when it was not stored (the player may send it again); any other rejection is a bug and is not caught.
   */
  enqueue(review: ReviewToStore): Promise<{ readonly id: string }>;
}

/** Why a store refused a review; in every case nothing was stored and nothing may be acknowledged. */
export abstract class ReviewNotStoredError extends Error {
  abstract readonly code: string;
}
