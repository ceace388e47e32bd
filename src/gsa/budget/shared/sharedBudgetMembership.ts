// This sidecar's membership of the shared budget's state in Redis (redisBudget.ts): joining it with its own recent
// starts and hold put back first, the epoch it joined, the rebuild's grace as Redis told it, the heartbeat that finds
// a wiped state within a beat, and the tries to join again from the fallback. It learns, and tells the budget what it
// learned through MembershipHost; the budget keeps the mode, the starts and the log lines.
// It never decides a start, never logs, never runs a script but JOIN_SCRIPT, and never changes a timing: the rejoin
// pace (REJOIN_EVERY_MS), the heartbeat and the grace are the budget's options, used as given.

import { randomBytes } from 'node:crypto';
import type { Clock } from '../../../time/clock.js';
import { readJoinReply, type JoinReply } from './redisBudgetReplies.js';
import { DEMAND_GRACE_MS, REJOIN_EVERY_MS } from './redisBudgetOptions.js';
import { JOIN_SCRIPT } from './redisBudgetScripts.js';
import type { RedisScript } from '../../redis/redisScript.js';

export interface OwnStart {
  /** On the local (steady) clock. */
  readonly at: number;
  readonly member: string;
}

export type BudgetMode = 'starting' | 'shared' | 'local' | 'closed';

/** What the membership reads from the budget, and what it tells it. */
export interface MembershipHost {
  mode(): BudgetMode;
  /** This process's starts still inside the last span, oldest first. */
  recentStarts(): readonly OwnStart[];
  /** The end of the hold the service gave this sidecar (local clock). */
  holdUntil(): number;
  /** Runs a script with the budget's answer deadline. */
  run(script: RedisScript, keys: string[], args: string[]): Promise<unknown>;
  /** A failure as a log line may show it (no password). */
  reason(error: unknown): string;
  noteDoubts(bits: number): void;
  /** Redis failed or answered nonsense: decide on the fallback. */
  fallBack(reason: string): void;
  /** Joining failed: as fallBack, and the reason is the one given if the first connection never shares. */
  joinFailed(reason: string): void;
  /** Other live sidecars keep other window settings. */
  mismatched(theirs: string): void;
  /** The state this node shared in was wiped or rebuilt; its starts and hold are back in the new one. */
  rebuilt(graceLeftMs: number): void;
  /** Joined while not sharing (starting, or on the fallback): share from now on. */
  joined(): void;
}

export interface MembershipOptions {
  readonly clock: Clock;
  /** The connection's state: a rejoin is tried only while it is up. */
  readonly redis: { readonly isReady: boolean };
  /** JOIN_SCRIPT's keys: window, hold, meta, nodes. */
  readonly keys: readonly string[];
  readonly settings: string;
  readonly nodeId: string;
  readonly spanMs: number;
  readonly maxHoldMs: number;
  readonly rebuildGraceMs: number;
  readonly heartbeatMs: number;
}

export class SharedBudgetMembership {
  readonly #options: MembershipOptions;
  readonly #host: MembershipHost;
  #joining: Promise<void> | undefined;
  #nextJoinAt = 0;
  /** The state in Redis this node joined ('' before it joined one). */
  #epoch = '';
  /** The state joined is being rebuilt (its grace has not passed): Redis answers "wait" meanwhile. */
  #rebuilding = false;
  #rebuildTimer: NodeJS.Timeout | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #checking = false;

  constructor(options: MembershipOptions, host: MembershipHost) {
    this.#options = options;
    this.#host = host;
  }

  /** The state joined, for DECIDE_SCRIPT to tell whether it is still the one in Redis ('' before joining). */
  get epoch(): string {
    return this.#epoch;
  }

  /** Only as told: Redis itself keeps the grace, on its own clock. */
  get rebuilding(): boolean {
    return this.#rebuilding;
  }

  /** The budget left the shared mode: no heartbeat, and the next try to join one pace from now. */
  left(): void {
    this.#nextJoinAt = this.#options.clock.now() + REJOIN_EVERY_MS;
    this.#stopHeartbeat();
  }

  close(): void {
    this.#stopHeartbeat();
    clearTimeout(this.#rebuildTimer);
  }

  /** Redis answered a (re)connection, or the state changed: put this node's starts and hold back, then share. */
  join(): Promise<void> {
    if (this.#joining !== undefined) return this.#joining;
    const joining = this.#joinOnce().finally(() => {
      this.#joining = undefined;
    });
    this.#joining = joining;
    return joining;
  }

  /** On the fallback with the connection up (Redis stalled, then answered; or its sidecars disagreed): try sharing again now and then. */
  maybeRejoin(): void {
    const { clock, redis } = this.#options;
    if (this.#host.mode() !== 'local' || !redis.isReady || this.#joining !== undefined || clock.now() < this.#nextJoinAt) return;
    this.#nextJoinAt = clock.now() + REJOIN_EVERY_MS;
    void this.join();
  }

  async #joinOnce(): Promise<void> {
    const host = this.#host;
    const { clock } = this.#options;
    const now = clock.now();
    const seeds = host.recentStarts().flatMap((start) => [String(Math.max(0, Math.round(now - start.at))), start.member]);
    const held = Math.max(0, Math.ceil(host.holdUntil() - now));
    let reply: JoinReply | undefined;
    try {
      reply = readJoinReply(await host.run(JOIN_SCRIPT, [...this.#options.keys], [...this.#joinArgs(held, true), ...seeds]));
    } catch (error) {
      this.#nextJoinAt = clock.now() + REJOIN_EVERY_MS;
      host.joinFailed(host.reason(error));
      return;
    }
    if (reply === undefined || reply.status === 'seedsNeeded') {
      this.#nextJoinAt = clock.now() + REJOIN_EVERY_MS;
      host.joinFailed('its answer to joining the shared budget is not one this version of gsa-bridge gives');
      return;
    }
    host.noteDoubts(reply.doubts);
    if (reply.status === 'mismatch') {
      this.#nextJoinAt = clock.now() + REJOIN_EVERY_MS;
      host.mismatched(reply.theirs);
      return;
    }
    if (host.mode() === 'closed') return;
    const wiped = host.mode() === 'shared' && this.#epoch !== '' && reply.epoch !== this.#epoch;
    this.#adopt(reply);
    if (wiped) host.rebuilt(reply.graceLeftMs);
    if (host.mode() === 'shared') return;
    this.#startHeartbeat();
    host.joined();
  }

  #adopt(reply: Extract<JoinReply, { status: 'joined' }>): void {
    this.#epoch = reply.epoch;
    clearTimeout(this.#rebuildTimer);
    this.#rebuilding = reply.graceLeftMs > 0;
    if (this.#rebuilding) {
      this.#rebuildTimer = setTimeout(() => {
        this.#rebuilding = false;
      }, reply.graceLeftMs);
      this.#rebuildTimer.unref();
    }
  }

  #joinArgs(heldMs: number, seeded: boolean): string[] {
    const { settings, nodeId, spanMs, maxHoldMs, rebuildGraceMs } = this.#options;
    return [
      this.#epoch,
      randomBytes(8).toString('hex'),
      settings,
      nodeId,
      String(spanMs),
      String(DEMAND_GRACE_MS),
      String(heldMs),
      String(maxHoldMs),
      String(rebuildGraceMs),
      String(spanMs + DEMAND_GRACE_MS),
      seeded ? '1' : '0',
    ];
  }

  /**
   * While sharing, a sidecar whose starts are still in the window (or that holds) checks now and then that Redis
   * still holds the state it joined, so a wipe is rebuilt within a heartbeat even by a sidecar that is not asking
   * for starts; it also keeps its settings visible to sidecars that join.
   */
  #startHeartbeat(): void {
    if (this.#heartbeat !== undefined) return;
    this.#heartbeat = setInterval(() => {
      void this.#checkState();
    }, this.#options.heartbeatMs);
    this.#heartbeat.unref();
  }

  #stopHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  async #checkState(): Promise<void> {
    const host = this.#host;
    if (host.mode() !== 'shared' || this.#checking || this.#joining !== undefined) return;
    const held = Math.max(0, Math.ceil(host.holdUntil() - this.#options.clock.now()));
    if (host.recentStarts().length === 0 && held === 0) return;
    this.#checking = true;
    try {
      const reply = readJoinReply(await host.run(JOIN_SCRIPT, [...this.#options.keys], this.#joinArgs(held, false)));
      if (reply === undefined) {
        host.fallBack('its answer to a check of the shared state is not one this version of gsa-bridge gives');
        return;
      }
      host.noteDoubts(reply.doubts);
      if (reply.status === 'mismatch') host.mismatched(reply.theirs);
      else if (reply.status === 'seedsNeeded') await this.join();
      else if (reply.epoch === this.#epoch) this.#adopt(reply);
    } catch (error) {
      host.fallBack(host.reason(error));
    } finally {
      this.#checking = false;
    }
  }
}
