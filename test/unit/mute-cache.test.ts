// The mute cache with an injected clock and fake timers: TTLs, and the first-lookup / refresh hint it gives the
// client (first lookups go ahead of refreshes in the API budget), and a stale answer kept when a refresh is dropped.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MuteCache, type MuteEntry } from '../../src/bridge/muteCache.js';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import { QueueFullError, type MuteLookupKind, type MuteStatus, type PlayerIds } from '../../src/gsa/index.js';
import { systemClock } from '../../src/time/clock.js';

const ALICE: PlayerIdentity = { steamId: '76561198000000001' };
const BOTH: PlayerIdentity = { steamId: '76561198000000002', eosId: '0123456789abcdef0123456789abcdef' };

interface Asked {
  readonly player: PlayerIds;
  readonly kind: MuteLookupKind;
}

beforeEach(() => {
  // Only Date and timers are fake: lru-cache reads time through the injected clock (Date.now), never performance.now.
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

function makeCache(answer: (player: PlayerIds, kind: MuteLookupKind) => Promise<MuteStatus>) {
  const asked: Asked[] = [];
  const changes: MuteEntry[] = [];
  const cache = new MuteCache({
    mutedTtlMs: 60_000,
    unmutedTtlMs: 300_000,
    clock: systemClock,
    lookup: (player, kind) => {
      asked.push({ player, kind });
      return answer(player, kind);
    },
    onChange: (_player, entry) => changes.push(entry),
  });
  return { cache, asked, changes };
}

const status = (muted: boolean): MuteStatus => ({ muted, alert: muted ? 'muted' : null, steamId: null, eosId: null });

describe('MuteCache', () => {
  it('remembers a mute the sidecar made under both ids at once, for the muted TTL, reporting the change', async () => {
    const { cache, asked, changes } = makeCache(() => Promise.resolve(status(false)));
    expect(await cache.lookup(BOTH)).toEqual({ muted: false, alert: null });
    cache.remember(BOTH, { muted: true, alert: null });
    expect(cache.peek({ eosId: BOTH.eosId })).toEqual({ muted: true, alert: null });
    expect(cache.peek({ steamId: BOTH.steamId })).toEqual({ muted: true, alert: null });
    expect(changes).toEqual([{ muted: true, alert: null }]);
    expect(asked).toHaveLength(1);
    // After the muted TTL the service is asked again (and says what it says now).
    vi.advanceTimersByTime(60_001);
    cache.peek(BOTH);
    await vi.advanceTimersByTimeAsync(0);
    expect(asked.map((entry) => entry.kind)).toEqual(['first', 'refresh']);
  });

  it('asks a first lookup for an unknown player and a refresh once the answer is stale, by the injected clock', async () => {
    const { cache, asked } = makeCache(() => Promise.resolve(status(true)));
    expect(await cache.lookup(ALICE)).toEqual({ muted: true, alert: 'muted' });
    expect(asked.map((entry) => entry.kind)).toEqual(['first']);

    vi.advanceTimersByTime(60_000);
    expect(cache.peek(ALICE)).toEqual({ muted: true, alert: 'muted' });
    expect(asked).toHaveLength(1);

    vi.advanceTimersByTime(1);
    // Stale: served at once, refreshed in the background as a refresh, not a first lookup.
    expect(cache.peek(ALICE)).toEqual({ muted: true, alert: 'muted' });
    await vi.advanceTimersByTimeAsync(0);
    expect(asked.map((entry) => entry.kind)).toEqual(['first', 'refresh']);
  });

  it('calls a join refresh of a cached player a refresh, and of an unknown one a first lookup', async () => {
    const { cache, asked } = makeCache(() => Promise.resolve(status(false)));
    cache.refresh(ALICE);
    await vi.advanceTimersByTimeAsync(0);
    cache.refresh(ALICE);
    await vi.advanceTimersByTimeAsync(0);
    expect(asked.map((entry) => entry.kind)).toEqual(['first', 'refresh']);
  });

  it('sends a low-priority join (an RCON player list) as a refresh even for an unknown player', async () => {
    const { cache, asked } = makeCache(() => Promise.resolve(status(true)));
    cache.refresh(ALICE, { lowPriority: true });
    await vi.advanceTimersByTimeAsync(0);
    expect(asked.map((entry) => entry.kind)).toEqual(['refresh']);
    // The answer is cached like any other: the player's first line is decided without asking.
    expect(cache.peek(ALICE)).toEqual({ muted: true, alert: 'muted' });
  });

  it('counts an answer cached under the other id as known: the lookup is a refresh', async () => {
    const { cache, asked } = makeCache(() => Promise.resolve(status(false)));
    await cache.lookup({ eosId: BOTH.eosId });
    await cache.lookup(BOTH);
    expect(asked.map((entry) => entry.kind)).toEqual(['first', 'refresh']);
  });

  it('keeps serving the stale answer when its refresh gives way in the budget (rate_limited)', async () => {
    let muted = true;
    const { cache, asked, changes } = makeCache((_player, kind) =>
      kind === 'refresh' && muted ? Promise.reject(new QueueFullError('mute refresh dropped', undefined)) : Promise.resolve(status(muted)),
    );
    await cache.lookup(ALICE);
    vi.advanceTimersByTime(10 * 60_000);
    for (let index = 0; index < 3; index++) {
      expect(cache.peek(ALICE)).toEqual({ muted: true, alert: 'muted' });
      await vi.advanceTimersByTimeAsync(0);
    }
    expect(asked.filter((entry) => entry.kind === 'refresh').length).toBeGreaterThanOrEqual(1);
    muted = false;
    cache.peek(ALICE);
    await vi.advanceTimersByTimeAsync(0);
    expect(cache.peek(ALICE)).toEqual({ muted: false, alert: null });
    expect(changes).toEqual([{ muted: false, alert: null }]);
  });
  it('shares one request among concurrent lookups of a player under either id, and a join refresh joins it too', async () => {
    let answer: (value: MuteStatus) => void = () => undefined;
    const { cache, asked } = makeCache(() => new Promise<MuteStatus>((resolve) => (answer = resolve)));
    const first = cache.lookup(BOTH);
    const bySteam = cache.lookup({ steamId: BOTH.steamId });
    const byEos = cache.lookup({ eosId: BOTH.eosId?.toUpperCase() });
    cache.refresh(BOTH);
    expect(asked).toHaveLength(1);
    expect(cache.size).toBe(0);
    answer(status(true));
    for (const lookup of [first, bySteam, byEos]) expect(await lookup).toEqual({ muted: true, alert: 'muted' });
    expect(cache.size).toBe(2);
    // Settled: the next join asks again (a refresh now), once.
    cache.refresh(BOTH);
    cache.refresh(BOTH);
    expect(asked.map((entry) => entry.kind)).toEqual(['first', 'refresh']);
  });

  it('rejects a failed first lookup, caches nothing, and asks again on the next lookup', async () => {
    let fail = true;
    const { cache, asked } = makeCache(() => (fail ? Promise.reject(new Error('GSA is down')) : Promise.resolve(status(false))));
    await expect(cache.lookup(ALICE)).rejects.toThrow('GSA is down');
    expect(cache.size).toBe(0);
    expect(cache.peek(ALICE)).toBeUndefined();
    fail = false;
    expect(await cache.lookup(ALICE)).toEqual({ muted: false, alert: null });
    expect(asked.map((entry) => entry.kind)).toEqual(['first', 'first']);
  });

  it('turns a lookup that throws instead of rejecting into a rejection', async () => {
    const { cache } = makeCache(() => {
      throw new Error('bad lookup');
    });
    await expect(cache.lookup(ALICE)).rejects.toThrow('bad lookup');
  });

  it('serves a stale answer from lookup() at once with one background refresh, and reports the flip', async () => {
    let answer: (value: MuteStatus) => void = () => undefined;
    let muted = true;
    const { cache, asked, changes } = makeCache(() => (muted ? Promise.resolve(status(true)) : new Promise<MuteStatus>((resolve) => (answer = resolve))));
    await cache.lookup(ALICE);
    muted = false;
    vi.advanceTimersByTime(60_001);
    expect(await cache.lookup(ALICE)).toEqual({ muted: true, alert: 'muted' });
    expect(await cache.lookup(ALICE)).toEqual({ muted: true, alert: 'muted' });
    expect(cache.peek(ALICE)).toEqual({ muted: true, alert: 'muted' });
    expect(asked.map((entry) => entry.kind)).toEqual(['first', 'refresh']);
    answer(status(false));
    await vi.advanceTimersByTimeAsync(0);
    expect(cache.peek(ALICE)).toEqual({ muted: false, alert: null });
    expect(changes).toEqual([{ muted: false, alert: null }]);
    // Unmuted answers keep for unmutedTtlMs.
    vi.advanceTimersByTime(300_000);
    cache.peek(ALICE);
    expect(asked).toHaveLength(2);
  });
});
