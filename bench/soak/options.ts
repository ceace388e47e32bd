// The soak's knobs: parsed from the command line, each with a default that matches the brief, and the
// derived bounds the invariants are judged against. Must never read the environment or a config file: a soak
// run is reproducible from its command line alone.
import { parseArgs } from 'node:util';
import { BUDGET_WEIGHTS } from '../../src/gsa/budget/budgetShares.js';
import { guardedIntervalMs } from '../../src/gsa/budget/slidingWindow.js';

export interface SoakOptions {
  /** Length of the load phase; fractions allowed (0.5 = 30 s). */
  readonly minutes: number;
  readonly players: number;
  readonly chatsPerSecond: number;
  readonly joinsPerSecond: number;
  readonly reviewsPerSecond: number;
  readonly connections: number;
  /** The strict window the sidecar is configured with and the emulator checks on arrival. */
  readonly windowRequests: number;
  readonly windowMs: number;
  /** Seconds between two faults. */
  readonly faultEverySeconds: number;
  /** How many `kill -9` + restart cycles, spread over the first half of the run so the last process lives long
   * enough for the memory and handle trend to mean something. */
  readonly kills: number;
  /** Seconds between two server actions from a mod. */
  readonly actionEverySeconds: number;
  readonly decisionTimeoutMs: number;
  /** Keep the temp directory (config, data dir, sidecar log) instead of removing it. */
  readonly keep: boolean;
  /** Preload loopProbe.ts into the sidecar(s) and print what their event-loop pauses were made of (loopPauses.ts). */
  readonly traceSidecarLoop: boolean;
  /** Seed for the player choice and fault rotation, so a failing run can be repeated. */
  readonly seed: number;
  // The hostile neighbours (localNeighbours.ts, hostileGameServer.ts); 0 turns one off.
  /** Chat lines a second, each from a new speaker, pushed by the flooding Squad server on its own server. */
  readonly floodLinesPerSecond: number;
  /** KiB a second of a reply that never ends, from the endless-reply Squad server. */
  readonly endlessKibPerSecond: number;
  /** Raw TCP sockets held open to the quiet mod's port without an upgrade. */
  readonly idleSockets: number;
  /** One wrong-token upgrade at most this often, on the quiet mod's port. */
  readonly wrongTokenEveryMs: number;
  /** Muted players chatting on the quiet mod, each every 500 ms. */
  readonly quietPlayers: number;
  // Three sidecars on one key (multiNode.ts); 1 is the single-node soak above, unchanged.
  /** Sidecars on one API key, sharing its budget through one private Redis. */
  readonly nodes: number;
  /** With nodes > 1: seconds between two Redis restarts (the first at min(this, 40% of the load)). */
  readonly redisRestartEverySeconds: number;
  /** With nodes > 1: how long Redis stays down at each restart. */
  readonly redisDownSeconds: number;
  /** With nodes > 1: a hostile co-tenant writes under the sidecars' prefix (coTenant.ts); off with --no-cotenant. */
  readonly cotenant: boolean;
  /** With nodes > 1: the last sidecar has a day-long Retry-After cap and is told to wait a day; off with --no-day-long. */
  readonly dayLong: boolean;
}

export const SOAK_USAGE = `npm run soak -- [--minutes N] [--players N] [--chats-per-second N] [--reviews-per-second N]
  [--joins-per-second N] [--connections N] [--window-requests N] [--window-ms MS] [--fault-every S] [--kills N]
  [--action-every S] [--seed N] [--keep] [--trace-sidecar-loop]
  [--flood-lines-per-second N] [--endless-kib-per-second N] [--idle-sockets N] [--wrong-token-every MS] [--quiet-players N]
  [--nodes N] [--redis-restart-every S] [--redis-down S] [--no-cotenant] [--no-day-long]
With --nodes N > 1: N sidecars on one key and one private Redis against the enforcing emulator, the chat, review
and action load split across them, no hostile neighbours, one kill -9 of one sidecar (--kills 0: none), Redis
restarts, a hostile co-tenant writing under the sidecars' prefix (--no-cotenant: none) and a last sidecar with a
day-long Retry-After cap told to wait a day (--no-day-long: none) (docs/soak.md, "Three sidecars on one key").
--trace-sidecar-loop preloads a probe into each sidecar process and prints what its event-loop pauses of 35 ms or
more were made of: its own running, waiting for a core, or blocked (docs/soak.md, "Reading a failure").`;

const SPEC = {
  minutes: { type: 'string', default: '10' },
  players: { type: 'string', default: '10000' },
  'chats-per-second': { type: 'string', default: '200' },
  'joins-per-second': { type: 'string', default: '5' },
  // 1/s: the review share carries 3/s at the default window (30 of 100 per 10 s), but the fault rotation keeps the
  // key or the review class under a Retry-After hold ~30 s of every rotation of at least 52 s (two 429s and a
  // review 503, 10 s each), leaving ≥ 1.3/s; at 2/s the backlog grew for the whole run (docs/soak.md).
  'reviews-per-second': { type: 'string', default: '1' },
  connections: { type: 'string', default: '4' },
  // Scaled from the service's 100 per 60 s so a short run still fills and drains the window many times.
  'window-requests': { type: 'string', default: '100' },
  'window-ms': { type: 'string', default: '10000' },
  'fault-every': { type: 'string', default: '4' },
  kills: { type: 'string', default: '2' },
  'action-every': { type: 'string', default: '5' },
  seed: { type: 'string', default: '1' },
  // The hostile neighbours of issue 12, scaled so they run beside the mix above on a 2-core machine: the flood is
  // 5× the mods' chat, every line a new speaker (a first lookup), the endless reply 512 KiB/s.
  'flood-lines-per-second': { type: 'string', default: '1000' },
  'endless-kib-per-second': { type: 'string', default: '512' },
  'idle-sockets': { type: 'string', default: '2000' },
  'wrong-token-every': { type: 'string', default: '50' },
  'quiet-players': { type: 'string', default: '5' },
  nodes: { type: 'string', default: '1' },
  'redis-restart-every': { type: 'string', default: '120' },
  'redis-down': { type: 'string', default: '3' },
  'no-cotenant': { type: 'boolean', default: false },
  'no-day-long': { type: 'boolean', default: false },
  keep: { type: 'boolean', default: false },
  'trace-sidecar-loop': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const;

export class SoakUsageError extends Error {
  readonly code = 'soak_usage';
}

/** @returns undefined when --help was asked for. @throws SoakUsageError naming the bad option. */
export function parseSoakOptions(argv: readonly string[]): SoakOptions | undefined {
  let values: ReturnType<typeof parseArgs<{ options: typeof SPEC; args: string[]; strict: true }>>['values'];
  try {
    ({ values } = parseArgs({ options: SPEC, args: [...argv], strict: true }));
  } catch (error) {
    throw new SoakUsageError(`${error instanceof Error ? error.message : String(error)}\nusage: ${SOAK_USAGE}`);
  }
  if (values.help) return undefined;
  const positive = (name: keyof typeof SPEC, value: string, integer: boolean, min = Number.MIN_VALUE): number => {
    const number = Number(value);
    if (!Number.isFinite(number) || number < min || (integer && !Number.isInteger(number))) {
      const range = min === Number.MIN_VALUE ? 'above 0' : `at least ${min}`;
      throw new SoakUsageError(`--${name} must be ${integer ? 'a whole number' : 'a number'} ${range}, got "${value}"`);
    }
    return number;
  };
  const options = {
    minutes: positive('minutes', values.minutes, false),
    players: positive('players', values.players, true, 1),
    chatsPerSecond: positive('chats-per-second', values['chats-per-second'], false, 0),
    joinsPerSecond: positive('joins-per-second', values['joins-per-second'], false, 0),
    reviewsPerSecond: positive('reviews-per-second', values['reviews-per-second'], false, 0),
    connections: positive('connections', values.connections, true, 1),
    windowRequests: positive('window-requests', values['window-requests'], true, 1),
    windowMs: positive('window-ms', values['window-ms'], true, 1),
    faultEverySeconds: positive('fault-every', values['fault-every'], false),
    kills: positive('kills', values.kills, true, 0),
    actionEverySeconds: positive('action-every', values['action-every'], false),
    decisionTimeoutMs: 300,
    keep: values.keep,
    traceSidecarLoop: values['trace-sidecar-loop'],
    seed: positive('seed', values.seed, true, 0),
    floodLinesPerSecond: positive('flood-lines-per-second', values['flood-lines-per-second'], false, 0),
    endlessKibPerSecond: positive('endless-kib-per-second', values['endless-kib-per-second'], false, 0),
    idleSockets: positive('idle-sockets', values['idle-sockets'], true, 0),
    wrongTokenEveryMs: positive('wrong-token-every', values['wrong-token-every'], true, 0),
    quietPlayers: positive('quiet-players', values['quiet-players'], true, 1),
    nodes: positive('nodes', values.nodes, true, 1),
    redisRestartEverySeconds: positive('redis-restart-every', values['redis-restart-every'], false),
    redisDownSeconds: positive('redis-down', values['redis-down'], false, 0),
    cotenant: !values['no-cotenant'],
    dayLong: !values['no-day-long'],
  };
  // The shared budget refuses more sidecars than calls per window: each keeps floor(requests / nodes) without Redis.
  if (options.nodes > options.windowRequests) throw new SoakUsageError(`--nodes (${options.nodes}) must not be more than --window-requests (${options.windowRequests})`);
  return options;
}

/** The sidecar's own timing settings, chosen so the bounds below stay well inside a short run. */
export const SOAK_API_TIMEOUT_MS = 2_000;

/** The `api.retry` block of the soak's sidecar config. */
export interface SoakRetry {
  readonly retries: number;
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
}

/**
 * The soak scales the service's window (100 per 60 s) down to `windowMs`, so it scales the Retry-After cap the
 * same way: `maxRetryAfterMs` = one window, as the default 60 s is one window of the real service. Left at 60 s,
 * the two 429 holds and the review 503 of every fault rotation (~52 s) would keep the key paused nearly all the
 * time and the soak would measure the fault mix, not the sidecar.
 */
export function soakRetry(options: Pick<SoakOptions, 'windowMs'>): SoakRetry {
  return { retries: 3, minDelayMs: 200, maxDelayMs: 5_000, maxRetryAfterMs: options.windowMs };
}

/**
 * How long a review or a server action may wait, outside the service-requested holds, before it counts as
 * starved; derived from the soak's sidecar config. With a guaranteed share per class (docs/api-budget.md), a call
 * waits at most: two windows as the sidecar counts them (T′ = intervalMs widened by 1%) for its share to come
 * round, the longest client retry backoff, two request timeouts (an attempt that timed out and the one that
 * succeeded), and one pause of the sidecar's own between rounds (the outbox's next try after a failed round; with
 * this fault mix its backoff stays under the Retry-After cap, so the cap bounds it). Holds are added per call
 * (invariants.ts, heldMs): time under a Retry-After the service sent is not starvation by chat load.
 */
export function starvationBoundMs(options: Pick<SoakOptions, 'windowMs'>, timeoutMs = SOAK_API_TIMEOUT_MS): number {
  const retry = soakRetry(options);
  return retry.maxRetryAfterMs + 2 * guardedIntervalMs(options.windowMs) + retry.maxDelayMs + 2 * timeoutMs;
}

/**
 * How long after a sidecar starts a muted player on the quiet mod may still be let through: their first lookup
 * waits only for the quiet source's turn in the mute share (served in turn across sources, so a few mute grants:
 * under a second at the soak's window, whatever the flood), plus what the service itself can impose on any call:
 * one Retry-After hold (capped at one window), the window refilling after it, the longest retry backoff and two
 * request timeouts. A verdict asked later than this must block.
 */
export function quietLookupBoundMs(options: Pick<SoakOptions, 'windowMs'>, timeoutMs = SOAK_API_TIMEOUT_MS): number {
  const retry = soakRetry(options);
  return retry.maxRetryAfterMs + guardedIntervalMs(options.windowMs) + retry.maxDelayMs + 2 * timeoutMs;
}

/**
 * What the review share carries under full chat load, per second, outside holds: 30 of every 100 slots
 * (docs/api-budget.md), scaled to the soak's window.
 */
export function reviewShareCapacityPerSecond(options: Pick<SoakOptions, 'windowRequests' | 'windowMs'>): number {
  return (options.windowRequests * (BUDGET_WEIGHTS.review / (BUDGET_WEIGHTS.mute + BUDGET_WEIGHTS.review + BUDGET_WEIGHTS.action))) / (options.windowMs / 1000);
}
