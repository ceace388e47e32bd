// Who the sidecar has seen muted, from the core's verdict events (what `gsa-bridge mutes` lists): one entry per
// server and player with since, the alert made printable, and the lines blocked in the last hour; an 'ok' verdict
// ends it; the list is bounded. Time is a hand-set clock.
import { beforeEach, describe, expect, it } from 'vitest';
import { BridgeEvents, type VerdictEvent } from '../../src/bridge/events.js';
import { MutedPlayers, RECENT_BLOCKS_WINDOW_MS } from '../../src/ops/mutedPlayers.js';
import { mutesControlHandler } from '../../src/cli/mutesCommand.js';

const SERVER = 'ovddykvbs';
const MALLORY = '76561198000000666';
const EVE = '76561198000000777';
const START = Date.UTC(2026, 10, 28, 1, 0, 0);

let now: number;
let events: BridgeEvents;
let muted: MutedPlayers;

function verdict(overrides: Partial<VerdictEvent> = {}): VerdictEvent {
  return { server: SERVER, player: { steamId: MALLORY, name: 'Mallory' }, verdict: 'block', reason: 'muted', source: 'cache', durationMs: 0, alert: 'Muted for spam', ...overrides };
}

beforeEach(() => {
  now = START;
  events = new BridgeEvents();
  muted = new MutedPlayers({ events, clock: { now: () => now }, maxPlayers: 3 });
});

describe('MutedPlayers', () => {
  it('lists a player seen muted with server, name, since, the alert and the lines blocked', () => {
    events.emit('verdict', verdict());
    now += 5_000;
    events.emit('verdict', verdict());
    expect(muted.list()).toEqual([
      { server: SERVER, steamId: MALLORY, eosId: undefined, mojangId: undefined, name: 'Mallory', since: START, lastBlockedAt: START + 5_000, alert: 'Muted for spam', blockedRecently: 2 },
    ]);
  });

  it('counts only the last hour: older blocks drop out, the entry stays', () => {
    events.emit('verdict', verdict());
    now += RECENT_BLOCKS_WINDOW_MS / 2;
    events.emit('verdict', verdict());
    events.emit('verdict', verdict());
    expect(muted.list()[0]?.blockedRecently).toBe(3);
    now += RECENT_BLOCKS_WINDOW_MS / 2 + 5 * 60_000;
    expect(muted.list()[0]?.blockedRecently).toBe(2);
    now += RECENT_BLOCKS_WINDOW_MS;
    expect(muted.list()).toMatchObject([{ since: START, blockedRecently: 0 }]);
  });

  it('forgets a player seen ok on that server (the mute is over), and only there', () => {
    events.emit('verdict', verdict());
    events.emit('verdict', verdict({ server: 'other' }));
    events.emit('verdict', verdict({ verdict: 'allow', reason: 'ok', source: 'service', alert: undefined }));
    expect(muted.list().map((player) => player.server)).toEqual(['other']);
  });

  it('ignores verdicts that say nothing about a mute: unknown, not gated, filtered', () => {
    events.emit('verdict', verdict({ reason: 'unknown', source: 'policy' }));
    events.emit('verdict', verdict({ verdict: 'allow', reason: 'not_gated', source: 'channel' }));
    events.emit('verdict', verdict({ reason: 'filtered', source: 'filter' }));
    expect(muted.list()).toEqual([]);
  });

  it('makes the alert and the name printable: no control, line-break or bidi characters, and cut short', () => {
    events.emit('verdict', verdict({ player: { steamId: MALLORY, name: 'Mal\u202elory\u001b[31m' }, alert: `line\r\nbreak\u0007 \u2066x\u2069${'a'.repeat(1000)}` }));
    const [player] = muted.list();
    expect(player?.name).toBe('Mallory[31m');
    expect(player?.alert?.startsWith('line break x')).toBe(true);
    expect(player?.alert).toHaveLength(300);
  });

  it('holds at most maxPlayers, dropping the one seen muted longest ago', () => {
    for (const [index, id] of ['1', '2', '3', '4'].entries()) {
      now = START + index;
      events.emit('verdict', verdict({ player: { steamId: `7656119800000000${id}` } }));
    }
    expect(muted.size).toBe(3);
    expect(muted.list().map((player) => player.steamId)).toEqual(['76561198000000004', '76561198000000003', '76561198000000002']);
  });

  it('lists the most recently blocked first, and stops listening when closed', () => {
    events.emit('verdict', verdict());
    now += 1;
    events.emit('verdict', verdict({ player: { eosId: '0002aaaa000000000000000000000001' } }));
    expect(muted.list().map((player) => player.steamId ?? player.eosId)).toEqual(['0002aaaa000000000000000000000001', MALLORY]);
    muted.close();
    events.emit('verdict', verdict({ player: { steamId: EVE } }));
    expect(muted.list()).toEqual([]);
  });

  it('answers the "mutes" control op with stable snake_case keys, null for what is unknown', async () => {
    events.emit('verdict', verdict({ player: { steamId: MALLORY }, alert: undefined }));
    expect(await mutesControlHandler(() => muted)({ op: 'mutes' })).toEqual({
      ok: true,
      window_ms: RECENT_BLOCKS_WINDOW_MS,
      players: [
        { server: SERVER, steam_id: MALLORY, eos_id: null, mojang_id: null, name: null, since: new Date(START).toISOString(), last_blocked_at: new Date(START).toISOString(), alert: null, blocked_last_hour: 1, asked: null },
      ],
    });
  });

  it('shows the id GSA was asked by, as the latest muted verdict named it, also when it is not the first id the player has', async () => {
    const eos = '0002aaaa000000000000000000000001';
    // A player known by both ids, asked by the EOS id (eos-first): that is the id `mutes` names.
    events.emit('verdict', verdict({ player: { steamId: MALLORY, eosId: eos }, asked: { kind: 'eos', id: eos } }));
    // A line decided from the chat filter's own mute names no id: the one GSA was asked by stays.
    events.emit('verdict', verdict({ player: { steamId: MALLORY, eosId: eos } }));
    expect(muted.list()).toMatchObject([{ steamId: MALLORY, eosId: eos, asked: { kind: 'eos', id: eos }, blockedRecently: 2 }]);
    expect(await mutesControlHandler(() => muted)({ op: 'mutes' })).toMatchObject({ players: [{ steam_id: MALLORY, eos_id: eos, asked: { eos_id: eos } }] });
  });
});
