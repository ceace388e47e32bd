// The report journal's format (reports.jsonl): every record, how a report becomes a line and a line a report again.
// Pure: no file is touched here.
// Must never write a record it could not read back (encodeQueued refuses it first), and never rename or drop a
// field a file written by an earlier version carries.
//
// JSON Lines, one record a line, so a person can read and grep it:
//   {"v":1,"op":"queued","id":"…","at":<ms>,"server":"ovddykvbs","player":{"steam_id":"…","name":"…"},
//    "character_id":12,"coords":"X_1 Y_2 Z_3","type":2,"reported_player":81,"comment":"…",
//    "origin":{"adapter":"<adapter id>","ref":"…","request_id":"…"}}          stored before the mod hears `report.queued`
//   {"v":1,"op":"sending","id":"…","at":<ms>}                                   fsynced before an attempt leaves
//   {"v":1,"op":"not_sent","id":"…","at":<ms>,"code":"network","message":"…"}  that attempt surely did not reach GSA
//   {"v":1,"op":"delivered","id":"…","at":<ms>,"message":"…"}                  GSA stored it (its message)
//   {"v":1,"op":"refused","id":"…","at":<ms>,"code":"invalid","message":"…"}  GSA said no; never sent again
//   {"v":1,"op":"unconfirmed","id":"…","at":<ms>,"code":"timeout","message":"…"}  it may have reached GSA; never
//     sent again (`code` "sidecar_stopped": the sidecar stopped while it was being sent)
// `delivered`, `refused` and `unconfirmed` are a report's fate: one each, the first one counts.

import { z } from 'zod';
import type { ReportToStore } from '../bridge/reportStore.js';
import { schemaParser } from './ledgerLines.js';
import { jsonLine, playerRecord, recordId, recordTime, recordVersion, toPlayerIdentity, toPlayerRecord } from './recordFields.js';

export const REPORTS_FILE = 'reports.jsonl';
/** Where a journal line that no longer reads as a record is moved at start, byte for byte. */
export const REPORTS_DAMAGED_FILE = 'reports.damaged.jsonl';

/** A report in the outbox: what the journal stores and the sender sends. */
export interface StoredReport extends ReportToStore {
  /** The outbox's own id (a random UUID). */
  readonly id: string;
  /** When it was accepted, wall-clock ms. */
  readonly at: number;
}

/** Why an attempt or a report ended: GSA's error code (or the outbox's own) and words. */
export interface ReportReason {
  readonly code: string;
  readonly message: string;
}

export type ReportFate =
  | { readonly op: 'delivered'; readonly message: string }
  | ({ readonly op: 'refused' | 'unconfirmed' } & ReportReason);

const originRecord = z.object({ adapter: z.string(), ref: z.string(), request_id: z.string().optional() });

const queuedRecord = z.object({
  v: recordVersion,
  op: z.literal('queued'),
  id: recordId,
  at: recordTime,
  server: z.string().min(1),
  player: playerRecord,
  character_id: z.number(),
  coords: z.string(),
  type: z.union([z.number(), z.string()]),
  reported_player: z.number().optional(),
  comment: z.string(),
  origin: originRecord,
});
const sendingRecord = z.object({ v: recordVersion, op: z.literal('sending'), id: recordId, at: recordTime });
const reasonFields = { code: z.string().min(1), message: z.string() };
const notSentRecord = z.object({ v: recordVersion, op: z.literal('not_sent'), id: recordId, at: recordTime, ...reasonFields });
const deliveredRecord = z.object({ v: recordVersion, op: z.literal('delivered'), id: recordId, at: recordTime, message: z.string() });
const refusedRecord = z.object({ v: recordVersion, op: z.literal('refused'), id: recordId, at: recordTime, ...reasonFields });
const unconfirmedRecord = z.object({ v: recordVersion, op: z.literal('unconfirmed'), id: recordId, at: recordTime, ...reasonFields });
const reportRecord = z.discriminatedUnion('op', [queuedRecord, sendingRecord, notSentRecord, deliveredRecord, refusedRecord, unconfirmedRecord]);

export type QueuedReportRecord = z.infer<typeof queuedRecord>;
export type ReportRecord = z.infer<typeof reportRecord>;
export type ReportFateRecord = z.infer<typeof deliveredRecord> | z.infer<typeof refusedRecord> | z.infer<typeof unconfirmedRecord>;

export const parseReportLine = schemaParser(reportRecord);

export function isFateRecord(record: ReportRecord): record is ReportFateRecord {
  return record.op === 'delivered' || record.op === 'refused' || record.op === 'unconfirmed';
}

export function toStoredReport(record: QueuedReportRecord): StoredReport {
  return {
    id: record.id,
    at: record.at,
    server: record.server,
    player: toPlayerIdentity(record.player),
    characterId: record.character_id,
    coords: record.coords,
    type: record.type,
    ...(record.reported_player === undefined ? {} : { reportedPlayer: record.reported_player }),
    comment: record.comment,
    origin: {
      adapter: record.origin.adapter,
      ref: record.origin.ref,
      ...(record.origin.request_id === undefined ? {} : { requestId: record.origin.request_id }),
    },
  };
}

/**
 * The `queued` line of a new report and the report as it reads back from that line (what is later sent), or why it
 * cannot be stored: a report whose line would not read back (no player id, a number JSON cannot hold) is refused.
 */
export function encodeQueued(id: string, at: number, report: ReportToStore): { readonly line: string; readonly record: QueuedReportRecord } | { readonly problem: string } {
  const line = jsonLine({
    v: 1,
    op: 'queued',
    id,
    at,
    server: report.server,
    player: toPlayerRecord(report.player),
    character_id: report.characterId,
    coords: report.coords,
    type: report.type,
    ...(report.reportedPlayer === undefined ? {} : { reported_player: report.reportedPlayer }),
    comment: report.comment,
    origin: {
      adapter: report.origin.adapter,
      ref: report.origin.ref,
      ...(report.origin.requestId === undefined ? {} : { request_id: report.origin.requestId }),
    },
  });
  const parsed = parseReportLine(Buffer.from(line.slice(0, -1), 'utf8'));
  if (!parsed.ok) return { problem: parsed.reason };
  if (parsed.record.op !== 'queued') return { problem: 'not a queued record' };
  return { line, record: parsed.record };
}

export function sendingLine(id: string, at: number): string {
  return jsonLine({ v: 1, op: 'sending', id, at });
}

export function notSentLine(id: string, at: number, reason: ReportReason): string {
  return jsonLine({ v: 1, op: 'not_sent', id, at, code: reason.code, message: reason.message });
}

export function fateLine(id: string, at: number, fate: ReportFate): string {
  return fate.op === 'delivered'
    ? jsonLine({ v: 1, op: 'delivered', id, at, message: fate.message })
    : jsonLine({ v: 1, op: fate.op, id, at, code: fate.code, message: fate.message });
}

export function fateOf(record: ReportFateRecord): ReportFate {
  return record.op === 'delivered' ? { op: 'delivered', message: record.message } : { op: record.op, code: record.code, message: record.message };
}
