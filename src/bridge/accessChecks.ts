// GSA's access check (whitelist, bans, custom roles) for one game server's players, as a mod's `player.access` and
// the door (access.enforce) ask it: one answer per player reused for access.cacheMs, so a rejoin loop costs no budget,
// and one call in flight per player however many ask at once. When GSA cannot be asked, access.onUnknown decides,
// with one rule above it: without an answer from GSA (a transport error, a timeout, a call the budget never sent)
// the player is admitted, so a network fault never removes anyone. Policy verdicts are never cached.
// It never removes a player itself (accessDoor.ts does) and never picks the id GSA is asked by (its `ask` does).

import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { AccessAnswer, PlayerIds } from '../gsa/index.js';
import { GsaError } from '../gsa/index.js';
import { playerKeyOf, playerLogId } from '../ids/playerIds.js';
import type { Clock } from '../time/clock.js';
import type { AccessEvent, BridgeEvents } from './events.js';
import type { AccessOptions } from './options.js';
import type { AccessVerdict, PlayerIdentity } from './port.js';

/** A refusal's words when GSA sent none. */
export const DEFAULT_DENIAL = 'You are not allowed on this server.';
/** What a player is told when access.onUnknown is `kick` and GSA's answer could not be used. */
export const UNKNOWN_DENIAL = 'Your access could not be checked right now; try again in a minute.';

export interface AccessCheckRequest {
  /** A join seen in bulk (a player list read at start): the call waits behind every first lookup for the budget. */
  readonly lowPriority?: boolean | undefined;
  /** The budget's source key (one per adapter), so the door takes its turns beside chat, never every turn. */
  readonly source?: string | undefined;
}

export interface AccessChecksOptions {
  readonly server: string;
  /** Asks GSA (the bridge picks the id and the client in force); rejects with a GsaError when it cannot answer. */
  readonly ask: (player: PlayerIds, request: AccessCheckRequest) => Promise<AccessAnswer>;
  /** The access settings in force, read at each check: a reload applies from the next one. */
  readonly settings: () => AccessOptions;
  readonly logger: Logger;
  readonly events?: BridgeEvents | undefined;
  /** Time for the cache's TTLs (lru-cache's `perf`). @default performance.now */
  readonly clock?: Clock | undefined;
  /** Most players remembered. @default 50000 */
  readonly maxEntries?: number | undefined;
}

export class AccessChecks {
  readonly #options: AccessChecksOptions;
  readonly #cache: LRUCache<string, AccessVerdict>;
  readonly #inFlight = new Map<string, Promise<AccessVerdict>>();
  /** Whether the host was told that players without a Steam64 or EOS id cannot be checked (once). */
  #saidNoId = false;

  constructor(options: AccessChecksOptions) {
    this.#options = options;
    const clock = options.clock;
    this.#cache = new LRUCache<string, AccessVerdict>({
      max: options.maxEntries ?? 50_000,
      ttlAutopurge: false,
      // ttlResolution 0: lru-cache would otherwise reuse a reading for 1 ms of real time, whatever the injected clock says.
      ...(clock === undefined ? {} : { perf: clock, ttlResolution: 0 }),
    });
  }

  /** Never rejects: GSA's answer (cached or fresh), or the policy's when GSA could not be asked. */
  check(player: PlayerIdentity, request: AccessCheckRequest = {}): Promise<AccessVerdict> {
    const key = playerKeyOf(player);
    // GSA's access check takes a Steam64 or an EOS id: a player with neither (a Mojang id) cannot be checked.
    if (key === undefined || (player.steamId === undefined && player.eosId === undefined)) {
      if (!this.#saidNoId) {
        this.#saidNoId = true;
        this.#options.logger.warn(
          { player: playerLogId(player) },
          "GSA's access check takes a Steam64 or an EOS id, and this player has neither (a Minecraft Java player's Mojang id): such players are admitted without asking (said once)",
        );
      }
      return Promise.resolve(this.#decided({ allowed: true, roles: {}, source: 'policy' }));
    }
    const cached = this.#cache.get(key);
    if (cached !== undefined) return Promise.resolve(this.#decided({ ...cached, source: 'cache' }));
    const running = this.#inFlight.get(key);
    if (running !== undefined) return running;
    const asked = this.#ask(key, player, request).finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, asked);
    return asked;
  }

  /** A reload brought other API credentials: what GSA said under the old ones no longer holds. */
  clear(): void {
    this.#cache.clear();
  }

  async #ask(key: string, player: PlayerIdentity, request: AccessCheckRequest): Promise<AccessVerdict> {
    let answer: AccessAnswer;
    try {
      answer = await this.#options.ask(player, request);
    } catch (error) {
      return this.#decided(this.#unknown(player, error));
    }
    const verdict: AccessVerdict = {
      allowed: answer.allowed,
      ...(answer.message === null ? {} : { message: answer.message }),
      roles: answer.roles,
      source: 'service',
    };
    const { cacheMs } = this.#options.settings();
    if (cacheMs > 0) this.#cache.set(key, verdict, { ttl: cacheMs });
    return this.#decided(verdict);
  }

  /** GSA could not be asked: a transport failure admits; an answer GSA gave but that cannot be used follows onUnknown. */
  #unknown(player: PlayerIdentity, error: unknown): AccessVerdict {
    const answered = error instanceof GsaError && error.status !== undefined;
    const { onUnknown } = this.#options.settings();
    const admit = !answered || onUnknown === 'admit';
    const code = error instanceof GsaError ? error.code : 'internal';
    const why = error instanceof Error ? error.message : String(error);
    this.#options.logger.warn(
      { player: playerLogId(player), code, err: error instanceof GsaError ? undefined : error },
      admit
        ? `GSA's access check could not be made (${why}); the player is admitted${answered ? ' (access.onUnknown is "admit")' : ' (no answer from GSA never removes a player)'}`
        : `GSA's access check could not be used (${why}); the player is refused (access.onUnknown is "kick")`,
    );
    return admit ? { allowed: true, roles: {}, source: 'policy' } : { allowed: false, message: UNKNOWN_DENIAL, roles: {}, source: 'policy' };
  }

  #decided(verdict: AccessVerdict): AccessVerdict {
    const events = this.#options.events;
    if (events?.listens('access') === true) {
      const decision: AccessEvent['decision'] =
        verdict.source === 'policy' ? (verdict.allowed ? 'unknown_admit' : 'unknown_deny') : verdict.allowed ? 'allow' : 'deny';
      events.emit('access', { server: this.#options.server, decision });
    }
    return verdict;
  }
}
