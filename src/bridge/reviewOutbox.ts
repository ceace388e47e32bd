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
// never acknowledge or forget a review that is not on disk. Storage and its crash semantics are in reviewJournal.ts.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { GsaError, RetryLaterError, type GsaErrorCode } from '../gsa/errors.js';
import type { ReviewReceipt } from '../gsa/types.js';
import { backoffDelayMs } from '../time/backoff.js';
import { systemClock, type Clock } from '../time/clock.js';
import { allSettledWithin } from '../time/deadline.js';
import {
  unstorableReason,
  type AcceptedReview,
  type FailureReason,
  type HeldReview,
  type LetterKind,
  type OutboxReview,
  type RequeueResult,
  type RequeueSelection,
  type ReviewFate,
} from '../reviews/journalRecords.js';
import { ReviewJournal, type OpenedJournal } from '../reviews/reviewJournal.js';
import type { ReviewOutcome } from './port.js';
import { reviewReasonCode } from './reviewReasons.js';

// Defined with the journal's records (which store it); re-exported where callers always found it.
export type { OutboxReview } from '../reviews/journalRecords.js';

export type NewReview = Omit<OutboxReview, 'id' | 'queuedAt'>;

/** Delivers one review (see ReviewOutboxOptions.send). */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a sender that does not pass GSA's receipt on (an async function with no return) resolves with void
export type ReviewSend = (review: OutboxReview) => Promise<ReviewReceipt | void>;

export interface ReviewOutboxOptions {
  /** Where reviews.jsonl, dead-letter.jsonl and unconfirmed.jsonl live; created (0700) if missing. The caller holds its lock (dataDirLock.ts). */
  readonly dataDir: string;
  /**
   * Delivers one review; resolves when GSA stored it, with GSA's receipt when the sender passes it on (kept in the
   * delivered history that `reviews list --state delivered` shows); rejects with a GsaError otherwise.
   */
  readonly send: ReviewSend;
  /** Told once per review when its fate is known (delivered, refused, or unconfirmed). Must not throw. */
  readonly onResult: (review: OutboxReview, outcome: ReviewOutcome) => void;
  /**
   * Told when a review that was in flight when the previous process stopped (its journal shows it sent, with no
   * answer) is sent again: GSA may store it twice. Once per review and restart. Must not throw.
   */
  readonly onResend?: ((review: OutboxReview) => void) | undefined;
  readonly logger: Logger;
  /** Backoff between delivery rounds while GSA is unreachable, with 50–100% jitter. Default 1000 ms. */
  readonly retryMinDelayMs?: number;
  /** Longest backoff. Default 60 000 ms. */
  readonly retryMaxDelayMs?: number;
  /** Reviews in flight at once (the client's rate limiter still applies). Default 4. */
  readonly concurrency?: number;
  /** Rewrite the journal once it holds this many finished records. Default 1000. */
  readonly compactAfterFinished?: number;
  /** Finished reviews younger than this are remembered through compactions, for the players' cooldown. Default 0. */
  readonly retainAcceptedMs?: number;
  /** queuedAt and the journal's times; default the system clock. */
  readonly clock?: Clock;
  /** Backoff jitter, in [0, 1); default Math.random. */
  readonly random?: () => number;
  /** What a host must fix when GSA refuses our setup (401, 404), for the log. @default defaultHostFix */
  readonly describeHostFix?: (error: GsaError, server: string) => string;
}

export { JournalWriteError, OutboxClosedError, ReviewOutboxError, UnstorableReviewError, type ReviewOutboxErrorCode } from './errors.js';
import { JournalWriteError, OutboxClosedError, UnstorableReviewError } from './errors.js';

const DEFAULT_RETRY_MIN_DELAY_MS = 1000;
const DEFAULT_RETRY_MAX_DELAY_MS = 60_000;
const DEFAULT_CONCURRENCY = 4;
const DEFAULT_COMPACT_AFTER_FINISHED = 1000;
/** How long close() waits for sends in flight; the sidecar's whole shutdown budget is a little more. */
const CLOSE_WAIT_MS = 5000;

const UNCONFIRMED_MESSAGE = 'GSA did not confirm the review; it may have been stored. It was not sent again.';

/** Refusals that another attempt cannot change: the player's or the review's own problem. */
const PERMANENT_CODES: ReadonlySet<GsaErrorCode> = new Set(['forbidden', 'invalid', 'refused', 'invalid_input']);
/** Refusals that say the host's setup is wrong: every review would get them, so none is the player's fault. */
const HOST_SETUP_CODES: ReadonlySet<GsaErrorCode> = new Set(['unauthorized', 'not_found']);

type Failure =
  | { readonly kind: 'unconfirmed' | 'dead'; readonly error: GsaError }
  | { readonly kind: 'host'; readonly error: GsaError }
  | { readonly kind: 'retry' };

function classify(error: unknown): Failure {
  // Anything that is not a GsaError is a bug on our side: GSA never saw the review, so keeping it is safe.
  if (!(error instanceof GsaError)) return { kind: 'retry' };
  if (error.maybeProcessed) return { kind: 'unconfirmed', error };
  if (HOST_SETUP_CODES.has(error.code)) return { kind: 'host', error };
  return PERMANENT_CODES.has(error.code) ? { kind: 'dead', error } : { kind: 'retry' };
}

/**
 * What the host has to fix, without naming config keys (the outbox knows no config file): the composition root
 * passes `describeHostFix` to say it in the config file's words.
 */
export function defaultHostFix(error: GsaError, server: string): string {
  return error.code === 'unauthorized'
    ? 'GSA refused the API credentials: check the client id and secret (and that the server is bound to these keys)'
    : `GSA does not know server ${server}: check the server's name (the GSA container name) and the service URL`;
}

/** Why a review ended, for its letter and the journal: in the mod protocol's words (reviewReasons.ts). */
function reasonOf(error: GsaError): FailureReason {
  return { code: reviewReasonCode(error.code), status: error.status ?? null, message: error.message };
}

/** The service's own words reach the player; an empty service message would tell them nothing. */
function playerMessage(error: GsaError): string {
  const service = error.serviceMessage?.trim();
  return service !== undefined && service.length > 0 ? service : error.message;
}

function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function failureFields(error: unknown): Record<string, unknown> {
  return error instanceof GsaError ? { code: error.code, status: error.status } : { err: error };
}

function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < 1) throw new RangeError(`${name} must be a whole number of 1 or more, got ${String(value)}`);
  return chosen;
}

function delayOption(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isFinite(chosen) || chosen < 0) throw new RangeError(`${name} must be 0 or more milliseconds, got ${String(value)}`);
  return chosen;
}

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
  /** Reviews whose fate is journaled `held`: their letters still have to be written, oldest first. */
  readonly #held = new Map<string, HeldReview>();
  /** Rounds in a row a letter write failed, for its backoff. */
  #letterStreak = 0;
  #letterTimer: NodeJS.Timeout | undefined;
  /** The letter writes under way (a retry round): close() waits for them before closing the journal. */
  #letterRound: Promise<void> | undefined;
  readonly #logger: Logger;
  readonly #minDelayMs: number;
  readonly #maxDelayMs: number;
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
  readonly #heldServers = new Map<string, NodeJS.Timeout>();
  /** Rounds in a row each held server got a 404, for its backoff. */
  readonly #serverStreaks = new Map<string, number>();

  private constructor(options: ReviewOutboxOptions, journal: ReviewJournal, opened: Omit<OpenedJournal, 'journal'>) {
    const { pending, accepted } = opened;
    this.#journal = journal;
    this.#onResend = options.onResend;
    this.#inFlightAtOpen = new Set(opened.inFlight);
    for (const held of opened.held) this.#held.set(held.review.id, held);
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#hostFix = options.describeHostFix ?? defaultHostFix;
    this.#accepted = accepted;
    this.#send = options.send;
    this.#onResult = options.onResult;
    this.#logger = options.logger;
    this.#minDelayMs = delayOption('retryMinDelayMs', options.retryMinDelayMs, DEFAULT_RETRY_MIN_DELAY_MS);
    this.#maxDelayMs = Math.max(this.#minDelayMs, delayOption('retryMaxDelayMs', options.retryMaxDelayMs, DEFAULT_RETRY_MAX_DELAY_MS));
    this.#concurrency = positiveInteger('concurrency', options.concurrency, DEFAULT_CONCURRENCY);
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
    if (this.#held.size > 0) {
      this.#logger.warn(
        { held: this.#held.size },
        `${this.#held.size} reviews have a known fate whose letter could not be written before; writing their letters now (they are not sent again)`,
      );
      this.#writeHeldLetters();
    }
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
    clearTimeout(this.#letterTimer);
    this.#letterTimer = undefined;
    for (const timer of this.#heldServers.values()) clearTimeout(timer);
    this.#heldServers.clear();
    const inFlight = [...this.#inFlight.values()];
    if (inFlight.length > 0 && !(await allSettledWithin(inFlight, CLOSE_WAIT_MS))) {
      this.#abandoned = true;
      this.#logger.warn(
        { inFlight: this.#inFlight.size },
        `${this.#inFlight.size} reviews were still being sent after ${CLOSE_WAIT_MS / 1000} s; their outcome is not journaled, so they will be sent again after a restart`,
      );
    }
    await this.#letterRound;
    await this.#journal.close();
  }

  #pump(): void {
    if (!this.#started || this.#closing || this.#retryTimer !== undefined) return;
    while (this.#inFlight.size < this.#concurrency) {
      // Oldest first, skipping servers on hold, so one misnamed server cannot block the others' reviews.
      const index = this.#heldServers.size === 0 ? 0 : this.#waiting.findIndex((waiting) => !this.#heldServers.has(waiting.review.server));
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
    if (!(await this.#writeLetter('unconfirmed', review, reason))) {
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
    if (!(await this.#writeLetter('dead', review, reason))) {
      await this.#hold(review, 'dead', reason, { ok: false, error: { code: error.code, message: playerMessage(error) } });
      return;
    }
    this.#logger.warn(
      { review: review.id, server: review.server, code: error.code, status: error.status },
      `review ${review.id} for ${review.server} was refused by GSA (${error.message}); written to ${this.#journal.letterPath('dead')}`,
    );
    await this.#finish(review, { op: 'dead', reason }, { ok: false, error: { code: error.code, message: playerMessage(error) } });
  }

  /** Appends the letter (fsynced); false when that failed, which is logged with the review whole. */
  async #writeLetter(kind: LetterKind, review: OutboxReview, reason: FailureReason): Promise<boolean> {
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

  /**
   * The fate is known but its letter could not be written: the review stays in the journal as `held` (listed under
   * its state, never sent again), its outcome is told, and the letter write is retried with backoff.
   */
  async #hold(review: OutboxReview, kind: LetterKind, reason: FailureReason, outcome: ReviewOutcome): Promise<void> {
    this.#held.set(review.id, { kind, review, reason });
    this.#unfinished -= 1;
    this.#serverStreaks.delete(review.server);
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
    this.#scheduleLetterRetry();
  }

  #scheduleLetterRetry(): void {
    if (this.#closing || this.#letterTimer !== undefined || this.#letterRound !== undefined || this.#held.size === 0) return;
    this.#letterStreak += 1;
    const delayMs = backoffDelayMs(this.#letterStreak, { minDelayMs: this.#minDelayMs, maxDelayMs: this.#maxDelayMs }, this.#random);
    this.#logger.info({ held: this.#held.size, delayMs }, `${this.#held.size} reviews wait for their letter to be written; next try in ${delayMs} ms`);
    this.#letterTimer = setTimeout(() => {
      this.#letterTimer = undefined;
      this.#writeHeldLetters();
    }, delayMs);
    // Held reviews are journaled: a waiting retry is no reason to keep the process alive.
    this.#letterTimer.unref();
  }

  /** One round over the held reviews, oldest first: each letter, then its fate; stops at the first failure. */
  #writeHeldLetters(): void {
    if (this.#closing || this.#letterRound !== undefined) return;
    const round = (async () => {
      for (const held of [...this.#held.values()]) {
        if (this.#closing) return;
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
      this.#scheduleLetterRetry();
    });
  }

  /** Journals the fate and reports it without waiting for the fsync (see reviewJournal.ts), then waits for it. */
  async #finish(review: OutboxReview, fate: ReviewFate, outcome: ReviewOutcome): Promise<void> {
    const journaled = this.#journal.appendFate(review.id, fate);
    this.#unfinished -= 1;
    this.#serverStreaks.delete(review.server);
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
    if (this.#closing || this.#heldServers.has(server)) return;
    const streak = (this.#serverStreaks.get(server) ?? 0) + 1;
    this.#serverStreaks.set(server, streak);
    const delayMs = backoffDelayMs(streak, { minDelayMs: this.#minDelayMs, maxDelayMs: this.#maxDelayMs }, this.#random);
    const waiting = this.#waiting.filter((waiting) => waiting.review.server === server).length;
    this.#logger.error(
      { ...failureFields(error), server, pending: waiting, delayMs, streak },
      `${this.#hostFix(error, server)}; its ${waiting} reviews stay pending (none is dropped), next try in ${delayMs} ms; other servers' reviews go on`,
    );
    const timer = setTimeout(() => {
      this.#heldServers.delete(server);
      this.#pump();
    }, delayMs);
    timer.unref();
    this.#heldServers.set(server, timer);
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
    const jittered = backoffDelayMs(this.#failureStreak, { minDelayMs: this.#minDelayMs, maxDelayMs: this.#maxDelayMs }, this.#random);
    const asked = error instanceof RetryLaterError && error.retryAfterMs !== undefined ? Math.min(error.retryAfterMs, this.#maxDelayMs) : 0;
    return Math.max(jittered, asked);
  }
}
