// The GameServerApp service client: one object per API key covering every documented call (mute check,
// review, the six server webhooks) in the v1 or v2 flavour. Each call is validated, rate-limited, sent,
// retried by the policy for its kind, and answered with a typed result or a GsaError with a stable code.
// It knows nothing of games, chat or adapters, and never logs or throws a credential.

import { Pool, type Dispatcher } from 'undici';
import type { Logger } from 'pino';
import { silentLogger } from '../log/logger.js';
import { Credentials } from './credentials.js';
import { SharedDeadlines } from './deadlines.js';
import { systemClock, type Clock } from '../time/clock.js';
import { clampTimerMs } from '../time/timerLimit.js';
import { GsaError, RateLimitedError, RetryLaterError, TimeoutError } from './errors.js';
import { LONG_HOLD_MS, type ApiBudget } from './apiBudget.js';
import { RateLimiter, DEFAULT_RATE_LIMIT, type CallKind, type RateLimitOptions } from './rateLimiter.js';
import type { RequestObserver } from './requestEvent.js';
import { muteCheckRequest, reviewRequest, serverActionRequest, type ApiRequest, type RequestContext } from './requests.js';
import { errorFromResponse, parseMuteStatus, parseReviewReceipt, serviceMessageOf, serviceRateCount } from './responses.js';
import { DEFAULT_RETRY, withRetry, type RetryOptions } from './retryPolicy.js';
import { MAX_RESPONSE_BYTES, notSentMarkingConnector, sendRequest, type RawResponse, type TransportOptions } from './transport.js';
import type { ApiFlavor, MuteLookupKind, MuteStatus, PlayerIds, ReviewReceipt, ServerAction, ServerActionResult } from './types.js';
import { DEFAULT_REVIEW_LIMITS, cleanComment, validateMuteCheck, validateReview, validateServerAction, type ReviewLimits } from './validation.js';
import { LocalWebhookSpacing, webhookKey, type WebhookSpacing, type WebhookTurn } from './webhookSpacing.js';

export interface GsaClientOptions {
  /** Service root, e.g. https://api.gameserverapp.com or the emulator's URL. */
  readonly baseUrl: string;
  /** v1: /api/v1 with credentials in the form body; v2: /mod-api/v2 with x-client-id / x-client-secret headers. Default 'v1'. */
  readonly flavor?: ApiFlavor | undefined;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Per-request timeout in ms, covering connect, headers and body. Default 5000. */
  readonly timeoutMs?: number | undefined;
  readonly rateLimit?: Partial<RateLimitOptions> | undefined;
  /**
   * Who decides when each call may start: the window, the class shares, the Retry-After hold. Default a LocalBudget
   * of `rateLimit.requests` per `rateLimit.intervalMs`, for this client alone (closed with it). A shared one
   * (RedisBudget) counts every sidecar on the key; it belongs to whoever made it, so close() leaves it open and
   * several clients in turn (a reload) may use it.
   */
  readonly budget?: ApiBudget | undefined;
  readonly retry?: Partial<RetryOptions> | undefined;
  /** Path segment of the wipe webhook. Default 'wipe'. */
  readonly wipePath?: string | undefined;
  readonly reviewLimits?: Partial<ReviewLimits> | undefined;
  /** Silent by default. */
  readonly logger?: Logger | undefined;
  /** Where requests go; default one undici Pool for the base URL's origin. Tests pass a MockAgent. */
  readonly dispatcher?: Dispatcher | undefined;
  /** Jitter source; default Math.random. */
  readonly random?: (() => number) | undefined;
  /** Time source of the rate limiter and of Retry-After dates; default the system clock. Tests pass fake time. */
  readonly clock?: Clock | undefined;
  /**
   * Told after every attempt at a request (endpoint, target, status, code, duration, attempt number), for health
   * tracking and metrics: the client itself has no logging policy. Must not throw. Default none.
   */
  readonly onRequest?: RequestObserver | undefined;
  /**
   * Keeps two calls of one webhook (same action, same server) at least 3 s apart, GSA's rule. Default a
   * LocalWebhookSpacing on `clock`, for this client alone; a shared one spaces calls across processes.
   */
  readonly webhookSpacing?: WebhookSpacing | undefined;
}

/** What the client tells a call's onRetry before it waits for the next attempt. */
export interface RetryNotice {
  /** The attempt that just failed, from 1. */
  readonly attempt: number;
  /** The most attempts this call makes (1 + the retries). */
  readonly maxAttempts: number;
  /** How long the client waits before the next attempt, in ms. */
  readonly delayMs: number;
  /** Why the attempt failed. */
  readonly error: GsaError;
}

/** Per-call options every call takes. */
export interface CallOptions {
  /**
   * Ends the call when it aborts: retry waits and webhook spacing stop at once, and a request on the wire is
   * abandoned with a `timeout` error (maybeProcessed: it may have reached the service). Default none.
   * @example AbortSignal.timeout(15_000) for one overall deadline, retries included
   */
  readonly signal?: AbortSignal | undefined;
  /** Told before each wait for another attempt (a terminal can show progress). Must not throw. Default none. */
  readonly onRetry?: ((notice: RetryNotice) => void) | undefined;
  /**
   * Further attempts after the first, for this call only (at most the client's `retry.retries`). Default the
   * client's. @example 0 for a check that must cost exactly one request of the budget
   */
  readonly retries?: number | undefined;
}

export interface CheckMutedOptions extends CallOptions {
  /**
   * `first` (default): nobody has an answer for this player yet, so a chat line may be waiting on it.
   * `refresh`: renews an answer already cached; it waits behind every first lookup for the budget and is the
   * first to give way when the mute queue is full (the cached answer stays in use meanwhile).
   */
  readonly kind?: MuteLookupKind | undefined;
  /**
   * Where the lookup comes from, as an opaque key the caller chooses (one per independent stream of lookups): first
   * lookups of different sources take turns in the mute share, and each source has its own bound (`maxQueuedPerSource`), so
   * one busy source cannot fill the queue. Default: one unnamed source shared by every caller that gives none.
   */
  readonly source?: string | undefined;
}

/** One call as the client plans it: what is sent, how it is counted and read, and what the caller asked for. */
interface PlannedCall<T> {
  readonly request: ApiRequest;
  readonly kind: CallKind;
  /** For log lines and errors: "mute check ovddykvbs/7656…". */
  readonly what: string;
  readonly parse: (response: RawResponse) => T;
  /** The server name or id, for the request observer. */
  readonly target: string;
  readonly options: CallOptions & { readonly source?: string | undefined };
  /** Set for webhooks: calls with the same key are spaced (webhookSpacing.ts). */
  readonly spacingKey?: string | undefined;
}

const DEFAULT_TIMEOUT_MS = 5000;
const POOL_CONNECTIONS = 16;

/** Waits `ms` (clamped to Node's timer limit); rejects at once when `signal` aborts (the client closed, the call's deadline). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Error('the wait was ended'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new Error('the wait was ended'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, clampTimerMs(ms));
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function describePlayer(player: PlayerIds): string {
  return player.steamId ?? player.eosId ?? '?';
}

export class GsaClient {
  readonly #context: RequestContext;
  readonly #credentials: Credentials;
  readonly #transport: TransportOptions;
  readonly #ownsDispatcher: boolean;
  readonly #limiter: RateLimiter;
  readonly #retry: RetryOptions;
  readonly #reviewLimits: ReviewLimits;
  readonly #logger: Logger;
  readonly #random: () => number;
  readonly #clock: Clock;
  /** Cancels retry waits on close(), so a closed client keeps no timer alive. */
  readonly #closing = new AbortController();
  readonly #onRequest: RequestObserver | undefined;
  readonly #webhookSpacing: WebhookSpacing;
  /** Masks the secret in text that came from the service before it reaches a result or an error. */
  readonly #scrub = (text: string): string => this.#credentials.scrub(text);

  constructor(options: GsaClientOptions) {
    const url = new URL(options.baseUrl);
    this.#credentials = new Credentials(options.clientId, options.clientSecret);
    this.#context = {
      flavor: options.flavor ?? 'v1',
      credentials: this.#credentials,
      basePath: url.pathname.replace(/\/+$/, ''),
      wipePath: options.wipePath ?? 'wipe',
    };
    this.#ownsDispatcher = options.dispatcher === undefined;
    const connections = options.rateLimit?.maxInFlight ?? POOL_CONNECTIONS;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#transport = {
      origin: url.origin,
      dispatcher: options.dispatcher ?? new Pool(url.origin, { connections, maxResponseSize: MAX_RESPONSE_BYTES, connect: notSentMarkingConnector() }),
      timeoutMs,
      deadlines: new SharedDeadlines(timeoutMs),
    };
    this.#clock = options.clock ?? systemClock;
    // Only as many calls leave as there are connections, so each is counted when it really goes out. An injected
    // dispatcher (tests, a host's own agent) brings its own queueing; there the limiter does not bound the wire.
    const maxInFlight = options.dispatcher === undefined ? connections : options.rateLimit?.maxInFlight;
    this.#limiter = new RateLimiter({ ...DEFAULT_RATE_LIMIT, ...options.rateLimit, maxInFlight }, this.#clock, options.budget);
    const retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#retry = { ...retry, maxRetryAfterMs: clampTimerMs(retry.maxRetryAfterMs) };
    this.#reviewLimits = { ...DEFAULT_REVIEW_LIMITS, ...options.reviewLimits };
    this.#logger = options.logger ?? silentLogger();
    this.#random = options.random ?? Math.random;
    this.#onRequest = options.onRequest;
    this.#webhookSpacing = options.webhookSpacing ?? new LocalWebhookSpacing({ clock: this.#clock });
  }

  /**
   * Asks whether a player is muted on a server. Retried on transient failures. A `refresh` waits behind first
   * lookups for the API budget (see CheckMutedOptions).
   */
  async checkMuted(server: string, player: PlayerIds, options: CheckMutedOptions = {}): Promise<MuteStatus> {
    validateMuteCheck(server, player);
    const kind: CallKind = options.kind === 'refresh' ? 'refresh' : 'lookup';
    return this.#call({
      request: muteCheckRequest(this.#context, server, player),
      kind,
      what: `mute check ${server}/${describePlayer(player)}`,
      parse: (response) => parseMuteStatus(response, player),
      target: server,
      options,
    });
  }

  /**
   * Sends a player's review as given, its comment passed through `cleanComment` (idempotent). Re-sent only when the
   * service surely did not store it; when a failure leaves that unknown, the error has `maybeProcessed: true` and
   * the caller must not send it blindly again.
   */
  async submitReview(server: string, player: PlayerIds, stars: number, comment: string, options: CallOptions = {}): Promise<ReviewReceipt> {
    // The same control-character rule as the outbox's admission, so the CLI and the library send what a mod would.
    const cleaned = cleanComment(comment);
    validateReview(server, player, stars, cleaned, this.#reviewLimits);
    return this.#call({
      request: reviewRequest(this.#context, server, player, stars, cleaned),
      kind: 'review',
      what: `review ${server}/${describePlayer(player)}`,
      parse: (response) => parseReviewReceipt(response, this.#scrub),
      target: server,
      options,
    });
  }

  /**
   * One webhook call. `countdownMinutes` applies to `update` only (the service defaults it to 30). A second call of
   * the same action on the same server waits until 3 s after the previous one left (webhookSpacing).
   */
  async serverAction(serverId: number, action: ServerAction, countdownMinutes?: number, options: CallOptions = {}): Promise<ServerActionResult> {
    validateServerAction(serverId, countdownMinutes);
    return this.#call({
      request: serverActionRequest(this.#context, serverId, action, countdownMinutes),
      kind: 'action',
      what: `${action} server ${serverId}`,
      parse: (response) => ({
        action,
        status: response.status,
        body: this.#scrub(response.text.trim()),
        message: serviceMessageOf(response.text, this.#scrub),
      }),
      target: String(serverId),
      options,
      spacingKey: webhookKey(serverId, action),
    });
  }

  start(serverId: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'start');
  }

  stop(serverId: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'stop');
  }

  restart(serverId: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'restart');
  }

  update(serverId: number, countdownMinutes?: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'update', countdownMinutes);
  }

  wipe(serverId: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'wipe');
  }

  cancelScheduled(serverId: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'cancel-scheduled');
  }

  /** Calls waiting for the rate limit. */
  get queuedCalls(): number {
    return this.#limiter.waiting;
  }

  /** Ms no call on the key may start for (a Retry-After hold, this client's or shared by another sidecar); 0 when none. */
  get heldForMs(): number {
    return this.#limiter.heldForMs;
  }

  /**
   * Refuses the calls still waiting for the budget (`rate_limited`, nothing sent), ends retry waits, and closes the
   * connection pool the client opened (not an injected dispatcher).
   */
  async close(): Promise<void> {
    this.#closing.abort();
    const budgetClosed = this.#limiter.close();
    if (this.#ownsDispatcher) await this.#transport.dispatcher.close();
    await budgetClosed;
  }

  async #call<T>(call: PlannedCall<T>): Promise<T> {
    const { request, what, options } = call;
    let attempt = 0;
    // Retries keep the call's source: a retried lookup waits for its own source's turn again.
    // A per-call signal costs an AbortSignal.any per call: only calls that brought one pay it (not the chat path).
    const ended = options.signal === undefined ? this.#closing.signal : AbortSignal.any([this.#closing.signal, options.signal]);
    // Only a call that asks for fewer retries pays for its own copy of the policy (not the chat path).
    const retry = options.retries === undefined ? this.#retry : { ...this.#retry, retries: Math.max(0, Math.min(options.retries, this.#retry.retries)) };
    return withRetry(() => this.#attempt(call, ++attempt, ended), request.endpoint, retry, {
      random: this.#random,
      sleep: (ms) => sleep(ms, ended),
      ended,
      onRetry: (error, attemptNumber, delayMs) => {
        // Debug only: an outage is told once by the sidecar's health tracker (onRequest), not once per retry.
        this.#logger.debug({ endpoint: request.endpoint, code: error.code, status: error.status, attempt: attemptNumber, delayMs }, `${what} failed (${error.message}); retrying in ${delayMs} ms`);
        try {
          options.onRetry?.({ attempt: attemptNumber, maxAttempts: retry.retries + 1, delayMs, error });
        } catch {
          // A caller's progress line must not change the call's outcome.
        }
      },
    });
  }

  async #attempt<T>(call: PlannedCall<T>, attempt: number, ended: AbortSignal): Promise<T> {
    const { what } = call;
    // Waited for before the limiter, so a webhook waiting for its spacing holds no connection and no budget.
    let turn: WebhookTurn | undefined;
    if (call.spacingKey !== undefined) {
      try {
        turn = await this.#webhookSpacing.turn(call.spacingKey, ended);
      } catch {
        throw new TimeoutError(`${what}: given up while waiting for 3 s to pass since the previous ${what} (GSA's webhook spacing); nothing was sent`, { maybeProcessed: false });
      }
    }
    try {
      return await this.#send(call, attempt, turn);
    } finally {
      turn?.release();
    }
  }

  async #send<T>(call: PlannedCall<T>, attempt: number, turn: WebhookTurn | undefined): Promise<T> {
    const { request, what, parse, target, options } = call;
    return this.#limiter.schedule(call.kind, async (start) => {
      turn?.leaving();
      // Checked once per request: building log records for a disabled level is measurable on the chat path.
      const debug = this.#logger.isLevelEnabled('debug');
      const started = debug || this.#onRequest !== undefined ? performance.now() : 0;
      const report = (status: number | undefined, error?: unknown): void => {
        this.#report(request, target, attempt, started, status, error);
      };
      let response: RawResponse;
      try {
        response = await sendRequest(this.#transport, request, options.signal);
      } catch (error) {
        if (debug) this.#logger.debug({ endpoint: request.endpoint, code: (error as GsaError).code }, `${what}: no answer`);
        report(undefined, error);
        throw error;
      }
      const count = serviceRateCount(response);
      if (count !== undefined) this.#limiter.observeServiceCount(count.limit, count.remaining, start);
      if (debug) {
        const durationMs = Math.round(performance.now() - started);
        this.#logger.debug({ endpoint: request.endpoint, status: response.status, durationMs }, `${what}: ${response.status}`);
      }
      if (response.status >= 200 && response.status < 300) {
        let parsed: T;
        try {
          parsed = parse(response);
        } catch (error) {
          report(response.status, error);
          throw error;
        }
        report(response.status);
        return parsed;
      }
      let error = errorFromResponse(response, this.#scrub, this.#clock.now());
      // Capped here, once, so the limiter's hold, the retry wait and the outbox (which reads retryAfterMs) agree.
      if (error instanceof RetryLaterError) error = error.withRetryAfterAtMost(this.#retry.maxRetryAfterMs);
      report(response.status, error);
      if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) this.#hold(error.retryAfterMs, response.status);
      throw error;
    }, options.source);
  }

  /** Holds every call on the key (capped already); a hold of over a minute that starts now is a warning line. */
  #hold(ms: number, status: number): void {
    const before = this.#limiter.heldForMs;
    this.#limiter.holdFor(ms);
    if (ms <= LONG_HOLD_MS || ms <= before + 1000) return;
    const until = new Date(this.#clock.now() + ms).toISOString();
    this.#logger.warn(
      { status, holdMs: ms, until },
      `GSA answered ${status} with a Retry-After of ${Math.round(ms / 1000)} s (at most api.retry.maxRetryAfterMs): no call on this API key starts until ${until}`,
    );
  }

  #report(request: ApiRequest, target: string, attempt: number, started: number, status: number | undefined, error?: unknown): void {
    const observer = this.#onRequest;
    if (observer === undefined) return;
    const failure = error instanceof GsaError ? error : undefined;
    try {
      observer({
        endpoint: request.endpoint,
        target,
        status,
        code: error === undefined ? undefined : (failure?.code ?? 'bad_response'),
        message: error === undefined ? undefined : this.#scrub(error instanceof Error ? error.message : 'unexpected failure'),
        durationMs: Math.round(performance.now() - started),
        attempt,
      });
    } catch {
      // An observer's bug must not turn an answered call into a failure.
    }
  }
}
