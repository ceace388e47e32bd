// Errors raised by the GSA service client: one base class, one subclass per failure, each with a
// stable `code` that callers switch on. Messages name what went wrong and what to do.
// Never put a credential, a request body or request headers into an error: they end up in logs.

export type GsaErrorCode =
  | 'invalid_input'
  | 'unauthorized'
  | 'credentials_refused'
  | 'forbidden'
  | 'not_found'
  | 'invalid'
  | 'refused'
  | 'rate_limited'
  | 'cooldown'
  | 'unavailable'
  | 'server_error'
  | 'network'
  | 'timeout'
  | 'bad_response';

export interface GsaErrorDetails {
  /** HTTP status of the service's answer; undefined when there was no answer. */
  readonly status?: number | undefined;
  /** The service's own words (`message`, else `error`, else the body text). */
  readonly serviceMessage?: string | undefined;
  /**
   * True when the service may have acted on the request although we got no clear answer (a timeout or a
   * dropped connection after sending, a 5xx). Non-idempotent calls (reviews, webhooks) must not be re-sent
   * blindly in that case.
   */
  readonly maybeProcessed?: boolean | undefined;
  readonly cause?: unknown;
}

export abstract class GsaError extends Error {
  /** The code every instance of a subclass carries; callers read the instance's `code`. */
  static readonly errorCode: GsaErrorCode;
  readonly code: GsaErrorCode;
  readonly status: number | undefined;
  readonly serviceMessage: string | undefined;
  readonly maybeProcessed: boolean;

  constructor(message: string, details: GsaErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = (new.target as unknown as { errorCode: GsaErrorCode }).errorCode;
    this.status = details.status;
    this.serviceMessage = details.serviceMessage;
    this.maybeProcessed = details.maybeProcessed ?? false;
  }
}

/** Rejected before any request: the caller's input cannot be valid (bad id, empty server name, stars out of range). */
export class InvalidInputError extends GsaError {
  static override readonly errorCode = 'invalid_input';
  /** Field name → problems, like the service's 422 `errors`. */
  readonly fieldErrors: Readonly<Record<string, readonly string[]>>;

  constructor(fieldErrors: Record<string, string[]>) {
    const summary = Object.entries(fieldErrors)
      .map(([field, problems]) => `${field}: ${problems.join('; ')}`)
      .join(', ');
    super(`invalid input, nothing was sent: ${summary}`);
    this.fieldErrors = fieldErrors;
  }
}

export class UnauthorizedError extends GsaError {
  static override readonly errorCode = 'unauthorized';
}

/**
 * Not sent: GSA refused these API credentials (401) on an earlier mute lookup or review, and calls with them are paused
 * (credentialsBreaker.ts) until a probe, one a minute or one at once after a reload, passes. Spends no budget; not
 * retried inside the call. To the host it means what `unauthorized` means: fix the client id and secret.
 */
export class CredentialsRefusedError extends GsaError {
  static override readonly errorCode = 'credentials_refused';
}

export class ForbiddenError extends GsaError {
  static override readonly errorCode = 'forbidden';
}

export class NotFoundError extends GsaError {
  static override readonly errorCode = 'not_found';
}

/** 422: the service rejected the fields; `fieldErrors` is its Laravel-style `errors` object. */
export class ValidationError extends GsaError {
  static override readonly errorCode = 'invalid';
  readonly fieldErrors: Readonly<Record<string, readonly string[]>>;

  constructor(message: string, fieldErrors: Record<string, string[]>, details: GsaErrorDetails) {
    super(message, details);
    this.fieldErrors = fieldErrors;
  }
}

/** Another 4xx that the known answers do not name (409, 400, …): refused, not worth retrying. A 408 is a TimeoutError. */
export class RefusedError extends GsaError {
  static override readonly errorCode = 'refused';
}

/**
 * A "come back later" answer. `retryAfterMs` is how long to wait before trying again, undefined when the service
 * did not say: the client caps what the service asked for at `api.retry.maxRetryAfterMs` (withRetryAfterAtMost),
 * so a caller that honours it (the review outbox) never waits a day on one header. `requestedRetryAfterMs` keeps
 * what the service asked for, for logs.
 */
export abstract class RetryLaterError extends GsaError {
  readonly retryAfterMs: number | undefined;
  readonly requestedRetryAfterMs: number | undefined;

  constructor(message: string, retryAfterMs: number | undefined, details: GsaErrorDetails = {}, requestedRetryAfterMs: number | undefined = retryAfterMs) {
    super(message, details);
    this.retryAfterMs = retryAfterMs;
    this.requestedRetryAfterMs = requestedRetryAfterMs;
  }

  /** This error, or the same error with `retryAfterMs` lowered to `maxMs` when the service asked for longer. */
  withRetryAfterAtMost(maxMs: number): this {
    if (this.retryAfterMs === undefined || this.retryAfterMs <= maxMs) return this;
    // Every subclass keeps this constructor's signature, so the copy is of the same class with the same code.
    const Same = this.constructor as new (message: string, retryAfterMs: number | undefined, details: GsaErrorDetails, requested: number | undefined) => this;
    return new Same(
      this.message,
      maxMs,
      { status: this.status, serviceMessage: this.serviceMessage, maybeProcessed: this.maybeProcessed, cause: this.cause },
      this.requestedRetryAfterMs,
    );
  }
}

/** 429 from the service, or a call the local rate limiter did not send (QueueFullError). */
export class RateLimitedError extends RetryLaterError {
  static override readonly errorCode = 'rate_limited';
}

/**
 * Not sent: the local rate limiter refused the call because its queue was full, gave its place to a newer mute
 * lookup, or the client closed. Same code as a 429 (`rate_limited`) for callers; distinct so the retry policy does
 * not put it straight back into the queue that just refused it.
 * It carries no stack frames: a flood of chat from new players while the budget is spent makes one per line, and the
 * stack was two thirds of a refusal's CPU (bench/refused-lookups). Where it was made tells a host nothing: the
 * message says which queue refused it.
 */
export class QueueFullError extends RateLimitedError {
  constructor(message: string, retryAfterMs: number | undefined, details: GsaErrorDetails = {}, requestedRetryAfterMs: number | undefined = retryAfterMs) {
    // V8 captures the frames inside Error's constructor, up to stackTraceLimit: none are taken at 0. The process's
    // own limit is back before anything else runs.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message, retryAfterMs, details, requestedRetryAfterMs);
    } finally {
      Error.stackTraceLimit = limit;
    }
  }
}

/**
 * Not now for this one player or game server: GSA's documented per-target cooldown (120 s per player for mute and
 * unmute, 60 s per game server for its actions), either kept by the sidecar before sending (nothing was sent) or
 * GSA's own 429 "You cannot do this yet". It holds one target, never the API key, and is never retried inside the
 * call: the caller decides whether to come back at `availableAt`.
 */
export class CooldownError extends GsaError {
  static override readonly errorCode = 'cooldown';
  /** How long from when the error was made until the call can be made, in ms. */
  readonly retryAfterMs: number;
  /** When the call can be made, epoch ms. */
  readonly availableAt: number;

  constructor(message: string, retryAfterMs: number, availableAt: number, details: GsaErrorDetails = {}) {
    super(message, details);
    this.retryAfterMs = retryAfterMs;
    this.availableAt = availableAt;
  }
}

/** 503: maintenance. */
export class UnavailableError extends RetryLaterError {
  static override readonly errorCode = 'unavailable';
}

/** Any other 5xx. */
export class ServerError extends GsaError {
  static override readonly errorCode = 'server_error';
}

export class NetworkError extends GsaError {
  static override readonly errorCode = 'network';
}

/** No answer in time (maybe processed), or a 408: the service stopped waiting for the request (not processed). */
export class TimeoutError extends GsaError {
  static override readonly errorCode = 'timeout';
}

/** An answer that cannot be read or trusted (not JSON, wrong identifier, too large). */
export class BadResponseError extends GsaError {
  static override readonly errorCode = 'bad_response';
}

export function isGsaError(error: unknown): error is GsaError {
  return error instanceof GsaError;
}
