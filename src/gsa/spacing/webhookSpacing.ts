// Keeps two calls of the same webhook (one action on one server) at least 3 s apart: GSA's rule since July 2025
// (reference/gsa-api.md). A second call waits for its turn instead of failing; calls with another key are never
// delayed. Calls with one key go one at a time, each measured from the moment the previous one left, so a call
// held up by the rate limiter cannot let the next one go early.
// The client takes the small WebhookSpacing interface; LocalWebhookSpacing (one process) is the default, and a
// shared one (Redis, across sidecars on one key) can replace it. It never sends anything and never decides
// whether a call is allowed: only when.
// The mechanism is not webhook-specific: any "one call per key every N ms" rule takes it with its own `spacingMs`
// (the System API's cooldowns, 120 s per player and 60 s per game server, are two more instances).

import { systemClock, type Clock } from '../../time/clock.js';
import { clampTimerMs } from '../../time/timerLimit.js';

/** GSA's minimum time between two calls of the same webhook, as the service measures it (on arrival). */
export const GSA_WEBHOOK_SPACING_MS = 3000;

/**
 * The spacing kept by default: GSA's 3 s measured from when a call leaves, plus a margin for the first call's
 * trip to the service taking longer than the second's (the service measures arrivals, we measure departures).
 */
export const WEBHOOK_SPACING_MS = GSA_WEBHOOK_SPACING_MS + 250;

/** One call's turn: given by WebhookSpacing.turn, ended by release(). */
export interface WebhookTurn {
  /** The call leaves now: the next call with the same key may wait for its turn, until the spacing after this moment. */
  leaving(): void;
  /** The call is over, sent or not; the next call with the key may take its turn. Idempotent. */
  release(): void;
  /**
   * The call that left surely never reached the service (its connection was never made): its departure is forgotten
   * where the spacing can (a retry need not wait a whole spacing for a call GSA never saw). Optional: a shared
   * spacing that already told its store keeps the departure, which only costs a wait.
   */
  unsent?(): void;
}

export interface WebhookSpacing {
  /**
   * Resolves when a call keyed `key` may leave: the previous call with that key has released its turn and the
   * spacing since it left has passed. Rejects with `signal.reason` when `signal` aborts first (nothing is recorded).
   */
  turn(key: string, signal: AbortSignal): Promise<WebhookTurn>;
  /**
   * When a call keyed `key` could next leave by the spacing alone (epoch ms on this process's clock), or undefined
   * when it could leave now. A call still waiting or in flight is not counted: this is a lower bound, for a caller
   * that must know before it waits whether its turn comes before its deadline. Never rejects (a shared spacing that
   * cannot ask its store answers with what this process knows).
   */
  freeAt(key: string): Promise<number | undefined>;
}

/** The key of a webhook call: same action on the same server is "the same webhook". */
export function webhookKey(serverId: number | string, action: string): string {
  return `${String(serverId)}/${action}`;
}

export interface LocalWebhookSpacingOptions {
  /** Minimum time between two calls with one key leaving, in ms. Default WEBHOOK_SPACING_MS (3250). */
  readonly spacingMs?: number;
  /** Time source; default the system clock. Waits use the platform's timers (fake timers in tests). */
  readonly clock?: Clock;
}

interface KeyState {
  /** When the last call with this key left; undefined before any did. */
  leftAt: number | undefined;
  /** Settles when the last turn handed out (or still waiting) is released. */
  tail: Promise<void>;
}

/** Settles as `promise` does, or rejects with `signal.reason` as soon as it aborts (both spacings wait this way). */
export function waitFor<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** Waits `ms` (capped to what a timer can hold), or rejects with `signal.reason` as soon as it aborts. */
export function delay(ms: number, signal: AbortSignal): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, clampTimerMs(ms));
  });
  return waitFor(elapsed, signal).finally(() => {
    clearTimeout(timer);
  });
}

/**
 * Spacing inside one process. It keeps one small record per key ever used (a key is a server id and one of six
 * actions, so the map is bounded by the servers a host acts on).
 */
export class LocalWebhookSpacing implements WebhookSpacing {
  readonly #spacingMs: number;
  readonly #clock: Clock;
  readonly #keys = new Map<string, KeyState>();

  constructor(options: LocalWebhookSpacingOptions = {}) {
    this.#spacingMs = options.spacingMs ?? WEBHOOK_SPACING_MS;
    this.#clock = options.clock ?? systemClock;
  }

  freeAt(key: string): Promise<number | undefined> {
    const leftAt = this.#keys.get(key)?.leftAt;
    const at = leftAt === undefined ? undefined : leftAt + this.#spacingMs;
    return Promise.resolve(at !== undefined && at > this.#clock.now() ? at : undefined);
  }

  async turn(key: string, signal: AbortSignal): Promise<WebhookTurn> {
    let state = this.#keys.get(key);
    if (state === undefined) {
      state = { leftAt: undefined, tail: Promise.resolve() };
      this.#keys.set(key, state);
    }
    const previous = state.tail;
    let released = false;
    let markReleased!: () => void;
    // The next caller waits for this turn; a turn given up while waiting passes on only once its own turn came.
    state.tail = new Promise((resolve) => (markReleased = resolve));
    const release = (): void => {
      if (released) return;
      released = true;
      void previous.then(markReleased);
    };
    try {
      await waitFor(previous, signal);
      const { leftAt } = state;
      const waitMs = leftAt === undefined ? 0 : leftAt + this.#spacingMs - this.#clock.now();
      if (waitMs > 0) await delay(waitMs, signal);
    } catch (error) {
      release();
      throw error;
    }
    const current = state;
    const before = state.leftAt;
    let departure: number | undefined;
    return {
      leaving: () => {
        departure = this.#clock.now();
        current.leftAt = departure;
        // The next call need not wait for this one's answer, only for the spacing from now.
        release();
      },
      release,
      unsent: () => {
        // Only while no later call has left since: then the key is as it was before this one.
        if (departure !== undefined && current.leftAt === departure) current.leftAt = before;
      },
    };
  }
}
