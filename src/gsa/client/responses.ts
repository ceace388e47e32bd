// Reads the service's answers: maps a non-2xx status to its error class with the service's message, and
// parses the mute and review bodies into typed results (a review is stored only on the service's documented
// success, `{"data":"…"}`; any other 2xx leaves it unconfirmed). Pure functions over a RawResponse; no I/O.
// Text that came from the service is passed through `scrub` before it goes into an error message.

import { z } from 'zod';
import {
  BadResponseError,
  ForbiddenError,
  type GsaError,
  NotFoundError,
  RateLimitedError,
  RefusedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
} from '../errors.js';
import type { RawResponse } from './rawResponse.js';
import type { MuteStatus, OnePlayerId, ReviewReceipt } from '../types.js';

export type Scrub = (text: string) => string;

const MAX_MESSAGE_LENGTH = 500;

function firstHeader(response: RawResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The service's own count on the key (Laravel's throttle sends both headers on every answer it throttles). */
export interface ServiceRateCount {
  readonly limit: number;
  readonly remaining: number;
}

/** A header that must be a whole number of 0 or more, at most 9 digits; anything else is not read. */
function wholeHeader(response: RawResponse, name: string): number | undefined {
  const value = firstHeader(response, name)?.trim();
  return value !== undefined && /^\d{1,9}$/.test(value) ? Number(value) : undefined;
}

/** X-RateLimit-Limit and X-RateLimit-Remaining, when an answer carries both as whole numbers; else undefined. */
export function serviceRateCount(response: RawResponse): ServiceRateCount | undefined {
  const limit = wholeHeader(response, 'x-ratelimit-limit');
  const remaining = wholeHeader(response, 'x-ratelimit-remaining');
  if (limit === undefined || remaining === undefined || remaining > limit) return undefined;
  return { limit, remaining };
}

/** Retry-After in ms: either delta-seconds or an HTTP date. Undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - nowMs);
}

/** The body as JSON; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

const messageBody = z.object({ message: z.string().optional(), error: z.string().optional() });
const laravelErrors = z.record(z.string(), z.array(z.string()));

/** The service's own words: `message`, then `error`, then the raw text. */
export function serviceMessageOf(text: string, scrub: Scrub): string {
  const parsed = messageBody.safeParse(parseJson(text));
  const raw = (parsed.success ? (parsed.data.message ?? parsed.data.error) : undefined) ?? text;
  const oneLine = scrub(raw).replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_MESSAGE_LENGTH ? `${oneLine.slice(0, MAX_MESSAGE_LENGTH)}…` : oneLine;
}

function describe(what: string, serviceMessage: string): string {
  return serviceMessage.length > 0 ? `${what}: ${serviceMessage}` : what;
}

export function errorFromResponse(response: RawResponse, scrub: Scrub, nowMs: number): GsaError {
  const { status } = response;
  const serviceMessage = serviceMessageOf(response.text, scrub);
  const details = { status, serviceMessage };
  switch (status) {
    case 401:
      return new UnauthorizedError(
        describe('the service refused the API credentials (401): check the client id and secret, and that the server is bound to these keys', serviceMessage),
        details,
      );
    case 403:
      return new ForbiddenError(describe('the service refused the request (403)', serviceMessage), details);
    case 404:
      return new NotFoundError(describe('the service does not know this server (404): check the server name or id', serviceMessage), details);
    case 408:
      // The service (or a proxy) stopped waiting for the request before it arrived whole: it did nothing with it, so
      // this is a timeout that surely stored nothing (a review waits and goes again), not a refusal.
      return new TimeoutError(describe('the service timed out waiting for the request (408); it was not processed', serviceMessage), details);
    case 422: {
      const errors = laravelErrors.safeParse((parseJson(response.text) as { errors?: unknown } | undefined)?.errors);
      // A Laravel 422 may quote the input back, the secret included: its field messages are scrubbed too.
      const fieldErrors = errors.success
        ? Object.fromEntries(Object.entries(errors.data).map(([field, problems]) => [field, problems.map((problem) => scrub(problem))]))
        : {};
      return new ValidationError(describe('the service rejected the fields (422)', serviceMessage), fieldErrors, details);
    }
    case 429: {
      const retryAfterMs = parseRetryAfter(firstHeader(response, 'retry-after'), nowMs);
      return new RateLimitedError(describe('the service is rate limiting this API key (429)', serviceMessage), retryAfterMs, details);
    }
    case 503: {
      const retryAfterMs = parseRetryAfter(firstHeader(response, 'retry-after'), nowMs);
      return new UnavailableError(describe('the service is unavailable, probably maintenance (503)', serviceMessage), retryAfterMs, details);
    }
    default:
      if (status >= 500) {
        return new ServerError(describe(`the service failed (${status})`, serviceMessage), { ...details, maybeProcessed: true });
      }
      if (status >= 400) {
        return new RefusedError(describe(`the service refused the request (${status})`, serviceMessage), details);
      }
      return new BadResponseError(`unexpected HTTP status ${status} from the service`, { ...details, maybeProcessed: true });
  }
}

const muteBody = z.object({
  identifier: z.string(),
  muted: z.union([z.boolean(), z.literal(0), z.literal(1), z.literal('0'), z.literal('1'), z.literal('true'), z.literal('false')]),
  steam_id: z.string().nullish(),
  eos_id: z.string().nullish(),
  'muted-alert-text': z.string().nullish(),
  'muted-alert-tex': z.string().nullish(),
});

const MUTE_IDENTIFIER = 'gsamod-muted';

function nonEmpty(value: string | null | undefined): string | null {
  return value !== undefined && value !== null && value.trim().length > 0 ? value : null;
}

/**
 * Reads a mute answer and checks that it is about the id asked for, as the official mod does: the returned steam_id,
 * or eos_id (compared case-insensitively), must be the one the request named. Anything else (another identifier,
 * another player, no id at all) is a BadResponseError, so the caller treats it as unknown.
 */
export function parseMuteStatus(response: RawResponse, asked: OnePlayerId): MuteStatus {
  const parsed = muteBody.safeParse(parseJson(response.text));
  if (!parsed.success) {
    const field = parsed.error.issues[0]?.path.join('.') ?? '';
    const problem = field.length > 0 ? `field "${field}" is missing or has the wrong type` : 'the body is not a JSON object';
    throw new BadResponseError(`unreadable mute answer from the service: ${problem}`, { status: response.status });
  }
  const body = parsed.data;
  if (body.identifier !== MUTE_IDENTIFIER) {
    throw new BadResponseError(
      `mute answer has identifier ${JSON.stringify(body.identifier.slice(0, 40))}, expected "${MUTE_IDENTIFIER}"; not trusted`,
      { status: response.status },
    );
  }
  const matches = asked.steamId !== undefined ? body.steam_id === asked.steamId : body.eos_id?.toLowerCase() === asked.eosId.toLowerCase();
  if (!matches) {
    // Ids are not secrets, but an answer's ids are service text: cut them short rather than trust their length.
    const answered = JSON.stringify({ steam_id: body.steam_id?.slice(0, 40) ?? null, eos_id: body.eos_id?.slice(0, 40) ?? null });
    throw new BadResponseError(
      `mute answer is about another player (${answered}, asked for ${asked.steamId !== undefined ? `steam_id ${asked.steamId}` : `eos_id ${asked.eosId}`}); not trusted`,
      { status: response.status },
    );
  }
  const muted = body.muted === true || body.muted === 1 || body.muted === '1' || body.muted === 'true';
  return {
    muted,
    // The docs spell the key `muted-alert-tex`, the official mod reads `muted-alert-text`: take whichever has text.
    alert: muted ? (nonEmpty(body['muted-alert-text']) ?? nonEmpty(body['muted-alert-tex'])) : null,
    steamId: nonEmpty(body.steam_id),
    eosId: nonEmpty(body.eos_id),
  };
}

/** How much of an answer an error quotes: enough to recognise it, not enough to flood a log line. */
const MAX_QUOTED_BODY_LENGTH = 200;

/** The answer's body as an error quotes it: scrubbed, on one line, cut short. */
export function quotedBody(text: string, scrub: Scrub): string {
  const oneLine = scrub(text).replace(/\s+/g, ' ').trim();
  if (oneLine.length === 0) return 'an empty body';
  return oneLine.length > MAX_QUOTED_BODY_LENGTH ? `${oneLine.slice(0, MAX_QUOTED_BODY_LENGTH)}…` : oneLine;
}

/** Said by every review answer that is not the documented success: what it means and what the host can do. */
const REVIEW_MAY_BE_STORED =
  'the review may or may not be stored: check the dashboard, and re-send it only if it is not there (gsa-bridge reviews retry ID, for a review the sidecar kept as unconfirmed)';

/**
 * A review counts as stored only on the service's documented success: a 2xx whose body is a JSON object holding a
 * `data` string, as the seed's `{"data":"Done!"}`; whatever else the object carries does not matter
 * (`{"data":"Done!","error":null}`). Any other answer to a review that was sent is a `bad_response` with
 * `maybeProcessed` (the outbox's "unconfirmed": listed, re-sent only by `reviews retry`), never "delivered":
 * - a JSON object without a `data` string, whether it says it failed or says nothing clear
 *   (`{"message":"error: failed"}`, `{"status":400}`, `{"success":"false"}`, `{"message":"stored? maybe"}`,
 *   `{"success":true}`, `{}`, `{"data":5}`);
 * - JSON that is not an object (an array, a string, null);
 * - what is not JSON: a captive portal, a proxy or a wrong api.baseUrl answers 2xx too, with HTML.
 * The error quotes what came back (scrubbed) and says the review may or may not be stored: the request arrived,
 * so the service may have stored it all the same, and it must not be sent again blindly.
 */
export function parseReviewReceipt(response: RawResponse, scrub: Scrub): ReviewReceipt {
  const body = parseJson(response.text);
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  if (isObject) {
    const { data } = body as Record<string, unknown>;
    if (typeof data === 'string') return { message: scrub(data) };
  }
  const type = firstHeader(response, 'content-type')?.split(';')[0]?.trim() ?? '';
  const what =
    body === undefined
      ? "not the service's JSON: a proxy, a captive portal or a wrong api.baseUrl may have answered"
      : `${isObject ? 'a JSON object without a "data" string' : 'JSON that is not an object'}, not the service's documented success (a JSON object holding a "data" string)`;
  throw new BadResponseError(
    `the service answered ${response.status}${type.length > 0 ? ` (${type})` : ''} with ${quotedBody(response.text, scrub)}: ${what}; ${REVIEW_MAY_BE_STORED}`,
    { status: response.status, ...(isObject ? { serviceMessage: serviceMessageOf(response.text, scrub) } : {}), maybeProcessed: true },
  );
}
