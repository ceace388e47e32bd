// Remembers who is muted on one game server, so most chat lines are decided without asking GSA.
// An lru-cache (bounded size, per-entry TTLs: muted and unmuted players keep for different times) plus a map of
// lookups in flight: concurrent lookups of a player, under either id, share one request, and a stale entry is
// served while one refresh runs in the background. A player known by both ids is stored under both, so either
// finds them. It reports a refresh that changed a player's status, and tells the lookup whether it is a first
// lookup or a refresh, so the client can put first lookups ahead in the API budget (under pressure a stale answer
// is served longer rather than refreshed), and which chat source asked, so first lookups of different sources take
// turns there. When two sources ask for one player at once they share one request, owned by the source that asked
// first (its place in the budget is the one that counts). Which id GSA is asked by is the lookup's business (the
// bridge's servers[].lookupIds); whatever it asked, the answer is kept under every id the player has, and a muted
// answer remembers the id that said so (for `mutes`).
// Not lru-cache's fetch(): that gives every lookup an AbortController, its AbortSignal and a listener (about 1 KB,
// promoted to old space during a burst of lookups) and was half the CPU of a cache miss. See docs/performance.md.
// It never decides a chat line (ChatGate does) and never waits on a timer; its clock is injectable.

import { LRUCache } from 'lru-cache';
import type { MuteLookupKind, PlayerIds } from '../gsa/index.js';
import { playerKey } from '../ids/playerIds.js';
import type { Clock } from '../time/clock.js';
import type { AskedAnswer, AskedId } from './lookupIds.js';
import type { PlayerIdentity } from './port.js';

export interface MuteEntry {
  readonly muted: boolean;
  /** The service's alert text; null when it sent none. */
  readonly alert: string | null;
  /**
   * A muted answer's: the id GSA was asked by that said so. Undefined when not muted, or when the sidecar knew the
   * mute without asking (remember()).
   */
  readonly mutedBy?: AskedId | undefined;
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
   * `source` is the chat source that asked (opaque; undefined when the caller named none): the client serves first
   * lookups of different sources in turn.
   */
  readonly lookup: (player: PlayerIds, kind: MuteLookupKind, source: string | undefined) => Promise<AskedAnswer>;
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
 * The cache keys of a player, one per id it carries: playerKey's, which keeps a Steam64 or an EOS id as its own key
 * (the string the frame already carries) and never lets two kinds collide.
 */
function keysOf(player: PlayerIdentity): string[] {
  const keys: string[] = [];
  if (player.steamId !== undefined) keys.push(playerKey({ kind: 'steam', id: player.steamId }));
  if (player.eosId !== undefined) keys.push(playerKey({ kind: 'eos', id: player.eosId }));
  if (player.mojangId !== undefined) keys.push(playerKey({ kind: 'mojang', id: player.mojangId }));
  return keys;
}

function idsOf(player: PlayerIdentity): PlayerIds {
  return player.mojangId === undefined ? { steamId: player.steamId, eosId: player.eosId } : { steamId: player.steamId, eosId: player.eosId, mojangId: player.mojangId };
}

export class MuteCache {
  readonly #cache: LRUCache<string, MuteEntry>;
  #options: MuteCacheOptions;
  /**
   * The lookup in flight for a player, under each of its keys, so a second lookup under either id joins it. An
   * entry is removed when its lookup settles; the cache itself holds only answers.
   */
  readonly #inFlight = new Map<string, Promise<MuteEntry>>();
  /** Reused by peek() (synchronous), so the hot path allocates no status object. */
  readonly #status: LRUCache.Status<string, MuteEntry> = {};

  constructor(options: MuteCacheOptions) {
    this.#options = options;
    this.#cache = new LRUCache<string, MuteEntry>({
      // Bounded by maxSize (one unit per entry) rather than `max`: with `max`, lru-cache allocates its arrays for
      // every possible entry up front (about 9 MB for 200 000 players on an empty cache); this way they grow
      // with the players actually seen.
      maxSize: options.maxEntries ?? DEFAULT_MAX_ENTRIES,
      sizeCalculation: ONE,
      ttl: options.unmutedTtlMs,
      // Expired entries are dropped lazily on access or by LRU pressure: no timer per entry.
      ttlAutopurge: false,
      // A stale entry is served (and refreshed, see #peekKey) until an answer replaces it: a failed refresh keeps it.
      allowStale: true,
      noDeleteOnStaleGet: true,
      // An injected clock is read on every check: lru-cache otherwise reuses one reading for a millisecond of real
      // time, so a clock moved by hand would not be seen until a real timer ran.
      ...(options.clock === undefined ? {} : { perf: options.clock, ttlResolution: 0 }),
    });
  }

  get size(): number {
    return this.#cache.size;
  }

  /** New TTLs (a config reload): answers stored from now on keep for the new times; cached ones keep theirs. */
  setTtls(ttls: Pick<MuteCacheOptions, 'mutedTtlMs' | 'unmutedTtlMs'>): void {
    this.#options = { ...this.#options, mutedTtlMs: ttls.mutedTtlMs, unmutedTtlMs: ttls.unmutedTtlMs };
  }

  /**
   * The id GSA was asked by whose answer calls the player muted, from whatever is cached under any of their ids
   * (fresh or stale), without touching recency or starting a refresh; undefined when none does.
   */
  mutedBy(player: PlayerIdentity): AskedId | undefined {
    return this.#peekAny(keysOf(player))?.mutedBy;
  }

  /** Forgets every answer (the API key changed: what the old key's service said is not this one's). */
  clear(): void {
    this.#cache.clear();
  }

  /**
   * The cached answer, fresh or stale, without waiting; undefined when the player is unknown. A stale
   * answer starts a background refresh.
   */
  peek(player: PlayerIdentity): MuteEntry | undefined {
    // Written out per id rather than looping over keysOf(): this runs for every chat line.
    if (player.steamId !== undefined) {
      const entry = this.#peekKey(playerKey({ kind: 'steam', id: player.steamId }), player);
      if (entry !== undefined) return entry;
    }
    if (player.eosId !== undefined) {
      const entry = this.#peekKey(playerKey({ kind: 'eos', id: player.eosId }), player);
      if (entry !== undefined) return entry;
    }
    return player.mojangId === undefined ? undefined : this.#peekKey(playerKey({ kind: 'mojang', id: player.mojangId }), player);
  }

  /**
   * The player's answer, asking the service when nothing is cached under its first id (a stale answer is returned
   * at once and refreshed in the background). Lookups of one player share one request. Rejects when the service
   * cannot answer and nothing is cached. `source`: the chat source asking (see MuteCacheOptions.lookup).
   */
  lookup(player: PlayerIdentity, source?: string): Promise<MuteEntry> {
    const keys = keysOf(player);
    const key = keys[0];
    if (key === undefined) return Promise.reject(new Error('a player needs a steam_id, an eos_id or a Mojang id'));
    const cached = this.#peekKey(key, player);
    return cached === undefined ? this.#ask(keys, player, undefined, source) : Promise.resolve(cached);
  }

  /**
   * Asks the service again in the background (a player joined: their status may have changed meanwhile). It is a
   * first lookup in the budget when nothing is cached for the player, unless `lowPriority`: then it is sent as a
   * refresh, behind every first lookup (an RCON adapter's player list brings a whole server of joins at once).
   * `source`: the chat source that saw the join.
   */
  refresh(player: PlayerIdentity, options: { readonly lowPriority?: boolean; readonly source?: string | undefined } = {}): void {
    const keys = keysOf(player);
    if (keys.length === 0) return;
    if (options.lowPriority === true) this.#ask(keys, player, 'refresh', options.source).catch(() => undefined);
    else this.#refreshInBackground(keys, player, options.source);
  }

  /**
   * Stores an answer the sidecar knows without asking (a mute GSA just accepted from the chat filter), under each of
   * the player's ids, for the usual TTL; a change of status is reported like a refresh's. A lookup in flight may
   * still overwrite it with what GSA said before.
   */
  remember(player: PlayerIdentity, entry: MuteEntry): void {
    const keys = keysOf(player);
    if (keys.length === 0) return;
    const previous = this.#peekAny(keys);
    const ttl = entry.muted ? this.#options.mutedTtlMs : this.#options.unmutedTtlMs;
    for (const key of keys) this.#cache.set(key, entry, { ttl });
    if (previous === undefined || previous.muted !== entry.muted) this.#options.onChange(player, entry);
  }

  #peekKey(key: string, player: PlayerIdentity): MuteEntry | undefined {
    delete this.#status.get;
    const entry = this.#cache.get(key, { status: this.#status });
    if (entry !== undefined && this.#lastGetWasStale()) this.#refreshInBackground(keysOf(player), player);
    return entry;
  }

  /** Read apart from #peekKey: lru-cache sets the status field inside get(), which the compiler cannot see. */
  #lastGetWasStale(): boolean {
    return this.#status.get === 'stale';
  }

  #refreshInBackground(keys: readonly string[], player: PlayerIdentity, source?: string): void {
    // A failed refresh leaves the stale entry in place (nothing is set); nobody awaits this promise.
    this.#ask(keys, player, undefined, source).catch(() => undefined);
  }

  /**
   * The lookup in flight for the player under any of its keys, else a new one, registered under all of them. A
   * joined lookup keeps the source of the one that started it.
   */
  #ask(keys: readonly string[], player: PlayerIdentity, forcedKind: MuteLookupKind | undefined, source: string | undefined): Promise<MuteEntry> {
    for (const key of keys) {
      const flying = this.#inFlight.get(key);
      if (flying !== undefined) return flying;
    }
    // Read before the lookup: what the cache held when it was asked decides its place in the API budget.
    const previous = this.#peekAny(keys);
    const settled = (): void => {
      for (const key of keys) if (this.#inFlight.get(key) === flight) this.#inFlight.delete(key);
    };
    let asked: Promise<AskedAnswer>;
    try {
      asked = this.#options.lookup(idsOf(player), forcedKind ?? (previous === undefined ? 'first' : 'refresh'), source);
    } catch (error) {
      // A lookup that throws instead of rejecting still ends as a rejection: lookup() never throws.
      asked = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const flight = asked.then(
      (status) => {
        settled();
        const entry: MuteEntry = status.muted ? { muted: true, alert: status.alert, mutedBy: status.mutedBy } : NOT_MUTED;
        const ttl = entry.muted ? this.#options.mutedTtlMs : this.#options.unmutedTtlMs;
        for (const key of keys) this.#cache.set(key, entry, { ttl });
        if (previous !== undefined && previous.muted !== entry.muted) this.#options.onChange(player, entry);
        return entry;
      },
      (error: unknown) => {
        settled();
        throw error;
      },
    );
    for (const key of keys) this.#inFlight.set(key, flight);
    return flight;
  }

  /** The answer cached under any of the keys, fresh or stale, without touching recency or starting a refresh. */
  #peekAny(keys: readonly string[]): MuteEntry | undefined {
    for (const key of keys) {
      const entry = this.#cache.peek(key, { allowStale: true });
      if (entry !== undefined) return entry;
    }
    return undefined;
  }
}
