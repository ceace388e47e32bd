// What a failed delivery means for a review: GSA's error sorted into "it may have been stored" (unconfirmed), "it
// never will be" (dead), "the host must fix something" and "try again later", and how that is worded for the
// player, the letter files and the log. Pure.
// Must never call a failure before the request left "unconfirmed" (`maybeProcessed` decides), nor a host's setup
// problem the player's fault.

import { GsaError, type GsaErrorCode } from '../gsa/errors.js';
import { reviewReasonCode } from '../bridge/reviewReasons.js';
import type { FailureReason } from './journalRecords.js';

export const UNCONFIRMED_MESSAGE = 'GSA did not confirm the review; it may have been stored. It was not sent again.';

/** Refusals that another attempt cannot change: the player's or the review's own problem. */
const PERMANENT_CODES: ReadonlySet<GsaErrorCode> = new Set(['forbidden', 'invalid', 'refused', 'invalid_input']);
/**
 * Refusals that say the host's setup is wrong: every review would get them, so none is the player's fault. A review
 * not sent while the credentials are paused (`credentials_refused`) waits like one GSA answered 401.
 */
const HOST_SETUP_CODES: ReadonlySet<GsaErrorCode> = new Set(['unauthorized', 'credentials_refused', 'not_found']);

export type Failure =
  | { readonly kind: 'unconfirmed' | 'dead'; readonly error: GsaError }
  | { readonly kind: 'host'; readonly error: GsaError }
  | { readonly kind: 'retry' };

export function classify(error: unknown): Failure {
  // Anything that is not a GsaError is a bug on our side: GSA never saw the review, so keeping it is safe.
  if (!(error instanceof GsaError)) return { kind: 'retry' };
  if (error.maybeProcessed) return { kind: 'unconfirmed', error };
  if (HOST_SETUP_CODES.has(error.code)) return { kind: 'host', error };
  return PERMANENT_CODES.has(error.code) ? { kind: 'dead', error } : { kind: 'retry' };
}

/**
 * What the host has to fix, without naming config keys (the outbox knows no config file): the composition root
 * passes `describeHostFix` to say it in the config file's words.
 */
export function defaultHostFix(error: GsaError, server: string): string {
  return error.code === 'unauthorized' || error.code === 'credentials_refused'
    ? 'GSA refused the API credentials: check the client id and secret (and that the server is bound to these keys)'
    : `GSA does not know server ${server}: check the server's name (the GSA container name) and the service URL`;
}

/** Why a review ended, for its letter and the journal: in the mod protocol's words (reviewReasons.ts). */
export function reasonOf(error: GsaError): FailureReason {
  return { code: reviewReasonCode(error.code), status: error.status ?? null, message: error.message };
}

/** The service's own words reach the player; an empty service message would tell them nothing. */
export function playerMessage(error: GsaError): string {
  const service = error.serviceMessage?.trim();
  return service !== undefined && service.length > 0 ? service : error.message;
}

export function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function failureFields(error: unknown): Record<string, unknown> {
  return error instanceof GsaError ? { code: error.code, status: error.status } : { err: error };
}
