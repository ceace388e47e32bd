// What a shared Redis budget is given, with the defaults and bounds of each option, and the timings of the protocol
// every sidecar on one key follows (claims, late grants, turns, holds, heartbeats, rebuilds). The bounds these buy
// are in redisBudget.ts's header and docs/api-budget.md.
// Must never connect to anything or read a config file: the composition root maps config onto these options.

import type { Clock } from '../../../time/clock.js';
import type { SharedRedisLogger } from '../../redis/sharedRedis.js';

export interface RedisBudgetOptions {
  /** The Redis every sidecar on the key uses (redis:// or rediss://; a password in it is a secret). */
  readonly url: string;
  /** The start of every key name; sidecars on one API key must agree. */
  readonly prefix: string;
  /** The API key's client id: only its hash reaches Redis (sharedKeyName). */
  readonly clientId: string;
  /** Sidecars sharing the key: each keeps floor(requests / nodes) a window while Redis cannot be reached. 1 to `requests`. */
  readonly nodes: number;
  /** Starts allowed on the key in any window of `intervalMs`, across every sidecar. Every sidecar of a key must agree. */
  readonly requests: number;
  readonly intervalMs: number;
  /**
   * This sidecar's own cap on a Retry-After hold (`api.retry.maxRetryAfterMs`): a hold in Redis that ends later than
   * now plus this is not believed (logged once), so no value there, and no sidecar with a larger cap, holds this one
   * longer. Also caps what holdFor writes. @default 60000
   */
  readonly maxHoldMs?: number | undefined;
  /** @default a logger that writes nothing */
  readonly logger?: SharedRedisLogger | undefined;
  /** For local durations only (ages of this process's starts, the fallback window); Redis keeps the shared time. @default the system clock, made steady */
  readonly clock?: Clock | undefined;
  /** Told each time the budget starts or stops being shared (true on Redis, false on the local fallback). */
  readonly onSharedChange?: ((shared: boolean) => void) | undefined;
  /** The longest a decision waits for Redis before this sidecar decides on its fallback. @default 250 */
  readonly answerTimeoutMs?: number | undefined;
  /**
   * A start Redis granted is used only if its answer came back within this long; it is also added to the shared
   * window's span. Redis counts a start when the script runs, GSA when the call arrives: a grant read late (this
   * process was busy) would leave late and could share GSA's window with a call Redis counted a whole span later.
   * @default LATE_GRANT_MS (250)
   */
  readonly lateGrantMs?: number | undefined;
  /** The longest the first decision waits for the first connection. @default 1000 */
  readonly connectTimeoutMs?: number | undefined;
  /** This process's id in Redis (its claims and starts). @default 12 random hex digits */
  readonly nodeId?: string | undefined;
  /** While a hold in Redis is in force, how often it is looked at again (a hold removed stops holding by then). @default HOLD_RECHECK_MS */
  readonly holdRecheckMs?: number | undefined;
  /** How often a sidecar with starts in the last span checks that Redis still holds the state it joined. @default HEARTBEAT_MS */
  readonly heartbeatMs?: number | undefined;
  /** After the state was rebuilt, how long nobody starts while the sidecars put their starts back. @default REBUILD_GRACE_MS */
  readonly rebuildGraceMs?: number | undefined;
}

/** A claim on a kind lives this long past the wait its answer gave, so a node that died loses it soon after. */
export const DEMAND_GRACE_MS = 1000;

/**
 * The longest between Redis counting a start and this process reading the grant for the start to be used (see
 * RedisBudgetOptions.lateGrantMs); the shared window is that much longer than the local one.
 */
export const LATE_GRANT_MS = 250;

/** How long a node waits when the next place belongs to a kind only other sidecars have waiting. */
export const OTHER_TURN_MS = 25;

/** A sidecar's cap on a Retry-After hold when none is given (api.retry.maxRetryAfterMs's default). */
export const DEFAULT_MAX_HOLD_MS = 60_000;

/** While a hold in Redis is in force, a waiting sidecar looks at it again this often. */
export const HOLD_RECHECK_MS = 1000;

/** A sidecar with starts in the last span (or a hold) checks this often that Redis still holds the state it joined. */
export const HEARTBEAT_MS = 500;

/**
 * After a wipe, nobody starts for this long: one heartbeat, one answer's deadline and a margin, so every sidecar with
 * starts to put back has put them back before the window is trusted.
 */
export const REBUILD_GRACE_MS = 1000;

/** The same doubt about Redis's values is logged at most once in this long (a co-tenant writing again and again). */
export const DOUBT_LINE_EVERY_MS = 60_000;

/** Between two attempts to share again while Redis is connected but failed to answer, or its sidecars disagree. */
export const REJOIN_EVERY_MS = 1000;

/** The starts each sidecar keeps per window while Redis cannot be reached: floor(requests / nodes), at least 1. */
export function fallbackShare(requests: number, nodes: number): number {
  return Math.max(1, Math.floor(requests / nodes));
}

export const silent: SharedRedisLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export function wholeNumber(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a whole number of 1 or more, got ${String(value)}`);
  return value;
}

export function positiveMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number of ms, got ${String(value)}`);
  return value;
}
