// What a failed report send means: it surely did not reach GSA and may be tried again (`not_sent`), GSA said no
// (`refused`), or it may have reached GSA (`unconfirmed`), and how each is worded for the journal and the player.
// Pure.
// Must never call a failure "not sent" unless the GSA client says nothing may have been processed
// (`maybeProcessed` false) and the cause passes with time; anything the outbox cannot read is unconfirmed, since a
// report POST is not idempotent.

import { reviewReasonCode } from '../bridge/reviewReasons.js';
import { GsaError, RetryLaterError, type GsaErrorCode } from '../gsa/errors.js';
import type { ReportReason } from './reportRecords.js';

export const UNCONFIRMED_CODE = 'unconfirmed';
export const UNCONFIRMED_MESSAGE = 'GSA did not confirm the report; it may have been stored. It was not sent again.';

/**
 * Failures that pass with time, when nothing was sent or processed: no connection, GSA's or the local budget's "later"
 * (a full queue is `rate_limited` too), maintenance, a timeout before the request left, a cooldown, credentials paused
 * after a 401 (credentials_refused: not sent), a 5xx GSA says it did not act on.
 */
const TRANSIENT_CODES: ReadonlySet<GsaErrorCode> = new Set(['network', 'rate_limited', 'unavailable', 'timeout', 'cooldown', 'credentials_refused', 'server_error']);

export type ReportFailure =
  /** Surely not sent: wait and try again. `retryAfterMs`: how long GSA or the budget asked to wait. */
  | { readonly kind: 'not_sent'; readonly reason: ReportReason; readonly retryAfterMs: number | undefined }
  /** GSA refused it: never sent again. */
  | { readonly kind: 'refused'; readonly reason: ReportReason; readonly playerMessage: string }
  /** It may have reached GSA: never sent again. */
  | { readonly kind: 'unconfirmed'; readonly reason: ReportReason };

function retryAfterOf(error: GsaError): number | undefined {
  if (error instanceof RetryLaterError) return error.retryAfterMs;
  // CooldownError carries its own wait; no import of its class is needed to read it.
  const wait = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof wait === 'number' && Number.isFinite(wait) ? wait : undefined;
}

export function classifyReportFailure(error: unknown): ReportFailure {
  if (!(error instanceof GsaError)) {
    const message = error instanceof Error ? error.message : String(error);
    return { kind: 'unconfirmed', reason: { code: 'internal', message: `the send failed in an unexpected way (${message}); it may have reached GSA` } };
  }
  // Stored and listed in the mod protocol's words (GSA's 403 is `not_eligible`), like a review's reason.
  const reason: ReportReason = { code: reviewReasonCode(error.code), message: error.message };
  if (error.maybeProcessed) return { kind: 'unconfirmed', reason };
  if (TRANSIENT_CODES.has(error.code)) return { kind: 'not_sent', reason, retryAfterMs: retryAfterOf(error) };
  const service = error.serviceMessage?.trim();
  return { kind: 'refused', reason, playerMessage: service !== undefined && service.length > 0 ? service : error.message };
}
