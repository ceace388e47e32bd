/**
 * The service's API budget, enforced (an option, off unless set): per API key (client id), across servers and
 * endpoints, as Laravel's throttle middleware does on the service:
 * - a call is counted when it arrives, and only once its keys are accepted (Laravel authenticates before it
 *   throttles); a call refused here is not counted (Laravel checks `tooManyAttempts` before it `hit`s);
 * - over the budget: 429 `{"message":"Too Many Attempts."}` with `Retry-After` (whole seconds, rounded up, until the
 *   oldest counted arrival leaves the window), `X-RateLimit-Reset` (the Unix second when a call fits again) and
 *   `X-RateLimit-Remaining: 0`; Laravel sends Retry-After and Reset on its 429 only;
 * - every answer of a counted call carries `X-RateLimit-Limit` and `X-RateLimit-Remaining` (after counting it).
 * The window is a strict sliding one: at most `requests` arrivals in ANY `intervalMs`. The service counts a fixed
 * window (Laravel's cache key lives `decaySeconds` from its first hit), which any such interval covers, so whatever
 * passes here passes the service; the reverse does not hold (a burst across a fixed window's edge passes there).
 * Must never do I/O, never count a refused call, and keep memory bounded: only accepted keys (the emulator accepts
 * client id and one System API key, counted apart) and the arrivals inside the window are kept.
 */
import { ArrivalWindow, type WindowSpec } from './arrivals.js';
import { messageReply, type Reply } from './httpIo.js';

/** What one key spent since the budget was set (or the emulator reset). */
export interface BudgetKeyReport {
  readonly clientId: string;
  /** Calls counted (admitted). */
  readonly counted: number;
  /** Calls refused with 429 by the budget (a 429 fault is not one of them). */
  readonly refused: number;
  /** Counted calls still inside the window when the report was read (on the emulator's clock). */
  readonly inWindow: number;
}

/** The budget enforced and what each key spent; what `budgetReport()` and `GET /_emulator/budget` answer. */
export interface BudgetReport extends WindowSpec {
  /** 429s the budget sent, every key together. */
  readonly refused: number;
  readonly keys: BudgetKeyReport[];
}

interface KeyCount {
  readonly window: ArrivalWindow;
  counted: number;
  refused: number;
}

/** Laravel's wording for its throttle's 429. */
export const TOO_MANY_ATTEMPTS = 'Too Many Attempts.';

export class KeyBudget {
  #spec: WindowSpec | undefined;
  readonly #keys = new Map<string, KeyCount>();
  /** Wall-clock ms, for X-RateLimit-Reset only (a Unix time on the service). */
  readonly #wallClock: () => number;

  constructor(wallClock: () => number = Date.now) {
    this.#wallClock = wallClock;
  }

  /** Enforces `spec` from now on (counts start over), or stops enforcing with null. The caller validated it. */
  enforce(spec: WindowSpec | null): void {
    this.#spec = spec ?? undefined;
    this.#keys.clear();
  }

  /**
   * Runs `handle` for a call of `clientId` (whose keys were accepted) arriving at `at`, if the budget has room: the
   * call is counted and its answer gets the X-RateLimit headers. Past the budget, `handle` is not run (nothing is
   * processed) and the answer is the 429. Without a budget, `handle`'s answer as it is.
   */
  throttle(clientId: string, at: number, handle: () => Reply): Reply {
    const spec = this.#spec;
    if (spec === undefined) return handle();
    const key = this.#keyCount(clientId, spec);
    const inside = key.window.countAt(at);
    if (inside >= spec.requests) {
      key.refused += 1;
      const oldest = key.window.oldest ?? at;
      // Never under one second: a full window's oldest arrival is less than intervalMs old, so this is at least 1.
      const retryAfter = Math.max(1, Math.ceil((oldest + spec.intervalMs - at) / 1000));
      return messageReply(429, TOO_MANY_ATTEMPTS, {
        'x-ratelimit-limit': String(spec.requests),
        'x-ratelimit-remaining': '0',
        'retry-after': String(retryAfter),
        'x-ratelimit-reset': String(Math.floor(this.#wallClock() / 1000) + retryAfter),
      });
    }
    key.window.push(at);
    key.counted += 1;
    const reply = handle();
    return {
      ...reply,
      headers: { ...reply.headers, 'x-ratelimit-limit': String(spec.requests), 'x-ratelimit-remaining': String(spec.requests - inside - 1) },
    };
  }

  /** null when no budget is enforced. `now`: the emulator's clock, for what is still inside the window. */
  report(now: number): BudgetReport | null {
    const spec = this.#spec;
    if (spec === undefined) return null;
    let refused = 0;
    const keys: BudgetKeyReport[] = [];
    for (const [clientId, key] of this.#keys) {
      refused += key.refused;
      keys.push({ clientId, counted: key.counted, refused: key.refused, inWindow: key.window.countAt(now) });
    }
    return { ...spec, refused, keys };
  }

  /** Forgets what every key spent; an enforced budget stays enforced. */
  reset(): void {
    this.#keys.clear();
  }

  #keyCount(clientId: string, spec: WindowSpec): KeyCount {
    let key = this.#keys.get(clientId);
    if (key === undefined) {
      key = { window: new ArrivalWindow(spec.intervalMs), counted: 0, refused: 0 };
      this.#keys.set(clientId, key);
    }
    return key;
  }
}
