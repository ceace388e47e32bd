// The review storage's formats: every record of the journal and the letter files, how a review becomes a line and
// a line becomes a review again, and the delivered history's bounded map. Pure: no file is touched here.
// Must never write a record it could not read back (unstorableReason refuses it first), and never rename or drop a
// field a file written by an earlier version carries: old files are read in today's words.
//
// Format: JSON Lines, one record per line, so a person can read and grep it. JSON.stringify escapes every
// control character inside strings, so a raw newline only ever ends a record and a line without one is a
// write that never finished. Each record is validated on read; a record we could not read back is never written.
//   {"v":1,"op":"queued","id":"…","at":<ms>,"server":"ovddykvbs","player":{"steam_id":"…","eos_id":"…","name":"…"},
//    "stars":5,"comment":"…","origin":{"adapter":"<adapter id>","ref":"…","request_id":"…"}}
//    (files written before adapter ids have "connection_id" instead of "ref" and a config path as the adapter: read
//    as the ref, and an adapter id that no longer exists routes to the server's first adapter)
//   {"v":1,"op":"sending","id":"…","at":<ms>}      an attempt is about to leave (fsynced before the request)
//   {"v":1,"op":"not_sent","id":"…","at":<ms>}     that attempt surely did not store it (refused before storing, never left)
//   {"v":1,"op":"delivered","id":"…","at":<ms>,"server":"…","player":{…},"stars":5,"queued_at":<ms>,"receipt":"Done!"}
//     (who, how many stars and GSA's receipt, no comment: what `reviews list --state delivered` shows. Files written
//     before that have only id and at: the review's `queued` line says the rest. `receipt` is absent when the sender
//     passed none on.)
//   {"v":1,"op":"unconfirmed","id":"…","at":<ms>,"error":{"code":"timeout","status":null,"message":"…"}}
//   {"v":1,"op":"dead","id":"…","at":<ms>,"error":{"code":"not_eligible","status":403,"message":"…"}}
//     (`code` is the mod protocol's word for the cause, reviewReasons.ts; files written before that say `forbidden`
//     for a 403, read as `not_eligible`)
//   {"v":1,"op":"accepted","id":"…","at":<ms>,"server":"…","player":{…}}   a finished review kept through compaction
//     while it still counts for its player's cooldown (no comment: only who and when).
//   {"v":1,"op":"held","id":"…","at":<ms>,"kind":"dead"|"unconfirmed","error":{…}}   the review's fate is known but
//     its letter could not be written (EMFILE, a full or read-only disk): it stays in the journal, listed under that
//     state, is never sent again, and its letter is written (then its fate appended) once the write works again.
// Player ids use the mod protocol's names (steam_id / eos_id) so a person recognises them. A letter is the
// whole review with its refusal: {"v":1,"op":"dead"|"unconfirmed","id","at","queued_at","server","player","stars",
// "comment","origin","error":{"code","status","message"}}. When a person re-queues it (`gsa-bridge reviews retry`),
// a `queued` record with the same id goes into the journal first, then {"v":1,"op":"retried","id","at"} into the
// letter file, so the letter is not listed twice. A `queued` record for an id whose earlier record has a fate is
// that re-queue; for an id still pending it is a duplicate and ignored.

import { z } from 'zod';
import type { PlayerIdentity, ReviewOrigin } from '../bridge/port.js';
import { reviewReasonCode } from '../bridge/reviewReasons.js';

export const JOURNAL_FILE = 'reviews.jsonl';
export const DEAD_LETTER_FILE = 'dead-letter.jsonl';
export const UNCONFIRMED_FILE = 'unconfirmed.jsonl';
/** Where a journal line that no longer reads as a record is moved at start, byte for byte (damagedRecords.ts). */
export const DAMAGED_FILE = 'reviews.damaged.jsonl';
/**
 * Delivered reviews kept through compactions, newest: the contract's "at least the last 1,000" (spec/interfaces.md,
 * "The data directory"), and no more, since each costs about 220 bytes on disk and in memory and is read at each start.
 */
export const DELIVERED_HISTORY = 1000;
/** GSA's receipt is its text (`{"data":"Done!"}`): a longer one is cut, so one answer cannot bloat the history. */
const MAX_RECEIPT_CHARS = 200;

/** A review in the outbox: what the journal stores and the sender sends. */
export interface OutboxReview {
  /** The outbox's own id (a random UUID). */
  readonly id: string;
  /** GSA container name. */
  readonly server: string;
  readonly player: PlayerIdentity;
  readonly stars: number;
  /** Already validated and cleaned by the caller; stored and sent byte-exact. */
  readonly comment: string;
  /** Routed back with the result. */
  readonly origin: ReviewOrigin;
  /** The clock's time (wall-clock ms) when accepted. */
  readonly queuedAt: number;
}

/** Why a review ended without being delivered: the GsaError's code, HTTP status (null without an answer) and message. */
export interface FailureReason {
  readonly code: string;
  readonly status: number | null;
  readonly message: string;
}

export type ReviewFate =
  | { readonly op: 'delivered'; readonly receipt?: string | undefined }
  | { readonly op: 'unconfirmed' | 'dead'; readonly reason: FailureReason };

/** A review GSA stored, from the journal's delivered history: who, how many stars, when; not the comment. */
export interface DeliveredReview {
  readonly id: string;
  readonly server: string;
  readonly player: PlayerIdentity;
  readonly stars: number;
  readonly queuedAt: number;
  readonly deliveredAt: number;
  /** GSA's answer text (`Done!`), when the sender passed it on. */
  readonly receipt?: string;
}

/** The two kinds of letter a person may have to look at: refused reviews, and reviews GSA may or may not have stored. */
export type LetterKind = 'dead' | 'unconfirmed';

/** A review waiting for a person in a letter file. */
export interface ReviewLetter {
  readonly kind: LetterKind;
  readonly review: OutboxReview;
  /** When it was written to the letter file (for a held review: when its fate was journaled). */
  readonly at: number;
  readonly reason: FailureReason;
  /** True for a held review: its fate is in the journal, its letter not written yet (the sidecar retries it). */
  readonly held?: boolean;
}

/** A review whose fate is known and journaled (`held`) but whose letter is not written yet. */
export interface HeldReview {
  readonly kind: LetterKind;
  readonly review: OutboxReview;
  readonly reason: FailureReason;
}

/** Which letters to re-queue: chosen ids (dead or unconfirmed), or every letter of one kind. */
export type RequeueSelection = { readonly ids: readonly string[] } | { readonly all: LetterKind };

export interface RequeueResult {
  /** Re-queued now, each with a new `queued` record in the journal. */
  readonly requeued: readonly OutboxReview[];
  /** Ids already pending in the journal: nothing to do. */
  readonly alreadyPending: readonly string[];
  /** Ids that are neither pending nor a current letter. */
  readonly unknown: readonly string[];
}

/** A review that counts for its player's cooldown: who and when, from the journal. */
export interface AcceptedReview {
  readonly id: string;
  readonly server: string;
  readonly player: PlayerIdentity;
  readonly at: number;
}

const recordVersion = z.literal(1);
const recordId = z.string().min(1).max(200);
const recordTime = z.number().int().nonnegative();
const playerRecord = z
  .object({ steam_id: z.string().min(1).optional(), eos_id: z.string().min(1).optional(), name: z.string().optional() })
  .refine((player) => player.steam_id !== undefined || player.eos_id !== undefined, { message: 'needs a steam_id or an eos_id' });
const originRecord = z.union([
  z.object({ adapter: z.string(), ref: z.string(), request_id: z.string().optional() }),
  // Written before adapter ids and the game-neutral origin; never written any more.
  z.object({ adapter: z.string(), connection_id: z.string(), request_id: z.string().optional() }),
]);

/** The adapter's reference of an origin record, old or new. */
export function refOf(origin: z.infer<typeof originRecord>): string {
  return 'ref' in origin ? origin.ref : origin.connection_id;
}
// Read in today's words: files an older version wrote carry the GSA client's codes (`forbidden` for a 403).
const failureRecord = z
  .object({ code: z.string().min(1), status: z.number().int().nullable(), message: z.string() })
  .transform((reason) => ({ ...reason, code: reviewReasonCode(reason.code) }));

const queuedRecord = z.object({
  v: recordVersion,
  op: z.literal('queued'),
  id: recordId,
  at: recordTime,
  server: z.string().min(1),
  player: playerRecord,
  stars: z.number(),
  comment: z.string(),
  origin: originRecord,
});
const deliveredRecord = z.object({
  v: recordVersion,
  op: z.literal('delivered'),
  id: recordId,
  at: recordTime,
  // Absent in files written before the delivered history: the review's `queued` line has them.
  server: z.string().min(1).optional(),
  player: playerRecord.optional(),
  stars: z.number().optional(),
  queued_at: recordTime.optional(),
  receipt: z.string().optional(),
});
const unconfirmedRecord = z.object({ v: recordVersion, op: z.literal('unconfirmed'), id: recordId, at: recordTime, error: failureRecord });
const deadRecord = z.object({ v: recordVersion, op: z.literal('dead'), id: recordId, at: recordTime, error: failureRecord });
const acceptedRecord = z.object({ v: recordVersion, op: z.literal('accepted'), id: recordId, at: recordTime, server: z.string().min(1), player: playerRecord });
const attemptRecord = z.object({ v: recordVersion, op: z.enum(['sending', 'not_sent']), id: recordId, at: recordTime });
const heldRecord = z.object({ v: recordVersion, op: z.literal('held'), id: recordId, at: recordTime, kind: z.enum(['dead', 'unconfirmed']), error: failureRecord });
const journalRecord = z.discriminatedUnion('op', [queuedRecord, deliveredRecord, unconfirmedRecord, deadRecord, acceptedRecord, attemptRecord, heldRecord]);

const letterRecord = z.object({
  v: recordVersion,
  op: z.enum(['dead', 'unconfirmed']),
  id: recordId,
  at: recordTime,
  queued_at: recordTime,
  server: z.string().min(1),
  player: playerRecord,
  stars: z.number(),
  comment: z.string(),
  origin: originRecord,
  error: failureRecord,
});
const retriedRecord = z.object({ v: recordVersion, op: z.literal('retried'), id: recordId, at: recordTime });
export const letterFileRecord = z.discriminatedUnion('op', [letterRecord, retriedRecord]);
export type LetterFileRecord = z.infer<typeof letterFileRecord>;

export type QueuedRecord = z.infer<typeof queuedRecord>;
export type DeliveredRecord = z.infer<typeof deliveredRecord>;
export type AcceptedRecord = z.infer<typeof acceptedRecord>;
export type JournalRecord = z.infer<typeof journalRecord>;

export function toAccepted(record: QueuedRecord | AcceptedRecord): AcceptedReview {
  const { steam_id: steamId, eos_id: eosId } = record.player;
  return {
    id: record.id,
    server: record.server,
    player: { ...(steamId === undefined ? {} : { steamId }), ...(eosId === undefined ? {} : { eosId }) },
    at: record.at,
  };
}

export function acceptedLine(record: QueuedRecord): string {
  const { steam_id: steamId, eos_id: eosId } = record.player;
  const player = { ...(steamId === undefined ? {} : { steam_id: steamId }), ...(eosId === undefined ? {} : { eos_id: eosId }) };
  const accepted: AcceptedRecord = { v: 1, op: 'accepted', id: record.id, at: record.at, server: record.server, player };
  return `${JSON.stringify(accepted)}\n`;
}

export function toQueuedRecord(review: OutboxReview): QueuedRecord {
  const { player, origin } = review;
  return {
    v: 1,
    op: 'queued',
    id: review.id,
    at: review.queuedAt,
    server: review.server,
    player: {
      ...(player.steamId === undefined ? {} : { steam_id: player.steamId }),
      ...(player.eosId === undefined ? {} : { eos_id: player.eosId }),
      ...(player.name === undefined ? {} : { name: player.name }),
    },
    stars: review.stars,
    comment: review.comment,
    origin: {
      adapter: origin.adapter,
      ref: origin.ref,
      ...(origin.requestId === undefined ? {} : { request_id: origin.requestId }),
    },
  };
}

export function toReview(record: QueuedRecord): OutboxReview {
  const { player, origin } = record;
  return {
    id: record.id,
    server: record.server,
    player: {
      ...(player.steam_id === undefined ? {} : { steamId: player.steam_id }),
      ...(player.eos_id === undefined ? {} : { eosId: player.eos_id }),
      ...(player.name === undefined ? {} : { name: player.name }),
    },
    stars: record.stars,
    comment: record.comment,
    origin: {
      adapter: origin.adapter,
      ref: refOf(origin),
      ...(origin.request_id === undefined ? {} : { requestId: origin.request_id }),
    },
    queuedAt: record.at,
  };
}

export function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'not a journal record';
  const where = issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return `${where}${issue.message}`;
}

/**
 * Why this review could not be journaled, or undefined when it can. A record that would not pass validation on
 * read would be dropped at the next start, silently losing an acknowledged review; so it is refused up front.
 */
export function unstorableReason(review: OutboxReview): string | undefined {
  const result = queuedRecord.safeParse(JSON.parse(JSON.stringify(toQueuedRecord(review))));
  return result.success ? undefined : describeIssue(result.error);
}

export function encodeQueued(review: OutboxReview): string {
  const problem = unstorableReason(review);
  if (problem !== undefined) throw new RangeError(`review ${review.id} cannot be journaled: ${problem}`);
  return `${JSON.stringify(toQueuedRecord(review))}\n`;
}

export function encodeRecord(record: JournalRecord): string {
  return `${JSON.stringify(record)}\n`;
}

export function encodeFate(id: string, fate: ReviewFate, at: number, queued: QueuedRecord | undefined): string {
  if (fate.op === 'delivered') return queued === undefined ? encodeRecord({ v: 1, op: 'delivered', id, at }) : deliveredLine(queued, at, fate.receipt);
  return encodeRecord({ v: 1, op: fate.op, id, at, error: { ...fate.reason } });
}

/** The self-contained `delivered` line of a review: what the history keeps (no comment, no origin). */
export function deliveredLine(queued: QueuedRecord, at: number, receipt: string | undefined): string {
  const record: DeliveredRecord = {
    v: 1,
    op: 'delivered',
    id: queued.id,
    at,
    server: queued.server,
    player: queued.player,
    stars: queued.stars,
    queued_at: queued.at,
    ...(receipt === undefined ? {} : { receipt: receipt.slice(0, MAX_RECEIPT_CHARS) }),
  };
  return encodeRecord(record);
}

/** A `delivered` record that names its review (written with the history), read back; undefined for an older one. */
export function deliveredOf(record: DeliveredRecord): DeliveredReview | undefined {
  const { server, player, stars, queued_at: queuedAt } = record;
  if (server === undefined || player === undefined || stars === undefined || queuedAt === undefined) return undefined;
  return {
    id: record.id,
    server,
    player: {
      ...(player.steam_id === undefined ? {} : { steamId: player.steam_id }),
      ...(player.eos_id === undefined ? {} : { eosId: player.eos_id }),
      ...(player.name === undefined ? {} : { name: player.name }),
    },
    stars,
    queuedAt,
    deliveredAt: record.at,
    ...(record.receipt === undefined ? {} : { receipt: record.receipt }),
  };
}

/** A delivered review in the history: its line for the next compaction, and what the listing shows. */
export interface DeliveredEntry {
  readonly line: string;
  readonly review: DeliveredReview;
}

/** Adds the newest delivery and forgets the oldest beyond DELIVERED_HISTORY; the map stays in delivery order. */
export function remember<T>(history: Map<string, T>, id: string, entry: T): void {
  history.delete(id);
  history.set(id, entry);
  for (const oldest of history.keys()) {
    if (history.size <= DELIVERED_HISTORY) break;
    history.delete(oldest);
  }
}

/** A delivered history entry from the review's `queued` line and when (and with what receipt) it was delivered. */
export function deliveredEntry(queued: QueuedRecord, at: number, receipt: string | undefined): DeliveredEntry {
  const { id, server, player, stars, queuedAt } = toReview(queued);
  const kept = receipt?.slice(0, MAX_RECEIPT_CHARS);
  return {
    line: deliveredLine(queued, at, kept),
    review: { id, server, player, stars, queuedAt, deliveredAt: at, ...(kept === undefined ? {} : { receipt: kept }) },
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

export type LineResult = { readonly ok: true; readonly record: JournalRecord } | { readonly ok: false; readonly reason: string };

export function parseLine(bytes: Uint8Array): LineResult {
  let text: string;
  try {
    // Fatal decoding: corrupted bytes must make the line bad, not turn into U+FFFD inside a comment.
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'not valid UTF-8' };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not valid JSON' };
  }
  const result = journalRecord.safeParse(value);
  return result.success ? { ok: true, record: result.data } : { ok: false, reason: describeIssue(result.error) };
}
