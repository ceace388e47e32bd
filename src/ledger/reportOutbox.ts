// The durable report outbox (the bridge's ReportStore): stores a player's report (fsynced) before acknowledging it,
// then sends it to GSA oldest first, a few at a time, until GSA stores it, refuses it, or may have it.
// A send that surely never reached GSA (`maybeProcessed` false, a cause that passes with time) is journaled
// `not_sent` and tried again with the project's backoff; a refusal is final; anything that may have reached GSA is
// `unconfirmed` and never sent again: a report POST is not idempotent, so a report is delivered at most once, and
// either delivered or listed (`gsa-bridge reports list`) whatever kills the process and when.
// It must never start a send before its `sending` record is fsynced, never resend a report whose attempt may have
// landed, never acknowledge a report that is not on disk, and never change a report's content. Storage and its
// crash semantics are in reportJournal.ts, what a failure means in reportFailures.ts.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ReportOutcome } from '../bridge/port.js';
import type { ReportStore, ReportToStore } from '../bridge/reportStore.js';
import { describeError } from '../reviews/durableFiles.js';
import { backoffDelayMs } from '../time/backoff.js';
import { systemClock, type Clock } from '../time/clock.js';
import { allSettledWithin } from '../time/deadline.js';
import { ReportJournalWriteError, ReportOutboxClosedError, ReportOutboxError } from './errors.js';
import { classifyReportFailure, UNCONFIRMED_CODE, UNCONFIRMED_MESSAGE } from './reportFailures.js';
import { ReportJournal } from './reportJournal.js';
import type { ReportFate, ReportReason, StoredReport } from './reportRecords.js';
import type { ReportEntry } from './reportStates.js';

export type { StoredReport } from './reportRecords.js';
export type { ReportEntry, ReportState } from './reportStates.js';

/** Sends one report to GSA; resolves with GSA's message, rejects with a GsaError (src/gsa/errors.ts) otherwise. */
export type ReportSend = (report: StoredReport) => Promise<{ readonly message: string }>;

export interface ReportOutboxOptions {
  /** Where reports.jsonl lives; created (0700) if missing. The caller holds its lock (src/datadir/dataDirLock.ts). */
  readonly dataDir: string;
  readonly send: ReportSend;
  /** Told once per report when its fate is known while running (delivered, refused, unconfirmed). Must not throw. */
  readonly onResult: (report: StoredReport, outcome: ReportOutcome) => void;
  readonly logger: Logger;
  /** Record times and the journal's; default the system clock. */
  readonly clock?: Clock | undefined;
  /** Backoff jitter, in [0, 1); default Math.random. */
  readonly random?: (() => number) | undefined;
  /** Backoff between delivery rounds while reports cannot be sent: default 1 s to 60 s, 50–100% jitter. */
  readonly retry?: { readonly minDelayMs?: number | undefined; readonly maxDelayMs?: number | undefined } | undefined;
  /** Reports in flight at once. Default 2. */
  readonly concurrency?: number | undefined;
  /** Journal bounds (reportJournal.ts): rewrite past this many settled reports (default 2000), keeping this many (1000). */
  readonly compactAfterSettled?: number | undefined;
  readonly keepSettled?: number | undefined;
}

const DEFAULT_MIN_DELAY_MS = 1000;
const DEFAULT_MAX_DELAY_MS = 60_000;
const DEFAULT_CONCURRENCY = 2;
/** How long close() waits for sends in flight; their reports stay `sending` on disk (unconfirmed at the next start). */
const CLOSE_WAIT_MS = 5000;

function wholeNumber(name: string, value: number | undefined, fallback: number, min: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < min) throw new RangeError(`${name} must be a whole number of ${min} or more, got ${String(value)}`);
  return chosen;
}

function checkedOptions(options: ReportOutboxOptions): { concurrency: number; minDelayMs: number; maxDelayMs: number; compactAfterSettled: number; keepSettled: number } {
  const minDelayMs = wholeNumber('retry.minDelayMs', options.retry?.minDelayMs, DEFAULT_MIN_DELAY_MS, 0);
  const maxDelayMs = Math.max(minDelayMs, wholeNumber('retry.maxDelayMs', options.retry?.maxDelayMs, DEFAULT_MAX_DELAY_MS, 0));
  const compactAfterSettled = wholeNumber('compactAfterSettled', options.compactAfterSettled, 2000, 2);
  const keepSettled = wholeNumber('keepSettled', options.keepSettled, Math.min(1000, compactAfterSettled - 1), 1);
  if (keepSettled >= compactAfterSettled) throw new RangeError(`keepSettled (${keepSettled}) must be less than compactAfterSettled (${compactAfterSettled})`);
  return { concurrency: wholeNumber('concurrency', options.concurrency, DEFAULT_CONCURRENCY, 1), minDelayMs, maxDelayMs, compactAfterSettled, keepSettled };
}

export class ReportOutbox implements ReportStore {
  readonly #journal: ReportJournal;
  readonly #send: ReportSend;
  readonly #onResult: ReportOutboxOptions['onResult'];
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #backoff: { readonly minDelayMs: number; readonly maxDelayMs: number };
  readonly #concurrency: number;
  readonly #unconfirmedAtOpen: number;
  /** Stored and not in flight, oldest first. */
  readonly #waiting: StoredReport[];
  /** Sends in flight until their outcome is journaled: what close() waits for. */
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Stored reports with no fate yet. */
  #unsettled: number;
  #started = false;
  #closing = false;
  #closed: Promise<void> | undefined;
  /** close() stopped waiting for sends in flight: their outcomes can no longer be journaled or told. */
  #abandoned = false;
  /** Rounds in a row whose sends could not go out. */
  #failureStreak = 0;
  #retryTimer: NodeJS.Timeout | undefined;

  private constructor(options: ReportOutboxOptions, journal: ReportJournal, pending: readonly StoredReport[], unconfirmedAtOpen: number, checked: ReturnType<typeof checkedOptions>) {
    this.#journal = journal;
    this.#send = options.send;
    this.#onResult = options.onResult;
    this.#logger = options.logger;
    this.#random = options.random ?? Math.random;
    this.#backoff = { minDelayMs: checked.minDelayMs, maxDelayMs: checked.maxDelayMs };
    this.#concurrency = checked.concurrency;
    this.#waiting = [...pending];
    this.#unsettled = pending.length;
    this.#unconfirmedAtOpen = unconfirmedAtOpen;
  }

  /**
   * Reads the journal (repairing a torn or damaged file, settling as unconfirmed what the last run may have sent).
   * Does not start sending: start() does.
   */
  static async open(options: ReportOutboxOptions): Promise<ReportOutbox> {
    // Checked before touching the disk, so a bad option leaves no files behind.
    const checked = checkedOptions(options);
    const opened = await ReportJournal.open({
      dataDir: options.dataDir,
      logger: options.logger,
      clock: options.clock ?? systemClock,
      compactAfterSettled: checked.compactAfterSettled,
      keepSettled: checked.keepSettled,
    });
    return new ReportOutbox(options, opened.journal, opened.pending, opened.unconfirmedAtOpen.length, checked);
  }

  /** Stored reports with no fate yet (pending or being sent). */
  get pending(): number {
    return this.#unsettled;
  }

  /** Reports this open settled as unconfirmed: the last run stopped while sending them (each logged once). */
  get unconfirmedAtOpen(): number {
    return this.#unconfirmedAtOpen;
  }

  /** Every report the journal holds, with its state, in acceptance order. */
  list(): ReportEntry[] {
    return this.#journal.list();
  }

  /**
   * Stores the report durably (its `queued` record fsynced) and resolves with its id; only then may the player be
   * told it is queued. Rejects with a ReportOutboxError, and then nothing was stored.
   */
  async enqueue(report: ReportToStore): Promise<{ readonly id: string }> {
    if (this.#closing) throw new ReportOutboxClosedError('the report outbox is closed (the sidecar is shutting down); the report was not stored');
    let stored: StoredReport;
    try {
      stored = await this.#journal.appendQueued(randomUUID(), report);
    } catch (error) {
      if (error instanceof ReportOutboxError) throw error;
      throw new ReportJournalWriteError(`the report could not be stored durably: ${describeError(error)}`, { cause: error });
    }
    this.#unsettled += 1;
    this.#waiting.push(stored);
    this.#pump();
    return { id: stored.id };
  }

  /** Begins sending: the reports found pending at open first, then new ones. Does nothing once closing. */
  start(): void {
    if (this.#closing || this.#started) return;
    this.#started = true;
    if (this.#waiting.length > 0) this.#logger.info({ pending: this.#waiting.length }, `sending ${this.#waiting.length} pending reports`);
    this.#pump();
  }

  /**
   * Stops starting sends, waits up to 5 s for those in flight to be journaled, then closes the journal. Pending
   * reports stay pending on disk. Idempotent; enqueue rejects afterwards.
   */
  close(): Promise<void> {
    this.#closed ??= this.#shutDown();
    return this.#closed;
  }

  async #shutDown(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    const inFlight = [...this.#inFlight.values()];
    if (inFlight.length > 0 && !(await allSettledWithin(inFlight, CLOSE_WAIT_MS))) {
      this.#abandoned = true;
      this.#logger.warn(
        { inFlight: this.#inFlight.size },
        `${this.#inFlight.size} reports were still being sent after ${CLOSE_WAIT_MS / 1000} s; they are unconfirmed at the next start and not sent again`,
      );
    }
    await this.#journal.close();
  }

  #pump(): void {
    if (!this.#started || this.#closing || this.#retryTimer !== undefined) return;
    while (this.#inFlight.size < this.#concurrency) {
      const report = this.#waiting.shift();
      if (report === undefined) return;
      this.#inFlight.set(report.id, this.#deliver(report));
    }
  }

  /** One attempt at one report, then its journaling and result. Never rejects. */
  async #deliver(report: StoredReport): Promise<void> {
    try {
      try {
        await this.#journal.appendSending(report.id);
      } catch (error) {
        // Sending without the record could send it twice after a crash: it waits, as if GSA were unreachable.
        this.#retryLater(report, { code: 'storage', message: `the report journal could not record the attempt: ${describeError(error)}` }, undefined);
        return;
      }
      if (this.#closing) {
        await this.#notSent(report, { code: 'closed', message: 'the sidecar is shutting down' });
        return;
      }
      let answer: { readonly message: string } | undefined;
      let failure: unknown;
      try {
        answer = await this.#send(report);
      } catch (error) {
        failure = error;
      }
      // Its `sending` record stays the last word: unconfirmed at the next start, as the warning of close() said.
      if (this.#abandoned) return;
      if (answer !== undefined) {
        this.#failureStreak = 0;
        await this.#finish(report, { op: 'delivered', message: answer.message }, { ok: true, message: answer.message });
        return;
      }
      const classified = classifyReportFailure(failure);
      if (classified.kind === 'not_sent') {
        await this.#notSent(report, classified.reason);
        this.#retryLater(report, classified.reason, classified.retryAfterMs);
        return;
      }
      if (classified.kind === 'refused') {
        this.#failureStreak = 0;
        this.#logger.warn({ report: report.id, server: report.server, code: classified.reason.code }, `report ${report.id} for ${report.server} was refused by GSA: ${classified.reason.message}`);
        await this.#finish(report, { op: 'refused', ...classified.reason }, { ok: false, error: { code: classified.reason.code, message: classified.playerMessage } });
        return;
      }
      this.#logger.warn(
        { report: report.id, server: report.server, code: classified.reason.code },
        `report ${report.id} for ${report.server}: GSA did not confirm it (${classified.reason.message}); it may have been stored, so it is not sent again: check GSA's dashboard`,
      );
      await this.#finish(report, { op: 'unconfirmed', ...classified.reason }, { ok: false, error: { code: UNCONFIRMED_CODE, message: UNCONFIRMED_MESSAGE } });
    } catch (error) {
      // Only a bug gets here; the report stays as the journal says (pending, or sending: unconfirmed after a restart).
      this.#logger.error({ err: error, report: report.id }, `report ${report.id}: unexpected failure in the outbox; it is not sent again until a restart`);
    } finally {
      this.#inFlight.delete(report.id);
      this.#pump();
    }
  }

  /** The attempt surely did not leave: journaled, so a restart may send it again. A failed record leaves it `sending`: unconfirmed after a restart, never resent. */
  async #notSent(report: StoredReport, reason: ReportReason): Promise<void> {
    try {
      await this.#journal.appendNotSent(report.id, reason);
    } catch (error) {
      this.#logger.warn({ err: error, report: report.id }, `could not journal that report ${report.id} was not sent (${describeError(error)}); should the sidecar stop before it is sent, it is unconfirmed, not resent`);
    }
  }

  /** Journals the fate, then tells it. The report is settled for this run even when the record cannot be written. */
  async #finish(report: StoredReport, fate: ReportFate, outcome: ReportOutcome): Promise<void> {
    try {
      await this.#journal.appendFate(report.id, fate);
    } catch (error) {
      this.#logger.error(
        { err: error, report: report.id, fate: fate.op },
        `could not journal that report ${report.id} is ${fate.op} (${describeError(error)}); it is not sent again, and after a restart it is listed as unconfirmed`,
      );
    }
    this.#unsettled -= 1;
    try {
      this.#onResult(report, outcome);
    } catch (error) {
      this.#logger.error({ err: error, report: report.id }, 'onResult threw; the report outcome was journaled anyway');
    }
  }

  /** Back into the line at its place, and one wait per round before the next sends (GSA's Retry-After wins when longer). */
  #retryLater(report: StoredReport, reason: ReportReason, retryAfterMs: number | undefined): void {
    const index = this.#waiting.findIndex((waiting) => waiting.at > report.at);
    this.#waiting.splice(index === -1 ? this.#waiting.length : index, 0, report);
    if (this.#closing || this.#retryTimer !== undefined) return;
    this.#failureStreak += 1;
    const jittered = backoffDelayMs(this.#failureStreak, this.#backoff, this.#random);
    const delayMs = Math.max(jittered, Math.min(retryAfterMs ?? 0, this.#backoff.maxDelayMs));
    const fields = { code: reason.code, pending: this.#unsettled, delayMs, streak: this.#failureStreak };
    if (this.#failureStreak === 1) this.#logger.warn(fields, `cannot send reports to GSA (${reason.message}); ${this.#unsettled} pending, next try in ${delayMs} ms`);
    else this.#logger.debug(fields, `reports still cannot be sent (${reason.message}); next try in ${delayMs} ms`);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      this.#pump();
    }, delayMs);
    // Pending reports are on disk: a waiting retry is no reason to keep the process alive.
    this.#retryTimer.unref();
  }
}
