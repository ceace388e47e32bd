// The letters the outbox owes: a review whose fate is known (refused, or unconfirmed) leaves the journal only once
// its letter is fsynced, and when that write fails (EMFILE, a full or read-only disk) the review is journaled `held`
// and waits here. This writes a letter once, and retries the held ones oldest first with backoff until each letter
// and then its fate are on disk.
// Must never send a review, never journal a fate before its letter is fsynced, and never keep the process alive
// for a retry (held reviews are journaled; the next start writes them).

import type { Logger } from 'pino';
import { backoffDelayMs } from '../time/backoff.js';
import { describeFailure } from './deliveryFailures.js';
import type { FailureReason, HeldReview, LetterKind, OutboxReview } from './journalRecords.js';
import type { ReviewJournal } from './reviewJournal.js';

export interface HeldLettersOptions {
  readonly journal: ReviewJournal;
  readonly logger: Logger;
  /** The outbox's own backoff bounds: a letter retry waits as a delivery round would. */
  readonly backoff: { readonly minDelayMs: number; readonly maxDelayMs: number };
  /** Backoff jitter, in [0, 1). */
  readonly random: () => number;
  /** Reviews the journal showed held when it was opened, oldest first. */
  readonly held: readonly HeldReview[];
}

export class HeldLetters {
  readonly #journal: ReviewJournal;
  readonly #logger: Logger;
  readonly #backoff: HeldLettersOptions['backoff'];
  readonly #random: () => number;
  /** Reviews whose fate is journaled `held`: their letters still have to be written, oldest first. */
  readonly #held = new Map<string, HeldReview>();
  /** Rounds in a row a letter write failed, for its backoff. */
  #letterStreak = 0;
  #letterTimer: NodeJS.Timeout | undefined;
  /** The letter writes under way (a retry round): the outbox's close() waits for them before closing the journal. */
  #letterRound: Promise<void> | undefined;
  #stopped = false;

  constructor(options: HeldLettersOptions) {
    this.#journal = options.journal;
    this.#logger = options.logger;
    this.#backoff = options.backoff;
    this.#random = options.random;
    for (const held of options.held) this.#held.set(held.review.id, held);
  }

  /** Writes the letters the journal showed held when it was opened (the outbox starts delivering). */
  start(): void {
    if (this.#held.size === 0) return;
    this.#logger.warn(
      { held: this.#held.size },
      `${this.#held.size} reviews have a known fate whose letter could not be written before; writing their letters now (they are not sent again)`,
    );
    this.#writeHeldLetters();
  }

  /** Appends the letter (fsynced); false when that failed, which is logged with the review whole. */
  async write(kind: LetterKind, review: OutboxReview, reason: FailureReason): Promise<boolean> {
    try {
      await (kind === 'dead' ? this.#journal.appendDeadLetter(review, reason) : this.#journal.appendUnconfirmed(review, reason));
      return true;
    } catch (writeError) {
      this.#logger.error(
        { err: writeError, review, reason },
        `could not write ${this.#journal.letterPath(kind)} (${describeFailure(writeError)}); review ${review.id} stays in the journal as ${kind} ` +
          '(gsa-bridge reviews list shows it) and the letter is written once that works again; it is not sent again',
      );
      return false;
    }
  }

  /** A review whose letter could not be written: it waits here until a retry round writes it. */
  add(held: HeldReview): void {
    this.#held.set(held.review.id, held);
  }

  /** Schedules a retry round after the backoff, unless one is waiting or under way, or nothing is held. */
  retryLater(): void {
    if (this.#stopped || this.#letterTimer !== undefined || this.#letterRound !== undefined || this.#held.size === 0) return;
    this.#letterStreak += 1;
    const delayMs = backoffDelayMs(this.#letterStreak, this.#backoff, this.#random);
    this.#logger.info({ held: this.#held.size, delayMs }, `${this.#held.size} reviews wait for their letter to be written; next try in ${delayMs} ms`);
    this.#letterTimer = setTimeout(() => {
      this.#letterTimer = undefined;
      this.#writeHeldLetters();
    }, delayMs);
    // Held reviews are journaled: a waiting retry is no reason to keep the process alive.
    this.#letterTimer.unref();
  }

  /** No new round starts and a round under way stops after its current letter (the outbox is closing). */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#letterTimer);
    this.#letterTimer = undefined;
  }

  /** Resolves once the round under way, if any, has ended: then the journal may be closed. */
  async settled(): Promise<void> {
    await this.#letterRound;
  }

  /** One round over the held reviews, oldest first: each letter, then its fate; stops at the first failure. */
  #writeHeldLetters(): void {
    if (this.#stopped || this.#letterRound !== undefined) return;
    const round = (async () => {
      for (const held of [...this.#held.values()]) {
        if (this.#stopped) return;
        const { kind, review, reason } = held;
        try {
          await (kind === 'dead' ? this.#journal.appendDeadLetter(review, reason) : this.#journal.appendUnconfirmed(review, reason));
        } catch (error) {
          this.#logger.warn({ err: error, review: review.id }, `still cannot write ${this.#journal.letterPath(kind)} (${describeFailure(error)}); ${this.#held.size} reviews stay held in the journal`);
          return;
        }
        try {
          await this.#journal.appendFate(review.id, { op: kind, reason });
        } catch (error) {
          this.#logger.error({ err: error, review: review.id }, `wrote the letter of review ${review.id} but could not journal its fate; it stays held and its letter may be written twice`);
          return;
        }
        this.#held.delete(review.id);
        this.#logger.info({ review: review.id, fate: kind }, `review ${review.id}: its letter is now in ${this.#journal.letterPath(kind)}`);
      }
      this.#letterStreak = 0;
    })();
    this.#letterRound = round.finally(() => {
      this.#letterRound = undefined;
      this.retryLater();
    });
  }
}
