// The players one mod connection said joined (`player.join`, until its `player.leave`), so that an unasked
// `player.access.result` (the host enforces GSA's access check) goes to the mod that has the player on its server.
// Bounded: a mod that never sends `player.leave` forgets its oldest joins, never grows without end.
// Must never hold anything but the players' ids, and never decide access: it only answers "did this mod say so".
import type { PlayerIdentity } from '../../src/bridge/port.js';

/**
 * Most players one connection remembers. Far above any game server's slots (a few hundred at most): reached only by a
 * mod that sends joins and no leaves, and then the oldest join is forgotten (the removal falls back to every connection).
 */
export const MAX_JOINED_PLAYERS = 2_000;

/** One joined player: the keys it is filed under (its Steam id and its EOS id, when it has both). */
interface Joined {
  readonly keys: readonly string[];
}

export class JoinedPlayers {
  readonly #max: number;
  /** Key → the player filed under it; the Map's order is the order of the joins (oldest first). */
  readonly #byKey = new Map<string, Joined>();
  #count = 0;

  constructor(max = MAX_JOINED_PLAYERS) {
    this.#max = max;
  }

  /** Players remembered now. */
  get size(): number {
    return this.#count;
  }

  /** A join: remembered (again, as the newest) under each of its ids. */
  add(player: PlayerIdentity): void {
    const keys = keysOf(player);
    if (keys.length === 0) return;
    this.delete(player);
    const joined: Joined = { keys };
    for (const key of keys) this.#byKey.set(key, joined);
    this.#count++;
    while (this.#count > this.#max) this.#forgetOldest();
  }

  /** A leave: the player is forgotten, whichever of its ids it is named by (and the ids it joined with). */
  delete(player: PlayerIdentity): void {
    for (const key of keysOf(player)) {
      const joined = this.#byKey.get(key);
      if (joined !== undefined) this.#forget(joined);
    }
  }

  /** Whether this connection said the player joined, by any of its ids. */
  has(player: PlayerIdentity): boolean {
    return keysOf(player).some((key) => this.#byKey.has(key));
  }

  clear(): void {
    this.#byKey.clear();
    this.#count = 0;
  }

  #forgetOldest(): void {
    const oldest = this.#byKey.values().next();
    if (oldest.done === true) return;
    this.#forget(oldest.value);
  }

  #forget(joined: Joined): void {
    let found = false;
    for (const key of joined.keys) {
      if (this.#byKey.get(key) === joined) {
        this.#byKey.delete(key);
        found = true;
      }
    }
    if (found) this.#count--;
  }
}

function keysOf(player: PlayerIdentity): string[] {
  const keys: string[] = [];
  if (player.steamId !== undefined) keys.push(`steam:${player.steamId}`);
  if (player.eosId !== undefined) keys.push(`eos:${player.eosId}`);
  return keys;
}
