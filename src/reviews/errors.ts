// The outbox's errors: why it refused to store a review. Each class has a stable `code` that callers branch on; all
// extend the bridge's ReviewNotStoredError (its port for a store, src/bridge/reviewStore.ts), which is all the core
// needs to know of them. Messages never carry a review's comment or a secret.

import { ReviewNotStoredError } from '../bridge/reviewStore.js';

export type ReviewOutboxErrorCode =
  /** The outbox was closed (the sidecar is shutting down); nothing was stored. */
  | 'closed'
  /** The review cannot be stored as given (e.g. no steam_id or eos_id); a caller bug, nothing was stored. */
  | 'invalid'
  /** The journal could not be written or fsynced; nothing was acknowledged. */
  | 'storage';

/** Why `enqueue` (or a re-queue) refused a review. In every case the review was not stored and must not be acknowledged. */
export abstract class ReviewOutboxError extends ReviewNotStoredError {
  abstract override readonly code: ReviewOutboxErrorCode;

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The outbox was closed (the sidecar is shutting down). */
export class OutboxClosedError extends ReviewOutboxError {
  readonly code = 'closed';
}

/** The review cannot be stored as given: a caller bug. */
export class UnstorableReviewError extends ReviewOutboxError {
  readonly code = 'invalid';
}

/** The journal could not be written or fsynced. */
export class JournalWriteError extends ReviewOutboxError {
  readonly code = 'storage';
}
