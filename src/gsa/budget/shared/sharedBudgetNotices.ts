// What the shared API budget (redisBudget.ts) tells the host about the shared state: falling back to the local
// window and sharing again, other sidecars keeping another window, a long hold read from Redis, a rebuilt state, and
// the values in Redis it did not believe. Each such line is written once per change, and a doubt that keeps coming
// back at most once a minute, so a flapping Redis cannot flood the log.
// It decides nothing: the budget calls it after it changed its mode. It never logs the URL's password (it is given
// the label, redis://host:port/db) and never a value it read from Redis beyond the settings and sizes it names.

import { DOUBT_TEXT, describeWindowSettings, doubtsOf, type Doubt } from './redisBudgetReplies.js';
import { DOUBT_LINE_EVERY_MS } from './redisBudgetOptions.js';
import type { SharedRedisLogger } from '../../redis/sharedRedis.js';

export interface SharedBudgetNoticesOptions {
  readonly logger: SharedRedisLogger;
  /** `redis://host:port/db`, without user or password. */
  readonly label: string;
  readonly requests: number;
  readonly nodes: number;
  /** floor(requests / nodes): the fallback's calls per window. */
  readonly share: number;
  /** This sidecar's window settings as kept in Redis (windowSettings). */
  readonly settings: string;
}

export class SharedBudgetNotices {
  readonly #options: SharedBudgetNoticesOptions;
  /** Other sidecars' window settings this one does not share with (logged once), while that lasts. */
  #mismatch: string | undefined;
  /** The end of the last long hold a warning line was written for (local clock). */
  #warnedHoldUntil = 0;
  /** Doubts seen in the latest replies (logged when they first appear) and when each was last logged. */
  readonly #doubting = new Set<Doubt>();
  readonly #doubtLoggedAt = new Map<Doubt, number>();

  constructor(options: SharedBudgetNoticesOptions) {
    this.#options = options;
  }

  /** True while other live sidecars on the key keep another window. */
  get mismatched(): boolean {
    return this.#mismatch !== undefined;
  }

  /** This sidecar left the shared window for its local one. */
  fellBack(reason: string): void {
    const { logger, label, requests, nodes, share } = this.#options;
    logger.warn(
      { redis: label, reason, share },
      `shared API budget: Redis at ${label} cannot be reached (${reason}); this sidecar keeps floor(${requests}/${nodes}) = ${share} calls per window on its own until it is back`,
    );
  }

  /** Other live sidecars on the key keep another window: an error line, once per difference. */
  otherWindow(theirs: string): void {
    if (this.#mismatch === theirs) return;
    this.#mismatch = theirs;
    const { logger, label, requests, nodes, share, settings } = this.#options;
    logger.error(
      { redis: label, theirs, ours: settings },
      `shared API budget: other sidecars on this API key (Redis at ${label}) keep ${describeWindowSettings(theirs)}, this one ${describeWindowSettings(settings)}: ` +
        `they must not share one window, so this sidecar keeps floor(${requests}/${nodes}) = ${share} calls per window on its own; ` +
        'set api.rateLimit.requests, api.rateLimit.intervalMs and api.rateLimit.shared.nodes the same on every sidecar of one key',
    );
  }

  /** Decisions are made in Redis again; `wasLocal`: it was on its fallback (not starting). */
  sharingAgain(wasLocal: boolean): void {
    const { logger, label } = this.#options;
    if (this.#mismatch !== undefined) {
      logger.info({ redis: label }, `shared API budget: the live sidecars on this key in Redis at ${label} keep the same window as this one now; sharing the budget again`);
    } else if (wasLocal) {
      logger.info({ redis: label }, `shared API budget: Redis at ${label} is back; sharing the budget again`);
    }
    this.#mismatch = undefined;
  }

  /** A hold longer than a long hold, read from Redis, ending at `until`: told when it begins, not when read again. */
  longHold(holdMs: number, until: number): void {
    // The same hold read again ends at the same time, give or take the trips to Redis.
    if (Math.abs(until - this.#warnedHoldUntil) <= 1000) return;
    this.#warnedHoldUntil = until;
    const { logger, label } = this.#options;
    logger.warn(
      { redis: label, holdMs },
      `shared API budget: GSA told a sidecar on this API key to wait ${Math.round(holdMs / 1000)} s (Retry-After, as shared through Redis at ${label}); this sidecar sends nothing on the key until then`,
    );
  }

  /** The shared state was wiped or rebuilt; this sidecar put its own starts back. */
  rebuilt(graceLeftMs: number): void {
    const { logger, label } = this.#options;
    logger.warn(
      { redis: label, graceMs: graceLeftMs },
      `shared API budget: the shared state in Redis at ${label} was wiped or rebuilt (FLUSHALL, eviction, a new replica); this sidecar put its own starts and hold back, and the shared window is trusted again in ${graceLeftMs} ms`,
    );
  }

  /** Logs each doubt about Redis's values when it first appears, and a doubt that keeps coming back at most once a minute. */
  doubts(bits: number, now: number): void {
    const seen = doubtsOf(bits);
    for (const doubt of this.#doubting) if (!seen.includes(doubt)) this.#doubting.delete(doubt);
    for (const doubt of seen) {
      if (this.#doubting.has(doubt)) continue;
      this.#doubting.add(doubt);
      const last = this.#doubtLoggedAt.get(doubt);
      if (last !== undefined && now - last < DOUBT_LINE_EVERY_MS) continue;
      this.#doubtLoggedAt.set(doubt, now);
      const { logger, label } = this.#options;
      logger.warn({ redis: label, doubt }, `shared API budget: ${DOUBT_TEXT[doubt]} (Redis at ${label}; another program may be writing under api.rateLimit.shared.prefix)`);
    }
  }
}
