// The report outbox's durable storage: the journal `reports.jsonl` in the data directory, which records every
// accepted report, each attempt to send it, and its fate (formats in reportRecords.ts). It sends nothing.
// Must never resolve an append before its fsync, never hand a report out as pending when an attempt of it may have
// reached GSA, and never drop an unsettled report from the file.
//
// Crash semantics: a report is stored once its `queued` line is fsynced, and a `sending` line is fsynced before every
// attempt. At open, a `sending` with no later `not_sent` or fate means the sidecar stopped (kill -9, power loss)
// while that attempt was out: GSA may have the report, so it is settled `unconfirmed` (appended, and logged one line
// each) and never sent again. A report whose last `sending` was followed by `not_sent`, or that was never sent, is
// pending and sent again: it surely did not land. A damaged line that may have been a report's `sending` makes that
// report unconfirmed too (reportStates.ts).
//
// Compaction: once more than `compactAfterSettled` reports are settled in the file, it is rewritten with every
// unsettled report (its `queued` line and the `sending` of an attempt still out) and the last `keepSettled` settled
// ones (`queued` and fate), through ledgerFile.ts (write to a temporary file, fsync, rename, fsync the directory).
// One process per data directory: the caller holds the directory's lock.

import type { Logger } from 'pino';
import type { ReportToStore } from '../bridge/reportStore.js';
import { systemClock, type Clock } from '../time/clock.js';
import { UnstorableReportError } from './errors.js';
import { LedgerFile } from './ledgerFile.js';
import { playerLabel } from './recordFields.js';
import {
  REPORTS_DAMAGED_FILE,
  REPORTS_FILE,
  encodeQueued,
  fateLine,
  notSentLine,
  parseReportLine,
  sendingLine,
  toStoredReport,
  type ReportFate,
  type ReportReason,
  type StoredReport,
} from './reportRecords.js';
import { entryOf, foldReports, suspectedByDamage, type ReportEntry, type ReportTrack } from './reportStates.js';

export const DEFAULT_COMPACT_AFTER_SETTLED = 2000;
export const DEFAULT_KEEP_SETTLED = 1000;

export const SIDECAR_STOPPED: ReportReason = {
  code: 'sidecar_stopped',
  message: "the sidecar stopped while this report was being sent; GSA may have it. It was not sent again: check GSA's dashboard",
};
export const DAMAGED_JOURNAL: ReportReason = {
  code: 'journal_damaged',
  message: "a damaged line of the report journal may have said this report was being sent; GSA may have it. It was not sent again: check GSA's dashboard",
};

export interface ReportJournalOptions {
  /** Created (0700) when missing. The caller holds its lock (src/datadir/dataDirLock.ts). */
  readonly dataDir: string;
  readonly logger: Logger;
  /** Times of the records (wall-clock ms: they are persisted). Default the system clock. */
  readonly clock?: Clock | undefined;
  /** Rewrite the file once it holds more settled reports than this. Default 2000. */
  readonly compactAfterSettled?: number | undefined;
  /** Settled reports a rewrite keeps, the newest settled. Default 1000. */
  readonly keepSettled?: number | undefined;
}

export interface OpenedReportJournal {
  readonly journal: ReportJournal;
  /** Reports to send, oldest first. */
  readonly pending: readonly StoredReport[];
  /** Reports settled `unconfirmed` at this open: an attempt of each may have reached GSA when the last run stopped. */
  readonly unconfirmedAtOpen: readonly StoredReport[];
  /** Damaged lines found at this open (moved to reports.damaged.jsonl, or kept when the move failed). */
  readonly damaged: number;
}

export class ReportJournal {
  readonly #file: LedgerFile;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #compactAfter: number;
  readonly #keep: number;
  /** id → every report in the file, in acceptance order. */
  readonly #tracks: Map<string, ReportTrack>;
  /** Settled ids in the order their fates were recorded: a compaction keeps the newest. */
  readonly #settled = new Set<string>();
  #nextSeq: number;
  #compacting = false;

  private constructor(file: LedgerFile, tracks: Map<string, ReportTrack>, options: ReportJournalOptions) {
    this.#file = file;
    this.#tracks = tracks;
    this.#logger = options.logger;
    this.#clock = options.clock ?? systemClock;
    this.#compactAfter = options.compactAfterSettled ?? DEFAULT_COMPACT_AFTER_SETTLED;
    this.#keep = options.keepSettled ?? DEFAULT_KEEP_SETTLED;
    this.#nextSeq = tracks.size;
    const settled = [...tracks.values()].filter((track) => track.fate !== undefined);
    settled.sort((a, b) => (a.fate?.at ?? 0) - (b.fate?.at ?? 0));
    for (const track of settled) this.#settled.add(track.report.id);
  }

  /** Reads and repairs the journal, and settles as unconfirmed what the last run may have sent (see the header). */
  static async open(options: ReportJournalOptions): Promise<OpenedReportJournal> {
    const { logger } = options;
    const { file, lines, damaged } = await LedgerFile.open({
      dataDir: options.dataDir,
      fileName: REPORTS_FILE,
      quarantineName: REPORTS_DAMAGED_FILE,
      parse: parseReportLine,
      logger,
      what: 'report journal',
    });
    const { tracks, ignored } = foldReports(lines);
    if (ignored > 0) logger.warn({ file: file.path, records: ignored }, `ignored ${ignored} records of ${file.path} that repeat a report or name none`);
    const journal = new ReportJournal(file, tracks, options);
    const suspects = suspectedByDamage(tracks, damaged);
    const unconfirmed = [...tracks.values()].filter((track) => track.fate === undefined && (track.sending !== undefined || suspects.has(track.report.id)));
    await journal.#settleAtOpen(unconfirmed, suspects);
    const pending = [...tracks.values()].filter((track) => track.fate === undefined).map((track) => track.report);
    logger.info(
      { file: file.path, pending: pending.length, unconfirmed: unconfirmed.length, reports: tracks.size },
      `report journal ${file.path}: ${pending.length} pending reports, ${unconfirmed.length} unconfirmed at this start, ${tracks.size} in all`,
    );
    journal.#compactIfDue();
    return { journal, pending, unconfirmedAtOpen: unconfirmed.map((track) => track.report), damaged: damaged.length };
  }

  /** Each line warned, then all fates appended in one fsync; the view is settled even when that write fails. */
  async #settleAtOpen(unconfirmed: readonly ReportTrack[], suspects: ReadonlySet<string>): Promise<void> {
    if (unconfirmed.length === 0) return;
    const at = this.#clock.now();
    const fates = unconfirmed.map((track) => {
      const reason = track.sending !== undefined ? SIDECAR_STOPPED : DAMAGED_JOURNAL;
      const fate: ReportFate = { op: 'unconfirmed', ...reason };
      const { report } = track;
      this.#logger.warn(
        { report: report.id, server: report.server, code: reason.code, suspected: suspects.has(report.id) },
        `report ${report.id} for ${report.server} by ${playerLabel(report.player)}: ${reason.message} (gsa-bridge reports list --state unconfirmed)`,
      );
      return { track, fate, line: fateLine(report.id, at, fate) };
    });
    const settle = (): void => {
      for (const { track, fate, line } of fates) this.#settle(track, fate, at, line);
    };
    try {
      await this.#file.append(fates.map(({ line }) => line).join(''), settle);
    } catch (error) {
      // Never sent again either way: after the next restart the same records say the same, and they are settled again.
      this.#logger.error({ err: error, reports: unconfirmed.length }, `could not record that ${unconfirmed.length} reports are unconfirmed; they are not sent again`);
      settle();
    }
  }

  /** Stores the report (its `queued` line fsynced) and resolves with it as it reads back; rejects with UnstorableReportError, or the write's error. */
  async appendQueued(id: string, report: ReportToStore): Promise<StoredReport> {
    const encoded = encodeQueued(id, this.#clock.now(), report);
    if ('problem' in encoded) throw new UnstorableReportError(`the report cannot be stored: ${encoded.problem}`);
    const stored = toStoredReport(encoded.record);
    await this.#file.append(encoded.line, () => {
      this.#tracks.set(id, { report: stored, seq: this.#nextSeq++, queuedLine: encoded.line, queuedOffset: Infinity, sending: undefined, lastNotSent: undefined, fate: undefined });
    });
    return stored;
  }

  /** Resolves once the `sending` line is fsynced: only then may the attempt leave. */
  appendSending(id: string): Promise<void> {
    const line = sendingLine(id, this.#clock.now());
    return this.#file.append(line, () => {
      const track = this.#tracks.get(id);
      if (track === undefined || track.fate !== undefined) return;
      track.sending = line;
    });
  }

  /** The attempt surely did not reach GSA: the report is pending again. */
  appendNotSent(id: string, reason: ReportReason): Promise<void> {
    return this.#file.append(notSentLine(id, this.#clock.now(), reason), () => {
      const track = this.#tracks.get(id);
      if (track === undefined || track.fate !== undefined) return;
      track.sending = undefined;
      track.lastNotSent = reason;
    });
  }

  /** Records the fate (fsynced). When that fails, the report stays `sending` in the file: unconfirmed after a restart. */
  appendFate(id: string, fate: ReportFate): Promise<void> {
    const at = this.#clock.now();
    const line = fateLine(id, at, fate);
    return this.#file.append(line, () => {
      const track = this.#tracks.get(id);
      if (track !== undefined && track.fate === undefined) this.#settle(track, fate, at, line);
    });
  }

  /** Every report the journal holds, in acceptance order. */
  list(): ReportEntry[] {
    return [...this.#tracks.values()].map(entryOf);
  }

  /** Waits for the appends asked for, then takes no more. */
  close(): Promise<void> {
    return this.#file.close();
  }

  #settle(track: ReportTrack, fate: ReportFate, at: number, line: string): void {
    track.sending = undefined;
    track.fate = { fate, at, line };
    this.#settled.add(track.report.id);
    this.#compactIfDue();
  }

  #compactIfDue(): void {
    if (this.#settled.size > this.#compactAfter && !this.#compacting) void this.#compact();
  }

  /** Rewrites the file with the unsettled reports and the newest settled ones; runs in turn with the appends. */
  async #compact(): Promise<void> {
    this.#compacting = true;
    let dropped: string[] = [];
    try {
      await this.#file.rewrite(
        () => {
          const settled = [...this.#settled];
          dropped = settled.slice(0, Math.max(0, settled.length - this.#keep));
          const gone = new Set(dropped);
          return [...this.#tracks.values()]
            .filter((track) => !gone.has(track.report.id))
            .map((track) => track.queuedLine + (track.sending ?? '') + (track.fate?.line ?? ''))
            .join('');
        },
        () => {
          for (const id of dropped) {
            this.#tracks.delete(id);
            this.#settled.delete(id);
          }
        },
      );
    } finally {
      this.#compacting = false;
    }
  }
}
