// What the state watch tells, and when, on a hand-set clock: credentials refused at once; GSA unreachable, an adapter
// down and a Retry-After hold only once they lasted afterMs (a hold at least a minute); a summary at most every
// afterMs while a state lasts; one end; nothing for a state that ended before it was told; reviews turning
// unconfirmed or dead from the core's events; the chat filter's steps only with notify.moderation.
import { afterEach, describe, expect, it } from 'vitest';
import { BridgeEvents } from '../../src/bridge/events.js';
import { silentLogger } from '../../src/log/logger.js';
import { ServiceHealth, type ServiceProblem } from '../../src/ops/serviceHealth.js';
import type { AdapterState } from '../../src/ops/metrics.js';
import { eventName, type Notification } from '../../src/notify/notifyEvents.js';
import { StateWatch } from '../../src/notify/stateWatch.js';

const AFTER_MS = 300_000;
const T0 = Date.UTC(2026, 10, 28, 0, 0, 0);

interface Rig {
  readonly told: Notification[];
  readonly events: BridgeEvents;
  readonly watch: StateWatch;
  /** Moves the clock by `ms`, sampling every second on the way (as the watch's interval does). */
  advance(ms: number): void;
  now(): number;
  problems: ServiceProblem[];
  adapters: AdapterState[];
  holdSeconds: number;
  /** `event` names told so far. */
  names(): string[];
}

const watches: StateWatch[] = [];
afterEach(() => {
  for (const watch of watches.splice(0)) watch.close();
});

function rig(options: { afterMs?: number; moderation?: boolean; problems?: () => readonly ServiceProblem[] } = {}): Rig {
  let now = T0;
  const told: Notification[] = [];
  const events = new BridgeEvents();
  const state = {
    problems: [] as ServiceProblem[],
    adapters: [] as AdapterState[],
    holdSeconds: 0,
  };
  const watch = new StateWatch({
    sources: {
      serviceProblems: options.problems ?? (() => state.problems),
      adapters: () => state.adapters,
      budgetHoldSeconds: () => state.holdSeconds,
    },
    events,
    rules: { afterMs: options.afterMs ?? AFTER_MS, moderation: options.moderation ?? false },
    notify: (notification) => told.push(notification),
    clock: { now: () => now },
    // The test samples by hand, every second of its own clock.
    sampleMs: 2_000_000_000,
  });
  watch.start();
  watches.push(watch);
  return {
    told,
    events,
    watch,
    advance(ms) {
      const end = now + ms;
      while (now < end) {
        now = Math.min(end, now + 1000);
        watch.sample();
      }
    },
    now: () => now,
    get problems() {
      return state.problems;
    },
    set problems(value) {
      state.problems = value;
    },
    get adapters() {
      return state.adapters;
    },
    set adapters(value) {
      state.adapters = value;
    },
    get holdSeconds() {
      return state.holdSeconds;
    },
    set holdSeconds(value) {
      state.holdSeconds = value;
    },
    names: () => told.map(eventName),
  };
}

describe('the state watch', () => {
  it('tells refused credentials at once (from a real ServiceHealth), sums up every afterMs, and tells the end once', () => {
    let now = T0;
    const health = new ServiceHealth({ logger: silentLogger(), servers: [{ name: 'alpha', configPath: 'servers[0]' }], clock: { now: () => now } });
    const r = rig({ problems: () => health.problems });
    health.observe({ endpoint: 'mute', target: 'alpha', status: 401, code: 'unauthorized', message: 'refused', durationMs: 5, attempt: 1 });
    r.watch.sample();
    expect(r.names()).toEqual(['credentials_refused.start']);
    expect(r.told[0]).toMatchObject({ severity: 'critical', server: null, adapter: null, at: T0 });
    expect(r.told[0]?.message).toMatch(/^GSA refused the API credentials \(401\): check api\.clientId and api\.clientSecret/);

    // Sampled every second for 3 afterMs: one summary per afterMs, no more.
    r.advance(3 * AFTER_MS);
    expect(r.names()).toEqual(['credentials_refused.start', 'credentials_refused.summary', 'credentials_refused.summary', 'credentials_refused.summary']);
    expect(r.told.slice(1).map((told) => told.at - T0)).toEqual([AFTER_MS, 2 * AFTER_MS, 3 * AFTER_MS]);

    now = r.now();
    health.observe({ endpoint: 'mute', target: 'alpha', status: 200, code: undefined, message: undefined, durationMs: 5, attempt: 1 });
    r.advance(AFTER_MS);
    expect(r.names().slice(4)).toEqual(['credentials_refused.end']);
    expect(r.told[4]).toMatchObject({ severity: 'info' });
    health.close();
  });

  it('tells GSA unreachable only once it lasted afterMs from the outage’s start, and its end; a shorter outage not at all', () => {
    const r = rig();
    const outage = (since: number): ServiceProblem => ({ key: 'unreachable', kind: 'unreachable', message: 'GSA is unreachable: connect ECONNREFUSED', since, failures: 12 });
    // A short outage: gone after 4 minutes, never told, not even its end.
    r.problems = [outage(T0)];
    r.advance(4 * 60_000);
    r.problems = [];
    r.advance(AFTER_MS);
    expect(r.told).toEqual([]);

    // A long one, already 2 minutes old when first sampled: told 3 minutes later.
    const since = r.now() - 120_000;
    r.problems = [outage(since)];
    r.advance(AFTER_MS - 120_000 - 1000);
    expect(r.told).toEqual([]);
    r.advance(1000);
    expect(r.names()).toEqual(['gsa_unreachable.start']);
    expect(r.told[0]?.at).toBe(since + AFTER_MS);
    expect(r.told[0]?.message).toBe('GSA has been unreachable for 5 min (12 requests failed so far): chat is decided by mute.onUnknown and reviews wait on disk. GSA is unreachable: connect ECONNREFUSED');
    r.advance(AFTER_MS / 2);
    r.problems = [];
    r.advance(1000);
    expect(r.names()).toEqual(['gsa_unreachable.start', 'gsa_unreachable.end']);
    expect(r.told[1]?.message).toBe('GSA answers again after 7 min 31 s unreachable.');
  });

  it('tells an adapter down after afterMs (one state per adapter), and its end: back up, or removed from the config', () => {
    const r = rig({ afterMs: 60_000 });
    r.adapters = [
      { server: 'alpha', id: 'alpha-mod', ready: false },
      { server: 'alpha', id: 'alpha-rcon', ready: false },
      { server: 'beta', id: 'beta-mod', ready: true },
    ];
    r.watch.sample();
    r.advance(59_000);
    expect(r.told).toEqual([]);
    r.advance(1000);
    expect(r.told.map((told) => [eventName(told), told.server, told.adapter, told.severity])).toEqual([
      ['adapter_down.start', 'alpha', 'alpha-mod', 'warning'],
      ['adapter_down.start', 'alpha', 'alpha-rcon', 'warning'],
    ]);
    r.adapters = [{ server: 'alpha', id: 'alpha-mod', ready: true }];
    r.advance(1000);
    expect(r.told.slice(2).map((told) => [eventName(told), told.adapter, told.message])).toEqual([
      ['adapter_down.end', 'alpha-mod', 'Adapter alpha-mod of server alpha is up again after 1 min 1 s down.'],
      ['adapter_down.end', 'alpha-rcon', 'Adapter alpha-rcon of server alpha is no longer in the config (it was down for 1 min 1 s).'],
    ]);
  });

  it('tells a Retry-After hold only after a minute even with a shorter afterMs, and back-to-back holds as one state', () => {
    const r = rig({ afterMs: 10_000 });
    r.holdSeconds = 30;
    r.watch.sample();
    r.advance(30_000);
    // A gap shorter than the grace, as between two holds: the same state goes on.
    r.holdSeconds = 0;
    r.advance(5_000);
    r.holdSeconds = 30;
    r.advance(24_000);
    expect(r.told).toEqual([]);
    r.advance(1000);
    expect(r.names()).toEqual(['budget_held.start']);
    expect(r.told[0]?.message).toMatch(/^GSA has held this API key's calls with Retry-After for 1 min \(30 s left on the current hold\)/);
    r.advance(10_000);
    expect(r.names()).toEqual(['budget_held.start', 'budget_held.summary']);
    r.holdSeconds = 0;
    r.watch.sample();
    r.advance(9_000);
    expect(r.told).toHaveLength(2);
    r.advance(1000);
    expect(r.names()).toEqual(['budget_held.start', 'budget_held.summary', 'budget_held.end']);
  });

  it('tells the first review turned unconfirmed or dead at once, sums up more at most every afterMs, and ends after afterMs without one', () => {
    const r = rig();
    r.events.emit('review', { server: 'alpha', review: 'r-1', result: 'unconfirmed', code: 'unconfirmed' });
    r.events.emit('review', { server: 'alpha', review: 'r-2', result: 'refused', code: 'forbidden' });
    // Delivered and queued reviews are no news.
    r.events.emit('review', { server: 'alpha', review: 'r-3', result: 'delivered' });
    expect(r.told.map((told) => [eventName(told), told.server, told.severity])).toEqual([
      ['reviews_unconfirmed.start', 'alpha', 'warning'],
      ['reviews_dead.start', 'alpha', 'info'],
    ]);
    expect(r.told[0]?.message).toContain('gsa-bridge reviews retry r-1');
    expect(r.told[1]?.message).toContain('refused by GSA (forbidden)');

    // Three more dead within the window: one summary, when afterMs has passed since the start was told.
    r.advance(60_000);
    for (const review of ['r-4', 'r-5', 'r-6']) r.events.emit('review', { server: 'alpha', review, result: 'refused', code: 'forbidden' });
    r.advance(AFTER_MS - 60_000 - 1000);
    expect(r.told).toHaveLength(2);
    r.advance(1000);
    // The unconfirmed state had no other review for afterMs: it ends; the dead one sums up its three.
    expect(r.names().slice(2)).toEqual(['reviews_unconfirmed.end', 'reviews_dead.summary']);
    expect(r.told[3]?.message).toBe('3 more reviews for alpha turned refused by GSA (forbidden ×3); 4 since 5 min ago.');
    r.advance(60_000 - 1000);
    expect(r.told).toHaveLength(4);
    r.advance(1000);
    expect(r.names().slice(4)).toEqual(['reviews_dead.end']);
    expect(r.told[4]?.message).toBe('No review for alpha turned refused by GSA in the last 5 min: 4 in 1 min. `gsa-bridge reviews list` shows them.');
  });

  it('tells the chat filter’s steps only with notify.moderation, and not the line’s own block', () => {
    const quiet = rig();
    quiet.events.emit('moderation', { server: 'alpha', action: 'mute', result: 'ok' });
    expect(quiet.told).toEqual([]);

    const r = rig({ moderation: true });
    r.events.emit('moderation', { server: 'alpha', action: 'block', result: 'ok' });
    r.events.emit('moderation', { server: 'alpha', action: 'warn', result: 'ok' });
    r.events.emit('moderation', { server: 'alpha', action: 'mute', result: 'refused' });
    r.events.emit('moderation', { server: 'alpha', action: 'mute', result: 'dry_run' });
    expect(r.told.map((told) => [eventName(told), told.severity, told.message])).toEqual([
      ['moderation.warn', 'info', 'On alpha, the chat filter warned a player.'],
      ['moderation.mute', 'warning', "On alpha, GSA refused the chat filter's mute of a player; `gsa-bridge moderation list` shows GSA's answer."],
      ['moderation.mute', 'info', 'On alpha, the chat filter would have muted a player (moderation.filter.dryRun).'],
    ]);
    // A reload turns it off at once.
    r.watch.setRules({ afterMs: AFTER_MS, moderation: false });
    r.events.emit('moderation', { server: 'alpha', action: 'warn', result: 'ok' });
    expect(r.told).toHaveLength(3);
  });

  it('names the player of a chat filter step by id and name, the name made printable and quoted', () => {
    const r = rig({ moderation: true });
    r.events.emit('moderation', { server: 'alpha', action: 'mute', result: 'ok', player: '76561198000000077', playerName: 'Rex\u001b[2J\n"the" <@everyone>' });
    r.events.emit('moderation', { server: 'alpha', action: 'warn', result: 'failed', player: 'mojang:069a79f4-44e9-4726-a5be-fca90e38aaf5' });
    expect(r.told.map((told) => told.message)).toEqual([
      'On alpha, the chat filter muted player 76561198000000077 "Rex[2J \\"the\\" <@everyone>".',
      "On alpha, the chat filter's warning of player mojang:069a79f4-44e9-4726-a5be-fca90e38aaf5 failed: GSA did not answer.",
    ]);
    expect(r.told.map((told) => (told.kind === 'moderation' ? told.player : undefined))).toEqual([
      { id: '76561198000000077', name: 'Rex[2J "the" <@everyone>' },
      { id: 'mojang:069a79f4-44e9-4726-a5be-fca90e38aaf5', name: null },
    ]);
  });

  it('stops listening and sampling on close, telling no end for what still lasts', () => {
    const r = rig();
    r.problems = [{ key: 'credentials', kind: 'credentials', message: 'refused', since: T0, failures: 1 }];
    r.watch.sample();
    expect(r.told).toHaveLength(1);
    r.watch.close();
    r.events.emit('review', { server: 'alpha', review: 'r-1', result: 'unconfirmed', code: 'unconfirmed' });
    expect(r.told).toHaveLength(1);
    expect(r.events.listens('review')).toBe(false);
  });
});
