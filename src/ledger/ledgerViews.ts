// The report journal and the money ledger as a person's tools see them (`gsa-bridge reports list`, `orders list`):
// read-only views of the data directory, safe while a sidecar appends (a reader sees whole lines up to some point,
// and a compaction replaces the file by rename, so it reads the old file or the new one whole).
// Must never write, repair or compact a file, and never take the data directory's lock.

import path from 'node:path';
import { countLines, readIfPresent, splitLedger } from './ledgerLines.js';
import { ORDERS_DAMAGED_FILE, ORDERS_FILE, foldOrders, parseOrderLine, type MoneyEntry } from './orderRecords.js';
import { REPORTS_DAMAGED_FILE, REPORTS_FILE, parseReportLine } from './reportRecords.js';
import { entryOf, foldReports, type ReportEntry } from './reportStates.js';

export interface LedgerListing<E> {
  /** Every record the file holds, oldest first. */
  readonly entries: readonly E[];
  /** The file read. */
  readonly file: string;
  /** Lines of the file that do not read as a record (the sidecar moves them aside at its next start). */
  readonly damaged: number;
  /** Lines already moved aside, in the quarantine file. */
  readonly quarantined: number;
  readonly quarantineFile: string;
}

/**
 * What reports.jsonl holds. A report `sending` here is either being sent by the running sidecar, or was being sent
 * when the last one stopped: its next start settles it unconfirmed.
 */
export async function readReportListing(dataDir: string): Promise<LedgerListing<ReportEntry>> {
  const file = path.join(dataDir, REPORTS_FILE);
  const quarantineFile = path.join(dataDir, REPORTS_DAMAGED_FILE);
  const split = splitLedger(await readIfPresent(file), parseReportLine);
  const { tracks } = foldReports(split.lines);
  return { entries: [...tracks.values()].map(entryOf), file, damaged: split.damaged.length, quarantined: await countLines(quarantineFile), quarantineFile };
}

/** What orders.jsonl holds. A `pending` request is in flight, or its answer was lost: the next start settles it unconfirmed. */
export async function readOrderListing(dataDir: string): Promise<LedgerListing<MoneyEntry>> {
  const file = path.join(dataDir, ORDERS_FILE);
  const quarantineFile = path.join(dataDir, ORDERS_DAMAGED_FILE);
  const split = splitLedger(await readIfPresent(file), parseOrderLine);
  const { tracks } = foldOrders(split.lines);
  return { entries: [...tracks.values()].map((track) => track.entry), file, damaged: split.damaged.length, quarantined: await countLines(quarantineFile), quarantineFile };
}
