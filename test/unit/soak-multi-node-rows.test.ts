// The multi-node soak's schedule and judgement (bench/soak/multiNodeRows.ts), on made-up arrivals and log times: the
// Redis restarts, the kill and the co-tenant's rounds kept apart, the key's window split at the restarts, budget 429s
// told from injected ones, the shared hold, the Redis lines, the killed sidecar's share; issue 19's rows: the others
// resume after every hold, the window across a FLUSHALL, forged claims removed, doubts said once, the day-long
// sidecar holding its own day, nothing lost. The soak itself is too long for `npm test`.
import { describe, expect, it } from 'vitest';
import type { HoldFault } from '../../bench/soak/invariants.js';
import {
  budget429Times,
  doubtLinesRow,
  flushWindowRow,
  forgedClaimsRow,
  keyWide429From,
  keyWideHolds,
  keyWindowRows,
  killShareRow,
  maxInAnyWindow,
  multiNodeSchedule,
  nothingLostRow,
  othersResumeRow,
  outagesSeen,
  peakOverlapping,
  redisLinesRow,
  roomAt,
  ROUND,
  selfHeldRow,
  sharedAtEndRow,
  sharedHoldRow,
  splitWindows,
  type HoldEpisode,
  type NodeCall,
  type ProcessLines,
  type ResumeFigures,
} from '../../bench/soak/multiNodeRows.js';
import { parseSoakOptions, SoakUsageError } from '../../bench/soak/options.js';

const W = 10_000;
const SPAN = 10_350;

describe('the multi-node schedule', () => {
  const plan = { windowMs: W, spanMs: SPAN, restartEveryMs: 120_000, downMs: 3000, kill: true };

  it('restarts Redis once in a 1-minute run, after the co-tenant\'s round and before the kill, and keeps the kill\'s measurement inside the load', () => {
    const schedule = multiNodeSchedule({ ...plan, loadMs: 60_000, cotenant: true });
    expect(schedule.restarts).toEqual([27_000]);
    expect(schedule.kill).toEqual({ at: 36_000, measureFrom: 46_350, measureTo: 57_350, restartAt: 57_350 });
    // A window and 2 s in: after the hold of the key-wide 429 armed as the load starts. It and the windows across its
    // FLUSHALL end before Redis goes down.
    expect(schedule.rounds).toEqual([12_000]);
    expect(12_000 + Math.max(ROUND.lengthMs, W + 2000)).toBeLessThan(27_000 - 1000);
  });

  it('restarts every 2 minutes in a 10-minute run, leaving out a restart that would overlap the kill', () => {
    const schedule = multiNodeSchedule({ ...plan, loadMs: 600_000 });
    expect(schedule.restarts).toEqual([120_000, 240_000, 480_000]);
    expect(schedule.kill?.at).toBe(360_000);
    expect(schedule.rounds).toEqual([]);
    const crowded = multiNodeSchedule({ ...plan, loadMs: 600_000, restartEveryMs: 90_000 });
    // 360 s is the kill: left out.
    expect(crowded.restarts).toEqual([90_000, 180_000, 270_000, 450_000, 540_000]);
  });

  it('moves a co-tenant round past a restart (its outage, rejoin and straddling windows) and past the kill', () => {
    const schedule = multiNodeSchedule({ ...plan, loadMs: 600_000, cotenant: true });
    // Nominally every minute from 12 s; 132 s meets the restart at 120 s (busy until 120 + 3 + 5 + 10 s), 252 s the
    // one at 240 s, 372 s the kill at 360 s (busy until its restart at 381.35 s and 5 s), 492 s the restart at 480 s.
    expect(schedule.rounds).toEqual([12_000, 72_000, 139_001, 192_000, 259_001, 312_000, 387_351, 432_000, 499_001, 552_000]);
    for (const round of schedule.rounds) {
      for (const down of schedule.restarts) expect(round + Math.max(ROUND.lengthMs, W + 2000) < down - 1000 || round - 1000 > down + 3000 + 5000 + W).toBe(true);
    }
  });

  it('arms a key-wide 429 only where its hold is over before the next round', () => {
    // Guard: the cap and the slack and a margin before a round; none during it.
    expect(keyWide429From(0, [12_000], 11_500)).toBe(0);
    expect(keyWide429From(1000, [12_000], 11_500)).toBe(12_000 + ROUND.lengthMs);
    expect(keyWide429From(20_000, [12_000], 11_500)).toBe(12_000 + ROUND.lengthMs);
    expect(keyWide429From(30_000, [12_000, 72_000], 11_500)).toBe(30_000);
    // Deferred past one round into the guard of the next: past that one too.
    expect(keyWide429From(20_000, [12_000, 30_000], 11_500)).toBe(30_000 + ROUND.lengthMs);
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

describe('the others resume within their own cap after every hold', () => {
  const call = (at: number, node: number, status = 200): NodeCall => ({ at, node, status });
  const base: Omit<ResumeFigures, 'episodes' | 'calls'> = {
    origin: 0,
    names: ['node1', 'node2', 'node3'],
    capMs: 10_000,
    recheckMs: 1000,
    slackMs: 1000,
    spanMs: SPAN,
    requests: 100,
    required: [],
  };
  // A forged hold 8 s ahead at 20 s, deleted at 22 s; node1 and node2 judged (node3 holds its own day).
  const believable: HoldEpisode = { kind: 'forged within the cap', at: 20_000, deletedAt: 22_000, endsAt: 28_000, others: [0, 1], gauges: [7, 7] };

  it('wants a believable forged hold deleted early to stop holding within the recheck and the slack', () => {
    const row = othersResumeRow({ ...base, episodes: [believable], calls: [call(20_500, 0), call(22_600, 0), call(23_100, 1)] });
    expect(row.ok).toBe(true);
    expect(row.measured).toContain('forged within the cap ×1: next arrival of each other sidecar after the delete at worst 1.1 s (bound 2.0 s)');
    expect(row.measured).toContain('1 of 1 telling');
    // One that waits for the forged end fails.
    expect(othersResumeRow({ ...base, episodes: [believable], calls: [call(22_600, 0), call(28_100, 1)] }).ok).toBe(false);
    // So does an arrival while it stood (after the slack): a sidecar that did not hold.
    expect(othersResumeRow({ ...base, episodes: [believable], calls: [call(21_500, 1), call(22_600, 0), call(22_700, 1)] }).ok).toBe(false);
    // And a sidecar that never came back.
    expect(othersResumeRow({ ...base, episodes: [believable], calls: [call(22_600, 0)] }).ok).toBe(false);
  });

  it('allows the resume to wait for room in the window, read from the arrivals', () => {
    // 100 arrivals from 13 s to 14 s: the window has room again at 13 s + one span.
    const full = Array.from({ length: 100 }, (_, i) => call(13_000 + i * 10, i % 2));
    expect(roomAt(full.map((c) => c.at), 22_000, SPAN, 100)).toBe(13_000 + SPAN);
    expect(roomAt(full.map((c) => c.at), 30_000, SPAN, 100)).toBe(30_000);
    const row = othersResumeRow({ ...base, episodes: [believable], calls: [...full, call(23_400, 0), call(23_500, 1)] });
    expect(row.ok).toBe(true);
    expect(row.measured).toContain('(bound 2.4 s)');
    // The window as Redis held it at the delete: a start it counted never reached GSA, so room came at 23.5 s.
    expect(othersResumeRow({ ...base, episodes: [believable], calls: [call(24_300, 0), call(24_400, 1)] }).ok).toBe(false);
    expect(othersResumeRow({ ...base, episodes: [{ ...believable, roomAt: 23_500 }], calls: [call(24_300, 0), call(24_400, 1)] }).ok).toBe(true);
  });

  it('needs one believable forged hold that was met while it stood (a hold gauge above 0) to tell a resume at the delete from one at the end', () => {
    const unmet = { ...believable, gauges: [0, 0] };
    const row = othersResumeRow({ ...base, episodes: [unmet], calls: [call(22_600, 0), call(23_100, 1)] });
    expect(row.ok).toBe(false);
    expect(row.measured).toContain('0 of 1 telling');
    expect(othersResumeRow({ ...base, episodes: [unmet, believable], calls: [call(22_600, 0), call(23_100, 1)] }).ok).toBe(true);
  });

  it('judges a hold beyond the others\' cap from its start: they never wait longer than their cap, nor show a longer hold', () => {
    const far: HoldEpisode = { kind: 'forged 10 years ahead', at: 14_000, deletedAt: 17_000, endsAt: 14_000 + 315_360_000_000, others: [0, 1], gauges: [0, 0] };
    expect(othersResumeRow({ ...base, episodes: [far], calls: [call(15_000, 0), call(25_900, 1)] }).ok).toBe(true);
    expect(othersResumeRow({ ...base, episodes: [far], calls: [call(15_000, 0), call(26_100, 1)] }).ok).toBe(false);
    // A gauge above the cap: a sidecar believed it. One within: another hold of its own meanwhile.
    expect(othersResumeRow({ ...base, episodes: [{ ...far, gauges: [0, 315_000_000] }], calls: [call(15_000, 0), call(15_100, 1)] }).ok).toBe(false);
    expect(othersResumeRow({ ...base, episodes: [{ ...far, gauges: [0, 3] }], calls: [call(15_000, 0), call(15_100, 1)] }).ok).toBe(true);
    const dayLong: HoldEpisode = { kind: 'day-long 429 to one sidecar', at: 2000, endsAt: 2000 + 86_400_000, others: [0, 1], gauges: [0, 0] };
    expect(othersResumeRow({ ...base, episodes: [dayLong], calls: [call(2100, 0), call(2200, 1)] }).ok).toBe(true);
    // The others following the day: no arrival after it.
    expect(othersResumeRow({ ...base, episodes: [dayLong], calls: [call(1000, 0), call(1000, 1)] }).ok).toBe(false);
  });

  it('moves the bound by the time another hold the others believed came meanwhile', () => {
    // A hold 10 years ahead at 14 s; the window had no room until 20.35 s, and a believable forged hold stood from
    // 19.4 s until its delete at 21.4 s: the others came back at 22.4 s and 26.5 s, 12.5 s after the far hold's start.
    const far: HoldEpisode = { kind: 'forged 10 years ahead', at: 14_000, deletedAt: 17_000, endsAt: 14_000 + 315_360_000_000, others: [0, 1], gauges: [0, 0] };
    const later: HoldEpisode = { ...believable, at: 19_400, deletedAt: 21_400, endsAt: 27_400 };
    const calls = [call(22_400, 0), call(22_450, 1), call(26_500, 1)];
    expect(othersResumeRow({ ...base, episodes: [far], calls: [call(26_500, 0), call(26_500, 1)] }).ok).toBe(false);
    expect(othersResumeRow({ ...base, episodes: [far, later], calls: [...calls, call(26_500, 0)] }).ok).toBe(true);
    expect(othersResumeRow({ ...base, episodes: [far, later], calls: [call(22_400, 0), call(29_500, 1)] }).ok).toBe(false);
  });

  it('judges GSA\'s own key-wide hold from its capped end, after the slack', () => {
    const keyWide: HoldEpisode = { kind: 'key-wide 429', at: 1000, endsAt: 11_000, others: [0, 1] };
    // Calls already on their way within the slack do not count as the resume.
    expect(othersResumeRow({ ...base, episodes: [keyWide], calls: [call(1000, 0, 429), call(1500, 1), call(11_200, 0), call(11_900, 1)] }).ok).toBe(true);
    expect(othersResumeRow({ ...base, episodes: [keyWide], calls: [call(1000, 0, 429), call(1500, 1), call(11_200, 0)] }).ok).toBe(false);
  });

  it('fails when a kind the run must judge is missing, and does not judge a hold no other sidecar lived through', () => {
    const row = othersResumeRow({ ...base, required: ['forged within the cap', 'key-wide 429'], episodes: [believable], calls: [call(22_600, 0), call(23_100, 1)] });
    expect(row.ok).toBe(false);
    expect(row.measured).toContain('MISSING: key-wide 429');
    const lonely = othersResumeRow({ ...base, episodes: [believable, { kind: 'key-wide 429', at: 60_000, endsAt: 70_000, others: [] }], calls: [call(22_600, 0), call(23_100, 1)] });
    expect(lonely.ok).toBe(true);
    expect(lonely.measured).toContain('not judged (no other sidecar alive and sharing through it): key-wide 429 at 60.0 s');
  });

  it('finds the holds of the key-wide 429 faults as the shared-hold row does', () => {
    const fault: HoldFault = { armedAt: 1000, clearedAt: 30_000, status: 429, retryAfterMs: 86_400_000 };
    const holds = keyWideHolds([fault, { ...fault, endpoint: 'review' }], [call(2000, 0, 429), call(5000, 1, 429), call(12_500, 1, 429)], 10_000);
    expect(holds.map((hold) => [hold.at, hold.endsAt])).toEqual([
      [2000, 12_000],
      [12_500, 22_500],
    ]);
  });
});

describe('the key\'s window across a FLUSHALL', () => {
  const burst = (from: number, count: number, every = 10): number[] => Array.from({ length: count }, (_, i) => from + i * every);
  const base = { origin: 0, requests: 100, windowMs: W, restarts: [], required: true };

  it('holds R in the windows that straddle each FLUSHALL, with no budget 429', () => {
    const arrivals = [...burst(10_000, 100), ...burst(20_400, 100)];
    expect(flushWindowRow({ ...base, arrivals, budget429s: [], flushes: [[12_000, 13_000]] })).toMatchObject({ ok: true });
    // The wipe forgot the window: a second hundred within 10 s of the first.
    const over = flushWindowRow({ ...base, arrivals: [...burst(10_000, 100), ...burst(13_100, 100)], budget429s: [], flushes: [[12_000, 13_000]] });
    expect(over.ok).toBe(false);
    expect(over.measured).toContain('peak 200');
    expect(flushWindowRow({ ...base, arrivals, budget429s: [14_000], flushes: [[12_000, 13_000]] }).ok).toBe(false);
  });

  it('leaves a window that also straddles a Redis restart to the restart\'s row, and wants a FLUSHALL when the co-tenant is on', () => {
    // The second hundred comes as Redis restarts: those windows straddle both, and are the restart's.
    const arrivals = [...burst(11_500, 100), ...burst(21_000, 100)];
    expect(peakOverlapping(arrivals, W, [[12_000, 13_000]], []).peak).toBe(150);
    expect(peakOverlapping(arrivals, W, [[12_000, 13_000]], [[21_000, 22_000]]).peak).toBe(100);
    expect(flushWindowRow({ ...base, arrivals, budget429s: [], flushes: [] }).ok).toBe(false);
    expect(flushWindowRow({ ...base, arrivals, budget429s: [], flushes: [], required: false }).ok).toBe(true);
  });
});

describe('the co-tenant\'s acts: claims removed, doubts said once', () => {
  const process = (over: Partial<ProcessLines> = {}): ProcessLines => ({
    node: 'node1',
    lifetimeMs: 70_000,
    doubts: new Map([['holdBeyondCap', 1]]),
    wipes: 1,
    flushesSeen: 1,
    mustDoubtHold: true,
    ...over,
  });

  it('wants forged claims removed within the bound', () => {
    expect(forgedClaimsRow([{ at: 1000, removedAfterMs: 60 }], 11_350, true).ok).toBe(true);
    expect(forgedClaimsRow([{ at: 1000 }], 11_350, true).ok).toBe(false);
    expect(forgedClaimsRow([{ at: 1000, removedAfterMs: 12_000 }], 11_350, true).ok).toBe(false);
    expect(forgedClaimsRow([], 11_350, true).ok).toBe(false);
  });

  it('wants a hold beyond the cap said where it was met, and at most once a minute per process', () => {
    expect(doubtLinesRow([process(), process({ node: 'node3', doubts: new Map(), mustDoubtHold: false })], 0, 600).ok).toBe(true);
    expect(doubtLinesRow([process({ doubts: new Map() })], 0, 600).ok).toBe(false);
    // Once per decision: hundreds.
    expect(doubtLinesRow([process({ doubts: new Map([['holdBeyondCap', 300]]) })], 0, 600).ok).toBe(false);
    expect(doubtLinesRow([process({ doubts: new Map([['holdBeyondCap', 2]]) })], 0, 600).ok).toBe(true);
    expect(doubtLinesRow([process({ doubts: new Map([['holdBeyondCap', 3]]) })], 0, 600).ok).toBe(false);
  });

  it('wants forged claims said by whoever removed them, once per act; one wipe line per FLUSHALL lived through; no other doubt', () => {
    const claims = (n: number): Map<string, number> => new Map([['holdBeyondCap', 1], ['claimNotBelievable', n]]);
    expect(doubtLinesRow([process({ doubts: claims(1) }), process({ node: 'node2' })], 1, 600).ok).toBe(true);
    expect(doubtLinesRow([process(), process({ node: 'node2' })], 1, 600).ok).toBe(false);
    expect(doubtLinesRow([process({ doubts: claims(1) }), process({ node: 'node2', doubts: claims(1) })], 1, 600).ok).toBe(false);
    expect(doubtLinesRow([process({ wipes: 2 })], 0, 600).ok).toBe(false);
    expect(doubtLinesRow([process({ wipes: 0 })], 0, 600).ok).toBe(false);
    expect(doubtLinesRow([process({ doubts: new Map([['holdBeyondCap', 1], ['startsInTheFuture', 1]]) })], 0, 600).ok).toBe(false);
  });
});

describe('the day-long sidecar and nothing lost', () => {
  const held = {
    origin: 0,
    name: 'node3',
    heldAt: 2000,
    retryAfterMs: 86_400_000,
    callsAfter: 0,
    gaugeAtEnd: 86_330,
    readAfterMs: 70_000,
    warnLines: 1,
    reviewsWaiting: 28,
    actionsWaitingBefore: 0,
    actionsWaitingAfter: 12,
  };

  it('wants it to hold its own day: no call, the gauge near a day, one warning line, nothing from before left waiting', () => {
    expect(selfHeldRow(held).ok).toBe(true);
    expect(selfHeldRow({ ...held, callsAfter: 1 }).ok).toBe(false);
    expect(selfHeldRow({ ...held, gaugeAtEnd: 10 }).ok).toBe(false);
    expect(selfHeldRow({ ...held, gaugeAtEnd: undefined }).ok).toBe(false);
    expect(selfHeldRow({ ...held, warnLines: 0 }).ok).toBe(false);
    expect(selfHeldRow({ ...held, warnLines: 2 }).ok).toBe(false);
    expect(selfHeldRow({ ...held, actionsWaitingBefore: 1 }).ok).toBe(false);
  });

  it('wants no review lost and every action answered, but those the day-long sidecar holds for its day', () => {
    const node = { name: 'node1', acked: 20, lost: 0, actionsSent: 12, actionsUnanswered: 0, actionsHeld: 0 };
    expect(nothingLostRow([node, { ...node, name: 'node3', actionsUnanswered: 12, actionsHeld: 12 }]).ok).toBe(true);
    expect(nothingLostRow([{ ...node, lost: 1 }]).ok).toBe(false);
    expect(nothingLostRow([{ ...node, actionsUnanswered: 1 }]).ok).toBe(false);
    expect(nothingLostRow([]).ok).toBe(false);
  });
});

describe('soak options: --nodes', () => {
  it('is 1 by default (the single-node soak) and takes the Redis restart knobs', () => {
    expect(parseSoakOptions([])).toMatchObject({ nodes: 1, redisRestartEverySeconds: 120, redisDownSeconds: 3 });
    expect(parseSoakOptions(['--nodes', '3', '--redis-restart-every', '60', '--redis-down', '1'])).toMatchObject({ nodes: 3, redisRestartEverySeconds: 60, redisDownSeconds: 1 });
  });

  it('has the co-tenant and the day-long sidecar on unless turned off', () => {
    expect(parseSoakOptions(['--nodes', '3'])).toMatchObject({ cotenant: true, dayLong: true });
    expect(parseSoakOptions(['--nodes', '3', '--no-cotenant', '--no-day-long'])).toMatchObject({ cotenant: false, dayLong: false });
  });

  it('refuses more sidecars than calls per window', () => {
    expect(() => parseSoakOptions(['--nodes', '3', '--window-requests', '2'])).toThrow(SoakUsageError);
    expect(() => parseSoakOptions(['--nodes', '0'])).toThrow(SoakUsageError);
  });
});
