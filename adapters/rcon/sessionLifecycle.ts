// The life of one reconnecting, logged-in console session, whatever its transport (telnet, Source RCON, Rust's
// WebRCON): the state, the waiters for the first login (with fail-fast for one-shot use), the
// reconnect timer with the project's backoff (seconds after a drop, minutes after a refused login), the reset of that
// backoff after a session that lasted, and the one guard around owner callbacks. The transport owns its socket,
// framing and login; it tells the lifecycle what happened (attempt failed, logged in, login refused, ended) and gets
// asked to connect again.
// It must never: reconnect after close(), open an attempt while one runs (it asks for one only from idle or waiting),
// log in again sooner than the auth backoff after a refused login, let an owner callback's throw escape, or touch a
// password (it never sees one).
import { backoffDelayMs } from '../../src/time/backoff.js';
import { systemClock, type Clock } from '../../src/time/clock.js';
import { steadyClock } from '../../src/time/steadyClock.js';
import { clampTimerMs } from '../../src/time/timerLimit.js';
import { RconAuthFailedError, RconAuthTimeoutError, RconClosedError, RconNotConnectedError, type RconError } from './errors.js';
import { WrongProtocolNotice } from './wrongProtocol.js';

/** What the lifecycle writes to. Structural, so pino's Logger fits and a client may hand in one that scrubs. */
export interface SessionLogger {
  debug(bindings: Record<string, unknown>, message: string): void;
  info(bindings: Record<string, unknown>, message: string): void;
  warn(bindings: Record<string, unknown>, message: string): void;
  error(bindings: Record<string, unknown>, message: string): void;
}

export type SessionState = 'idle' | 'connecting' | 'authenticating' | 'ready' | 'waiting' | 'closed';

export interface ReconnectPlan {
  readonly delayMs: number;
  readonly attempt: number;
  readonly reason: RconError;
  /** The long wait after a refused or unanswered login. */
  readonly afterAuthFailure: boolean;
}

/** How a session reconnects: the same keys, defaults and meaning for every transport. */
export interface ReconnectTuning {
  /** Reconnect after a drop. Off for one-shot use (`rcon`, `config check --connect`). @default true */
  readonly reconnect?: boolean | undefined;
  /** First reconnect delay after a drop or a failed attempt; doubles per failure, 50–100% jitter. @default 1000 */
  readonly reconnectMinDelayMs?: number | undefined;
  /** Longest reconnect delay before jitter. @default 60000 */
  readonly reconnectMaxDelayMs?: number | undefined;
  /**
   * After a refused or unanswered login the next comes after at least this (up to twice it, jittered), doubling per
   * refusal up to `authFailureMaxDelayMs`: games punish repeated logins (Squad, Conan; 7DTD logs each one). @default 300000
   */
  readonly authFailureDelayMs?: number | undefined;
  /** @default 1800000 (30 min) */
  readonly authFailureMaxDelayMs?: number | undefined;
  /** A session that lived this long resets the reconnect backoff when it ends. @default 30000 */
  readonly stableSessionMs?: number | undefined;
  /** Jitter source, [0, 1). @default Math.random */
  readonly random?: (() => number) | undefined;
}

/** The tuning keys of a client's options, for its lifecycle. */
export function reconnectTuning(options: ReconnectTuning): ReconnectTuning {
  const { reconnect, reconnectMinDelayMs, reconnectMaxDelayMs, authFailureDelayMs, authFailureMaxDelayMs, stableSessionMs, random } = options;
  return { reconnect, reconnectMinDelayMs, reconnectMaxDelayMs, authFailureDelayMs, authFailureMaxDelayMs, stableSessionMs, random };
}

export interface SessionLifecycleOptions extends ReconnectTuning {
  /** Names the session in every message: `<what> <label>: …`, e.g. `telnet 7dtd-main`. */
  readonly label: string;
  /** The transport's word in messages. @default 'RCON' */
  readonly what?: string | undefined;
  /** Asked to open one connection attempt; it reports back through the lifecycle's methods. */
  readonly connect: () => void;
  /** @default a steady systemClock */
  readonly clock?: Clock | undefined;
  readonly logger: SessionLogger;
  readonly onReady?: (() => void) | undefined;
  /** A session ended: one that had logged in, or (`wasOpen`) one whose connection had opened. Not called after close(). */
  readonly onDisconnected?: ((reason: RconError) => void) | undefined;
  readonly onAuthFailed?: ((error: RconAuthFailedError | RconAuthTimeoutError) => void) | undefined;
  readonly onReconnectScheduled?: ((plan: ReconnectPlan) => void) | undefined;
  /**
   * How failures are logged. 'apart': the failure at warn, then the next attempt at info. 'one-line' (WebRCON): one
   * line per failure, the reason's message with its next attempt and `retryInMs`: a refused login at error, a drop of
   * a session that was ready at warn, the first failed attempt in a row at warn and the rest of an outage at info.
   * @default 'apart'
   */
  readonly failureLog?: 'apart' | 'one-line' | undefined;
  /** The error a whenReady() timeout rejects with. @default not_connected, naming the last problem */
  readonly readyTimeoutError?: ((timeoutMs: number, last: RconError | undefined) => RconError) | undefined;
}

export interface WhenReadyOptions {
  /** Give up after this long with not_connected (carrying the last failure as its cause); undefined: no time limit. */
  readonly timeoutMs?: number | undefined;
  /** Reject on the first failed attempt of any kind, not only on a refused login. @default false */
  readonly failFast?: boolean | undefined;
}

interface ReadyWaiter {
  readonly resolve: () => void;
  readonly reject: (error: RconError) => void;
  readonly failFast: boolean;
  readonly timer: NodeJS.Timeout | undefined;
}

export class SessionLifecycle {
  readonly #options: SessionLifecycleOptions;
  readonly #what: string;
  readonly #reconnect: boolean;
  readonly #random: () => number;
  readonly #clock: Clock;
  readonly #oneLine: boolean;
  #state: SessionState = 'idle';
  #readyAt: number | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  #reconnectDelayMs: number | undefined;
  #reconnectAttempt = 0;
  #authFailures = 0;
  #lastError: RconError | undefined;
  #readyWaiters: ReadyWaiter[] = [];
  #closeWaiters: (() => void)[] = [];
  #attemptOpen = false;
  /** A port that speaks another protocol is said at warn once until a login works; its repeats go to debug. */
  readonly #wrongProtocol = new WrongProtocolNotice();

  constructor(options: SessionLifecycleOptions) {
    this.#options = options;
    this.#what = options.what ?? 'RCON';
    this.#reconnect = options.reconnect ?? true;
    this.#random = options.random ?? Math.random;
    this.#clock = options.clock ?? steadyClock(systemClock);
    this.#oneLine = options.failureLog === 'one-line';
  }

  get state(): SessionState {
    return this.#state;
  }

  get ready(): boolean {
    return this.#state === 'ready';
  }

  get closed(): boolean {
    return this.#state === 'closed';
  }

  get lastError(): RconError | undefined {
    return this.#lastError;
  }

  get authFailures(): number {
    return this.#authFailures;
  }

  get reconnectAttempt(): number {
    return this.#reconnectAttempt;
  }

  /** When waiting: the reconnect timer's delay. */
  get reconnectDelayMs(): number | undefined {
    return this.#state === 'waiting' ? this.#reconnectDelayMs : undefined;
  }

  /** Starts the first attempt. Idempotent; nothing after close(). */
  start(): void {
    if (this.#state !== 'idle' || this.#attemptOpen) return;
    this.#attempt();
  }

  /**
   * Resolves once logged in; rejects on a refused login, on a port that speaks another protocol (wrong_protocol), on
   * close, on `failFast` and a failed attempt, or at the timeout.
   */
  whenReady(options: WhenReadyOptions): Promise<void> {
    if (this.#state === 'ready') return Promise.resolve();
    if (this.#state === 'closed') return Promise.reject(this.closedError());
    const { timeoutMs } = options;
    return new Promise<void>((resolve, reject) => {
      const waiter: ReadyWaiter = {
        resolve,
        reject,
        failFast: options.failFast ?? false,
        timer: timeoutMs === undefined ? undefined : setTimeout(() => {
          this.#readyWaiters = this.#readyWaiters.filter((other) => other !== waiter);
          reject(this.#readyTimeoutError(timeoutMs));
        }, clampTimerMs(timeoutMs)),
      };
      this.#readyWaiters.push(waiter);
    });
  }

  #readyTimeoutError(timeoutMs: number): RconError {
    const last = this.#lastError;
    if (this.#options.readyTimeoutError !== undefined) return this.#options.readyTimeoutError(timeoutMs, last);
    return new RconNotConnectedError(
      `not logged in to the ${this.#what} server of ${this.#options.label} within ${formatMs(timeoutMs)}${last === undefined ? '' : ` (last problem: ${last.message})`}`,
      last,
    );
  }

  /** The connection opened; the login is under way. */
  authenticating(): void {
    if (this.#state === 'connecting') this.#state = 'authenticating';
  }

  /** The transport logged in: commands may flow. */
  loggedIn(): void {
    if (this.#state === 'closed') return;
    this.#state = 'ready';
    this.#readyAt = this.#clock.now();
    this.#authFailures = 0;
    this.#lastError = undefined;
    this.#wrongProtocol.loggedIn();
    this.#options.logger.info({}, `${this.#what} ${this.#options.label}: logged in`);
    const waiters = this.#readyWaiters;
    this.#readyWaiters = [];
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve();
    }
    this.callback('onReady', () => this.#options.onReady?.());
  }

  /** The server refused the login (or never answered it): every waiter learns now; `ended` follows with the long wait. */
  authFailed(error: RconAuthFailedError | RconAuthTimeoutError): void {
    if (this.#state === 'closed') return;
    this.#authFailures += 1;
    this.#lastError = error;
    // One-line logging writes the refusal once its next attempt is known (at `ended`).
    if (!this.#oneLine) this.#options.logger.warn({ code: error.code }, `${this.#what} ${this.#options.label}: ${error.message}`);
    this.#rejectReadyWaiters(error, false);
    this.callback('onAuthFailed', () => this.#options.onAuthFailed?.(error));
  }

  /**
   * The attempt or session is over (its socket closed). `wasReady`: it had logged in; `wasOpen`: its connection had
   * opened (onDisconnected is told; defaults to wasReady). Schedules the next attempt (or stays idle without
   * reconnects); after close() it only resolves close().
   */
  ended(reason: RconError, how: { readonly wasReady: boolean; readonly wasOpen?: boolean | undefined }): void {
    const { wasReady } = how;
    this.#attemptOpen = false;
    if (this.#state === 'closed') {
      const waiters = this.#closeWaiters;
      this.#closeWaiters = [];
      for (const resolve of waiters) resolve();
      return;
    }
    this.#lastError = reason;
    if (this.#readyAt !== undefined && this.#clock.now() - this.#readyAt >= (this.#options.stableSessionMs ?? 30_000)) this.#reconnectAttempt = 0;
    this.#readyAt = undefined;
    const afterAuthFailure = reason instanceof RconAuthFailedError || reason instanceof RconAuthTimeoutError;
    const repeat = this.#wrongProtocol.isRepeat(reason);
    if (this.#oneLine) {
      // Logged with its next attempt, in #schedule.
    } else if (wasReady) this.#options.logger.warn({ code: reason.code }, `${this.#what} ${this.#options.label}: disconnected: ${reason.message}`);
    else if (!afterAuthFailure) this.#options.logger[repeat ? 'debug' : 'warn']({ code: reason.code }, `${this.#what} ${this.#options.label}: ${reason.message}`);
    if (how.wasOpen ?? wasReady) this.callback('onDisconnected', () => this.#options.onDisconnected?.(reason));
    // Without reconnects nothing more will come: every waiter learns now, not at its timeout. Nor will a retry on a
    // port that speaks another protocol answer before a host changes something.
    if (!afterAuthFailure) this.#rejectReadyWaiters(reason, this.#reconnect && reason.code !== 'wrong_protocol');
    this.#schedule(reason, afterAuthFailure, wasReady, repeat);
  }

  /**
   * Stops for good: no further attempt; waiters fail with `closed`. While an attempt is open the promise resolves at
   * its `ended` (the transport destroys its socket after calling this). Idempotent.
   */
  close(): Promise<void> {
    if (this.#state !== 'closed') {
      this.#state = 'closed';
      clearTimeout(this.#reconnectTimer);
      this.#reconnectTimer = undefined;
      const error = this.closedError();
      for (const waiter of this.#readyWaiters) {
        clearTimeout(waiter.timer);
        waiter.reject(error);
      }
      this.#readyWaiters = [];
    }
    if (!this.#attemptOpen) return Promise.resolve();
    return new Promise((resolve) => {
      this.#closeWaiters.push(resolve);
    });
  }

  closedError(): RconClosedError {
    return new RconClosedError(`the ${this.#what} client of ${this.#options.label} was closed`);
  }

  /** Runs an owner's callback; a throw there is logged, never allowed to break a socket's event handler. */
  callback(name: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.#options.logger.error({ err: error }, `${this.#what} ${this.#options.label}: the ${name} callback threw`);
    }
  }

  #attempt(): void {
    this.#reconnectTimer = undefined;
    this.#state = 'connecting';
    this.#attemptOpen = true;
    this.#options.connect();
  }

  #schedule(reason: RconError, afterAuthFailure: boolean, wasReady: boolean, repeat: boolean): void {
    if (!this.#reconnect) {
      this.#state = 'idle';
      if (this.#oneLine) this.#logFailure(reason, afterAuthFailure, wasReady, undefined, repeat);
      return;
    }
    let delayMs: number;
    let attempt: number;
    if (afterAuthFailure) {
      attempt = this.#authFailures;
      const floor = this.#options.authFailureDelayMs ?? 300_000;
      const ceiling = Math.max(floor, this.#options.authFailureMaxDelayMs ?? 1_800_000);
      // At least the floor: backoffDelayMs gives 50–100% of its step, so the step is twice the floor.
      delayMs = backoffDelayMs(attempt, { minDelayMs: 2 * floor, maxDelayMs: 2 * ceiling }, this.#random);
    } else {
      this.#reconnectAttempt += 1;
      attempt = this.#reconnectAttempt;
      delayMs = backoffDelayMs(
        attempt,
        { minDelayMs: this.#options.reconnectMinDelayMs ?? 1_000, maxDelayMs: this.#options.reconnectMaxDelayMs ?? 60_000 },
        this.#random,
      );
    }
    delayMs = clampTimerMs(delayMs);
    this.#state = 'waiting';
    this.#reconnectDelayMs = delayMs;
    if (this.#oneLine) this.#logFailure(reason, afterAuthFailure, wasReady, delayMs, repeat);
    else this.#options.logger[repeat ? 'debug' : 'info']({ delayMs, attempt, code: reason.code }, `${this.#what} ${this.#options.label}: next connection attempt in ${formatMs(delayMs)}`);
    this.#reconnectTimer = setTimeout(() => {
      this.#attempt();
    }, delayMs);
    this.callback('onReconnectScheduled', () => this.#options.onReconnectScheduled?.({ delayMs, attempt, reason, afterAuthFailure }));
  }

  /** 'one-line' logging: the failure and its next attempt together; the first failed attempt in a row is the news. */
  #logFailure(reason: RconError, afterAuthFailure: boolean, wasReady: boolean, delayMs: number | undefined, repeat: boolean): void {
    const level = afterAuthFailure ? 'error' : repeat ? 'debug' : wasReady || this.#reconnectAttempt <= 1 || reason.code === 'wrong_protocol' ? 'warn' : 'info';
    const next = delayMs === undefined ? '' : `; next attempt in ${formatMs(delayMs)}`;
    this.#options.logger[level]({ code: reason.code, retryInMs: delayMs }, `${reason.message}${next}`);
  }

  #rejectReadyWaiters(error: RconError, onlyFailFast: boolean): void {
    const keep: ReadyWaiter[] = [];
    for (const waiter of this.#readyWaiters) {
      if (onlyFailFast && !waiter.failFast) {
        keep.push(waiter);
        continue;
      }
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    this.#readyWaiters = keep;
  }
}

export function formatMs(ms: number): string {
  return ms >= 1_000 && ms % 100 === 0 ? `${ms / 1_000} s` : `${ms} ms`;
}

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
