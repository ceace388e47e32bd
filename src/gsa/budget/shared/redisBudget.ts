// The API budget shared by every sidecar on one API key, kept in Redis: one sliding window of starts, the 6/3/1
// cycle with "first lookups before refreshes" across sidecars, the Retry-After hold and the service's own count,
// each decided atomically by one Lua script on Redis's clock (redisBudgetScripts.ts). Joining that state, and
// noticing it was wiped, is sharedBudgetMembership.ts's; this class decides on what it learns.
// Redis is never a single point of failure: on any error, or no answer within `answerTimeoutMs`, this sidecar
// decides on a local window of floor(requests / nodes) (one warning line), seeded with its own recent starts, and
// shares again when Redis is back (one line), putting its own starts of the last span back first.
// It never stores anything in Redis but counters, times and a random node id: no player, no review, no client id
// (the key name is a hash of it, sharedKeyName.ts), no secret; it never logs the URL's password.
//
// Bounds (docs/api-budget.md, "Shared across sidecars"), with R = requests, N = nodes, s = floor(R / N):
// - Redis up: at most R starts on the key in any span, across every sidecar.
// - Redis lost or restarted: each sidecar's own starts in any span are at most max(s, what it started through Redis
//   in that span), so a span that straddles the change sees at most R + (N - 1)·s < 2R starts (one window of
//   overshoot at most), and only spans that overlap the time between the first and the last sidecar switching.
//   A sidecar re-seeds a restarted Redis with its own starts before it shares again, so the shared window counts
//   them; one still on its fallback keeps to s.
// - Redis wiped under a live connection (FLUSHALL, eviction, a fresh replica): the state's epoch changes, every
//   sidecar with starts in the last span puts them back within a heartbeat, and nobody starts until the rebuild's
//   grace has passed: the window holds as if nothing had happened.
// - Whatever Redis holds, this sidecar never waits longer than its own cap (maxHoldMs) for a hold, one span for the
//   window, OTHER_TURN_MS for another sidecar's turn, or the rebuild's grace; a hold someone removes stops holding
//   within holdRecheckMs. Values it cannot believe are logged once (redisBudgetReplies.ts names them).

import { randomBytes } from 'node:crypto';
import { systemClock, type Clock } from '../../../time/clock.js';
import { steadyClock } from '../../../time/steadyClock.js';
import { clampTimerMs } from '../../../time/timerLimit.js';
import { LocalBudget, LONG_HOLD_MS, type ApiBudget, type BudgetDecision } from '../apiBudget.js';
import { CALL_KINDS, shareCycle, type WaitingCalls } from '../budgetShares.js';
import { DOUBT_TEXT, describeWindowSettings, doubtsOf, readDecideReply, windowSettings, type Doubt } from './redisBudgetReplies.js';
import { DECIDE_SCRIPT, HOLD_SCRIPT, OBSERVE_SCRIPT, budgetKeys, type BudgetKeys } from './redisBudgetScripts.js';
import { NoAnswerError, runRedisScript, type RedisScript } from '../../redis/redisScript.js';
import {
  DEFAULT_MAX_HOLD_MS,
  DEMAND_GRACE_MS,
  DOUBT_LINE_EVERY_MS,
  HEARTBEAT_MS,
  HOLD_RECHECK_MS,
  LATE_GRANT_MS,
  OTHER_TURN_MS,
  REBUILD_GRACE_MS,
  fallbackShare,
  positiveMs,
  silent,
  wholeNumber,
  type RedisBudgetOptions,
} from './redisBudgetOptions.js';
import { sharedKeyName } from '../../redis/sharedKeyName.js';
import { connectSharedRedis, redisErrorText, redisLabel, redisUrlSecrets, type SharedRedis, type SharedRedisLogger } from '../../redis/sharedRedis.js';
import { SharedBudgetMembership, type BudgetMode, type OwnStart } from './sharedBudgetMembership.js';
import { guardedIntervalMs } from '../slidingWindow.js';

// Callers find the budget's options and protocol timings here, though they have a module of their own.
export { DEFAULT_MAX_HOLD_MS, DEMAND_GRACE_MS, HEARTBEAT_MS, HOLD_RECHECK_MS, LATE_GRANT_MS, OTHER_TURN_MS, REBUILD_GRACE_MS, fallbackShare, type RedisBudgetOptions };

export class RedisBudget implements ApiBudget {
  readonly #client: SharedRedis;
  readonly #label: string;
  readonly #secrets: readonly string[];
  readonly #logger: SharedRedisLogger;
  readonly #clock: Clock;
  readonly #onSharedChange: ((shared: boolean) => void) | undefined;
  readonly #requests: number;
  readonly #nodes: number;
  readonly #intervalMs: number;
  readonly #spanMs: number;
  readonly #lateGrantMs: number;
  readonly #share: number;
  readonly #maxHoldMs: number;
  readonly #holdRecheckMs: number;
  readonly #rebuildGraceMs: number;
  readonly #answerTimeoutMs: number;
  readonly #connectTimeoutMs: number;
  readonly #nodeId: string;
  readonly #settings: string;
  readonly #keys: BudgetKeys;
  readonly #cycle: string;
  readonly #membership: SharedBudgetMembership;
  #mode: BudgetMode = 'starting';
  /** What onSharedChange was last told. */
  #told: boolean | undefined;
  /** This process's starts of about the last span, oldest first: the fallback's seed and a rebuilt state's. */
  readonly #ownStarts: OwnStart[] = [];
  #sequence = 0;
  /** The end of the hold the service gave this sidecar (local clock). */
  #holdUntil = 0;
  /** The end of the hold last read from Redis and believed (local clock); 0 when none. */
  #sharedHoldUntil = 0;
  /** The end of the last long hold a warning line was written for (local clock). */
  #warnedHoldUntil = 0;
  #fallback: LocalBudget | undefined;
  /** Until when (local clock) Redis's last answer said nothing on the key may start: freeStarts is 0 meanwhile. */
  #sharedWaitUntil = 0;
  #lastError: string | undefined;
  /** Other sidecars' window settings this one does not share with (logged once), while that lasts. */
  #mismatch: string | undefined;
  /** Doubts seen in the latest replies (logged when they first appear) and when each was last logged. */
  readonly #doubting = new Set<Doubt>();
  readonly #doubtLoggedAt = new Map<Doubt, number>();
  /** Settles when the first connection has been shared or given up on. */
  readonly #started: Promise<void>;
  #settleStart: () => void = () => undefined;

  constructor(options: RedisBudgetOptions) {
    this.#requests = wholeNumber('requests', options.requests);
    this.#nodes = wholeNumber('nodes', options.nodes);
    if (this.#nodes > this.#requests) {
      throw new RangeError(`nodes (${this.#nodes}) must not be greater than requests (${this.#requests}): while Redis is down each sidecar keeps floor(requests / nodes) calls a window, which must be at least 1`);
    }
    this.#intervalMs = positiveMs('intervalMs', options.intervalMs);
    this.#label = redisLabel(options.url);
    this.#secrets = redisUrlSecrets(options.url);
    this.#logger = options.logger ?? silent;
    this.#clock = steadyClock(options.clock ?? systemClock);
    this.#onSharedChange = options.onSharedChange;
    this.#lateGrantMs = options.lateGrantMs ?? LATE_GRANT_MS;
    if (!Number.isFinite(this.#lateGrantMs) || this.#lateGrantMs < 0) throw new RangeError(`lateGrantMs must be 0 or more ms, got ${String(options.lateGrantMs)}`);
    this.#spanMs = Math.ceil(guardedIntervalMs(options.intervalMs) + this.#lateGrantMs);
    this.#share = fallbackShare(this.#requests, this.#nodes);
    this.#maxHoldMs = clampTimerMs(positiveMs('maxHoldMs', options.maxHoldMs ?? DEFAULT_MAX_HOLD_MS));
    this.#holdRecheckMs = positiveMs('holdRecheckMs', options.holdRecheckMs ?? HOLD_RECHECK_MS);
    const heartbeatMs = positiveMs('heartbeatMs', options.heartbeatMs ?? HEARTBEAT_MS);
    this.#rebuildGraceMs = positiveMs('rebuildGraceMs', options.rebuildGraceMs ?? REBUILD_GRACE_MS);
    this.#answerTimeoutMs = options.answerTimeoutMs ?? 250;
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 1000;
    this.#nodeId = options.nodeId ?? randomBytes(6).toString('hex');
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(this.#nodeId)) throw new RangeError(`nodeId must be 1 to 32 letters, digits, "_" or "-", got ${JSON.stringify(this.#nodeId)}`);
    this.#settings = windowSettings(this.#requests, this.#intervalMs, this.#nodes);
    this.#keys = budgetKeys(sharedKeyName(options.prefix, options.clientId));
    this.#cycle = shareCycle()
      .map((budgetClass) => budgetClass[0])
      .join('');
    this.#started = new Promise((resolve) => {
      this.#settleStart = resolve;
    });
    this.#client = connectSharedRedis(options.url, this.#logger, { connectTimeoutMs: this.#connectTimeoutMs });
    this.#membership = this.#newMembership(heartbeatMs);
    this.#client.on('ready', () => {
      void this.#membership.join();
    });
    this.#client.on('error', (error: unknown) => {
      this.#lastError = redisErrorText(error, this.#secrets);
      this.#fallBack(this.#lastError);
    });
  }

  /** True while decisions are made in Redis; false on the local fallback (and before the first connection). */
  get shared(): boolean {
    return this.#mode === 'shared';
  }

  /** True while the shared state is being rebuilt (after a wipe, or when this sidecar made it): nobody starts. */
  get rebuilding(): boolean {
    return this.#mode === 'shared' && this.#membership.rebuilding;
  }

  /** The connection, for the other shared part (the webhook spacing). Owned here: closed by close(). */
  get redis(): SharedRedis {
    return this.#client;
  }

  /** `redis://host:port/db`, without user or password. */
  get redisLabel(): string {
    return this.#label;
  }

  get nodeId(): string {
    return this.#nodeId;
  }

  /** This sidecar's own cap on a hold (maxHoldMs, validated): no hold, its own or one in Redis, holds it longer. */
  get maxHoldMs(): number {
    return this.#maxHoldMs;
  }

  /** Ms the hold in force still runs, this sidecar's own or one read from Redis and believed; 0 when none. */
  get heldForMs(): number {
    const now = this.#clock.now();
    return Math.max(0, this.#holdUntil - now, this.#mode === 'shared' ? this.#sharedHoldUntil - now : (this.#fallback?.heldForMs ?? 0));
  }

  /**
   * Starts left in the window as this sidecar sees it: on the local fallback, the fallback's; while shared, 0 until a
   * "wait" from Redis has passed, else the key's requests less this sidecar's own starts of the last window (other
   * sidecars' starts are in Redis, not seen here: an upper bound). For gsa_bridge_budget_window_free only.
   */
  get freeStarts(): number {
    if (this.#mode === 'local' || this.#mode === 'closed') return this.#fallback?.freeStarts ?? Math.max(0, this.#share - this.#recentStarts().length);
    if (this.#sharedWaitUntil > this.#clock.now()) return 0;
    return Math.max(0, this.#requests - this.#recentStarts().length);
  }

  decide(waiting: WaitingCalls): BudgetDecision | Promise<BudgetDecision> {
    const held = this.#holdUntil - this.#clock.now();
    if (held > 0) return { waitMs: held };
    switch (this.#mode) {
      case 'shared':
        return this.#decideShared(waiting, false);
      case 'starting':
        return this.#afterStart().then(() => this.decide(waiting));
      case 'local':
      case 'closed':
        this.#membership.maybeRejoin();
        return this.#decideLocally(waiting);
    }
  }

  holdFor(ms: number): void {
    const capped = Math.min(clampTimerMs(ms), this.#maxHoldMs);
    const until = this.#clock.now() + capped;
    if (until > this.#holdUntil) this.#holdUntil = until;
    this.#fallback?.holdFor(capped);
    // Not shared yet: the hold goes to Redis with this node's starts when it joins.
    if (this.#mode !== 'shared' || capped <= 0) return;
    this.#run(HOLD_SCRIPT, [this.#keys.hold], [String(Math.ceil(capped)), String(this.#maxHoldMs)]).then(
      (doubts) => {
        if (typeof doubts === 'number') this.#noteDoubts(doubts);
      },
      (error: unknown) => {
        this.#fallBack(this.#reason(error));
      },
    );
  }

  /**
   * `unseen`: this process's starts the service had not counted when it answered (see ApiBudget). Other sidecars'
   * calls still on their way are not known here: they are in the shared window, so they are counted as seen (the
   * window then trusts `remaining` for them; docs/api-budget.md says so).
   */
  observeServiceCount(limit: number, remaining: number, unseen = 0): void {
    if (!(limit >= 0) || !(remaining >= 0)) return;
    if (this.#mode !== 'shared') {
      this.#fallback?.observeServiceCount(limit, remaining, unseen);
      return;
    }
    const prefix = `${this.#nodeId}:u${++this.#sequence}`;
    // May go below 0: calls of ours the service has not seen yet will take what it says is left, and more.
    const believedRemaining = Math.floor(remaining) - Math.max(0, Math.floor(unseen));
    this.#run(OBSERVE_SCRIPT, [this.#keys.window, this.#keys.meta], [String(this.#requests), String(this.#spanMs), String(believedRemaining), prefix, String(DEMAND_GRACE_MS)]).catch(
      (error: unknown) => {
        this.#fallBack(this.#reason(error));
      },
    );
  }

  async close(): Promise<void> {
    if (this.#mode === 'closed') return;
    const wasShared = this.#mode === 'shared';
    this.#mode = 'closed';
    this.#membership.close();
    this.#settleStart();
    // Its settings leave the list of live sidecars now, so that sidecars restarted with other settings share at once
    // (a killed one's lapse a window later). Its claims lapse by themselves (DEMAND_GRACE_MS past their wait).
    if (wasShared && this.#client.isReady) {
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#answerTimeoutMs);
      });
      await Promise.race([this.#client.sendCommand(['HDEL', this.#keys.nodes, this.#nodeId]).catch(() => undefined), gaveUp]);
      clearTimeout(timer);
    }
    if (this.#client.isOpen) this.#client.destroy();
  }

  async #decideShared(waiting: WaitingCalls, rejoined: boolean): Promise<BudgetDecision> {
    const member = `${this.#nodeId}:${++this.#sequence}`;
    const counts = CALL_KINDS.map((kind) => String(Math.max(0, Math.floor(waiting[kind]))));
    const asked = this.#clock.now();
    let raw: unknown;
    try {
      raw = await this.#run(
        DECIDE_SCRIPT,
        [this.#keys.window, this.#keys.place, this.#keys.demand, this.#keys.hold, this.#keys.meta],
        [
          String(this.#requests),
          String(this.#spanMs),
          this.#nodeId,
          member,
          ...counts,
          String(DEMAND_GRACE_MS),
          this.#cycle,
          String(OTHER_TURN_MS),
          this.#membership.epoch,
          String(this.#maxHoldMs),
          String(this.#holdRecheckMs),
          String(this.#rebuildGraceMs),
        ],
      );
    } catch (error) {
      this.#fallBack(this.#reason(error));
      return this.#decideLocally(waiting);
    }
    const reply = readDecideReply(raw);
    if (reply === undefined) {
      this.#fallBack('its answer to a decision is not one this version of gsa-bridge gives');
      return this.#decideLocally(waiting);
    }
    this.#noteDoubts(reply.doubts);
    const now = this.#clock.now();
    switch (reply.status) {
      case 'granted': {
        this.#sharedHoldUntil = 0;
        this.#remember(member);
        const tookMs = now - asked;
        if (tookMs > this.#lateGrantMs) {
          // Counted, but not used: it stays in the window (a start given up costs one place) and this node asks again.
          this.#logger.debug({ redis: this.#label, tookMs }, `shared API budget: a start granted ${Math.round(tookMs)} ms ago is not used (later than ${this.#lateGrantMs} ms, it could reach GSA out of its place in the window)`);
          return { waitMs: 0 };
        }
        return { start: reply.kind };
      }
      case 'wait':
        this.#sawSharedHold(reply.holdMs, now);
        this.#sharedWaitUntil = now + reply.waitMs;
        return { waitMs: reply.waitMs };
      case 'rejoin':
        // The state is not the one this node joined: wiped, or rebuilt by another sidecar. Put this node's starts
        // and hold back first, then ask again (once: a state that changes again meanwhile is not to be trusted).
        if (rejoined) {
          this.#fallBack('the shared state changed again while this sidecar was joining it');
          return this.#decideLocally(waiting);
        }
        await this.#membership.join();
        return this.#mode === 'shared' ? this.#decideShared(waiting, true) : this.decide(waiting);
    }
  }

  #decideLocally(waiting: WaitingCalls): BudgetDecision {
    const decision = this.#fallbackBudget().decide(waiting);
    if (decision.start !== undefined) this.#remember(`${this.#nodeId}:${++this.#sequence}`);
    return decision;
  }

  /** The fallback window, built when first needed after a fall: floor(R/N), holding this process's recent starts. */
  #fallbackBudget(): LocalBudget {
    if (this.#fallback === undefined) {
      const fallback = new LocalBudget({ requests: this.#share, intervalMs: this.#intervalMs, clock: this.#clock });
      const now = this.#clock.now();
      fallback.recordStarts(this.#recentStarts().map((start) => now - start.at));
      const held = this.#holdUntil - now;
      if (held > 0) fallback.holdFor(held);
      this.#fallback = fallback;
    }
    return this.#fallback;
  }

  #remember(member: string): void {
    this.#ownStarts.push({ at: this.#clock.now(), member });
    // Bounded: more than R + s of its own starts in one span is impossible (see the bounds above).
    if (this.#ownStarts.length > this.#requests + this.#share) this.#ownStarts.shift();
  }

  /** This process's starts still inside the last span, oldest first. */
  #recentStarts(): readonly OwnStart[] {
    const now = this.#clock.now();
    while (this.#ownStarts.length > 0 && (this.#ownStarts[0]?.at ?? now) + this.#spanMs <= now) this.#ownStarts.shift();
    return this.#ownStarts;
  }

  /** A wait answer told of a hold in Redis (or of none): kept for heldForMs, and a long one that begins is told. */
  #sawSharedHold(holdMs: number, now: number): void {
    if (holdMs <= 0) {
      this.#sharedHoldUntil = 0;
      return;
    }
    const until = now + holdMs;
    this.#sharedHoldUntil = until;
    // The same hold read again ends at the same time, give or take the trips to Redis.
    if (holdMs > LONG_HOLD_MS && Math.abs(until - this.#warnedHoldUntil) > 1000) {
      this.#warnedHoldUntil = until;
      this.#logger.warn(
        { redis: this.#label, holdMs },
        `shared API budget: GSA told a sidecar on this API key to wait ${Math.round(holdMs / 1000)} s (Retry-After, as shared through Redis at ${this.#label}); this sidecar sends nothing on the key until then`,
      );
    }
  }

  /** Leaves the shared mode for the local fallback. False when it was not sharing (nothing changed). */
  #leaveShared(): boolean {
    if (this.#mode !== 'shared' && this.#mode !== 'starting') return false;
    this.#mode = 'local';
    this.#fallback = undefined;
    this.#sharedHoldUntil = 0;
    this.#membership.left();
    this.#tell(false);
    this.#settleStart();
    return true;
  }

  #fallBack(reason: string): void {
    if (!this.#leaveShared()) return;
    this.#logger.warn(
      { redis: this.#label, reason, share: this.#share },
      `shared API budget: Redis at ${this.#label} cannot be reached (${reason}); this sidecar keeps floor(${this.#requests}/${this.#nodes}) = ${this.#share} calls per window on its own until it is back`,
    );
  }

  /** Other live sidecars on the key keep another window: they must not share one (an error line, once per difference). */
  #mismatched(theirs: string): void {
    this.#leaveShared();
    if (this.#mismatch === theirs) return;
    this.#mismatch = theirs;
    this.#logger.error(
      { redis: this.#label, theirs, ours: this.#settings },
      `shared API budget: other sidecars on this API key (Redis at ${this.#label}) keep ${describeWindowSettings(theirs)}, this one ${describeWindowSettings(this.#settings)}: ` +
        `they must not share one window, so this sidecar keeps floor(${this.#requests}/${this.#nodes}) = ${this.#share} calls per window on its own; ` +
        'set api.rateLimit.requests, api.rateLimit.intervalMs and api.rateLimit.shared.nodes the same on every sidecar of one key',
    );
  }

  /** Logs each doubt about Redis's values when it first appears, and a doubt that keeps coming back at most once a minute. */
  #noteDoubts(bits: number): void {
    const now = this.#clock.now();
    const seen = doubtsOf(bits);
    for (const doubt of this.#doubting) if (!seen.includes(doubt)) this.#doubting.delete(doubt);
    for (const doubt of seen) {
      if (this.#doubting.has(doubt)) continue;
      this.#doubting.add(doubt);
      const last = this.#doubtLoggedAt.get(doubt);
      if (last !== undefined && now - last < DOUBT_LINE_EVERY_MS) continue;
      this.#doubtLoggedAt.set(doubt, now);
      this.#logger.warn({ redis: this.#label, doubt }, `shared API budget: ${DOUBT_TEXT[doubt]} (Redis at ${this.#label}; another program may be writing under api.rateLimit.shared.prefix)`);
    }
  }

  /** Waits for the first connection (at most connectTimeoutMs); without one, the fallback decides. */
  async #afterStart(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.#connectTimeoutMs);
    });
    await Promise.race([this.#started, timeout]);
    clearTimeout(timer);
    if (this.#mode === 'starting') this.#fallBack(this.#lastError ?? `no connection within ${this.#connectTimeoutMs} ms`);
  }

  /** The join protocol (sharedBudgetMembership.ts), told through these what it needs and what it learns. */
  #newMembership(heartbeatMs: number): SharedBudgetMembership {
    const keys = [this.#keys.window, this.#keys.hold, this.#keys.meta, this.#keys.nodes];
    const options = { clock: this.#clock, redis: this.#client, keys, settings: this.#settings, nodeId: this.#nodeId, spanMs: this.#spanMs, maxHoldMs: this.#maxHoldMs, rebuildGraceMs: this.#rebuildGraceMs, heartbeatMs };
    return new SharedBudgetMembership(options, {
      mode: () => this.#mode,
      recentStarts: () => this.#recentStarts(),
      holdUntil: () => this.#holdUntil,
      run: (script, scriptKeys, args) => this.#run(script, scriptKeys, args),
      reason: (error) => this.#reason(error),
      noteDoubts: (bits) => {
        this.#noteDoubts(bits);
      },
      fallBack: (reason) => {
        this.#fallBack(reason);
      },
      joinFailed: (reason) => {
        this.#lastError = reason;
        this.#fallBack(reason);
      },
      mismatched: (theirs) => {
        this.#mismatched(theirs);
      },
      rebuilt: (graceLeftMs) => {
        this.#logger.warn(
          { redis: this.#label, graceMs: graceLeftMs },
          `shared API budget: the shared state in Redis at ${this.#label} was wiped or rebuilt (FLUSHALL, eviction, a new replica); this sidecar put its own starts and hold back, and the shared window is trusted again in ${graceLeftMs} ms`,
        );
      },
      joined: () => {
        this.#shareAgain();
      },
    });
  }

  /** Joined while on the fallback or starting: decisions are made in Redis from now on. */
  #shareAgain(): void {
    const wasLocal = this.#mode === 'local';
    const wasMismatched = this.#mismatch !== undefined;
    this.#mode = 'shared';
    this.#mismatch = undefined;
    this.#fallback = undefined;
    if (wasMismatched) {
      this.#logger.info({ redis: this.#label }, `shared API budget: the live sidecars on this key in Redis at ${this.#label} keep the same window as this one now; sharing the budget again`);
    } else if (wasLocal) {
      this.#logger.info({ redis: this.#label }, `shared API budget: Redis at ${this.#label} is back; sharing the budget again`);
    }
    this.#tell(true);
    this.#settleStart();
  }

  #tell(shared: boolean): void {
    if (this.#told === shared) return;
    this.#told = shared;
    this.#onSharedChange?.(shared);
  }

  #reason(error: unknown): string {
    return error instanceof NoAnswerError ? error.message : redisErrorText(error, this.#secrets);
  }

  /** Runs a script (redisScript.ts), failing after answerTimeoutMs. */
  #run(script: RedisScript, keys: string[], args: string[]): Promise<unknown> {
    return runRedisScript(this.#client, script, keys, args, { timeoutMs: this.#answerTimeoutMs });
  }
}
