// The review outbox's durable storage in its data directory: the journal `reviews.jsonl`, which records every
// accepted review and later its fate, and the letter files where reviews wait for a person: `dead-letter.jsonl`
// (refused by GSA) and `unconfirmed.jsonl` (GSA's answer was ambiguous; it may or may not have stored them).
// It must never acknowledge a record before it is fsynced, never append onto a torn line, never rewrite the
// journal in a way a crash could leave half-done, and never drop a pending review. It sends nothing.
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
//
// Durability: records are appended in groups (group commit). Whatever arrives while a write+fdatasync is in
// progress is written together and shares the next fdatasync, so 300 simultaneous reviews cost a handful of
// fsyncs, not 300. A `queued` record is acknowledged only after its group is fsynced. Fate records share the
// same groups but nobody waits for them before telling the player: losing one in a crash only means a re-send.
//
// Crash semantics (delivery is at-least-once): a review with no fate record on disk is pending and is sent again
// after a restart. That is the only way a duplicate can reach GSA: it stored the review, then the process died
// (SIGKILL, power loss) before `delivered` was fsynced, or close() gave up on a send still running after 5 s. The
// window is from GSA storing the review to the `delivered` fsync: one answer's way back plus one group commit.
// A `sending` record without a later `not_sent`, `held` or fate says the review was in flight when the process
// stopped: the reader reports it (`inFlight`), so the outbox counts its re-send as a possible duplicate. An
// ambiguous answer while running is journaled `unconfirmed` and never sent again unless a person re-queues it.
// No review leaves the journal before its letter is fsynced: a fate record is appended only after its letter.
// One process per data directory: the caller holds the directory's lock (dataDirLock.ts) before opening it;
// this module does not check.
//
// Reading: a tail after the last good record (a torn write: no newline, or not a valid record) is dropped,
// logged with its size and byte offset, and truncated away so new appends never glue onto it. A bad line in
// the middle is skipped with a warning naming its line number; every other record is kept. Bad middle lines stay
// in the file (a person may want to see them) until the next compaction drops them.
//
// Compaction: once enough fate records accumulated (and on open when most lines are finished), the pending
// `queued` lines (with the `accepted` lines of the cooldown and the `delivered` lines of the last DELIVERED_HISTORY
// deliveries) are written to `reviews.jsonl.tmp`, fsynced, renamed over the journal, and the directory is fsynced
// before anything is appended again: a crash at any step leaves either the old or the new file whole.
//
// Delivered history: the last DELIVERED_HISTORY delivered reviews stay in the journal through compactions, one
// `delivered` line each (id, server, player ids and name, stars, times, receipt; no comment: about 220 bytes with a
// Steam id and a short name, at most about 700 with both ids, a 64-character name and a 200-character receipt), so
// `reviews list --state delivered` can answer "did my players' reviews arrive?" after restarts. The bound keeps the
// file from growing forever: at most the history plus the lines of one compaction interval.
//
// An fsync that fails makes the journal refuse further writes: after a failed fsync the kernel may have
// dropped the dirty pages and a later fsync can succeed without them, so only a restart (which re-reads the
// file) is trustworthy. Files are created 0600 and the directory 0700: reviews hold player ids.

import { open, readFile, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import {
  FILE_MODE,
  appendDurably,
  describeError,
  isErrnoCode,
  makeDataDir,
  removeIfPresent,
  syncDirectory,
  writeFully,
} from '../reviews/durableFiles.js';
import { systemClock, type Clock } from '../time/clock.js';
import type { PlayerIdentity } from './port.js';
import type { OutboxReview } from './reviewOutbox.js';
import { reviewReasonCode } from './reviewReasons.js';

export const JOURNAL_FILE = 'reviews.jsonl';
export const DEAD_LETTER_FILE = 'dead-letter.jsonl';
export const UNCONFIRMED_FILE = 'unconfirmed.jsonl';
/** Bad middle lines get one warning each up to this many; the rest are summed up in one line. */
const MAX_LINE_WARNINGS = 20;
/**
 * Delivered reviews kept through compactions, newest: the contract's "at least the last 1,000" (spec/interfaces.md,
 * "The data directory"), and no more, since each costs about 220 bytes on disk and in memory and is read at each start.
 */
export const DELIVERED_HISTORY = 1000;
/** GSA's receipt is its text (`{"data":"Done!"}`): a longer one is cut, so one answer cannot bloat the history. */
const MAX_RECEIPT_CHARS = 200;

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

export interface JournalOptions {
  /** Created (recursively, 0700) when missing. */
  readonly dataDir: string;
  readonly logger: Logger;
  /** Rewrite the journal once this many fate records were appended since the last rewrite. */
  readonly compactAfterFinished: number;
  /** Finished reviews younger than this keep an `accepted` record through compactions (the cooldown). Default 0. */
  readonly retainAcceptedMs?: number | undefined;
  /** Times of records and compaction; default the system clock (they are persisted, so wall-clock time). */
  readonly clock?: Clock | undefined;
}

export interface OpenedJournal {
  readonly journal: ReviewJournal;
  /** Reviews accepted earlier that have no fate yet, oldest first. */
  readonly pending: OutboxReview[];
  /** Ids among `pending` that were in flight when the journal was last written (a `sending` with no outcome). */
  readonly inFlight: ReadonlySet<string>;
  /** Reviews whose fate is journaled but whose letter still has to be written, oldest first. */
  readonly held: readonly HeldReview[];
  /** Every review the journal still knows was accepted (pending, finished, or kept for its cooldown), oldest first. */
  readonly accepted: readonly AcceptedReview[];
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
function refOf(origin: z.infer<typeof originRecord>): string {
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
const letterFileRecord = z.discriminatedUnion('op', [letterRecord, retriedRecord]);

type QueuedRecord = z.infer<typeof queuedRecord>;
type DeliveredRecord = z.infer<typeof deliveredRecord>;
type AcceptedRecord = z.infer<typeof acceptedRecord>;
type JournalRecord = z.infer<typeof journalRecord>;

function toAccepted(record: QueuedRecord | AcceptedRecord): AcceptedReview {
  const { steam_id: steamId, eos_id: eosId } = record.player;
  return {
    id: record.id,
    server: record.server,
    player: { ...(steamId === undefined ? {} : { steamId }), ...(eosId === undefined ? {} : { eosId }) },
    at: record.at,
  };
}

function acceptedLine(record: QueuedRecord): string {
  const { steam_id: steamId, eos_id: eosId } = record.player;
  const player = { ...(steamId === undefined ? {} : { steam_id: steamId }), ...(eosId === undefined ? {} : { eos_id: eosId }) };
  const accepted: AcceptedRecord = { v: 1, op: 'accepted', id: record.id, at: record.at, server: record.server, player };
  return `${JSON.stringify(accepted)}\n`;
}

function toQueuedRecord(review: OutboxReview): QueuedRecord {
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

function toReview(record: QueuedRecord): OutboxReview {
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

function describeIssue(error: z.ZodError): string {
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

function encodeQueued(review: OutboxReview): string {
  const problem = unstorableReason(review);
  if (problem !== undefined) throw new RangeError(`review ${review.id} cannot be journaled: ${problem}`);
  return `${JSON.stringify(toQueuedRecord(review))}\n`;
}

function encodeRecord(record: JournalRecord): string {
  return `${JSON.stringify(record)}\n`;
}

function encodeFate(id: string, fate: ReviewFate, at: number, queued: QueuedRecord | undefined): string {
  if (fate.op === 'delivered') return queued === undefined ? encodeRecord({ v: 1, op: 'delivered', id, at }) : deliveredLine(queued, at, fate.receipt);
  return encodeRecord({ v: 1, op: fate.op, id, at, error: { ...fate.reason } });
}

/** The self-contained `delivered` line of a review: what the history keeps (no comment, no origin). */
function deliveredLine(queued: QueuedRecord, at: number, receipt: string | undefined): string {
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
function deliveredOf(record: DeliveredRecord): DeliveredReview | undefined {
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
interface DeliveredEntry {
  readonly line: string;
  readonly review: DeliveredReview;
}

/** Adds the newest delivery and forgets the oldest beyond DELIVERED_HISTORY; the map stays in delivery order. */
function remember<T>(history: Map<string, T>, id: string, entry: T): void {
  history.delete(id);
  history.set(id, entry);
  for (const oldest of history.keys()) {
    if (history.size <= DELIVERED_HISTORY) break;
    history.delete(oldest);
  }
}

/** A delivered history entry from the review's `queued` line and when (and with what receipt) it was delivered. */
function deliveredEntry(queued: QueuedRecord, at: number, receipt: string | undefined): DeliveredEntry {
  const { id, server, player, stars, queuedAt } = toReview(queued);
  const kept = receipt?.slice(0, MAX_RECEIPT_CHARS);
  return {
    line: deliveredLine(queued, at, kept),
    review: { id, server, player, stars, queuedAt, deliveredAt: at, ...(kept === undefined ? {} : { receipt: kept }) },
  };
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

type LineResult = { readonly ok: true; readonly record: JournalRecord } | { readonly ok: false; readonly reason: string };

function parseLine(bytes: Uint8Array): LineResult {
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

interface BadLine {
  readonly lineNumber: number;
  readonly offset: number;
  readonly reason: string;
}

/** A held review's fate, and its `held` line (kept by a compaction). */
interface HeldFate {
  readonly kind: LetterKind;
  readonly reason: FailureReason;
  readonly at: number;
  readonly line: string;
}

/**
 * A review without a fate: its exact `queued` line and its record, the `sending` line of an attempt with no outcome
 * yet, and its `held` fate: what a compaction keeps.
 */
interface LiveReview {
  readonly line: string;
  readonly record: QueuedRecord;
  sending: string | undefined;
  held: HeldFate | undefined;
}

function liveLines(entry: LiveReview): string {
  return entry.line + (entry.sending ?? '') + (entry.held?.line ?? '');
}

function liveLineCount(entry: LiveReview): number {
  return 1 + (entry.sending === undefined ? 0 : 1) + (entry.held === undefined ? 0 : 1);
}

function heldOf(entry: LiveReview): HeldReview | undefined {
  return entry.held === undefined ? undefined : { kind: entry.held.kind, review: toReview(entry.record), reason: entry.held.reason };
}

interface ScanResult {
  /** id → the review without a fate, in file order. */
  readonly live: Map<string, LiveReview>;
  /** id → finished reviews' acceptance (and `accepted` records), for the cooldown. */
  readonly finished: Map<string, QueuedRecord | AcceptedRecord>;
  /** id → the last DELIVERED_HISTORY delivered reviews, in delivery order. */
  readonly delivered: Map<string, DeliveredEntry>;
  /** Live reviews not held, oldest first: to be sent. */
  readonly pending: OutboxReview[];
  readonly inFlight: Set<string>;
  readonly held: HeldReview[];
  readonly validLines: number;
  readonly finishedReviews: number;
  /** Byte offset just past the last good record: everything after it is a torn tail. */
  readonly goodEnd: number;
  readonly tailLines: number;
  readonly middleBad: readonly BadLine[];
  readonly duplicates: readonly BadLine[];
}

function scanJournal(data: Buffer): ScanResult {
  const live = new Map<string, LiveReview>();
  const finished = new Map<string, QueuedRecord | AcceptedRecord>();
  const delivered = new Map<string, DeliveredEntry>();
  const bad: BadLine[] = [];
  const duplicates: BadLine[] = [];
  let validLines = 0;
  let finishedReviews = 0;
  let goodEnd = 0;
  let lineNumber = 0;
  let tailLines = 0;
  for (let offset = 0; offset < data.length; ) {
    lineNumber += 1;
    const newline = data.indexOf(0x0a, offset);
    if (newline === -1) {
      // An unterminated last line never finished its write, so it was never acknowledged: drop it even if it parses.
      tailLines += 1;
      break;
    }
    const parsed = parseLine(data.subarray(offset, newline));
    if (!parsed.ok) {
      bad.push({ lineNumber, offset, reason: parsed.reason });
    } else {
      validLines += 1;
      goodEnd = newline + 1;
      const { record } = parsed;
      if (record.op === 'queued') {
        if (live.has(record.id)) {
          duplicates.push({ lineNumber, offset, reason: `a second 'queued' record for review ${record.id}` });
        } else {
          // After a fate, a `queued` record with the same id is a person's re-queue (`reviews retry`).
          finished.delete(record.id);
          live.set(record.id, { line: data.toString('utf8', offset, newline + 1), record, sending: undefined, held: undefined });
        }
      } else if (record.op === 'accepted') {
        if (!live.has(record.id)) finished.set(record.id, record);
      } else if (record.op === 'sending' || record.op === 'not_sent' || record.op === 'held') {
        const entry = live.get(record.id);
        if (entry !== undefined) {
          const line = data.toString('utf8', offset, newline + 1);
          entry.sending = record.op === 'sending' ? line : undefined;
          if (record.op === 'held') entry.held = { kind: record.kind, reason: record.error, at: record.at, line };
        }
      } else {
        const ended = live.get(record.id);
        if (ended !== undefined) {
          live.delete(record.id);
          finished.set(record.id, ended.record);
          finishedReviews += 1;
          if (record.op === 'delivered') remember(delivered, record.id, deliveredEntry(ended.record, record.at, record.receipt));
        } else if (record.op === 'delivered') {
          // Kept by a compaction for the delivered history; an older bare one names no review and is left over.
          const review = deliveredOf(record);
          if (review !== undefined) remember(delivered, record.id, { line: data.toString('utf8', offset, newline + 1), review });
        }
      }
      // Any other fate without a live review is left over from a compaction or a repeat; it changes nothing.
    }
    offset = newline + 1;
  }
  const middleBad = bad.filter((line) => line.offset < goodEnd);
  tailLines += bad.length - middleBad.length;
  const entries = [...live.values()];
  const pending = entries.filter((entry) => entry.held === undefined).map((entry) => toReview(entry.record));
  const inFlight = new Set(entries.filter((entry) => entry.held === undefined && entry.sending !== undefined).map((entry) => entry.record.id));
  const held = entries.flatMap((entry) => heldOf(entry) ?? []);
  return { live, finished, delivered, pending, inFlight, held, validLines, finishedReviews, goodEnd, tailLines, middleBad, duplicates };
}

interface PendingWrite {
  readonly line: string;
  /** Updates the in-memory view once the line is durable. */
  readonly commit: () => void;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

export class ReviewJournal {
  readonly #dir: string;
  readonly #path: string;
  readonly #tmpPath: string;
  readonly #letterPaths: Readonly<Record<LetterKind, string>>;
  readonly #logger: Logger;
  readonly #compactAfter: number;
  readonly #retainAcceptedMs: number;
  readonly #clock: Clock;
  #handle: FileHandle | undefined;
  /** Bytes known to be whole records: where a failed write is cut back to. */
  #size: number;
  /** id → every review without a durable fate: what a compaction keeps. */
  readonly #live: Map<string, LiveReview>;
  /** id → acceptance of finished reviews, oldest first: kept through compactions while `retainAcceptedMs` lasts. */
  readonly #finished: Map<string, QueuedRecord | AcceptedRecord>;
  /** id → the `delivered` line of the last DELIVERED_HISTORY delivered reviews, in delivery order: kept by compactions. */
  readonly #delivered: Map<string, string>;
  #finishedSinceCompaction: number;
  #waiting: PendingWrite[] = [];
  #writing = false;
  #drained: Promise<void> = Promise.resolve();
  #broken: Error | undefined;
  #closed = false;
  #closing: Promise<void> | undefined;
  /** Letter writes in order, one file append at a time: what close() waits for. */
  #letters: Promise<void> = Promise.resolve();

  private constructor(options: JournalOptions, handle: FileHandle, scan: ScanResult) {
    this.#dir = path.resolve(options.dataDir);
    this.#path = path.join(this.#dir, JOURNAL_FILE);
    this.#tmpPath = `${this.#path}.tmp`;
    this.#letterPaths = { dead: path.join(this.#dir, DEAD_LETTER_FILE), unconfirmed: path.join(this.#dir, UNCONFIRMED_FILE) };
    this.#logger = options.logger;
    this.#compactAfter = options.compactAfterFinished;
    this.#retainAcceptedMs = options.retainAcceptedMs ?? 0;
    this.#clock = options.clock ?? systemClock;
    this.#handle = handle;
    this.#size = scan.goodEnd;
    this.#live = scan.live;
    this.#finished = scan.finished;
    this.#delivered = new Map([...scan.delivered].map(([id, entry]) => [id, entry.line]));
    this.#finishedSinceCompaction = scan.finishedReviews;
  }

  /** Reads and repairs the journal (see the header), compacts it when mostly finished, and opens it for appends. */
  static async open(options: JournalOptions): Promise<OpenedJournal> {
    const dir = path.resolve(options.dataDir);
    const file = path.join(dir, JOURNAL_FILE);
    const { logger } = options;
    await makeDataDir(dir);
    if (await removeIfPresent(`${file}.tmp`)) {
      logger.info({ file: `${file}.tmp` }, `removed ${file}.tmp left by a compaction that did not finish; ${file} is complete`);
    }

    let data: Buffer;
    let existed = true;
    try {
      data = await readFile(file);
    } catch (error) {
      if (!isErrnoCode(error, 'ENOENT')) throw error;
      data = Buffer.alloc(0);
      existed = false;
    }
    const scan = scanJournal(data);
    logScanProblems(logger, file, data.length, scan);

    const handle = await open(file, 'a', FILE_MODE);
    try {
      if (scan.goodEnd < data.length) {
        await handle.truncate(scan.goodEnd);
        await handle.datasync();
      }
      if (!existed) await syncDirectory(dir);
    } catch (error) {
      await handle.close();
      throw error;
    }
    const journal = new ReviewJournal(options, handle, scan);
    logger.info(
      { file, pending: scan.pending.length, finished: scan.finishedReviews },
      `review journal ${file}: ${scan.pending.length} pending reviews, ${scan.finishedReviews} finished`,
    );
    const accepted = [...scan.live.values()].map(({ record }) => toAccepted(record)).concat([...scan.finished.values()].map(toAccepted));
    accepted.sort((a, b) => a.at - b.at);
    const liveLineTotal = [...scan.live.values()].reduce((sum, entry) => sum + liveLineCount(entry), 0);
    const deadLines = scan.validLines - liveLineTotal - journal.#retainedAccepted().length - journal.#delivered.size;
    if (deadLines > 0 && deadLines >= scan.live.size) await journal.#compact();
    return { journal, pending: scan.pending, inFlight: scan.inFlight, held: scan.held, accepted };
  }

  letterPath(kind: LetterKind): string {
    return this.#letterPaths[kind];
  }

  /** Resolves once the review's `queued` record is written and fsynced. */
  async appendQueued(review: OutboxReview): Promise<void> {
    const line = encodeQueued(review);
    const record = toQueuedRecord(review);
    await this.#append(line, () => {
      this.#finished.delete(review.id);
      this.#live.set(review.id, { line, record, sending: undefined, held: undefined });
    });
  }

  /**
   * Resolves once the `sending` record is fsynced: written before each attempt, so that after a crash the reader
   * knows the review may have reached GSA (see `inFlight`).
   */
  appendSending(id: string): Promise<void> {
    const line = encodeRecord({ v: 1, op: 'sending', id, at: this.#clock.now() });
    return this.#append(line, () => {
      const entry = this.#live.get(id);
      if (entry !== undefined) entry.sending = line;
    });
  }

  /** The last attempt surely did not store the review (it waits for the next one); nobody needs to wait for it. */
  appendNotSent(id: string): Promise<void> {
    return this.#append(encodeRecord({ v: 1, op: 'not_sent', id, at: this.#clock.now() }), () => {
      const entry = this.#live.get(id);
      if (entry !== undefined) entry.sending = undefined;
    });
  }

  /**
   * The review's fate is known but its letter could not be written: resolves once the `held` record is fsynced. The
   * review stays in the journal (listed under `kind`) until its letter is written and its fate appended.
   */
  appendHeld(id: string, kind: LetterKind, reason: FailureReason): Promise<void> {
    const at = this.#clock.now();
    const line = encodeRecord({ v: 1, op: 'held', id, at, kind, error: { ...reason } });
    return this.#append(line, () => {
      const entry = this.#live.get(id);
      if (entry === undefined) return;
      entry.sending = undefined;
      entry.held = { kind, reason, at, line };
    });
  }

  /**
   * Resolves once the fate record is fsynced; callers need not wait for it (see the header). A `delivered` record names
   * its review (from its `queued` record) and joins the delivered history.
   */
  appendFate(id: string, fate: ReviewFate): Promise<void> {
    const line = encodeFate(id, fate, this.#clock.now(), this.#live.get(id)?.record);
    return this.#append(line, () => {
      const ended = this.#live.get(id);
      if (ended === undefined) return;
      this.#live.delete(id);
      this.#finishedSinceCompaction += 1;
      if (this.#retainAcceptedMs > 0) this.#finished.set(id, ended.record);
      if (fate.op === 'delivered') remember(this.#delivered, id, line);
    });
  }

  /** Appends the whole review and why it was refused to dead-letter.jsonl, fsynced, for a person to read. */
  appendDeadLetter(review: OutboxReview, reason: FailureReason): Promise<void> {
    return this.#appendLetter('dead', review, reason);
  }

  /** Appends the whole review GSA may or may not have stored to unconfirmed.jsonl, fsynced, for a person to check. */
  appendUnconfirmed(review: OutboxReview, reason: FailureReason): Promise<void> {
    return this.#appendLetter('unconfirmed', review, reason);
  }

  /**
   * A person's re-queue (`gsa-bridge reviews retry`): for each chosen letter, a `queued` record with the review's
   * own id (fsynced), then a `retried` marker in its letter file. Resolves with the reviews to deliver again.
   * A crash between the two leaves the review pending and its letter listed: a second retry then finds it pending.
   */
  async requeue(selection: RequeueSelection): Promise<RequeueResult> {
    const letters = currentLetters(await readLetterFiles(this.#dir), new Set(this.#live.keys()));
    const chosen: ReviewLetter[] = [];
    const alreadyPending: string[] = [];
    const unknown: string[] = [];
    if ('all' in selection) {
      chosen.push(...letters.filter((letter) => letter.kind === selection.all));
    } else {
      const byId = new Map(letters.map((letter) => [letter.review.id, letter]));
      for (const id of new Set(selection.ids)) {
        const letter = byId.get(id);
        if (letter !== undefined) chosen.push(letter);
        else if (this.#live.has(id)) alreadyPending.push(id);
        else unknown.push(id);
      }
    }
    // All `queued` records share the group commit (a handful of fsyncs for thousands), then one marker write per file.
    await Promise.all(chosen.map((letter) => this.appendQueued(letter.review)));
    const at = this.#clock.now();
    for (const kind of ['dead', 'unconfirmed'] as const) {
      const markers = chosen
        .filter((letter) => letter.kind === kind)
        .map((letter) => `${JSON.stringify({ v: 1, op: 'retried', id: letter.review.id, at })}\n`);
      if (markers.length > 0) await this.#queueLetterWrite(kind, markers.join(''));
    }
    return { requeued: chosen.map((letter) => letter.review), alreadyPending, unknown };
  }

  #appendLetter(kind: LetterKind, review: OutboxReview, reason: FailureReason): Promise<void> {
    const { id, at: queuedAt, server, player, stars, comment, origin } = toQueuedRecord(review);
    const entry = { v: 1, op: kind, id, at: this.#clock.now(), queued_at: queuedAt, server, player, stars, comment, origin, error: reason };
    return this.#queueLetterWrite(kind, `${JSON.stringify(entry)}\n`);
  }

  #queueLetterWrite(kind: LetterKind, line: string): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`review journal ${this.#path} is closed`));
    const written = this.#letters.then(() => appendDurably(this.#letterPaths[kind], line));
    this.#letters = written.catch(() => undefined);
    return written;
  }

  /** `accepted` lines of finished reviews still inside the retention window, oldest first. */
  #retainedAccepted(): string[] {
    if (this.#retainAcceptedMs <= 0) return [];
    const since = this.#clock.now() - this.#retainAcceptedMs;
    const lines: string[] = [];
    for (const [id, record] of this.#finished) {
      if (record.at <= since) this.#finished.delete(id);
      else lines.push(record.op === 'accepted' ? `${JSON.stringify(record)}\n` : acceptedLine(record));
    }
    return lines;
  }

  /** Writes and fsyncs what is waiting, then closes the file. Appends after this reject. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#closed = true;
      await this.#drained;
      await this.#letters;
      const handle = this.#handle;
      this.#handle = undefined;
      await handle?.close();
    })();
    return this.#closing;
  }

  #append(line: string, commit: () => void): Promise<void> {
    if (this.#closed) return Promise.reject(new Error(`review journal ${this.#path} is closed`));
    if (this.#broken !== undefined) return Promise.reject(this.#broken);
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ line, commit, resolve, reject });
      if (!this.#writing) {
        this.#writing = true;
        this.#drained = this.#drain();
      }
    });
  }

  /**
   * The group-commit loop: everything that arrived while the previous group was being written forms the next
   * group. `#writing` is cleared synchronously when the queue is seen empty, so no append can be stranded.
   */
  async #drain(): Promise<void> {
    try {
      for (;;) {
        const group = this.#waiting;
        if (group.length === 0) return;
        this.#waiting = [];
        // The group first, then a compaction that is due: a `delivered` record waits for no rewrite, which keeps the
        // window for a duplicate after a crash (GSA stored it, `delivered` not yet on disk) as short as one fsync.
        await this.#commit(group);
        if (this.#finishedSinceCompaction >= this.#compactAfter && this.#broken === undefined) await this.#compact();
      }
    } catch (error) {
      // Nobody awaits this loop but close(): a rejection here would be unhandled and leave appends hanging.
      this.#broken ??= new Error(`the review journal ${this.#path} failed unexpectedly: ${describeError(error)}`, { cause: error });
      this.#logger.error({ err: error, file: this.#path }, this.#broken.message);
      for (const write of this.#waiting.splice(0)) write.reject(this.#broken);
    } finally {
      this.#writing = false;
    }
  }

  async #commit(group: readonly PendingWrite[]): Promise<void> {
    const handle = this.#handle;
    const failWith = (error: unknown): void => {
      for (const write of group) write.reject(error);
    };
    if (this.#broken !== undefined || handle === undefined) {
      failWith(this.#broken ?? new Error(`review journal ${this.#path} is closed`));
      return;
    }
    const data = Buffer.from(group.map((write) => write.line).join(''), 'utf8');
    try {
      await writeFully(handle, data);
    } catch (error) {
      await this.#cutBackPartialWrite(handle);
      failWith(new Error(`could not write to the review journal ${this.#path}: ${describeError(error)}`, { cause: error }));
      return;
    }
    try {
      await handle.datasync();
    } catch (error) {
      this.#broken = new Error(
        `fsync of the review journal ${this.#path} failed (${describeError(error)}); it takes no more reviews until the sidecar restarts`,
        { cause: error },
      );
      this.#logger.error({ err: error, file: this.#path }, this.#broken.message);
      failWith(this.#broken);
      return;
    }
    this.#size += data.length;
    for (const write of group) {
      write.commit();
      write.resolve();
    }
    if (this.#logger.isLevelEnabled('debug')) {
      this.#logger.debug({ records: group.length, bytes: data.length }, `journal: committed ${group.length} records with one fsync`);
    }
  }

  /** After a failed write, removes any partial line so later appends start on a line boundary. */
  async #cutBackPartialWrite(handle: FileHandle): Promise<void> {
    try {
      await handle.truncate(this.#size);
    } catch (error) {
      this.#broken = new Error(
        `the review journal ${this.#path} may end in a partial line and could not be cut back (${describeError(error)}); it takes no more reviews until the sidecar restarts`,
        { cause: error },
      );
      this.#logger.error({ err: error, file: this.#path }, this.#broken.message);
    }
  }

  /** Rewrites the journal with only the pending `queued` lines; runs only between groups, so nothing else writes. */
  async #compact(): Promise<void> {
    // Counted as done even on failure, so a disk that refuses the rewrite is retried only after as many fates again.
    this.#finishedSinceCompaction = 0;
    // Cooldown records first: they are older than or as old as the pending reviews, and order does not matter to the scan.
    const kept = [...this.#retainedAccepted(), ...this.#delivered.values(), ...[...this.#live.values()].map(liveLines)].join('');
    const data = Buffer.from(kept, 'utf8');
    const before = this.#size;
    try {
      await removeIfPresent(this.#tmpPath);
      const tmp = await open(this.#tmpPath, 'wx', FILE_MODE);
      try {
        await writeFully(tmp, data);
        await tmp.datasync();
      } finally {
        await tmp.close();
      }
    } catch (error) {
      await removeIfPresent(this.#tmpPath).catch(() => undefined);
      this.#logger.error({ err: error, file: this.#path }, `could not compact the review journal ${this.#path}; it keeps growing until a later try succeeds`);
      return;
    }

    // Closed before the rename because Windows cannot rename over an open file; reopened whichever file is current.
    try {
      await this.#handle?.close();
    } catch (error) {
      // Everything written through it is already fsynced; a failed close loses nothing.
      this.#logger.debug({ err: error, file: this.#path }, 'closing the review journal before compaction failed');
    }
    this.#handle = undefined;
    let renamed = false;
    try {
      await rename(this.#tmpPath, this.#path);
      renamed = true;
      // Until the directory is fsynced the rename may be undone by power loss, taking later appends with it.
      await syncDirectory(this.#dir);
    } catch (error) {
      if (renamed) {
        this.#broken = new Error(`could not fsync ${this.#dir} after compacting the review journal: ${describeError(error)}`, { cause: error });
        this.#logger.error({ err: error, file: this.#path }, this.#broken.message);
        return;
      }
      await removeIfPresent(this.#tmpPath).catch(() => undefined);
      this.#logger.error({ err: error, file: this.#path }, `could not compact the review journal ${this.#path}; it keeps growing until a later try succeeds`);
    }
    try {
      this.#handle = await open(this.#path, 'a', FILE_MODE);
    } catch (error) {
      this.#broken = new Error(`could not reopen the review journal ${this.#path}: ${describeError(error)}`, { cause: error });
      this.#logger.error({ err: error, file: this.#path }, this.#broken.message);
      return;
    }
    if (renamed) {
      this.#size = data.length;
      this.#logger.info(
        { file: this.#path, pending: this.#live.size, delivered: this.#delivered.size, bytesBefore: before, bytesAfter: data.length },
        `compacted the review journal: kept ${this.#live.size} pending reviews and the last ${this.#delivered.size} delivered (${before} → ${data.length} bytes)`,
      );
    }
  }
}

function logScanProblems(logger: Logger, file: string, fileSize: number, scan: ScanResult): void {
  scan.middleBad.slice(0, MAX_LINE_WARNINGS).forEach((line) => {
    logger.warn(
      { file, line: line.lineNumber, offset: line.offset, reason: line.reason },
      `skipped line ${line.lineNumber} of ${file} (byte offset ${line.offset}): ${line.reason}; every other record was kept`,
    );
  });
  const unlisted = scan.middleBad.length - MAX_LINE_WARNINGS;
  if (unlisted > 0) logger.warn({ file, lines: unlisted }, `skipped ${unlisted} more bad lines of ${file}`);
  for (const line of scan.duplicates) {
    logger.warn({ file, line: line.lineNumber, offset: line.offset }, `ignored line ${line.lineNumber} of ${file}: ${line.reason}`);
  }
  const tornBytes = fileSize - scan.goodEnd;
  if (tornBytes > 0) {
    logger.warn(
      { file, offset: scan.goodEnd, bytes: tornBytes, lines: scan.tailLines },
      `dropped ${tornBytes} bytes (${scan.tailLines} ${scan.tailLines === 1 ? 'line' : 'lines'}) at the end of ${file} from byte offset ${scan.goodEnd}: ` +
        'a write that never finished (its reviews were never acknowledged); the file was cut back to the last whole record',
    );
  }
}

const letterUtf8 = new TextDecoder('utf-8', { fatal: true });

interface LetterFileLine {
  readonly kind: LetterKind;
  readonly record: z.infer<typeof letterFileRecord>;
}

/** A letter file that exists but could not be read, and why. */
export interface UnreadableFile {
  readonly file: string;
  readonly reason: string;
}

/**
 * Both letter files, in file order; unreadable lines are skipped (a person may have edited the file). A file that
 * cannot be read throws, unless `unreadable` is given: then it is noted there and the other file is still read.
 */
async function readLetterFiles(dir: string, unreadable?: UnreadableFile[]): Promise<LetterFileLine[]> {
  const lines: LetterFileLine[] = [];
  for (const kind of ['dead', 'unconfirmed'] as const) {
    let data: Buffer;
    const file = path.join(dir, kind === 'dead' ? DEAD_LETTER_FILE : UNCONFIRMED_FILE);
    try {
      data = await readFile(file);
    } catch (error) {
      if (isErrnoCode(error, 'ENOENT')) continue;
      if (unreadable === undefined) throw error;
      unreadable.push({ file, reason: describeError(error) });
      continue;
    }
    let text: string;
    try {
      text = letterUtf8.decode(data);
    } catch {
      text = data.toString('utf8');
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        continue;
      }
      const parsed = letterFileRecord.safeParse(value);
      if (parsed.success) lines.push({ kind, record: parsed.data });
    }
  }
  return lines;
}

/** The letters still waiting for a person: the last letter of each id not retried since and not pending again. */
function currentLetters(lines: readonly LetterFileLine[], pending: ReadonlySet<string>): ReviewLetter[] {
  const current = new Map<string, ReviewLetter>();
  for (const { kind, record } of lines) {
    if (record.op === 'retried') {
      if (current.get(record.id)?.kind === kind) current.delete(record.id);
      continue;
    }
    const { queued_at: queuedAt, error, ...rest } = record;
    const review = toReview({ ...rest, op: 'queued', at: queuedAt });
    current.delete(record.id); // re-inserted, so the map stays in the order letters were written
    current.set(record.id, { kind, review, at: record.at, reason: error });
  }
  return [...current.values()].filter((letter) => !pending.has(letter.review.id));
}

/** What the data directory holds, for `gsa-bridge reviews list`. Reads only: safe while a sidecar runs. */
export interface OutboxContents {
  /** Accepted, no fate yet, oldest first. */
  readonly pending: readonly OutboxReview[];
  /**
   * Dead and unconfirmed letters not re-queued since, in the order they were written, then the held reviews (fate
   * journaled, letter not written yet: `held` true).
   */
  readonly letters: readonly ReviewLetter[];
  /** Letter files that exist but could not be read: their letters are missing from `letters`. */
  readonly unreadable: readonly UnreadableFile[];
  /** The last DELIVERED_HISTORY delivered reviews, in delivery order (the newest last). */
  readonly delivered: readonly DeliveredReview[];
}

/**
 * Reads the journal and the letter files without changing anything (no repair, no compaction): a running
 * sidecar may be appending, and an unfinished last line is simply not counted.
 */
export async function readOutboxContents(dataDir: string): Promise<OutboxContents> {
  const dir = path.resolve(dataDir);
  let data: Buffer;
  try {
    data = await readFile(path.join(dir, JOURNAL_FILE));
  } catch (error) {
    if (!isErrnoCode(error, 'ENOENT')) throw error;
    data = Buffer.alloc(0);
  }
  const scan = scanJournal(data);
  const unreadable: UnreadableFile[] = [];
  const letters = currentLetters(await readLetterFiles(dir, unreadable), new Set(scan.live.keys()));
  const held = [...scan.live.values()].flatMap((entry): ReviewLetter[] =>
    entry.held === undefined ? [] : [{ kind: entry.held.kind, review: toReview(entry.record), at: entry.held.at, reason: entry.held.reason, held: true }],
  );
  return { pending: scan.pending, letters: [...letters, ...held], unreadable, delivered: [...scan.delivered.values()].map((entry) => entry.review) };
}
