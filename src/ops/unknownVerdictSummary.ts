// Says in the log, at most once a period (a minute), how many chat lines were decided by mute.onUnknown (GSA's
// answer did not come in time) and why, as far as the sidecar knows: a refused key, GSA unreachable, a Retry-After
// hold, the API budget spent, or slow answers. One line when it ends. Without it a sidecar whose budget is spent on
// new players lets part of the chat through unchecked and only a metric shows it.
// It reads the causes through the functions it is given, never changes a verdict and never logs a player or a text.

import type { Logger } from 'pino';
import type { BridgeEvents, VerdictEvent } from '../bridge/events.js';
import type { BudgetState } from '../gsa/budget/rateLimiter.js';
import { systemClock, type Clock } from '../time/clock.js';
import type { ApiName } from './metrics.js';
import { describeDuration } from './serviceHealth.js';

/** What the sidecar knows that explains unknown verdicts. Each must return at once and never throw. */
export interface UnknownVerdictCauses {
  /** Whether GSA refuses the key of `api` right now. */
  readonly credentialsRefused?: ((api: ApiName) => boolean) | undefined;
  /** False while GSA gives no answer (ServiceHealth.reachable). */
  readonly reachable?: (() => boolean) | undefined;
  /** Seconds the Retry-After hold on the key still runs. */
  readonly holdSeconds?: (() => number) | undefined;
  /** The mod API key's limiter: calls waiting per class, room in the window. */
  readonly budget?: (() => BudgetState | undefined) | undefined;
}

export interface UnknownVerdictSummaryOptions {
  readonly events: BridgeEvents;
  readonly logger: Logger;
  readonly causes: UnknownVerdictCauses;
  /** One summary line at most this often while unknown verdicts go on. Default 60 000 ms. */
  readonly periodMs?: number | undefined;
  /** Default the system clock; tests pass fake time. */
  readonly clock?: Clock | undefined;
}

/** The cause named in the line, as a stable word for the log's fields and its text for people. */
export type UnknownVerdictCause = 'credentials_refused' | 'unreachable' | 'held' | 'budget_spent' | 'system_key_refused' | 'slow_answers';

interface Cause {
  readonly code: UnknownVerdictCause;
  readonly text: string;
  /** Mute lookups waiting for the budget when it was seen; undefined when the budget cannot be read. */
  readonly lookupsWaiting: number | undefined;
}

/** Causes are read at most this often under a flood of unknown verdicts (each read allocates a little). */
const SAMPLE_EVERY_MS = 1000;

export class UnknownVerdictSummary {
  readonly #logger: Logger;
  readonly #causes: UnknownVerdictCauses;
  readonly #periodMs: number;
  readonly #clock: Clock;
  readonly #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;
  /** Unknown verdicts in the current period, and since the degraded state began. */
  #inPeriod = 0;
  #total = 0;
  #since = 0;
  #cause: Cause | undefined;
  #sampledAt = -Infinity;

  constructor(options: UnknownVerdictSummaryOptions) {
    this.#logger = options.logger;
    this.#causes = options.causes;
    this.#periodMs = options.periodMs ?? 60_000;
    this.#clock = options.clock ?? systemClock;
    this.#unsubscribe = options.events.on('verdict', (event: VerdictEvent) => {
      if (event.reason === 'unknown') this.#unknown();
    });
  }

  /** Stops listening and drops the timer; no line is written for a state still going on. Idempotent. */
  close(): void {
    this.#unsubscribe();
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #unknown(): void {
    const now = this.#clock.now();
    this.#inPeriod += 1;
    this.#total += 1;
    if (now - this.#sampledAt >= SAMPLE_EVERY_MS) {
      this.#sampledAt = now;
      this.#cause = this.#readCause();
    }
    if (this.#timer !== undefined) return;
    this.#since = now;
    this.#arm();
  }

  #arm(): void {
    this.#timer = setTimeout(() => {
      this.#periodEnded();
    }, this.#periodMs);
    // A summary is no reason to keep the process alive.
    this.#timer.unref();
  }

  #periodEnded(): void {
    this.#timer = undefined;
    const now = this.#clock.now();
    if (this.#inPeriod === 0) {
      // It lasted until the end of the last period that had some: this quiet one is not part of it.
      const lasted = Math.max(0, now - this.#periodMs - this.#since);
      this.#logger.info(
        { unknownVerdicts: this.#total, forMs: lasted },
        `chat lines are decided by GSA's answers again: ${lines(this.#total)} went to mute.onUnknown in ${describeDuration(lasted)}`,
      );
      this.#total = 0;
      this.#cause = undefined;
      this.#sampledAt = -Infinity;
      return;
    }
    const count = this.#inPeriod;
    this.#inPeriod = 0;
    const cause = this.#cause ?? this.#readCause();
    const waiting = cause.lookupsWaiting === undefined ? '' : `; ${cause.lookupsWaiting} ${cause.lookupsWaiting === 1 ? 'lookup' : 'lookups'} waiting`;
    const period = this.#periodMs === 60_000 ? 'minute' : describeDuration(this.#periodMs);
    this.#logger.warn(
      { unknownVerdicts: count, cause: cause.code, ...(cause.lookupsWaiting === undefined ? {} : { lookupsWaiting: cause.lookupsWaiting }) },
      `${lines(count)} decided by mute.onUnknown in the last ${period}: ${cause.text}${waiting}`,
    );
    // The next period's cause is read afresh.
    this.#sampledAt = -Infinity;
    this.#arm();
  }

  /** The most telling cause the sidecar knows of, first the host's to fix. */
  #readCause(): Cause {
    const causes = this.#causes;
    const budget = safely(() => causes.budget?.());
    const lookupsWaiting = budget?.waiting.mute;
    const cause = (code: UnknownVerdictCause, text: string): Cause => ({ code, text, lookupsWaiting });
    if (safely(() => causes.credentialsRefused?.('mod')) === true) {
      return cause('credentials_refused', 'GSA refuses the API credentials (check api.clientId and api.clientSecret; the error line above names them)');
    }
    if (safely(() => causes.reachable?.()) === false) return cause('unreachable', 'GSA is unreachable');
    const held = safely(() => causes.holdSeconds?.()) ?? 0;
    if (held > 0) return cause('held', `GSA asked the sidecar to wait (Retry-After), ${describeDuration(held * 1000)} left`);
    if (lookupsWaiting !== undefined && lookupsWaiting > 0) return cause('budget_spent', 'the API budget is spent');
    if (safely(() => causes.credentialsRefused?.('system')) === true) {
      return cause('system_key_refused', "GSA refuses the System API key (api.system.key), which Minecraft players' lookups need");
    }
    return cause('slow_answers', 'GSA answered later than mute.decisionTimeoutMs');
  }
}

function lines(count: number): string {
  return count === 1 ? '1 chat line' : `${count} chat lines`;
}

/** A source that throws is treated as knowing nothing: a log line must never break the chat path. */
function safely<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}
