// Posts notification bodies to one webhook, one at a time, from a bounded queue: a slow or dead receiver costs at
// most `maxQueued` bodies of memory and never delays whoever queues (send() returns at once). Each post has a
// timeout; a 2xx (Discord answers 204) is done; a 429 waits what the receiver asks (`retry_after` in the JSON body,
// Discord's float seconds, else the Retry-After header), capped; Discord's bucket headers (X-RateLimit-Remaining 0,
// X-RateLimit-Reset-After) space the next post before a 429 happens; a 5xx, a timeout or a network failure is tried
// again a few times with the project's backoff; anything else, or too many failures, drops the body with one warning
// for a run of failures. A full queue drops its oldest body, counted, with one warning while it overflows.
// It never throws into callers, never logs the URL or anything an HTTP error says about it (only its config key, its
// host and error codes), and never keeps the process alive on its own.

import { Pool } from '../net/undiciCore.js';
import type { Logger } from 'pino';
import { delay } from '../gsa/spacing/webhookSpacing.js';
import { parseRetryAfter } from '../gsa/client/responses.js';
import { backoffDelayMs, type BackoffOptions } from '../time/backoff.js';
import { systemClock, type Clock } from '../time/clock.js';
import { withDeadline } from '../time/deadline.js';
import { PRODUCT_NAME, VERSION } from '../version.js';

export interface WebhookSenderOptions {
  /** The webhook's URL: a secret (its path is the token). Never logged. */
  readonly url: string;
  /** How log lines name it, e.g. `notify.webhooks[0]`. */
  readonly name: string;
  readonly logger: Logger;
  /** Bodies waiting beyond the one in flight; past it the oldest is dropped. @default 50 */
  readonly maxQueued?: number | undefined;
  /** One post's time to an answer. @default 10000 */
  readonly timeoutMs?: number | undefined;
  /** Posts again after a 5xx, a timeout or a network failure. @default 3 */
  readonly retries?: number | undefined;
  /** Backoff between those tries (src/time/backoff.ts). @default { minDelayMs: 1000, maxDelayMs: 30000 } */
  readonly backoff?: BackoffOptions | undefined;
  /** 429s in a row a body may get before it is dropped. @default 5 */
  readonly maxRateLimited?: number | undefined;
  /** The longest a receiver's 429 is waited for (a longer one is capped to it). @default 300000 */
  readonly maxRetryAfterMs?: number | undefined;
  /** Wall-clock ms for Discord's bucket reset. Tests pass fake time. */
  readonly clock?: Clock | undefined;
  /** Jitter of the backoff; tests make it exact. */
  readonly random?: (() => number) | undefined;
}

/** What one post came to. */
type PostOutcome =
  | { readonly kind: 'sent'; readonly resumeInMs: number | undefined }
  | { readonly kind: 'rate_limited'; readonly waitMs: number }
  | { readonly kind: 'failed'; readonly retryable: boolean; readonly reason: string };

const DEFAULT_RATE_LIMIT_WAIT_MS = 5_000;
const MAX_ANSWER_BYTES = 64 * 1024;

/** Seconds as Discord writes them (float), as ms; undefined unless a non-negative finite number. */
function secondsToMs(value: unknown): number | undefined {
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : undefined;
}

function header(headers: Readonly<Record<string, string | string[] | undefined>>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** The receiver's `retry_after`, from a JSON body (Discord) or the Retry-After header; undefined when neither says. */
function retryAfterMs(text: string, headers: Readonly<Record<string, string | string[] | undefined>>, nowMs: number): number | undefined {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && 'retry_after' in parsed) {
      const fromBody = secondsToMs(parsed.retry_after);
      if (fromBody !== undefined) return fromBody;
    }
  } catch {
    // Not JSON: the header decides.
  }
  return parseRetryAfter(header(headers, 'retry-after'), nowMs) ?? secondsToMs(header(headers, 'x-ratelimit-reset-after'));
}

/** An error's code (undici's UND_ERR_…, a socket's ECONNREFUSED), never its message: that may quote the URL. */
function errorCode(error: unknown): string {
  for (let link: unknown = error, depth = 0; link instanceof Error && depth < 4; link = link.cause, depth += 1) {
    const code = (link as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return error instanceof Error ? error.name : 'unknown error';
}

export class WebhookSender {
  /** Its config key, `notify.webhooks[0]`, and that with its host: what log lines name. */
  readonly #key: string;
  readonly #name: string;
  readonly #host: string;
  readonly #logger: Logger;
  readonly #pool: Pool;
  readonly #path: string;
  readonly #maxQueued: number;
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #backoff: BackoffOptions;
  readonly #maxRateLimited: number;
  readonly #maxRetryAfterMs: number;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #stop = new AbortController();
  readonly #queue: string[] = [];
  #pumping: Promise<void> | undefined;
  #closed = false;
  /** No post before this (Discord's bucket said "none left until then"). */
  #resumeAt = 0;
  #sent = 0;
  #dropped = 0;
  /** Bodies the full queue dropped since it last had room, and whether that was warned. */
  #overflowDropped = 0;
  /** Bodies dropped after failures since the last success; the first of them was warned. */
  #failedDropped = 0;

  constructor(options: WebhookSenderOptions) {
    const url = new URL(options.url);
    this.#key = options.name;
    this.#host = url.host;
    this.#name = `${options.name} (${url.host})`;
    this.#logger = options.logger;
    this.#path = `${url.pathname}${url.search}`;
    this.#maxQueued = Math.max(1, options.maxQueued ?? 50);
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#retries = options.retries ?? 3;
    this.#backoff = options.backoff ?? { minDelayMs: 1_000, maxDelayMs: 30_000 };
    this.#maxRateLimited = options.maxRateLimited ?? 5;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? 300_000;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    // One connection: posts go one at a time anyway, and a dead receiver then holds one socket at most.
    this.#pool = new Pool(url.origin, {
      connections: 1,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      connect: { timeout: this.#timeoutMs },
      maxResponseSize: MAX_ANSWER_BYTES,
    });
  }

  /** The receiver's host (not a secret: the path is), for the line that says where notifications go. */
  get host(): string {
    return this.#host;
  }

  /** Bodies waiting (not counting the one in flight). */
  get queued(): number {
    return this.#queue.length;
  }

  /** Bodies the receiver answered 2xx. */
  get sent(): number {
    return this.#sent;
  }

  /** Bodies given up on: the queue was full, or the receiver kept failing or refused. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Queues one body (serialised as JSON) and returns at once. Never throws. */
  send(body: unknown): void {
    if (this.#closed) return;
    let text: string;
    try {
      text = JSON.stringify(body);
    } catch {
      return;
    }
    if (this.#queue.length >= this.#maxQueued) {
      this.#queue.shift();
      this.#dropped += 1;
      this.#overflowDropped += 1;
      if (this.#overflowDropped === 1) {
        this.#logger.warn({ webhook: this.#name, maxQueued: this.#maxQueued }, `notifications to ${this.#name} are piling up (the receiver is slow or down): the oldest waiting ones are dropped beyond ${String(this.#maxQueued)}`);
      }
    }
    this.#queue.push(text);
    this.#pumping ??= this.#pump().finally(() => {
      this.#pumping = undefined;
    });
  }

  /**
   * Stops taking bodies, gives the ones queued until `deadlineMs` to go out, then abandons the rest (one warning
   * saying how many) and closes the connection. Never rejects.
   */
  async close(deadlineMs: number): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const pumping = this.#pumping;
    if (pumping !== undefined) await withDeadline(pumping, deadlineMs, () => undefined, true);
    const waiting = this.#queue.splice(0).length;
    const sentBefore = this.#sent;
    const inFlight = this.#pumping;
    this.#stop.abort(new Error('the notifier closed'));
    if (inFlight !== undefined) await inFlight;
    // The one in flight may still have been answered 2xx before the abort reached it.
    const left = waiting + (inFlight !== undefined && this.#sent === sentBefore ? 1 : 0);
    if (left > 0) this.#logger.warn({ webhook: this.#name, notifications: left }, `${String(left)} notifications to ${this.#name} were not sent: it was closed (the sidecar stopped, or a reload changed notify.webhooks)`);
    await this.#pool.destroy().catch(() => undefined);
  }

  async #pump(): Promise<void> {
    for (let body = this.#queue.shift(); body !== undefined && !this.#stop.signal.aborted; body = this.#queue.shift()) {
      if (this.#queue.length === 0 && this.#overflowDropped > 0) {
        this.#logger.info({ webhook: this.#name, dropped: this.#overflowDropped }, `notifications to ${this.#name} caught up; ${String(this.#overflowDropped)} were dropped while the queue was full`);
        this.#overflowDropped = 0;
      }
      try {
        await this.#deliver(body);
      } catch (error) {
        // Only a bug gets here: the body is lost, the queue goes on.
        this.#logger.error({ webhook: this.#name, code: errorCode(error) }, `a notification to ${this.#name} failed unexpectedly`);
      }
    }
  }

  /** Posts one body until it is sent, dropped, or the sender closes. */
  async #deliver(body: string): Promise<void> {
    let failures = 0;
    let rateLimited = 0;
    for (;;) {
      const spacing = this.#resumeAt - this.#clock.now();
      if (spacing > 0 && !(await this.#wait(spacing))) return;
      if (this.#stop.signal.aborted) return;
      const outcome = await this.#post(body);
      // Closed meanwhile: close() counts what was not sent; no warning for a post it cut short.
      if (this.#closing()) return;
      switch (outcome.kind) {
        case 'sent':
          this.#succeeded(outcome.resumeInMs);
          return;
        case 'rate_limited':
          rateLimited += 1;
          if (rateLimited > this.#maxRateLimited) {
            this.#drop(`the receiver answered 429 ${String(rateLimited)} times in a row`);
            return;
          }
          this.#logger.debug({ webhook: this.#name, waitMs: outcome.waitMs }, `${this.#name} answered 429: waiting ${String(outcome.waitMs)} ms as it asks`);
          if (!(await this.#wait(outcome.waitMs))) return;
          continue;
        case 'failed':
          failures += 1;
          if (!outcome.retryable || failures > this.#retries) {
            this.#drop(outcome.retryable ? `${outcome.reason}, ${String(failures)} tries` : outcome.reason);
            return;
          }
          if (!(await this.#wait(backoffDelayMs(failures, this.#backoff, this.#random)))) return;
      }
    }
  }

  async #post(body: string): Promise<PostOutcome> {
    const timeout = new AbortController();
    const timer = setTimeout(() => {
      timeout.abort(new Error('timeout'));
    }, this.#timeoutMs);
    timer.unref();
    try {
      const response = await this.#pool.request({
        path: this.#path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': `${PRODUCT_NAME}/${VERSION}` },
        body,
        signal: AbortSignal.any([timeout.signal, this.#stop.signal]),
      });
      const text = await response.body.text();
      const status = response.statusCode;
      if (status >= 200 && status < 300) {
        const remaining = header(response.headers, 'x-ratelimit-remaining');
        return { kind: 'sent', resumeInMs: remaining === '0' ? secondsToMs(header(response.headers, 'x-ratelimit-reset-after')) : undefined };
      }
      if (status === 429) {
        const asked = retryAfterMs(text, response.headers, this.#clock.now()) ?? DEFAULT_RATE_LIMIT_WAIT_MS;
        return { kind: 'rate_limited', waitMs: Math.min(asked, this.#maxRetryAfterMs) };
      }
      if (status >= 500 || status === 408) return { kind: 'failed', retryable: true, reason: `the receiver answered ${String(status)}` };
      const fix = status === 401 || status === 403 || status === 404 ? `: the webhook was deleted or its URL is wrong; check ${this.#key}.url` : '';
      return { kind: 'failed', retryable: false, reason: `the receiver answered ${String(status)}${fix}` };
    } catch (error) {
      if (timeout.signal.aborted) return { kind: 'failed', retryable: true, reason: `no answer within ${String(this.#timeoutMs)} ms` };
      return { kind: 'failed', retryable: true, reason: `the post failed (${errorCode(error)})` };
    } finally {
      clearTimeout(timer);
    }
  }

  /** True once close() gave up waiting (read through a method: a field read is narrowed by the checks before it). */
  #closing(): boolean {
    return this.#stop.signal.aborted;
  }

  /** Waits `ms`; false when the sender closed meanwhile. */
  async #wait(ms: number): Promise<boolean> {
    try {
      await delay(ms, this.#stop.signal);
      return true;
    } catch {
      return false;
    }
  }

  #succeeded(resumeInMs: number | undefined): void {
    this.#sent += 1;
    if (resumeInMs !== undefined) this.#resumeAt = this.#clock.now() + Math.min(resumeInMs, this.#maxRetryAfterMs);
    if (this.#failedDropped === 0) return;
    this.#logger.info({ webhook: this.#name, dropped: this.#failedDropped }, `notifications to ${this.#name} get through again; ${String(this.#failedDropped)} were dropped meanwhile`);
    this.#failedDropped = 0;
  }

  #drop(reason: string): void {
    this.#dropped += 1;
    this.#failedDropped += 1;
    // One warning for a run of failures: a dead receiver must not fill the log with a line a notification.
    if (this.#failedDropped === 1) this.#logger.warn({ webhook: this.#name }, `a notification to ${this.#name} was dropped: ${reason}. Later ones that fail are counted until one gets through`);
    else this.#logger.debug({ webhook: this.#name, dropped: this.#failedDropped }, `a notification to ${this.#name} was dropped: ${reason}`);
  }
}
