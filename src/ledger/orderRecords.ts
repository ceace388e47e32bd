// The money ledger's format (orders.jsonl), and what its records say about each shop order and token spend: how a
// request becomes a line, and lines become the list `gsa-bridge orders list` shows. Pure: no file is touched here.
// Must never write a record it could not read back, and never rename or drop a field a file written by an earlier
// version carries.
//
// JSON Lines, one record a line:
//   {"v":1,"op":"asked","id":"…","at":<ms>,"kind":"order","server":"ovddykvbs","player":{"steam_id":"…","name":"…"},
//    "item":12,"adapter":"<adapter id>","request_id":"…"}      fsynced before the request is sent (tokens: "amount")
//   {"v":1,"op":"settled","id":"…","at":<ms>,"state":"done"|"refused"|"unconfirmed","message":"…"}   its fate
// An `asked` with no `settled` is a request whose answer was never recorded: in flight while the sidecar runs, and
// settled `unconfirmed` at the next start (money moves at most once: nothing is ever sent again).

import { z } from 'zod';
import type { MoneyRequest } from '../bridge/moneyLedger.js';
import type { MoneyOutcome, PlayerIdentity } from '../bridge/port.js';
import { schemaParser, type LedgerLine } from './ledgerLines.js';
import { jsonLine, playerRecord, recordId, recordTime, recordVersion, toPlayerIdentity, toPlayerRecord } from './recordFields.js';

export const ORDERS_FILE = 'orders.jsonl';
/** Where a ledger line that no longer reads as a record is moved at start, byte for byte. */
export const ORDERS_DAMAGED_FILE = 'orders.damaged.jsonl';

/** pending: asked, its answer not recorded yet; the others: MoneyOutcome's states. */
export const MONEY_STATES = ['pending', 'done', 'refused', 'unconfirmed'] as const;
export type MoneyState = (typeof MONEY_STATES)[number];

/** One shop order or token spend as `list()` and `orders list` show it. */
export interface MoneyEntry {
  readonly id: string;
  /** When it was asked (recorded before it was sent), wall-clock ms. */
  readonly at: number;
  readonly kind: 'order' | 'tokens';
  readonly server: string;
  readonly player: PlayerIdentity;
  /** GSA's pack id, for an order. */
  readonly item: number | undefined;
  /** Tokens, for a token spend. */
  readonly amount: number | undefined;
  readonly adapter: string;
  readonly requestId: string | undefined;
  readonly state: MoneyState;
  /** GSA's answer ("Thank you for your order!"), or why it was refused or is unconfirmed. */
  readonly message: string | undefined;
  /** When its fate was recorded. */
  readonly settledAt: number | undefined;
}

const askedRecord = z
  .object({
    v: recordVersion,
    op: z.literal('asked'),
    id: recordId,
    at: recordTime,
    kind: z.enum(['order', 'tokens']),
    server: z.string().min(1),
    player: playerRecord,
    item: z.number().optional(),
    amount: z.number().optional(),
    adapter: z.string(),
    request_id: z.string().optional(),
  })
  .refine((record) => (record.kind === 'order' ? record.item !== undefined : record.amount !== undefined), { message: 'an order needs an item, a token spend an amount' });
const settledRecord = z.object({
  v: recordVersion,
  op: z.literal('settled'),
  id: recordId,
  at: recordTime,
  state: z.enum(['done', 'refused', 'unconfirmed']),
  message: z.string().optional(),
});
const orderRecord = z.union([askedRecord, settledRecord]);

export type AskedRecord = z.infer<typeof askedRecord>;
export type OrderRecord = z.infer<typeof orderRecord>;

export const parseOrderLine = schemaParser(orderRecord);

/** The journal's view of one request: its entry, and the lines a compaction copies. */
export interface MoneyTrack {
  entry: MoneyEntry;
  readonly askedLine: string;
  settledLine: string | undefined;
}

function entryOf(record: AskedRecord): MoneyEntry {
  return {
    id: record.id,
    at: record.at,
    kind: record.kind,
    server: record.server,
    player: toPlayerIdentity(record.player),
    item: record.item,
    amount: record.amount,
    adapter: record.adapter,
    requestId: record.request_id,
    state: 'pending',
    message: undefined,
    settledAt: undefined,
  };
}

/** The `asked` line of a new request and its entry as it reads back, or why it cannot be recorded. */
export function encodeAsked(id: string, at: number, request: MoneyRequest): { readonly line: string; readonly track: MoneyTrack } | { readonly problem: string } {
  const line = jsonLine({
    v: 1,
    op: 'asked',
    id,
    at,
    kind: request.kind,
    server: request.server,
    player: toPlayerRecord(request.player),
    ...(request.kind === 'order' ? { item: request.item } : { amount: request.amount }),
    adapter: request.origin.adapter,
    ...(request.origin.requestId === undefined ? {} : { request_id: request.origin.requestId }),
  });
  const parsed = parseOrderLine(Buffer.from(line.slice(0, -1), 'utf8'));
  if (!parsed.ok) return { problem: parsed.reason };
  if (parsed.record.op !== 'asked') return { problem: 'not an asked record' };
  return { line, track: { entry: entryOf(parsed.record), askedLine: line, settledLine: undefined } };
}

export function settledLine(id: string, at: number, outcome: MoneyOutcome): string {
  return jsonLine({ v: 1, op: 'settled', id, at, state: outcome.state, ...(outcome.message === undefined ? {} : { message: outcome.message }) });
}

/** Its entry once settled. */
export function settledEntry(entry: MoneyEntry, at: number, outcome: MoneyOutcome): MoneyEntry {
  return { ...entry, state: outcome.state, message: outcome.message, settledAt: at };
}

export interface FoldedOrders {
  /** id → track, in the order they were asked. */
  readonly tracks: Map<string, MoneyTrack>;
  /** Records ignored: a second `asked` for an id, a second `settled`, a `settled` for an id never asked. */
  readonly ignored: number;
}

export function foldOrders(lines: readonly LedgerLine<OrderRecord>[]): FoldedOrders {
  const tracks = new Map<string, MoneyTrack>();
  let ignored = 0;
  for (const { record, line } of lines) {
    if (record.op === 'asked') {
      if (tracks.has(record.id)) ignored += 1;
      else tracks.set(record.id, { entry: entryOf(record), askedLine: line, settledLine: undefined });
      continue;
    }
    const track = tracks.get(record.id);
    if (track === undefined || track.settledLine !== undefined) {
      ignored += 1;
      continue;
    }
    track.entry = settledEntry(track.entry, record.at, { ok: record.state === 'done', state: record.state, message: record.message });
    track.settledLine = line;
  }
  return { tracks, ignored };
}
