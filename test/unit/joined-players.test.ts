// JoinedPlayers, the players one mod connection said joined: found by any of the ids it joined with, forgotten at a
// leave by any of them, and bounded (the oldest join forgotten first) for a mod that never says anyone left.
import { describe, expect, it } from 'vitest';
import { JoinedPlayers, MAX_JOINED_PLAYERS } from '../../adapters/websocket/joinedPlayers.js';

const STEAM = '76561198000000001';
const EOS = '0123456789abcdef0123456789abcdef';
const steam = (n: number): string => `7656119800${String(n).padStart(7, '0')}`;

describe('JoinedPlayers', () => {
  it('finds a player by any id it joined with, and only those', () => {
    const joined = new JoinedPlayers();
    joined.add({ steamId: STEAM, eosId: EOS, name: 'Rex' });
    expect(joined.has({ steamId: STEAM })).toBe(true);
    expect(joined.has({ eosId: EOS })).toBe(true);
    expect(joined.has({ steamId: steam(2) })).toBe(false);
    expect(joined.has({ name: 'Rex' })).toBe(false);
    expect(joined.size).toBe(1);
  });

  it('forgets a player at a leave named by either id, both ids at once', () => {
    const joined = new JoinedPlayers();
    joined.add({ steamId: STEAM, eosId: EOS });
    joined.delete({ eosId: EOS });
    expect(joined.has({ steamId: STEAM })).toBe(false);
    expect(joined.size).toBe(0);
  });

  it('counts a player who joins twice once, under the ids of the latest join', () => {
    const joined = new JoinedPlayers();
    joined.add({ steamId: STEAM });
    joined.add({ steamId: STEAM, eosId: EOS });
    expect(joined.size).toBe(1);
    joined.delete({ steamId: STEAM });
    expect(joined.has({ eosId: EOS })).toBe(false);
  });

  it('keeps at most its bound, forgetting the oldest join first', () => {
    const joined = new JoinedPlayers(3);
    for (let n = 1; n <= 5; n++) joined.add({ steamId: steam(n), eosId: String(n).padStart(32, '0') });
    expect(joined.size).toBe(3);
    expect([1, 2, 3, 4, 5].map((n) => joined.has({ steamId: steam(n) }))).toEqual([false, false, true, true, true]);
    // A join again makes a player the newest.
    joined.add({ steamId: steam(3) });
    joined.add({ steamId: steam(6) });
    expect([3, 4, 5, 6].map((n) => joined.has({ steamId: steam(n) }))).toEqual([true, false, true, true]);
  });

  it('has a default bound far above any server slots', () => {
    expect(MAX_JOINED_PLAYERS).toBeGreaterThanOrEqual(1_000);
    const joined = new JoinedPlayers();
    for (let n = 0; n < MAX_JOINED_PLAYERS + 10; n++) joined.add({ steamId: steam(n) });
    expect(joined.size).toBe(MAX_JOINED_PLAYERS);
    joined.clear();
    expect(joined.size).toBe(0);
    expect(joined.has({ steamId: steam(MAX_JOINED_PLAYERS) })).toBe(false);
  });
});
