// What the report journal's records say about each report: folded from the file's lines at open (and by the CLI,
// read-only), then kept up to date by the journal as it appends. Pure.
// Must never call a report pending (to be sent) when a record says an attempt of it may have left: a `sending`
// with no later `not_sent` or fate, or a damaged line that may have been one. Those are never sent again.

import type { DamagedLine, LedgerLine } from './ledgerLines.js';
import { fateOf, isFateRecord, toStoredReport, type ReportFate, type ReportReason, type ReportRecord, type StoredReport } from './reportRecords.js';

/**
 * pending: stored, to be sent; sending: an attempt left and its answer is not recorded (after a restart: the sidecar
 * stopped while sending, so it becomes unconfirmed); delivered, refused, unconfirmed: its fate.
 */
export const REPORT_STATES = ['pending', 'sending', 'delivered', 'refused', 'unconfirmed'] as const;
export type ReportState = (typeof REPORT_STATES)[number];

/** One report as `list()` and `reports list` show it. */
export interface ReportEntry {
  readonly report: StoredReport;
  readonly state: ReportState;
  /** When its fate was recorded; undefined while it has none. */
  readonly settledAt: number | undefined;
  /** GSA's message, when delivered. */
  readonly message: string | undefined;
  /** Why it was refused or is unconfirmed; for a pending report, why its last attempt was not sent. */
  readonly reason: ReportReason | undefined;
}

/** The journal's view of one report, as its records so far say. */
export interface ReportTrack {
  readonly report: StoredReport;
  /** Acceptance order: a compaction writes reports back in it. */
  readonly seq: number;
  readonly queuedLine: string;
  /** Where its `queued` line was in the file read at open (damaged lines after it may concern it); Infinity if newer. */
  readonly queuedOffset: number;
  /** The `sending` line of an attempt with no outcome recorded yet. */
  sending: string | undefined;
  lastNotSent: ReportReason | undefined;
  fate: { readonly fate: ReportFate; readonly at: number; readonly line: string } | undefined;
}

export interface FoldedReports {
  /** id → track, in acceptance order. */
  readonly tracks: Map<string, ReportTrack>;
  /** Records ignored: a second `queued` for an id, a second fate, a record for an id never queued. */
  readonly ignored: number;
}

export function foldReports(lines: readonly LedgerLine<ReportRecord>[]): FoldedReports {
  const tracks = new Map<string, ReportTrack>();
  let ignored = 0;
  for (const { record, line, offset } of lines) {
    if (record.op === 'queued') {
      if (tracks.has(record.id)) ignored += 1;
      else tracks.set(record.id, { report: toStoredReport(record), seq: tracks.size, queuedLine: line, queuedOffset: offset, sending: undefined, lastNotSent: undefined, fate: undefined });
      continue;
    }
    const track = tracks.get(record.id);
    if (track === undefined || track.fate !== undefined) {
      ignored += 1;
      continue;
    }
    if (record.op === 'sending') {
      track.sending = line;
    } else if (record.op === 'not_sent') {
      track.sending = undefined;
      track.lastNotSent = { code: record.code, message: record.message };
    } else if (isFateRecord(record)) {
      track.sending = undefined;
      track.fate = { fate: fateOf(record), at: record.at, line };
    }
  }
  return { tracks, ignored };
}

export function stateOf(track: ReportTrack): ReportState {
  if (track.fate !== undefined) return track.fate.fate.op;
  return track.sending === undefined ? 'pending' : 'sending';
}

export function entryOf(track: ReportTrack): ReportEntry {
  const fate = track.fate?.fate;
  return {
    report: track.report,
    state: stateOf(track),
    settledAt: track.fate?.at,
    message: fate?.op === 'delivered' ? fate.message : undefined,
    reason: fate === undefined ? track.lastNotSent : fate.op === 'delivered' ? undefined : { code: fate.code, message: fate.message },
  };
}

/**
 * Pending reports a damaged line may have been about: one that still shows a report's id concerns that report; one
 * that shows none may concern any report queued before it. Such a line may have been a `sending`, so these reports
 * are treated as possibly sent (unconfirmed), never sent again.
 */
export function suspectedByDamage(tracks: ReadonlyMap<string, ReportTrack>, damaged: readonly DamagedLine[]): Set<string> {
  const suspects = new Set<string>();
  for (const line of damaged) {
    for (const track of tracks.values()) {
      if (track.fate !== undefined || track.queuedOffset > line.offset) continue;
      if (line.id === undefined || line.id === track.report.id) suspects.add(track.report.id);
    }
  }
  return suspects;
}
