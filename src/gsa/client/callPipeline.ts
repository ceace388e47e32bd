// The generic way one call to a GSA API goes, shared by the façades (GsaClient for the mod API, SystemApiClient
// for the System API): retry → spacing (a per-key wait: webhooks, cooldowns) → budget → transport, then the
// dialect's reading of the answer. It owns the transport, the limiter and the retry policy of one API key; it knows
// no path, no body and no credential (a planned call brings its built request, its parser and its classifier).
// It never logs a request's headers or body, and passes every text from the service through `scrub`.

import { Pool, type Dispatcher } from '../../net/undiciCore.js';
import type { Logger } from 'pino';
import { silentLogger } from '../../log/logger.js';
import { SharedDeadlines } from './deadlines.js';
import { systemClock, type Clock } from '../../time/clock.js';
import { clampTimerMs } from '../../time/timerLimit.js';
import { GsaError, RateLimitedError, RetryLaterError } from '../errors.js';
import { LONG_HOLD_MS, type ApiBudget } from '../budget/apiBudget.js';
import { RateLimiter, DEFAULT_RATE_LIMIT, type BudgetState, type CallKind, type RateLimitOptions } from '../budget/rateLimiter.js';
import type { RequestObserver } from './requestEvent.js';
import type { ApiRequest, ClassifyFailure, Scrub } from '../dialects/dialect.js';
import { serviceRateCount } from './responses.js';
import { DEFAULT_RETRY, withRetry, type RetryOptions } from './retryPolicy.js';
import type { RawResponse } from './rawResponse.js';
import { MAX_RESPONSE_BYTES, notSentMarkingConnector, sendRequest, type TransportOptions } from './transport.js';
import type { WebhookSpacing, WebhookTurn } from '../spacing/webhookSpacing.js';
import type { CredentialsBreaker } from './credentialsBreaker.js';

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

/** A per-key wait a call keeps before it leaves, and what it fails with when its signal ends that wait. */
export interface SpacedBy {
  readonly spacing: WebhookSpacing;
  readonly key: string;
  /** The error for a call given up while waiting (nothing was sent). */
  readonly gaveUp: () => Promise<GsaError>;
}

/** One call as a façade plans it: what is sent, how it is counted and read, and what the caller asked for. */
export interface PlannedCall<T> {
  readonly request: ApiRequest;
  readonly kind: CallKind;
  /** For log lines and errors: "mute check ovddykvbs/7656…". */
  readonly what: string;
  readonly parse: (response: RawResponse) => T;
  /** The dialect's reading of a non-2xx answer. */
  readonly classify: ClassifyFailure;
  /** The server name or id, for the request observer. */
  readonly target: string;
  readonly options: CallOptions & { readonly source?: string | undefined };
  /** Set for calls with a per-key spacing (webhooks, System API cooldowns). */
  readonly spacedBy?: SpacedBy | undefined;
  /**
   * Set for calls whose 401 can only mean the credentials (not a webhook's): asked before the call takes a place in
   * the budget (and again at its start, for a call that waited while a 401 came), told every answer.
   */
  readonly breaker?: CredentialsBreaker | undefined;
  /**
   * False for calls that move money (shop orders, token spends): the breaker never makes them its probe, and refuses
   * them while open (nothing sent). Default true.
   */
  readonly mayProbe?: boolean | undefined;
}

/** One attempt's standing with the credentials breaker: whether it goes as the probe, and whether it was answered. */
interface BreakerPass {
  probe: boolean;
  answered: boolean;
}

/** What every façade on the pipeline takes (the mod API's GsaClient, the SystemApiClient), besides its credential. */
export interface ServiceCallOptions {
  /** Service root, e.g. https://api.gameserverapp.com or the emulator's URL. */
  readonly baseUrl: string;
  /** Per-request timeout in ms, covering connect, headers and body. Default 5000. */
  readonly timeoutMs?: number | undefined;
  /** The key's window. Default 100 a minute. */
  readonly rateLimit?: Partial<RateLimitOptions> | undefined;
  /**
   * Who decides when each call may start: the window, the class shares, the Retry-After hold. Default a LocalBudget
   * of `rateLimit.requests` per `rateLimit.intervalMs`, for this client alone (closed with it). A shared one
   * (RedisBudget) counts every sidecar on the key; it belongs to whoever made it, so close() leaves it open and
   * several clients in turn (a reload) may use it.
   */
  readonly budget?: ApiBudget | undefined;
  readonly retry?: Partial<RetryOptions> | undefined;
  /** Silent by default. */
  readonly logger?: Logger | undefined;
  /** Where requests go; default one undici Pool for the base URL's origin. Tests pass a MockAgent. */
  readonly dispatcher?: Dispatcher | undefined;
  /** Jitter source; default Math.random. */
  readonly random?: (() => number) | undefined;
  /** Time source of the rate limiter, the spacings and Retry-After dates; default the system clock. Tests pass fake time. */
  readonly clock?: Clock | undefined;
  /**
   * Told after every attempt at a request (endpoint, target, status, code, duration, attempt number), for health
   * tracking and metrics: the client itself has no logging policy. Must not throw. Default none.
   */
  readonly onRequest?: RequestObserver | undefined;
}

export interface CallPipelineOptions extends ServiceCallOptions {
  /** Masks the façade's credential in text from the service. */
  readonly scrub: Scrub;
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

export class CallPipeline {
  /** Path prefix of the base URL, without a trailing slash. */
  readonly basePath: string;
  readonly clock: Clock;
  readonly #transport: TransportOptions;
  readonly #ownsDispatcher: boolean;
  readonly #limiter: RateLimiter;
  readonly #retry: RetryOptions;
  readonly #logger: Logger;
  readonly #random: () => number;
  /** Cancels retry waits on close(), so a closed client keeps no timer alive. */
  readonly #closing = new AbortController();
  readonly #onRequest: RequestObserver | undefined;
  readonly #scrub: Scrub;

  constructor(options: CallPipelineOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.#ownsDispatcher = options.dispatcher === undefined;
    const connections = options.rateLimit?.maxInFlight ?? POOL_CONNECTIONS;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#transport = {
      origin: url.origin,
      dispatcher: options.dispatcher ?? new Pool(url.origin, { connections, maxResponseSize: MAX_RESPONSE_BYTES, connect: notSentMarkingConnector() }),
      timeoutMs,
      deadlines: new SharedDeadlines(timeoutMs),
    };
    this.clock = options.clock ?? systemClock;
    // Only as many calls leave as there are connections, so each is counted when it really goes out. An injected
    // dispatcher (tests, a host's own agent) brings its own queueing; there the limiter does not bound the wire.
    const maxInFlight = options.dispatcher === undefined ? connections : options.rateLimit?.maxInFlight;
    this.#limiter = new RateLimiter({ ...DEFAULT_RATE_LIMIT, ...options.rateLimit, maxInFlight }, this.clock, options.budget);
    const retry = { ...DEFAULT_RETRY, ...options.retry };
    this.#retry = { ...retry, maxRetryAfterMs: clampTimerMs(retry.maxRetryAfterMs) };
    this.#logger = options.logger ?? silentLogger();
    this.#random = options.random ?? Math.random;
    this.#onRequest = options.onRequest;
    this.#scrub = options.scrub;
  }

  /** Calls waiting for the rate limit. */
  get queuedCalls(): number {
    return this.#limiter.waiting;
  }

  /** Ms no call on the key may start for (a Retry-After hold); 0 when none. */
  get heldForMs(): number {
    return this.#limiter.heldForMs;
  }

  /** Calls waiting per budget class and the window's room (RateLimiter.state). */
  get budgetState(): BudgetState {
    return this.#limiter.state;
  }

  /** Refuses the calls still waiting for the budget, ends retry waits, closes the pool it opened (not an injected dispatcher). */
  async close(): Promise<void> {
    this.#closing.abort();
    const budgetClosed = this.#limiter.close();
    if (this.#ownsDispatcher) await this.#transport.dispatcher.close();
    await budgetClosed;
  }

  async call<T>(call: PlannedCall<T>): Promise<T> {
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
    // Waited for before the limiter, so a call waiting for its spacing holds no connection and no budget.
    let turn: WebhookTurn | undefined;
    const spaced = call.spacedBy;
    if (spaced !== undefined) {
      try {
        turn = await spaced.spacing.turn(spaced.key, ended);
      } catch {
        throw await spaced.gaveUp();
      }
    }
    try {
      return await this.#send(call, attempt, turn);
    } finally {
      turn?.release();
    }
  }

  async #send<T>(call: PlannedCall<T>, attempt: number, turn: WebhookTurn | undefined): Promise<T> {
    const { breaker } = call;
    // Refused credentials: the call fails before it asks the budget, so a paused key spends nothing (and nothing is
    // reported to onRequest: no request was made).
    const pass: BreakerPass = { probe: false, answered: false };
    if (breaker !== undefined) {
      const admission = breaker.admit(call.mayProbe !== false);
      if (!admission.pass) throw admission.error;
      pass.probe = admission.probe;
    }
    try {
      return await this.#sendInTurn(call, attempt, turn, pass);
    } finally {
      // A probe that got no answer (no connection, the client closed) must not leave the breaker waiting for it.
      if (pass.probe && !pass.answered) breaker?.probeEnded();
    }
  }

  async #sendInTurn<T>(call: PlannedCall<T>, attempt: number, turn: WebhookTurn | undefined, pass: BreakerPass): Promise<T> {
    const { request, what, parse, target, options, breaker } = call;
    return this.#limiter.schedule(call.kind, async (start) => {
      // A 401 came while this call waited for the budget: it is not sent (its place is spent; nothing reaches GSA).
      if (breaker !== undefined && !pass.probe && breaker.open) {
        const admission = breaker.admit(call.mayProbe !== false);
        if (!admission.pass) throw admission.error;
        pass.probe = admission.probe;
      }
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
        // A request that surely never left must not cost its target a whole spacing before a retry.
        if (error instanceof GsaError && error.code === 'network' && !error.maybeProcessed) turn?.unsent?.();
        if (debug) this.#logger.debug({ endpoint: request.endpoint, code: (error as GsaError).code }, `${what}: no answer`);
        report(undefined, error);
        throw error;
      }
      pass.answered = true;
      breaker?.observe(response.status, pass.probe);
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
      let error = call.classify(response, this.#scrub, this.clock.now());
      // Capped here, once, so the limiter's hold, the retry wait and the outbox (which reads retryAfterMs) agree.
      if (error instanceof RetryLaterError) error = error.withRetryAfterAtMost(this.#retry.maxRetryAfterMs);
      report(response.status, error);
      // Only the key's own limit holds the key: a per-target cooldown (CooldownError) is not a RateLimitedError.
      if (error instanceof RateLimitedError && error.retryAfterMs !== undefined) this.#hold(error.retryAfterMs, response.status);
      throw error;
    }, options.source);
  }

  /** Holds every call on the key (capped already); a hold of over a minute that starts now is a warning line. */
  #hold(ms: number, status: number): void {
    const before = this.#limiter.heldForMs;
    this.#limiter.holdFor(ms);
    if (ms <= LONG_HOLD_MS || ms <= before + 1000) return;
    const until = new Date(this.clock.now() + ms).toISOString();
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
