// The one rule for which id GSA is asked by (servers[].lookupIds): the ids each value picks, how `both` combines
// two answers, that the mute cache keeps an answer under every id whatever was asked, and the config key's checks.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/app/config.js';
import { askByEach, askedFields, describeAsked, idsToAsk, reviewIdOf, type AskedAnswer } from '../../src/bridge/lookupIds.js';
import { MuteCache } from '../../src/bridge/muteCache.js';
import { NetworkError, type MuteStatus, type OnePlayerId, type PlayerIds } from '../../src/gsa/index.js';
import { problemsOf } from '../fixtures/configProblems.js';

const STEAM = '76561198000000281';
const EOS = '0002bfc5aaaa0000bbbb0000cccc0281';
const BOTH: PlayerIds = { steamId: STEAM, eosId: EOS };

const status = (muted: boolean, alert: string | null = null): MuteStatus => ({ muted, alert: muted ? alert : null, steamId: null, eosId: null });

/** A stand-in for GSA: answers each id from a table, or fails for the ids listed; records what it was asked. */
function service(muted: Readonly<Record<string, string>>, failing: readonly string[] = []) {
  const asked: OnePlayerId[] = [];
  const ask = (player: OnePlayerId): Promise<MuteStatus> => {
    asked.push(player);
    const id = player.steamId ?? player.eosId;
    if (failing.includes(id)) return Promise.reject(new NetworkError(`no answer for ${id}`, { maybeProcessed: false }));
    const alert = muted[id];
    return Promise.resolve(status(alert !== undefined, alert));
  };
  return { ask, asked };
}

describe('idsToAsk', () => {
  it('picks by the rule only for a player with both ids', () => {
    expect(idsToAsk(BOTH, 'steam-first')).toEqual([{ kind: 'steam', id: STEAM }]);
    expect(idsToAsk(BOTH, 'eos-first')).toEqual([{ kind: 'eos', id: EOS }]);
    expect(idsToAsk(BOTH, 'both')).toEqual([{ kind: 'steam', id: STEAM }, { kind: 'eos', id: EOS }]);
    for (const rule of ['steam-first', 'eos-first', 'both'] as const) {
      expect(idsToAsk({ steamId: STEAM }, rule)).toEqual([{ kind: 'steam', id: STEAM }]);
      expect(idsToAsk({ eosId: EOS }, rule)).toEqual([{ kind: 'eos', id: EOS }]);
      // A Minecraft player is not the mod API's: nothing to ask it by.
      expect(idsToAsk({ mojangId: '069a79f4-44e9-4726-a5be-fca90e38aaf5' }, rule)).toEqual([]);
    }
  });

  it('sends a review by the first id the rule asks by', () => {
    expect(reviewIdOf(BOTH, 'steam-first')).toEqual({ steamId: STEAM });
    expect(reviewIdOf(BOTH, 'both')).toEqual({ steamId: STEAM });
    expect(reviewIdOf(BOTH, 'eos-first')).toEqual({ eosId: EOS });
    expect(reviewIdOf({}, 'steam-first')).toBeUndefined();
  });

  it('names what was asked the way GSA names its fields', () => {
    const ids = idsToAsk(BOTH, 'both');
    expect(describeAsked(ids)).toBe(`steam_id ${STEAM} and eos_id ${EOS}`);
    expect(askedFields(ids)).toEqual({ steam_id: STEAM, eos_id: EOS });
    expect(askedFields([{ kind: 'mojang', id: 'x' }])).toEqual({ mojang_id: 'x' });
  });
});

describe('askByEach', () => {
  it('asks one id once and says which one said muted', async () => {
    const gsa = service({ [STEAM]: 'Muted on Steam' });
    expect(await askByEach(idsToAsk(BOTH, 'steam-first'), gsa.ask)).toEqual({ muted: true, alert: 'Muted on Steam', mutedBy: { kind: 'steam', id: STEAM } });
    expect(gsa.asked).toEqual([{ steamId: STEAM }]);
  });

  it('with both ids: muted when either is, the muted id\'s alert, the Steam64\'s when both are', async () => {
    const onlyEos = service({ [EOS]: 'Muted on Epic' });
    expect(await askByEach(idsToAsk(BOTH, 'both'), onlyEos.ask)).toEqual({ muted: true, alert: 'Muted on Epic', mutedBy: { kind: 'eos', id: EOS } });
    expect(onlyEos.asked).toEqual([{ steamId: STEAM }, { eosId: EOS }]);
    const bothMuted = service({ [STEAM]: 'Steam alert', [EOS]: 'Epic alert' });
    expect(await askByEach(idsToAsk(BOTH, 'both'), bothMuted.ask)).toMatchObject({ alert: 'Steam alert', mutedBy: { kind: 'steam' } });
    const neither = service({});
    expect(await askByEach(idsToAsk(BOTH, 'both'), neither.ask)).toEqual<AskedAnswer>({ muted: false, alert: null });
  });

  it('with both ids: a known mute stands when the other call fails; "not muted" needs every answer', async () => {
    const mutedAndFailed = service({ [STEAM]: 'Muted on Steam' }, [EOS]);
    expect(await askByEach(idsToAsk(BOTH, 'both'), mutedAndFailed.ask)).toMatchObject({ muted: true, mutedBy: { kind: 'steam' } });
    const cleanAndFailed = service({}, [EOS]);
    await expect(askByEach(idsToAsk(BOTH, 'both'), cleanAndFailed.ask)).rejects.toMatchObject({ code: 'network', message: `no answer for ${EOS}` });
    await expect(askByEach([], service({}).ask)).rejects.toThrow(/needs a steam_id or an eos_id/);
  });
});

describe('the mute cache keeps an answer under every id, whatever id was asked', () => {
  it('a line with one id joins the lookup in flight for both, and later finds the answer', async () => {
    const gsa = service({ [STEAM]: 'Muted on Steam' });
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const cache = new MuteCache({
      mutedTtlMs: 60_000,
      unmutedTtlMs: 300_000,
      // As the bridge asks: by the rule's ids (steam-first), through one function.
      lookup: async (player) => {
        await gate;
        return askByEach(idsToAsk(player, 'steam-first'), gsa.ask);
      },
      onChange: () => undefined,
    });
    const first = cache.lookup({ steamId: STEAM, eosId: EOS });
    const joined = cache.lookup({ eosId: EOS });
    release();
    expect(await first).toEqual({ muted: true, alert: 'Muted on Steam', mutedBy: { kind: 'steam', id: STEAM } });
    expect(await joined).toBe(await first);
    expect(gsa.asked).toEqual([{ steamId: STEAM }]);
    expect(cache.peek({ eosId: EOS })).toMatchObject({ muted: true });
    expect(cache.peek({ steamId: STEAM })).toMatchObject({ muted: true });
    expect(cache.mutedBy({ eosId: EOS })).toEqual({ kind: 'steam', id: STEAM });
    // A mute the sidecar made itself asked nobody.
    cache.remember({ steamId: '76561198000000282' }, { muted: true, alert: null });
    expect(cache.mutedBy({ steamId: '76561198000000282' })).toBeUndefined();
  });
});

describe('servers[].lookupIds in the config', () => {
  const server = (extra: Record<string, unknown>) => ({ api: { clientId: 'client-1', clientSecret: 'secret-1' }, servers: [{ name: 'ovddykvbs', adapters: [], ...extra }] });

  it('defaults to steam-first and takes the three values', () => {
    expect(parseConfig(server({})).servers[0]?.lookupIds).toBe('steam-first');
    for (const rule of ['steam-first', 'eos-first', 'both']) expect(parseConfig(server({ lookupIds: rule })).servers[0]?.lookupIds).toBe(rule);
  });

  it('refuses another value with its JSON path, and suggests the key for a misspelling', () => {
    expect(problemsOf(server({ lookupIds: 'eos' }))).toEqual([{ path: 'servers[0].lookupIds', message: 'must be one of "steam-first", "eos-first", "both"' }]);
    expect(problemsOf(server({ lookupIds: ['both'] }))).toEqual([{ path: 'servers[0].lookupIds', message: 'must be one of "steam-first", "eos-first", "both"' }]);
    expect(problemsOf(server({ lookupID: 'both' }))).toEqual([{ path: 'servers[0]', message: 'unknown key "lookupID" (did you mean "lookupIds"?)' }]);
  });
});
