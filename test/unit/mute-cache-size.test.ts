// The mute cache's bound: sized by lru-cache's maxSize (its arrays grow with the players seen rather than being
// allocated for maxEntries up front), it must still hold at most maxEntries players and drop the least recently
// used first. And with keys that are the ids themselves, a player known by both ids is found by either.
import { describe, expect, it } from 'vitest';
import { MuteCache } from '../../src/bridge/muteCache.js';
import type { MuteStatus, PlayerIds } from '../../src/gsa/index.js';

const steam = (index: number): string => `765611980000000${String(index).padStart(2, '0')}`;

function cacheOf(maxEntries: number, muted: (player: PlayerIds) => boolean = () => false): { cache: MuteCache; asked: PlayerIds[] } {
  const asked: PlayerIds[] = [];
  const cache = new MuteCache({
    mutedTtlMs: 60_000,
    unmutedTtlMs: 300_000,
    maxEntries,
    lookup: (player): Promise<MuteStatus> => {
      asked.push(player);
      return Promise.resolve({ muted: muted(player), alert: null, steamId: player.steamId ?? null, eosId: player.eosId ?? null });
    },
    onChange: () => undefined,
  });
  return { cache, asked };
}

describe('MuteCache size', () => {
  it('holds at most maxEntries players, dropping the least recently used', async () => {
    const { cache } = cacheOf(3);
    for (let index = 0; index < 5; index++) await cache.lookup({ steamId: steam(index) });
    expect(cache.size).toBe(3);
    expect(cache.peek({ steamId: steam(0) })).toBeUndefined();
    expect(cache.peek({ steamId: steam(1) })).toBeUndefined();
    expect(cache.peek({ steamId: steam(4) })).toEqual({ muted: false, alert: null });
    // Reading a player makes it recent: the next one in pushes out the oldest other.
    cache.peek({ steamId: steam(2) });
    await cache.lookup({ steamId: steam(5) });
    expect(cache.peek({ steamId: steam(2) })).toBeDefined();
    expect(cache.peek({ steamId: steam(3) })).toBeUndefined();
  });

  it('finds a player known by both ids through either, whatever the case of the EOS id', async () => {
    const eosId = '0123456789ABCDEF0123456789abcdef';
    const { cache, asked } = cacheOf(10, () => true);
    await cache.lookup({ steamId: steam(1), eosId });
    expect(cache.peek({ steamId: steam(1) })).toEqual({ muted: true, alert: null });
    expect(cache.peek({ eosId: eosId.toLowerCase() })).toEqual({ muted: true, alert: null });
    expect(cache.peek({ eosId: eosId.toUpperCase() })).toEqual({ muted: true, alert: null });
    expect(asked).toHaveLength(1);
  });
});
