// The multi-node soak's schedule and judgement (bench/soak/multiNodeRows.ts), on made-up arrivals and log times: the
// Redis restarts and the kill kept apart, the key's window split at the restarts, budget 429s told from injected
// ones, the shared hold, the Redis lines, the killed sidecar's share. The soak itself is too long for `npm test`.
import { describe, expect, it } from 'vitest';
import type { HoldFault } from '../../bench/soak/invariants.js';
import {
  budget429Times,
  keyWindowRows,
  killShareRow,
  maxInAnyWindow,
  multiNodeSchedule,
  outagesSeen,
  redisLinesRow,
  sharedAtEndRow,
  sharedHoldRow,
  splitWindows,
  type NodeCall,
} from '../../bench/soak/multiNodeRows.js';
import { parseSoakOptions, SoakUsageError } from '../../bench/soak/options.js';

const W = 10_000;
const SPAN = 10_350;

describe('the multi-node schedule', () => {
  it('restarts Redis once in a 1-minute run, before the kill, and keeps the kill\'s measurement inside the load', () => {
    const schedule = multiNodeSchedule({ loadMs: 60_000, windowMs: W, spanMs: SPAN, restartEveryMs: 120_000, downMs: 3000, kill: true });
    expect(schedule.restarts).toEqual([24_000]);
    expect(schedule.kill).toEqual({ at: 33_000, measureFrom: 43_350, measureTo: 54_350, restartAt: 54_350 });
  });

  it('restarts every 2 minutes in a 10-minute run, leaving out a restart that would overlap the kill', () => {
    const schedule = multiNodeSchedule({ loadMs: 600_000, windowMs: W, spanMs: SPAN, restartEveryMs: 120_000, downMs: 3000, kill: true });
    expect(schedule.restarts).toEqual([120_000, 240_000, 360_000, 480_000]);
    expect(schedule.kill?.at).toBe(330_000);
    const crowded = multiNodeSchedule({ loadMs: 600_000, windowMs: W, spanMs: SPAN, restartEveryMs: 110_000, downMs: 3000, kill: true });
    // 330 s is the kill: left out.
    expect(crowded.restarts).toEqual([110_000, 220_000, 440_000, 550_000]);
  });

  it('leaves the kill out when its measurement does not fit, and has no kill when none is asked', () => {
    expect(multiNodeSchedule({ loadMs: 30_000, windowMs: W, spanMs: SPAN, restartEveryMs: 120_000, downMs: 3000, kill: true }).kill).toBeUndefined();
    expect(multiNodeSchedule({ loadMs: 60_000, windowMs: W, spanMs: SPAN, restartEveryMs: 120_000, downMs: 3000, kill: false }).kill).toBeUndefined();
  });
});

describe('the key\'s window across sidecars', () => {
  const burst = (from: number, count: number, every = 10): number[] => Array.from({ length: count }, (_, i) => from + i * every);

  it('counts a strict sliding window ending at each arrival', () => {
    expect(maxInAnyWindow([0, 9_999, 10_000, 19_999], W)).toBe(2);
    expect(maxInAnyWindow(burst(0, 101, 99), W)).toBe(101);
    expect(maxInAnyWindow(burst(0, 101, 100), W)).toBe(100);
  });

  it('judges windows that overlap a restart apart from the rest', () => {
    // 100 before the restart, 30 more just after it: 130 in a window that overlaps [20 s, 23 s].
    const times = [...burst(15_000, 100), ...burst(23_500, 30)];
    expect(splitWindows(times, W, [[20_000, 23_000]])).toMatchObject({ outside: 100, straddling: 130 });
    expect(splitWindows(times, W, [])).toMatchObject({ outside: 130, straddling: 0 });
    // 10 s after the last switch the windows count as "Redis up" again.
    expect(splitWindows([...times, ...burst(33_001, 101)], W, [[20_000, 23_000]]).outside).toBe(101);
  });

  it('tells budget 429s from the 429s of an armed key-wide fault', () => {
    const faults: HoldFault[] = [
      { armedAt: 1000, clearedAt: 2000, status: 429, retryAfterMs: 86_400_000 },
      { armedAt: 5000, clearedAt: 6000, status: 503, endpoint: 'review', retryAfterMs: 3_600_000 },
    ];
    const calls = [
      { at: 1500, status: 429 },
      { at: 2500, status: 429 },
      { at: 5500, status: 429 },
      { at: 5500, status: 503 },
    ];
    expect(budget429Times(calls, faults)).toEqual([2500, 5500]);
  });

  it('passes at most R with Redis up and 0 budget 429s outside the restarts, and at most R + (N − 1)·floor(R/N) across one', () => {
    const base = { origin: 0, requests: 100, windowMs: W, nodes: 3, straddle: [[20_000, 23_000]] as const };
    const arrivals = [...burst(15_000, 100), ...burst(23_500, 66)];
    const [up, across] = keyWindowRows({ ...base, arrivals, budget429s: [24_000], refusedByBudget: 1 });
    expect(up?.ok).toBe(true);
    expect(across).toMatchObject({ ok: true, bound: '≤ R + (N − 1)·floor(R/N) = 100 + 2·33 = 166' });
    const over = keyWindowRows({ ...base, arrivals: [...arrivals, ...burst(24_500, 1)], budget429s: [], refusedByBudget: 0 });
    expect(over[1]?.ok).toBe(false);
    // A budget 429 a window after the last switch fails the "Redis up" row; so does a count that does not match.
    expect(keyWindowRows({ ...base, arrivals, budget429s: [40_000], refusedByBudget: 1 })[0]?.ok).toBe(false);
    expect(keyWindowRows({ ...base, arrivals, budget429s: [], refusedByBudget: 1 })[0]?.ok).toBe(false);
  });
});

describe('a 429 to one sidecar holds the others', () => {
  const fault: HoldFault = { armedAt: 1000, clearedAt: 11_000, status: 429, retryAfterMs: 86_400_000 };
  const call = (at: number, node: number, status = 200): NodeCall => ({ at, node, status });

  it('passes when nothing arrives from the slack after the 429 until the capped hold ends', () => {
    const calls = [call(2000, 0, 429), call(2500, 1), call(12_100, 2)];
    const row = sharedHoldRow([fault], calls, 10_000, 1000, []);
    expect(row.ok).toBe(true);
    expect(row.measured).toContain('1 holds after a key-wide 429 judged');
  });

  it('fails on an arrival of any sidecar inside the hold', () => {
    const row = sharedHoldRow([fault], [call(2000, 0, 429), call(5000, 2)], 10_000, 1000, []);
    expect(row.ok).toBe(false);
    expect(row.measured).toContain('1 arrivals inside them');
  });

  it('starts a new hold at a 429 after the last one ended, and does not judge a hold during a Redis restart', () => {
    const long: HoldFault = { ...fault, clearedAt: 30_000 };
    const calls = [call(2000, 0, 429), call(12_500, 1, 429), call(13_000, 1)];
    expect(sharedHoldRow([long], calls, 10_000, 1000, []).measured).toContain('2 holds after a key-wide 429 judged');
    const row = sharedHoldRow([long], calls, 10_000, 1000, [[15_000, 18_000]]);
    expect(row.measured).toContain('1 holds after a key-wide 429 judged (1 during a Redis restart not judged');
    expect(sharedHoldRow([long], calls, 10_000, 1000, [[0, 40_000]]).ok).toBe(false);
  });
});

describe('Redis lines, the shared metric, the killed sidecar\'s share', () => {
  const node = { name: 'node1', warns: 1, backs: 1, outagesSeen: 1, verdictsOnFallback: 10, sharedDuringOutage: [0] };

  it('wants one warn and one back line per outage a sidecar lived through, verdicts meanwhile and shared 0', () => {
    expect(redisLinesRow([node, { ...node, name: 'node2', warns: 0, backs: 0, outagesSeen: 0, sharedDuringOutage: [] }]).ok).toBe(true);
    expect(redisLinesRow([{ ...node, warns: 2 }]).ok).toBe(false);
    expect(redisLinesRow([{ ...node, backs: 0 }]).ok).toBe(false);
    expect(redisLinesRow([{ ...node, verdictsOnFallback: 0 }]).ok).toBe(false);
    expect(redisLinesRow([{ ...node, sharedDuringOutage: [1] }]).ok).toBe(false);
  });

  it('counts an outage as seen only by a process that ran from before it until it settled', () => {
    const outages = [{ down: 10_000, up: 13_000 }];
    expect(outagesSeen([[0, 60_000]], outages)).toBe(1);
    expect(outagesSeen([[0, 12_000]], outages)).toBe(0);
    expect(outagesSeen([[11_000, 60_000]], outages)).toBe(0);
  });

  it('wants gsa_bridge_budget_shared 1 on every sidecar', () => {
    expect(sharedAtEndRow([{ name: 'node1', value: 1 }, { name: 'node2', value: 1 }]).ok).toBe(true);
    expect(sharedAtEndRow([{ name: 'node1', value: 1 }, { name: 'node2', value: undefined }]).ok).toBe(false);
  });

  it('wants the survivors\' busiest window from one span after the kill to reach the minimum', () => {
    const plan = { at: 30_000, measureFrom: 40_350, measureTo: 51_350, restartAt: 51_350 };
    const figures = { origin: 0, victim: 'node2', requests: 100, nodes: 3, windowMs: W, plan, minimum: 90 };
    const taken = Array.from({ length: 95 }, (_, i) => 41_000 + i * 50);
    expect(killShareRow({ ...figures, survivorTimes: taken }).ok).toBe(true);
    // A leaked share: the two keep their two thirds.
    expect(killShareRow({ ...figures, survivorTimes: taken.slice(0, 66) }).ok).toBe(false);
  });
});

describe('soak options: --nodes', () => {
  it('is 1 by default (the single-node soak) and takes the Redis restart knobs', () => {
    expect(parseSoakOptions([])).toMatchObject({ nodes: 1, redisRestartEverySeconds: 120, redisDownSeconds: 3 });
    expect(parseSoakOptions(['--nodes', '3', '--redis-restart-every', '60', '--redis-down', '1'])).toMatchObject({ nodes: 3, redisRestartEverySeconds: 60, redisDownSeconds: 1 });
  });

  it('refuses more sidecars than calls per window', () => {
    expect(() => parseSoakOptions(['--nodes', '3', '--window-requests', '2'])).toThrow(SoakUsageError);
    expect(() => parseSoakOptions(['--nodes', '0'])).toThrow(SoakUsageError);
  });
});
