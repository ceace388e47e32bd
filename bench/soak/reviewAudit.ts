// After the run: where did every acknowledged review end up? Reads the emulator's stored reviews and the
// sidecar's data directory directly (reviews.jsonl, dead-letter.jsonl, unconfirmed.jsonl) and matches reviews
// by content: the player id and a comment carrying a unique nonce. Must never trust the sidecar's own
// `review.result` for this: the point is to check what it said against what happened. Delivered means the emulator
// stored it (GSA's documented success); a review the sidecar called delivered (a `delivered` record, or `ok: true`
// to the mod) that the emulator never stored is lost, whatever a listing says.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SentReview } from './modFleet.js';

export const JOURNAL_FILE = 'reviews.jsonl';
export const DEAD_LETTER_FILE = 'dead-letter.jsonl';
/** Written by the sidecar for reviews whose delivery is uncertain; same record shape as dead-letter.jsonl. */
export const UNCONFIRMED_FILE = 'unconfirmed.jsonl';

export type ReviewFateKind = 'delivered' | 'unconfirmed' | 'dead' | 'pending' | 'lost';

export interface AuditedReview {
  readonly review: SentReview;
  readonly fate: ReviewFateKind;
  /** How many times the emulator stored it (duplicates = copies - 1). */
  readonly copies: number;
  /** When the fate was reached, soak clock; undefined when unknown or still pending. */
  readonly fateAt: number | undefined;
}

export interface ReviewAudit {
  readonly acknowledged: number;
  readonly byFate: Readonly<Record<ReviewFateKind, number>>;
  readonly duplicates: number;
  readonly reviews: readonly AuditedReview[];
  /** Lines the audit could not parse, per file: a torn tail after kill -9 is normal, more is worth a look. */
  readonly unreadableLines: number;
}

/** What the emulator stored, as the audit needs it. */
export interface StoredCopy {
  readonly steamId?: string;
  readonly comment: string;
  /** Arrival time on the soak clock (the emulator runs in the soak's process). */
  readonly at: number;
}

interface JournalRecord {
  readonly op?: unknown;
  readonly id?: unknown;
  readonly at?: unknown;
  readonly player?: { readonly steam_id?: unknown };
  readonly comment?: unknown;
  /** A `held` record's fate. */
  readonly kind?: unknown;
}

export function contentKey(steamId: string, comment: string): string {
  return `${steamId}\u0000${comment}`;
}

/**
 * @param wallToSoak converts a journal's wall-clock `at` (Date.now()) to the soak clock.
 */
export async function auditReviews(
  sent: Iterable<SentReview>,
  stored: readonly StoredCopy[],
  dataDir: string,
  wallToSoak: (wallMs: number) => number,
): Promise<ReviewAudit> {
  const copies = new Map<string, StoredCopy[]>();
  for (const copy of stored) {
    const key = contentKey(copy.steamId ?? '', copy.comment);
    const list = copies.get(key) ?? [];
    list.push(copy);
    copies.set(key, list);
  }

  let unreadableLines = 0;
  const read = async (file: string): Promise<JournalRecord[]> => {
    let text: string;
    try {
      text = await readFile(join(dataDir, file), 'utf8');
    } catch {
      return [];
    }
    const records: JournalRecord[] = [];
    for (const line of text.split('\n')) {
      if (line.trim() === '') continue;
      try {
        records.push(JSON.parse(line) as JournalRecord);
      } catch {
        unreadableLines += 1;
      }
    }
    return records;
  };

  // The journal: queued records by id, then their fates. Pending = queued without a fate.
  const queuedKeyById = new Map<string, string>();
  const journalFate = new Map<string, { op: string; at: number | undefined }>();
  for (const record of await read(JOURNAL_FILE)) {
    if (typeof record.id !== 'string') continue;
    if (record.op === 'queued' && typeof record.player?.steam_id === 'string' && typeof record.comment === 'string') {
      queuedKeyById.set(record.id, contentKey(record.player.steam_id, record.comment));
    } else if (record.op === 'sending' || record.op === 'not_sent') {
      // An attempt, not a fate: the review is still pending.
    } else if (record.op === 'held') {
      // Its fate is journaled, its letter not written yet: `reviews list` shows it under that fate.
      if (record.kind === 'unconfirmed' || record.kind === 'dead') journalFate.set(record.id, { op: record.kind, at: typeof record.at === 'number' ? record.at : undefined });
    } else if (typeof record.op === 'string' && record.op !== 'queued') {
      journalFate.set(record.id, { op: record.op, at: typeof record.at === 'number' ? record.at : undefined });
    }
  }
  const pendingKeys = new Set<string>();
  const saidDeliveredKeys = new Set<string>();
  const listedByKey = new Map<string, { fate: 'unconfirmed' | 'dead'; at: number | undefined }>();
  for (const [id, key] of queuedKeyById) {
    const fate = journalFate.get(id);
    if (fate === undefined) pendingKeys.add(key);
    else if (fate.op === 'delivered') saidDeliveredKeys.add(key);
    else if (fate.op === 'unconfirmed' || fate.op === 'dead') listedByKey.set(key, { fate: fate.op, at: fate.at });
  }
  for (const [file, fate] of [
    [DEAD_LETTER_FILE, 'dead'],
    [UNCONFIRMED_FILE, 'unconfirmed'],
  ] as const) {
    for (const record of await read(file)) {
      if (typeof record.player?.steam_id !== 'string' || typeof record.comment !== 'string') continue;
      listedByKey.set(contentKey(record.player.steam_id, record.comment), { fate, at: typeof record.at === 'number' ? record.at : undefined });
    }
  }

  const byFate: Record<ReviewFateKind, number> = { delivered: 0, unconfirmed: 0, dead: 0, pending: 0, lost: 0 };
  let duplicates = 0;
  const reviews: AuditedReview[] = [];
  for (const review of sent) {
    if (review.ackAt === undefined) continue;
    const key = contentKey(review.steamId, review.comment);
    const found = copies.get(key) ?? [];
    const listed = listedByKey.get(key);
    let fate: ReviewFateKind;
    let fateAt: number | undefined;
    if (found.length > 0) {
      fate = 'delivered';
      fateAt = Math.min(...found.map((copy) => copy.at));
    } else if (review.resultOk === true || saidDeliveredKeys.has(key)) {
      // Said delivered, never stored: the lie this audit exists to catch (a 2xx that was not GSA's success, say).
      fate = 'lost';
    } else if (listed !== undefined) {
      fate = listed.fate;
      fateAt = listed.at === undefined ? review.resultAt : wallToSoak(listed.at);
    } else if (pendingKeys.has(key)) {
      fate = 'pending';
    } else {
      fate = 'lost';
    }
    // The mod may have heard first; either is when the fate was reached.
    if (fate !== 'pending' && fate !== 'lost' && review.resultAt !== undefined) fateAt = Math.min(fateAt ?? Infinity, review.resultAt);
    byFate[fate] += 1;
    duplicates += Math.max(0, found.length - 1);
    reviews.push({ review, fate, copies: found.length, fateAt });
  }
  return { acknowledged: reviews.length, byFate, duplicates, reviews, unreadableLines };
}
