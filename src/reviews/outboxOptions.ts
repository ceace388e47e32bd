// What a review outbox is given: where its data lives, how it sends, whom it tells, and its backoff and batch
// bounds with their defaults, checked before anything touches the disk.
// Must never read a config file (the composition root maps config onto these) and never accept a bound that would
// spin (a negative delay) or stall (no concurrency).

import type { Logger } from 'pino';
import type { ReviewOutcome } from '../bridge/port.js';
import type { GsaError } from '../gsa/errors.js';
import type { ReviewReceipt } from '../gsa/types.js';
import type { Clock } from '../time/clock.js';
import type { OutboxReview } from './journalRecords.js';

/** Delivers one review (see ReviewOutboxOptions.send). */
// eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- a sender that does not pass GSA's receipt on (an async function with no return) resolves with void
export type ReviewSend = (review: OutboxReview) => Promise<ReviewReceipt | void>;

export interface ReviewOutboxOptions {
  /** Where reviews.jsonl, dead-letter.jsonl and unconfirmed.jsonl live; created (0700) if missing. The caller holds its lock (src/datadir/dataDirLock.ts). */
  readonly dataDir: string;
  /**
   * Delivers one review; resolves when GSA stored it, with GSA's receipt when the sender passes it on (kept in the
   * delivered history that `reviews list --state delivered` shows); rejects with a GsaError otherwise.
   */
  readonly send: ReviewSend;
  /** Told once per review when its fate is known (delivered, refused, or unconfirmed). Must not throw. */
  readonly onResult: (review: OutboxReview, outcome: ReviewOutcome) => void;
  /**
   * Told when a review that was in flight when the previous process stopped (its journal shows it sent, with no
   * answer) is sent again: GSA may store it twice. Once per review and restart. Must not throw.
   */
  readonly onResend?: ((review: OutboxReview) => void) | undefined;
  /**
   * Told once at open when the journal held whole lines that no longer read as a record (each moved byte for byte
   * to reviews.damaged.jsonl for a person), with how many. Must not throw.
   */
  readonly onDamaged?: ((lines: number) => void) | undefined;
  readonly logger: Logger;
  /** Backoff between delivery rounds while GSA is unreachable, with 50–100% jitter. Default 1000 ms. */
  readonly retryMinDelayMs?: number;
  /** Longest backoff. Default 60 000 ms. */
  readonly retryMaxDelayMs?: number;
  /** Reviews in flight at once (the client's rate limiter still applies). Default 4. */
  readonly concurrency?: number;
  /** Rewrite the journal once it holds this many finished records. Default 1000. */
  readonly compactAfterFinished?: number;
  /** Finished reviews younger than this are remembered through compactions, for the players' cooldown. Default 0. */
  readonly retainAcceptedMs?: number;
  /** queuedAt and the journal's times; default the system clock. */
  readonly clock?: Clock;
  /** Backoff jitter, in [0, 1); default Math.random. */
  readonly random?: () => number;
  /** What a host must fix when GSA refuses our setup (401, 404), for the log. @default defaultHostFix */
  readonly describeHostFix?: (error: GsaError, server: string) => string;
}

export const DEFAULT_RETRY_MIN_DELAY_MS = 1000;
export const DEFAULT_RETRY_MAX_DELAY_MS = 60_000;
export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_COMPACT_AFTER_FINISHED = 1000;

export function positiveInteger(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isSafeInteger(chosen) || chosen < 1) throw new RangeError(`${name} must be a whole number of 1 or more, got ${String(value)}`);
  return chosen;
}

export function delayOption(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isFinite(chosen) || chosen < 0) throw new RangeError(`${name} must be 0 or more milliseconds, got ${String(value)}`);
  return chosen;
}
