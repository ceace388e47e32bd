// Remembers who is muted on one game server, so most chat lines are decided without asking GSA.
// Built on lru-cache's fetch(): concurrent lookups of a player share one request, a stale entry is served
// while it refreshes in the background, muted and unmuted players keep for different TTLs, and the size is
// bounded. A player known by both ids is stored under both, so either finds them. It reports a refresh that
// changed a player's status, and tells the lookup whether it is a first lookup or a refresh, so the client can put
// first lookups ahead in the API budget (under pressure a stale answer is served longer rather than refreshed).
// It never decides a chat line (ChatGate does) and never waits on a timer; its clock is injectable.

import { LRUCache } from 'lru-cache';
import type { MuteLookupKind, MuteStatus, PlayerIds } from '../gsa/index.js';
import type { Clock } from '../time/clock.js';
import type { PlayerIdentity } from './port.js';

export interface MuteEntry {
  readonly muted: boolean;
  /** The service's alert text; null when it sent none. */
  readonly alert: string | null;
}

export interface MuteCacheOptions {
  /** How long a "muted" answer is trusted (short: dashboard unmutes are not pushed to us). */
  readonly mutedTtlMs: number;
  /** How long a "not muted" answer is trusted. */
  readonly unmutedTtlMs: number;
  /** Most players remembered; the least recently used go first. Default 200 000. */
  readonly maxEntries?: number | undefined;
  /**
   * Asks the service; rejects when it cannot answer. `kind` is `first` when no answer for the player is cached
   * (fresh or stale, under either id), `refresh` when one is: the client sends first lookups ahead of refreshes.
   */
  readonly lookup: (player: PlayerIds, kind: MuteLookupKind) => Promise<MuteStatus>;
  /** Told when a refresh finds a player's muted status changed. Must not throw. */
  readonly onChange: (player: PlayerIdentity, entry: MuteEntry) => void;
  /** Time for the TTLs (lru-cache's `perf`); default lru-cache's own (performance.now). Tests pass fake time. */
  readonly clock?: Clock | undefined;
}

const NOT_MUTED: MuteEntry = Object.freeze({ muted: false, alert: null });

const DEFAULT_MAX_ENTRIES = 200_000;

/** Every entry counts 1 towards maxSize (see the constructor). */
const ONE = (): number => 1;

/**
 * The cache keys of a player: the ids themselves, with no prefix. A Steam64 id is 17 digits and an EOS id 32 hex
 * characters (the protocol and the client refuse anything else), so the two kinds can never collide, and the key
 * is the string the frame already carries instead of a new concatenation kept for every cached player.
 */
function keysOf(player: PlayerIdentity): string[] {
  const keys: string[] = [];
  if (player.steamId !== undefined) keys.push(player.steamId);
  if (player.eosId !== undefined) keys.push(player.eosId.toLowerCase());
  return keys;
}

function idsOf(player: PlayerIdentity): PlayerIds {
  return { steamId: player.steamId, eosId: player.eosId };
}

export class MuteCache {
  readonly #cache: LRUCache<string, MuteEntry, PlayerIdentity>;
  readonly #options: MuteCacheOptions;
  /** Reused by peek() (synchronous), so the hot path allocates no status object. */
  readonly #status: LRUCache.Status<string, MuteEntry, PlayerIdentity> = {};

  constructor(options: MuteCacheOptions) {
    this.#options = options;
    this.#cache = new LRUCache<string, MuteEntry, PlayerIdentity>({
      // Bounded by maxSize (one unit per entry) rather than `max`: with `max`, lru-cache allocates its arrays for
      // every possible entry up front (about 9 MB for 200 000 players on an empty cache); this way they grow
      // with the players actually seen.
      maxSize: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      sizeCalculation: ONE,
      ttl: options.unmutedTtlMs,
      // Expired entries are dropped lazily on access or by LRU pressure: no timer per entry.
      ttlAutopurge: false,
      allowStale: true,
      noDeleteOnStaleGet: true,
      // A failed refresh keeps the stale entry for the next peek(); a failed first lookup rejects (see lookup()).
      noDeleteOnFetchRejection: true,
      fetchMethod: (key, stale, { options: fetchOptions, context }) => this.#fetch(key, stale, fetchOptions, context),
      ...(options.clock === undefined ? {} : { perf: options.clock }),
    });
  }

  get size(): number {
    return this.#cache.size;
  }

  /**
   * The cached answer, fresh or stale, without waiting; undefined when the player is unknown. A stale
   * answer starts a background refresh.
   */
  peek(player: PlayerIdentity): MuteEntry | undefined {
    // Written out per id rather than looping over keysOf(): this runs for every chat line.
    if (player.steamId !== undefined) {
      const entry = this.#peekKey(player.steamId, player);
      if (entry !== undefined) return entry;
    }
    return player.eosId === undefined ? undefined : this.#peekKey(player.eosId.toLowerCase(), player);
  }

  /** The player's answer, asking the service when nothing is cached. Lookups of one player share one request. */
  lookup(player: PlayerIdentity): Promise<MuteEntry> {
    const key = keysOf(player)[0];
    if (key === undefined) return Promise.reject(new Error('a player needs a steam_id or an eos_id'));
    return this.#cache.fetch(key, { context: player }).then((entry) => {
      if (entry === undefined) throw new Error('the mute lookup gave no answer');
      return entry;
    });
  }

  /** Asks the service again in the background (a player joined: their status may have changed meanwhile). */
  refresh(player: PlayerIdentity): void {
    const key = keysOf(player)[0];
    if (key !== undefined) this.#startFetch(key, player, true);
  }

  #peekKey(key: string, player: PlayerIdentity): MuteEntry | undefined {
    delete this.#status.get;
    const entry = this.#cache.get(key, { status: this.#status });
    if (entry !== undefined && this.#lastGetWasStale()) this.#startFetch(key, player, false);
    return entry;
  }

  /** Read apart from #peekKey: lru-cache sets the status field inside get(), which the compiler cannot see. */
  #lastGetWasStale(): boolean {
    return this.#status.get === 'stale';
  }

  #startFetch(key: string, player: PlayerIdentity, forceRefresh: boolean): void {
    // A failed refresh keeps the stale entry (noDeleteOnFetchRejection); nobody awaits this promise.
    this.#cache.fetch(key, { context: player, forceRefresh }).catch(() => undefined);
  }

  async #fetch(
    key: string,
    stale: MuteEntry | undefined,
    fetchOptions: LRUCache.FetcherFetchOptions<string, MuteEntry, PlayerIdentity>,
    player: PlayerIdentity,
  ): Promise<MuteEntry> {
    // Read before the lookup: what the cache held when it was asked decides its place in the API budget.
    const previous = stale ?? this.#peekAliases(key, player);
    const status = await this.#options.lookup(idsOf(player), previous === undefined ? 'first' : 'refresh');
    const entry = status.muted ? { muted: true, alert: status.alert } : NOT_MUTED;
    const ttl = entry.muted ? this.#options.mutedTtlMs : this.#options.unmutedTtlMs;
    fetchOptions.ttl = ttl;
    for (const alias of keysOf(player)) if (alias !== key) this.#cache.set(alias, entry, { ttl });
    if (previous !== undefined && previous.muted !== entry.muted) this.#options.onChange(player, entry);
    return entry;
  }

  #peekAliases(key: string, player: PlayerIdentity): MuteEntry | undefined {
    for (const alias of keysOf(player)) {
      if (alias === key) continue;
      const entry = this.#cache.peek(alias, { allowStale: true });
      if (entry !== undefined) return entry;
    }
    return undefined;
  }
}
