// The durable review outbox: accepts a player's review, journals it (fsynced) before acknowledging it, and
// delivers it to GSA oldest first, a few at a time, until GSA stores it, refuses it, or answers ambiguously.
// While GSA is unreachable reviews wait with exponential backoff; after a restart unfinished ones are sent again.
// A failure before anything left this process (out of file descriptors, connection refused: `maybeProcessed`
// false) is such an outage, never an ambiguous answer.
// A refusal that is the host's to fix (401 credentials, 404 unknown server) is not the player's fault: those
// reviews stay pending, the outbox backs off and says loudly what to fix. Ambiguous answers are written whole to
// unconfirmed.jsonl and refusals to dead-letter.jsonl, where a person can list and re-queue them (`reviews retry`).
// A review leaves the journal only once its letter is fsynced: when the letter cannot be written (EMFILE, a full
// or read-only disk) the review is journaled `held` (listed under its state by `reviews list`), its outcome is
// told, and the letter write is retried with backoff, also after a restart.
// Delivery is at-least-once: a `sending` record is fsynced before each attempt and `delivered` right after the
// answer, so the only duplicates are reviews whose process died in between; each such re-send after a restart is
// reported (onResend) as a known possible duplicate.
// It must never re-send a review whose earlier attempt may have been stored (a review POST is not idempotent)
// unless a person asks or the process died before the answer was journaled, never change a review's content, and
// never acknowledge or forget a review that is not on disk. Storage and its crash semantics are in reviewJournal.ts;
// held letters, servers GSA does not know, what a failure means and the options each have a module beside this one.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ReviewOutcome } from '../bridge/port.js';
import { JournalWriteError, OutboxClosedError, UnstorableReviewError } from './errors.js';
import { GsaError, RetryLaterError } from '../gsa/errors.js';
import { backoffDelayMs } from '../time/backoff.js';
import { systemClock, type Clock } from '../time/clock.js';
import { allSettledWithin } from '../time/deadline.js';
import { UNCONFIRMED_MESSAGE, classify, defaultHostFix, describeFailure, failureFields, playerMessage, reasonOf } from './deliveryFailures.js';
import { HeldLetters } from './heldLetters.js';
import {
  unstorableReason,
  type AcceptedReview,
  type FailureReason,
  type LetterKind,
  type OutboxReview,
  type RequeueResult,
  type RequeueSelection,
  type ReviewFate,
} from './journalRecords.js';
import {
  DEFAULT_COMPACT_AFTER_FINISHED,
  DEFAULT_CONCURRENCY,
  DEFAULT_RETRY_MAX_DELAY_MS,
  DEFAULT_RETRY_MIN_DELAY_MS,
  delayOption,
  positiveInteger,
  type ReviewOutboxOptions,
  type ReviewSend,
} from './outboxOptions.js';
import { ReviewJournal, type OpenedJournal } from './reviewJournal.js';
import { ServerHolds } from './serverHolds.js';

export type NewReview = Omit<OutboxReview, 'id' | 'queuedAt'>;

// Callers find the outbox's whole surface here, though the review, the options and the host fix have modules of their own.
export type { OutboxReview } from './journalRecords.js';
export type { ReviewOutboxOptions, ReviewSend } from './outboxOptions.js';
export { defaultHostFix };
export { JournalWriteError, OutboxClosedError, ReviewOutboxError, UnstorableReviewError, type ReviewOutboxErrorCode } from './errors.js';

/** How long close() waits for sends in flight; the sidecar's whole shutdown budget is a little more. */
const CLOSE_WAIT_MS = 5000;

interface Entry {
  readonly review: OutboxReview;
  /** Acceptance order, so a review put back after a failed attempt keeps its place. */
  readonly seq: number;
}

export class ReviewOutbox {
  readonly #journal: ReviewJournal;
  readonly #send: ReviewSend;
  readonly #onResult: (review: OutboxReview, outcome: ReviewOutcome) => void;
  readonly #onResend: ((review: OutboxReview) => void) | undefined;
  /** Pending reviews the journal showed in flight when it was opened: their next attempt is a possible duplicate. */
  readonly #inFlightAtOpen: Set<string>;
  /** Reviews whose fate is journaled `held`, and the retries that write their letters. */
  readonly #letters: HeldLetters;
  readonly #logger: Logger;
  readonly #backoff: { readonly minDelayMs: number; readonly maxDelayMs: number };
  readonly #concurrency: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #hostFix: (error: GsaError, server: string) => string;
  /** What the journal still knows was accepted when it was opened: for the cooldowns. */
  readonly #accepted: readonly AcceptedReview[];
  /** Accepted and not in flight, oldest first. */
  readonly #waiting: Entry[];
  /** Sends in flight, until their fate is journaled: what close() waits for, and the concurrency count. */
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Accepted reviews whose fate is not known yet. */
  #unfinished: number;
  #nextSeq: number;
  #started = false;
  #closing = false;
  /** close() stopped waiting for sends in flight: their fates can no longer be journaled or reported. */
  #abandoned = false;
  #closed: Promise<void> | undefined;
  /** Delivery rounds in a row that found GSA unreachable. */
  #failureStreak = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  /** Servers GSA does not know (404), until their own backoff ends: their reviews wait, other servers' go on. */
  readonly #serverHolds: ServerHolds;

  private constructor(options: ReviewOutboxOptions, journal: ReviewJournal, opened: Omit<OpenedJournal, 'journal'>) {
    const { pending, accepted } = opened;
    this.#journal = journal;
    this.#onResend = options.onResend;
    this.#inFlightAtOpen = new Set(opened.inFlight);
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#hostFix = options.describeHostFix ?? defaultHostFix;
    this.#accepted = accepted;
    this.#send = options.send;
    this.#onResult = options.onResult;
    this.#logger = options.logger;
    const minDelayMs = delayOption('retryMinDelayMs', options.retryMinDelayMs, DEFAULT_RETRY_MIN_DELAY_MS);
    this.#backoff = { minDelayMs, maxDelayMs: Math.max(minDelayMs, delayOption('retryMaxDelayMs', options.retryMaxDelayMs, DEFAULT_RETRY_MAX_DELAY_MS)) };
    this.#concurrency = positiveInteger('concurrency', options.concurrency, DEFAULT_CONCURRENCY);
    this.#serverHolds = new ServerHolds(this.#backoff, this.#random);
    this.#letters = new HeldLetters({
      journal,
      logger: this.#logger,
      backoff: this.#backoff,
      random: this.#random,
      held: opened.held,
    });
    this.#waiting = pending.map((review, seq) => ({ review, seq }));
    this.#nextSeq = pending.length;
    this.#unfinished = pending.length;
  }

  /** Reads the journal (tolerating a torn tail, logging what it dropped). Does not start delivering. */
  static async open(options: ReviewOutboxOptions): Promise<ReviewOutbox> {
    // Checked before touching the disk, so a bad option leaves no files behind.
    delayOption('retryMinDelayMs', options.retryMinDelayMs, DEFAULT_RETRY_MIN_DELAY_MS);
    delayOption('retryMaxDelayMs', options.retryMaxDelayMs, DEFAULT_RETRY_MAX_DELAY_MS);
    positiveInteger('concurrency', options.concurrency, DEFAULT_CONCURRENCY);
    const compactAfterFinished = positiveInteger('compactAfterFinished', options.compactAfterFinished, DEFAULT_COMPACT_AFTER_FINISHED);
    const { journal, ...opened } = await ReviewJournal.open({
      dataDir: options.dataDir,
      logger: options.logger,
      compactAfterFinished,
      retainAcceptedMs: options.retainAcceptedMs,
      clock: options.clock,
    });
    if (opened.damaged > 0) options.onDamaged?.(opened.damaged);
    return new ReviewOutbox(options, journal, opened);
  }

  /** Reviews the journal still knew were accepted when it was opened, oldest first: to rebuild the cooldowns. */
  get accepted(): readonly AcceptedReview[] {
    return this.#accepted;
  }

  /**
   * Re-queues dead or unconfirmed reviews a person chose (`gsa-bridge reviews retry`): journaled again, then
   * delivered like new ones, after those already waiting. Rejects with a ReviewOutboxError('closed') once closing.
   */
  async requeue(selection: RequeueSelection): Promise<RequeueResult> {
    if (this.#closing) throw new OutboxClosedError('the review outbox is closed (the sidecar is shutting down); nothing was re-queued');
    let result: RequeueResult;
    try {
      result = await this.#journal.requeue(selection);
    } catch (error) {
      throw new JournalWriteError(`the reviews could not be re-queued: ${describeFailure(error)}`, { cause: error });
    }
    for (const review of result.requeued) {
      this.#waiting.push({ review, seq: this.#nextSeq++ });
      this.#unfinished += 1;
    }
    if (result.requeued.length > 0) this.#logger.info({ reviews: result.requeued.map((review) => review.id) }, `re-queued ${result.requeued.length} reviews`);
    this.#pump();
    return result;
  }

  /** Where the letters of a kind are written (dead-letter.jsonl, unconfirmed.jsonl). */
  letterPath(kind: LetterKind): string {
    return this.#journal.letterPath(kind);
  }

  /**
   * Stores the review durably (written and fsynced) and resolves with it; only then may the caller tell the
   * player it was queued. Rejects with a ReviewOutboxError, and then nothing was stored.
   */
  async enqueue(input: NewReview): Promise<OutboxReview> {
    if (this.#closing) throw new OutboxClosedError('the review outbox is closed (the sidecar is shutting down); the review was not stored');
    // Copied field by field: what is journaled must be exactly what is later sent, whatever the caller does with its object.
    const review: OutboxReview = {
      id: randomUUID(),
      server: input.server,
      player: {
        ...(input.player.steamId === undefined ? {} : { steamId: input.player.steamId }),
        ...(input.player.eosId === undefined ? {} : { eosId: input.player.eosId }),
        ...(input.player.name === undefined ? {} : { name: input.player.name }),
      },
      stars: input.stars,
      comment: input.comment,
      origin: {
        adapter: input.origin.adapter,
        ref: input.origin.ref,
        ...(input.origin.requestId === undefined ? {} : { requestId: input.origin.requestId }),
      },
      queuedAt: this.#clock.now(),
    };
    const problem = unstorableReason(review);
    if (problem !== undefined) throw new UnstorableReviewError(`the review cannot be stored: ${problem}`);
    try {
      await this.#journal.appendQueued(review);
    } catch (error) {
      throw new JournalWriteError(`the review could not be stored durably: ${describeFailure(error)}`, { cause: error });
    }
    this.#waiting.push({ review, seq: this.#nextSeq++ });
    this.#unfinished += 1;
    this.#pump();
    return review;
  }

  /** Begins delivering: reviews replayed from the journal first, then new ones. Does nothing once closed. */
  start(): void {
    // A shutdown may overtake a startup; the pending reviews are on disk for the next run, so this is no error.
    if (this.#closing) {
      this.#logger.debug('start() after close(): not delivering');
      return;
    }
    if (this.#started) return;
    this.#started = true;
    if (this.#waiting.length > 0) this.#logger.info({ pending: this.#waiting.length }, `delivering ${this.#waiting.length} pending reviews`);
    this.#letters.start();
    this.#pump();
  }

  /** Accepted and not yet finished (no fate known yet): for the gsa_bridge_outbox_pending gauge. */
  get pending(): number {
    return this.#unfinished;
  }

  /**
   * Stops starting deliveries, waits up to 5 s for sends in flight to settle and be journaled, then flushes,
   * fsyncs and closes the journal. Idempotent; enqueue rejects afterwards.
   */
  close(): Promise<void> {
    this.#closed ??= this.#shutDown();
    return this.#closed;
  }

  async #shutDown(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#letters.stop();
    this.#serverHolds.clear();
    const inFlight = [...this.#inFlight.values()];
    if (inFlight.length > 0 && !(await allSettledWithin(inFlight, CLOSE_WAIT_MS))) {
      this.#abandoned = true;
      this.#logger.warn(
        { inFlight: this.#inFlight.size },
        `${this.#inFlight.size} reviews were still being sent after ${CLOSE_WAIT_MS / 1000} s; their outcome is not journaled, so they will be sent again after a restart`,
      );
    }
    await this.#letters.settled();
    await this.#journal.close();
  }

  #pump(): void {
    if (!this.#started || this.#closing || this.#retryTimer !== undefined) return;
    while (this.#inFlight.size < this.#concurrency) {
      // Oldest first, skipping servers on hold, so one misnamed server cannot block the others' reviews.
      const index = this.#serverHolds.size === 0 ? 0 : this.#waiting.findIndex((waiting) => !this.#serverHolds.has(waiting.review.server));
      const entry = index === -1 ? undefined : this.#waiting.splice(index, 1)[0];
      if (entry === undefined) return;
      this.#inFlight.set(entry.review.id, this.#deliver(entry));
    }
  }

  /** One attempt at one review, then its journaling and report. Never rejects. */
  async #deliver(entry: Entry): Promise<void> {
    const { review } = entry;
    try {
      await this.#markSending(review);
      let stored: { readonly receipt: string | undefined } | undefined;
      let failure: unknown;
      try {
        const receipt = await this.#send(review);
        stored = { receipt: receipt ? receipt.message : undefined };
      } catch (error) {
        failure = error;
      }
      if (this.#abandoned) return;
      if (stored !== undefined) {
        await this.#finish(review, { op: 'delivered', receipt: stored.receipt }, { ok: true });
        return;
      }
      const classified = classify(failure);
      switch (classified.kind) {
        case 'unconfirmed':
          await this.#unconfirmed(review, classified.error);
          return;
        case 'dead':
          await this.#dead(review, classified.error);
          return;
        case 'host':
          this.#markNotSent(review);
          // Bad credentials stop every review; an unknown server only its own.
          if (classified.error.code === 'not_found') this.#holdServer(entry, classified.error);
          else this.#retryLater(entry, classified.error, this.#hostFix(classified.error, review.server));
          return;
        case 'retry':
          this.#markNotSent(review);
          this.#retryLater(entry, failure);
          return;
      }
    } catch (error) {
      // Only a bug gets here (every expected failure is handled above); the review stays journaled as pending.
      this.#logger.error({ err: error, review: review.id }, `review ${review.id}: unexpected failure in the outbox; it stays pending until a restart`);
    } finally {
      this.#inFlight.delete(review.id);
      this.#pump();
    }
  }

  /**
   * Journals (fsynced) that this attempt is about to leave, and reports a re-send of a review that was in flight
   * when the previous process stopped. A journal that cannot take the record does not stop the delivery.
   */
  async #markSending(review: OutboxReview): Promise<void> {
    if (this.#inFlightAtOpen.delete(review.id)) {
      this.#logger.warn(
        { review: review.id, server: review.server },
        `review ${review.id} for ${review.server} was being sent when the sidecar stopped, with no answer journaled; sending it again (GSA may store it twice)`,
      );
      try {
        this.#onResend?.(review);
      } catch (error) {
        this.#logger.error({ err: error, review: review.id }, 'onResend threw; the review is sent anyway');
      }
    }
    try {
      await this.#journal.appendSending(review.id);
    } catch (error) {
      this.#logger.warn(
        { err: error, review: review.id },
        `could not journal that review ${review.id} is being sent (${describeFailure(error)}); sending it anyway: should the sidecar die before its answer is journaled, its re-send is not counted as a possible duplicate`,
      );
    }
  }

  /** The attempt surely stored nothing: the journal need not count its next one as a possible duplicate. */
  #markNotSent(review: OutboxReview): void {
    this.#journal.appendNotSent(review.id).catch((error: unknown) => {
      this.#logger.debug({ err: error, review: review.id }, `could not journal that review ${review.id} was not sent`);
    });
  }

  async #unconfirmed(review: OutboxReview, error: GsaError): Promise<void> {
    const reason = reasonOf(error);
    // Written whole before the fate, like a dead letter: the fate line alone would vanish at the next compaction.
    if (!(await this.#letters.write('unconfirmed', review, reason))) {
      await this.#hold(review, 'unconfirmed', reason, { ok: false, error: { code: 'unconfirmed', message: UNCONFIRMED_MESSAGE } });
      return;
    }
    this.#logger.warn(
      { review: review.id, server: review.server, code: error.code, status: error.status },
      `review ${review.id} for ${review.server}: GSA did not confirm it (${error.message}); it may have been stored, so it will not be sent again ` +
        `unless you re-queue it (gsa-bridge reviews retry ${review.id}); written to ${this.#journal.letterPath('unconfirmed')}`,
    );
    await this.#finish(review, { op: 'unconfirmed', reason }, { ok: false, error: { code: 'unconfirmed', message: UNCONFIRMED_MESSAGE } });
  }

  async #dead(review: OutboxReview, error: GsaError): Promise<void> {
    const reason = reasonOf(error);
    // The dead letter is written first: a crash before the journal's `dead` record then means a second
    // refusal (and a second dead letter) after the restart, never a refused review nobody can find.
    if (!(await this.#letters.write('dead', review, reason))) {
      await this.#hold(review, 'dead', reason, { ok: false, error: { code: error.code, message: playerMessage(error) } });
      return;
    }
    this.#logger.warn(
      { review: review.id, server: review.server, code: error.code, status: error.status },
      `review ${review.id} for ${review.server} was refused by GSA (${error.message}); written to ${this.#journal.letterPath('dead')}`,
    );
    await this.#finish(review, { op: 'dead', reason }, { ok: false, error: { code: error.code, message: playerMessage(error) } });
  }

  /**
   * The fate is known but its letter could not be written: the review stays in the journal as `held` (listed under
   * its state, never sent again), its outcome is told, and the letter write is retried with backoff.
   */
  async #hold(review: OutboxReview, kind: LetterKind, reason: FailureReason, outcome: ReviewOutcome): Promise<void> {
    this.#letters.add({ kind, review, reason });
    this.#unfinished -= 1;
    this.#serverHolds.answered(review.server);
    // Refused, GSA answered; an unconfirmed review says nothing about reachability.
    if (kind === 'dead') this.#recovered(review);
    try {
      this.#onResult(review, outcome);
    } catch (error) {
      this.#logger.error({ err: error, review: review.id }, 'onResult threw; the review outcome was journaled anyway');
    }
    try {
      await this.#journal.appendHeld(review.id, kind, reason);
    } catch (error) {
      this.#logger.error(
        { err: error, review: review.id, fate: kind },
        `could not journal that review ${review.id} is ${kind} either (${describeFailure(error)}); it stays pending in the journal, so after a restart it would be sent again`,
      );
    }
    this.#letters.retryLater();
  }

  /** Journals the fate and reports it without waiting for the fsync (see reviewJournal.ts), then waits for it. */
  async #finish(review: OutboxReview, fate: ReviewFate, outcome: ReviewOutcome): Promise<void> {
    const journaled = this.#journal.appendFate(review.id, fate);
    this.#unfinished -= 1;
    this.#serverHolds.answered(review.server);
    // Stored or refused, GSA answered; an unconfirmed review says nothing about reachability.
    if (fate.op !== 'unconfirmed') this.#recovered(review);
    if (fate.op === 'delivered') this.#logger.debug({ review: review.id, server: review.server }, `review ${review.id} delivered`);
    try {
      this.#onResult(review, outcome);
    } catch (error) {
      this.#logger.error({ err: error, review: review.id }, 'onResult threw; the review outcome was journaled anyway');
    }
    try {
      await journaled;
    } catch (error) {
      this.#logger.error(
        { err: error, review: review.id, fate: fate.op },
        `could not journal that review ${review.id} is ${fate.op}; after a restart it would be sent again`,
      );
    }
  }

  /**
   * GSA answered `review` (stored or refused): a failure streak is over. Called once that review is counted out, so
   * `#unfinished` is what is still to deliver; "delivering 0" would read as if nothing, this review included, went.
   */
  #recovered(review: OutboxReview): void {
    if (this.#failureStreak === 0) return;
    this.#failureStreak = 0;
    const pending = this.#unfinished;
    const rest = pending === 0 ? '' : `; delivering the ${pending} ${pending === 1 ? 'review' : 'reviews'} still pending`;
    this.#logger.info({ review: review.id, pending }, `GSA reachable again (it answered review ${review.id})${rest}`);
  }

  /** GSA does not know this review's server: its reviews wait, with their own backoff and an error line each round. */
  #holdServer(entry: Entry, error: GsaError): void {
    const { server } = entry.review;
    this.#putBack(entry);
    if (this.#closing) return;
    const held = this.#serverHolds.hold(server, () => {
      this.#pump();
    });
    if (held === undefined) return;
    const { delayMs, streak } = held;
    const waiting = this.#waiting.filter((waiting) => waiting.review.server === server).length;
    this.#logger.error(
      { ...failureFields(error), server, pending: waiting, delayMs, streak },
      `${this.#hostFix(error, server)}; its ${waiting} reviews stay pending (none is dropped), next try in ${delayMs} ms; other servers' reviews go on`,
    );
  }

  /** Back into the waiting line at its place by acceptance order. */
  #putBack(entry: Entry): void {
    const index = this.#waiting.findIndex((waiting) => waiting.seq > entry.seq);
    this.#waiting.splice(index === -1 ? this.#waiting.length : index, 0, entry);
  }

  /** `hostFix` set: GSA refused because of the host's setup; said at error level on every round, with what to fix. */
  #retryLater(entry: Entry, error: unknown, hostFix?: string): void {
    this.#putBack(entry);
    // One wait per round: the other sends of the round that fail too do not lengthen it.
    if (this.#closing || this.#retryTimer !== undefined) return;
    this.#failureStreak += 1;
    const delayMs = this.#backoffMs(error);
    const fields = { ...failureFields(error), pending: this.pending, delayMs, streak: this.#failureStreak };
    if (hostFix !== undefined) {
      // Once per round, and rounds back off up to retryMaxDelayMs: loud without flooding the log.
      this.#logger.error(fields, `${hostFix}; ${this.pending} reviews stay pending (none is dropped), next try in ${delayMs} ms`);
    } else if (this.#failureStreak === 1) {
      this.#logger.warn(fields, `cannot deliver reviews to GSA (${describeFailure(error)}); ${this.pending} pending, next try in ${delayMs} ms`);
    } else {
      this.#logger.debug(fields, `GSA still unreachable (${describeFailure(error)}); next try in ${delayMs} ms`);
    }
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#pump();
    }, delayMs);
    // Pending reviews are on disk: a waiting retry is no reason to keep the process alive.
    this.#retryTimer.unref();
  }

  /** The project's backoff (exponential, 50–100% jitter); a longer Retry-After from GSA wins, up to the maximum. */
  #backoffMs(error: unknown): number {
    const jittered = backoffDelayMs(this.#failureStreak, this.#backoff, this.#random);
    const asked = error instanceof RetryLaterError && error.retryAfterMs !== undefined ? Math.min(error.retryAfterMs, this.#backoff.maxDelayMs) : 0;
    return Math.max(jittered, asked);
  }
}
