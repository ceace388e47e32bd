// The money ledger (the bridge's MoneyLedger): every shop order and token spend a mod asks for is recorded in
// `orders.jsonl` (what, who, when, through which adapter) and fsynced before `begin` resolves, so the bridge may
// send it; its fate (GSA's answer) follows with `settle`. `gsa-bridge orders list` reads the same file, so a host
// can settle a dispute. Formats and what they say are in orderRecords.ts.
// It sends nothing, ever: at open, every request with no recorded answer (the sidecar stopped in between) is settled
// `unconfirmed` for the host to check in GSA's dashboard, never retried. It must never resolve `begin` before the
// record is on disk, and never let `settle` reject.
// Bounded: once the file holds more than `keepRecords` plus a margin, it is rewritten with the newest `keepRecords`
// requests and every one not yet settled (ledgerFile.ts: temporary file, fsync, rename, directory fsync).
// One process per data directory: the caller holds the directory's lock (src/datadir/dataDirLock.ts).

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { MoneyLedger, MoneyRequest } from '../bridge/moneyLedger.js';
import type { MoneyOutcome } from '../bridge/port.js';
import { describeError } from '../reviews/durableFiles.js';
import { systemClock, type Clock } from '../time/clock.js';
import { MoneyRecordsClosedError, MoneyRecordWriteError, UnrecordableMoneyRequestError } from './errors.js';
import { LedgerFile } from './ledgerFile.js';
import { ORDERS_DAMAGED_FILE, ORDERS_FILE, encodeAsked, foldOrders, parseOrderLine, settledEntry, settledLine, type MoneyEntry, type MoneyTrack } from './orderRecords.js';
import { playerLabel } from './recordFields.js';

export type { MoneyEntry, MoneyState } from './orderRecords.js';

export const DEFAULT_KEEP_RECORDS = 10_000;

export const UNANSWERED_MESSAGE = "the sidecar stopped before GSA's answer was recorded; check the order in GSA's dashboard";

export interface MoneyRecordsOptions {
  /** Created (0700) when missing. The caller holds its lock. */
  readonly dataDir: string;
  readonly logger: Logger;
  /** Record times (wall-clock ms: they are persisted); default the system clock. */
  readonly clock?: Clock | undefined;
  /** Requests a rewrite keeps, the newest. Default 10,000. */
  readonly keepRecords?: number | undefined;
  /** How many more the file may hold before it is rewritten. Default a tenth of keepRecords. */
  readonly compactSlack?: number | undefined;
}

function wholeNumber(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < 1) throw new RangeError(`${name} must be a whole number of 1 or more, got ${String(value)}`);
  return chosen;
}

function what(entry: MoneyEntry): string {
  return entry.kind === 'order' ? `shop order of item ${entry.item ?? '?'}` : `spend of ${entry.amount ?? '?'} tokens`;
}

export class MoneyRecords implements MoneyLedger {
  readonly #file: LedgerFile;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #keep: number;
  readonly #slack: number;
  /** id → every request in the file, in the order asked. */
  readonly #tracks: Map<string, MoneyTrack>;
  /** Ids whose `settled` record is being written: a second settle is ignored. */
  readonly #settling = new Set<string>();
  readonly #unconfirmedAtOpen: number;
  #closed = false;
  #compacting = false;

  private constructor(file: LedgerFile, tracks: Map<string, MoneyTrack>, options: MoneyRecordsOptions, unconfirmedAtOpen: number) {
    this.#file = file;
    this.#tracks = tracks;
    this.#logger = options.logger;
    this.#clock = options.clock ?? systemClock;
    this.#keep = wholeNumber('keepRecords', options.keepRecords, DEFAULT_KEEP_RECORDS);
    this.#slack = wholeNumber('compactSlack', options.compactSlack, Math.max(1, Math.floor(this.#keep / 10)));
    this.#unconfirmedAtOpen = unconfirmedAtOpen;
  }

  /** Reads and repairs the ledger, and settles as unconfirmed every request whose answer was never recorded. */
  static async open(options: MoneyRecordsOptions): Promise<MoneyRecords> {
    wholeNumber('keepRecords', options.keepRecords, DEFAULT_KEEP_RECORDS);
    wholeNumber('compactSlack', options.compactSlack, 1);
    const { logger } = options;
    const clock = options.clock ?? systemClock;
    const { file, lines, damaged } = await LedgerFile.open({
      dataDir: options.dataDir,
      fileName: ORDERS_FILE,
      quarantineName: ORDERS_DAMAGED_FILE,
      parse: parseOrderLine,
      logger,
      what: 'money ledger',
    });
    const { tracks, ignored } = foldOrders(lines);
    if (ignored > 0) logger.warn({ file: file.path, records: ignored }, `ignored ${ignored} records of ${file.path} that repeat a request or name none`);
    const unanswered = [...tracks.values()].filter((track) => track.settledLine === undefined);
    if (unanswered.length > 0) {
      const at = clock.now();
      const outcome: MoneyOutcome = { ok: false, state: 'unconfirmed', message: UNANSWERED_MESSAGE };
      const settled = unanswered.map((track) => {
        const { entry } = track;
        logger.warn(
          { request: entry.id, server: entry.server, kind: entry.kind, adapter: entry.adapter },
          `${what(entry)} ${entry.id} for ${playerLabel(entry.player)} on ${entry.server}: ${UNANSWERED_MESSAGE} (gsa-bridge orders list); it is never sent again`,
        );
        return { track, line: settledLine(entry.id, at, outcome) };
      });
      const settle = (): void => {
        for (const { track, line } of settled) {
          track.entry = settledEntry(track.entry, at, outcome);
          track.settledLine = line;
        }
      };
      try {
        await file.append(settled.map(({ line }) => line).join(''), settle);
      } catch (error) {
        // Nothing is ever resent; the next start finds the same records unanswered and says the same.
        logger.error({ err: error, requests: unanswered.length }, `could not record that ${unanswered.length} money requests are unconfirmed: ${describeError(error)}`);
        for (const { track } of settled) track.entry = settledEntry(track.entry, at, outcome);
      }
    }
    const records = new MoneyRecords(file, tracks, options, unanswered.length);
    logger.info({ file: file.path, requests: tracks.size, unconfirmed: unanswered.length, damaged: damaged.length }, `money ledger ${file.path}: ${tracks.size} requests`);
    records.#compactIfDue();
    return records;
  }

  /** Requests this open found with no recorded answer, now unconfirmed. */
  get unconfirmedAtOpen(): number {
    return this.#unconfirmedAtOpen;
  }

  /** Every request the ledger holds, oldest first. */
  list(): MoneyEntry[] {
    return [...this.#tracks.values()].map((track) => track.entry);
  }

  async begin(request: MoneyRequest): Promise<{ readonly id: string }> {
    if (this.#closed) throw new MoneyRecordsClosedError('the money ledger is closed (the sidecar is shutting down); nothing was recorded or sent');
    const id = randomUUID();
    const encoded = encodeAsked(id, this.#clock.now(), request);
    if ('problem' in encoded) throw new UnrecordableMoneyRequestError(`the request cannot be recorded: ${encoded.problem}; nothing was sent`);
    try {
      await this.#file.append(encoded.line, () => {
        this.#tracks.set(id, encoded.track);
      });
    } catch (error) {
      throw new MoneyRecordWriteError(`the request could not be recorded durably (${describeError(error)}); nothing was sent`, { cause: error });
    }
    return { id };
  }

  async settle(id: string, outcome: MoneyOutcome): Promise<void> {
    const track = this.#tracks.get(id);
    if (track === undefined || track.entry.state !== 'pending' || this.#settling.has(id)) {
      this.#logger.warn({ request: id, state: outcome.state }, `settle(${id}) ignored: no such request waits for its answer`);
      return;
    }
    this.#settling.add(id);
    const at = this.#clock.now();
    const line = settledLine(id, at, outcome);
    try {
      await this.#file.append(line, () => {
        track.entry = settledEntry(track.entry, at, outcome);
        track.settledLine = line;
        this.#compactIfDue();
      });
    } catch (error) {
      const { entry } = track;
      this.#logger.error(
        { err: error, request: id, server: entry.server, state: outcome.state },
        `could not record GSA's answer (${outcome.state}) to ${what(entry)} ${id} (${describeError(error)}); it is listed as unconfirmed`,
      );
      // The file still says only `asked`: the next start settles it unconfirmed too. Nothing is resent either way.
      track.entry = settledEntry(entry, at, { ok: false, state: 'unconfirmed', message: `GSA answered ${outcome.state}${outcome.message === undefined ? '' : ` (${outcome.message})`}, but the answer could not be recorded` });
    } finally {
      this.#settling.delete(id);
    }
  }

  /** Waits for the records asked for, then takes no more. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#file.close();
  }

  #compactIfDue(): void {
    if (this.#compacting || this.#tracks.size <= this.#keep + this.#slack) return;
    this.#compacting = true;
    let dropped: string[] = [];
    void this.#file
      .rewrite(
        () => {
          const all = [...this.#tracks.values()];
          const cut = all.length - this.#keep;
          dropped = all.slice(0, Math.max(0, cut)).filter((track) => track.settledLine !== undefined).map((track) => track.entry.id);
          const gone = new Set(dropped);
          return all
            .filter((track) => !gone.has(track.entry.id))
            .map((track) => track.askedLine + (track.settledLine ?? ''))
            .join('');
        },
        () => {
          for (const id of dropped) this.#tracks.delete(id);
        },
      )
      .finally(() => {
        this.#compacting = false;
      });
  }
}
