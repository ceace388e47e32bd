// The multi-node soak's schedule and judgement (multiNode.ts): when Redis restarts and which sidecar is killed, and
// the rows of issue 14's invariants for N sidecars on one key. Pure: times are ms on the soak's clock, arrivals come
// from the emulator's call log, switch times from the sidecars' own log lines; no I/O.
// Must never widen a bound because the machine is shared: where a row allows slack for the trip between a
// sidecar's decision and the emulator, the bound column says so and by how much.
import { fmt, type HoldFault, type InvariantRow } from './invariants.js';

/** A Redis restart: down at `down`, started again (answering PING) at `up`. */
export interface RedisOutage {
  readonly down: number;
  readonly up: number;
}

export interface KillPlan {
  /** When the sidecar gets `kill -9`. */
  readonly at: number;
  /** The survivors' busiest window is looked for in [measureFrom, measureTo): from one span after the kill. */
  readonly measureFrom: number;
  readonly measureTo: number;
  /** When the killed sidecar is started again (it stays dead while the others take its share). */
  readonly restartAt: number;
}

export interface MultiNodeSchedule {
  /** When Redis goes down, each time. */
  readonly restarts: readonly number[];
  readonly kill: KillPlan | undefined;
}

export interface ScheduleInput {
  readonly loadMs: number;
  readonly windowMs: number;
  /** The window as the shared budget keeps it (guarded interval + late-grant margin). */
  readonly spanMs: number;
  readonly restartEveryMs: number;
  readonly downMs: number;
  readonly kill: boolean;
}

/** After Redis answers again, the sidecars reconnect (node-redis backs off) and log "is back" within this. */
export const REJOIN_SETTLE_MS = 5000;
/** The kill at this fraction of the load phase. */
export const KILL_AT = 0.55;
/**
 * The first Redis restart at most this fraction into the load phase, so a 1-minute run has one (at 24 s): after the
 * first 429's hold (the start-up flood spends the first window at once, so that 429 meets the second, at ~10 s, and
 * holds the key until ~20 s) and before the kill.
 */
export const FIRST_RESTART_AT = 0.4;

/**
 * Redis goes down at min(every, 40% of the load) and every `restartEveryMs` after, while a restart and its rejoin fit
 * in the load phase; one sidecar is killed at 55% and kept dead for one span plus one window and 1 s (the window in
 * which the others must have taken its share), then started again. A restart whose outage and rejoin would overlap
 * the kill's span (from 1 s before the kill until the restarted sidecar settled) is left out: the kill's row and the
 * outage lines would each blur the other. The kill is left out when its measurement does not fit in the load phase.
 */
export function multiNodeSchedule(input: ScheduleInput): MultiNodeSchedule {
  const at = input.loadMs * KILL_AT;
  const measureFrom = at + input.spanMs;
  const measureTo = measureFrom + input.windowMs + 1000;
  const kill = input.kill && measureTo + 1000 < input.loadMs ? { at, measureFrom, measureTo, restartAt: measureTo } : undefined;
  const restarts: number[] = [];
  for (let down = Math.min(input.restartEveryMs, input.loadMs * FIRST_RESTART_AT); down + input.downMs + REJOIN_SETTLE_MS < input.loadMs; down += input.restartEveryMs) {
    const end = down + input.downMs + REJOIN_SETTLE_MS;
    if (kill !== undefined && end > kill.at - 1000 && down < kill.restartAt + REJOIN_SETTLE_MS) continue;
    restarts.push(down);
  }
  return { restarts, kill };
}

/** The most of `times` in any window of `windowMs` ending at one of them (arrivals less than windowMs apart). */
export function maxInAnyWindow(times: readonly number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last += 1) {
    while ((sorted[last] ?? 0) - (sorted[first] ?? 0) >= windowMs) first += 1;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

/** [from, to]: from the first sidecar's switch to its fallback (or Redis going down) to the last one's "is back". */
export type Interval = readonly [number, number];

/**
 * The key's arrivals split by window: windows (windowMs ending at an arrival) that overlap an interval in `straddle`
 * and the rest. A window overlaps [a, b] when it ends after a and starts before b.
 */
export function splitWindows(times: readonly number[], windowMs: number, straddle: readonly Interval[]): { outside: number; straddling: number; outsideAt: number | null } {
  const sorted = [...times].sort((a, b) => a - b);
  let outside = 0;
  let straddling = 0;
  let outsideAt: number | null = null;
  let first = 0;
  for (let last = 0; last < sorted.length; last += 1) {
    const end = sorted[last] ?? 0;
    while (end - (sorted[first] ?? 0) >= windowMs) first += 1;
    const count = last - first + 1;
    const overlaps = straddle.some(([a, b]) => end >= a && end - windowMs < b);
    if (overlaps) straddling = Math.max(straddling, count);
    else if (count > outside) {
      outside = count;
      outsideAt = end;
    }
  }
  return { outside, straddling, outsideAt };
}

/** Whether a budget 429 at `at` was answered for a window that overlaps a straddle interval. */
function inStraddle(at: number, windowMs: number, straddle: readonly Interval[]): boolean {
  return straddle.some(([a, b]) => at >= a && at - windowMs < b);
}

/** The calls the emulator's enforced budget refused: 429s outside every armed key-wide 429 fault (those answer first). */
export function budget429Times(calls: readonly { readonly at: number; readonly status: number }[], faults: readonly HoldFault[]): number[] {
  const injected = faults.filter((fault) => fault.status === 429 && fault.endpoint === undefined);
  return calls.filter((call) => call.status === 429 && !injected.some((fault) => call.at >= fault.armedAt && call.at <= fault.clearedAt)).map((call) => call.at);
}

export interface KeyWindowFigures {
  /** The run's start: times are printed from it. */
  readonly origin: number;
  readonly requests: number;
  readonly windowMs: number;
  readonly nodes: number;
  /** Every arrival at the emulator, every sidecar, every generation. */
  readonly arrivals: readonly number[];
  readonly budget429s: readonly number[];
  /** What the emulator's budget says it refused, to check the 429s found in the call log against. */
  readonly refusedByBudget: number;
  readonly straddle: readonly Interval[];
}

/**
 * Two rows: while Redis is up (windows that overlap no straddle interval) at most R arrivals in any window and no
 * budget 429; across a Redis restart at most R + (N − 1)·floor(R/N) (docs/api-budget.md, "The bound").
 */
export function keyWindowRows(f: KeyWindowFigures): InvariantRow[] {
  const split = splitWindows(f.arrivals, f.windowMs, f.straddle);
  const outside429 = f.budget429s.filter((at) => !inStraddle(at, f.windowMs, f.straddle)).length;
  const inside429 = f.budget429s.length - outside429;
  const share = Math.max(1, Math.floor(f.requests / f.nodes));
  const overshoot = f.requests + (f.nodes - 1) * share;
  return [
    {
      name: 'the key\'s window across all sidecars, Redis up',
      ok: split.outside <= f.requests && outside429 === 0 && f.arrivals.length > 0 && f.budget429s.length === f.refusedByBudget,
      measured:
        `peak ${split.outside} arrivals in any ${f.windowMs} ms${split.outsideAt === null ? '' : ` (at ${fmt(split.outsideAt - f.origin)})`} of ${f.arrivals.length}; ` +
        `${outside429} budget 429s ("Too Many Attempts.") outside the restarts' windows (${f.budget429s.length} in all, the emulator counted ${f.refusedByBudget})`,
      bound: `≤ ${f.requests} per ${f.windowMs} ms, 0 budget 429s`,
    },
    {
      name: 'a window straddling a Redis restart',
      ok: split.straddling <= overshoot,
      measured:
        f.straddle.length === 0
          ? 'no restart'
          : `peak ${split.straddling} in any ${f.windowMs} ms overlapping ${f.straddle.map(([a, b]) => `${fmt(a - f.origin)}–${fmt(b - f.origin)}`).join(', ')}; ${inside429} budget 429s there`,
      bound: `≤ R + (N − 1)·floor(R/N) = ${f.requests} + ${f.nodes - 1}·${share} = ${overshoot}`,
    },
  ];
}

/** One call at the emulator, with the sidecar it came from (its index; -1 when unknown). */
export interface NodeCall {
  readonly at: number;
  readonly node: number;
  readonly status: number;
}

/**
 * A 429 with Retry-After answered to one sidecar holds every sidecar. The 429s of the key-wide 429 faults, in time
 * order, make holds: one starts at a 429 that arrives after the last hold ended, and lasts min(Retry-After, cap). In
 * each, no arrival of any sidecar in [start + slackMs, end). `slackMs` covers what was already on its way: the 429
 * read by its sidecar, the hold's round trip to Redis, grants given just before it (used at most LATE_GRANT_MS after
 * Redis counted them) and their trip to the emulator. Holds that overlap `unshared` (Redis away: each sidecar holds
 * only itself then) are not judged.
 */
export function sharedHoldRow(faults: readonly HoldFault[], calls: readonly NodeCall[], capMs: number, slackMs: number, unshared: readonly Interval[], origin = 0): InvariantRow {
  let judged = 0;
  const skipped: number[] = [];
  let arrivalsInHolds = 0;
  const nodesGot: number[] = [];
  const sorted = [...calls].sort((a, b) => a.at - b.at);
  for (const fault of faults) {
    if (fault.status !== 429 || fault.endpoint !== undefined) continue;
    const answered = sorted.filter((call) => call.status === 429 && call.at >= fault.armedAt && call.at <= fault.clearedAt);
    let holdEnd = -Infinity;
    for (const call of answered) {
      if (call.at < holdEnd) continue;
      const start = call.at;
      holdEnd = start + Math.min(fault.retryAfterMs, capMs);
      if (unshared.some(([a, b]) => start < b && holdEnd > a)) {
        skipped.push(start);
        continue;
      }
      judged += 1;
      nodesGot.push(new Set(answered.filter((other) => other.at >= start && other.at < start + slackMs).map((other) => other.node)).size);
      arrivalsInHolds += sorted.filter((other) => other.at >= start + slackMs && other.at < holdEnd).length;
    }
  }
  return {
    name: 'a 429 to one sidecar holds the others',
    ok: arrivalsInHolds === 0 && judged > 0,
    measured:
      `${judged} holds after a key-wide 429 judged (${skipped.length} during a Redis restart not judged${skipped.length === 0 ? '' : `: at ${skipped.map((at) => fmt(at - origin)).join(', ')}`}); ${arrivalsInHolds} arrivals inside them; ` +
      `sidecars that got a 429 within the slack, per hold: ${nodesGot.length === 0 ? '–' : nodesGot.join(', ')}`,
    bound: `0 arrivals from ${fmt(slackMs)} after the 429 until min(Retry-After, ${fmt(capMs)}) after it (the slack: calls already granted or on their way)`,
  };
}

export interface NodeLines {
  readonly name: string;
  /** "cannot be reached" and "is back" lines this sidecar logged, every generation. */
  readonly warns: number;
  readonly backs: number;
  /** Outages this sidecar lived through (one generation running from the outage until after it). */
  readonly outagesSeen: number;
  /** Chat verdicts its mod got while it was on its fallback. */
  readonly verdictsOnFallback: number;
  /** Its calls that arrived at the emulator meanwhile (printed; the bound across a restart is keyWindowRows'). */
  readonly callsOnFallback?: number;
  /** gsa_bridge_budget_shared read from its /metrics during each outage it saw (0 expected). */
  readonly sharedDuringOutage: readonly (number | undefined)[];
}

/** One warning and one "is back" line per outage per sidecar; each kept serving chat meanwhile and said shared 0. */
export function redisLinesRow(nodes: readonly NodeLines[]): InvariantRow {
  const ok = nodes.every(
    (node) =>
      node.warns === node.outagesSeen &&
      node.backs === node.outagesSeen &&
      (node.outagesSeen === 0 || node.verdictsOnFallback > 0) &&
      node.sharedDuringOutage.every((value) => value === 0),
  );
  return {
    name: 'Redis restarts: one warn and one back line per outage per sidecar, serving on floor(R/N)',
    ok: ok && nodes.some((node) => node.outagesSeen > 0),
    measured: nodes
      .map(
        (node) =>
          `${node.name}: ${node.warns} warn / ${node.backs} back of ${node.outagesSeen} outage(s), ${node.verdictsOnFallback} verdicts and ${node.callsOnFallback ?? '?'} calls on the fallback, ` +
          `shared ${node.sharedDuringOutage.map((value) => (value === undefined ? '?' : String(value))).join('/') || '–'} during`,
      )
      .join('; '),
    bound: 'warn = back = outages seen, > 0 verdicts on the fallback, gsa_bridge_budget_shared 0 during',
  };
}

/** gsa_bridge_budget_shared read from every sidecar's /metrics at the end of the load, before SIGTERM. */
export function sharedAtEndRow(values: readonly { readonly name: string; readonly value: number | undefined }[]): InvariantRow {
  return {
    name: 'gsa_bridge_budget_shared = 1 on every sidecar at the end',
    ok: values.length > 0 && values.every((entry) => entry.value === 1),
    measured: values.map((entry) => `${entry.name} ${entry.value === undefined ? 'absent' : String(entry.value)}`).join(', '),
    bound: '1 on each',
  };
}

export interface KillFigures {
  /** The run's start: times are printed from it. */
  readonly origin: number;
  readonly victim: string;
  readonly requests: number;
  readonly nodes: number;
  readonly windowMs: number;
  /** The survivors' arrivals in [at − windowMs, measureTo). */
  readonly survivorTimes: readonly number[];
  readonly plan: KillPlan;
  /** The least the survivors must reach in one window after the kill. */
  readonly minimum: number;
}

/**
 * `kill -9` of one sidecar: its starts leave the shared window one span after the kill and its claims lapse a grace
 * after the wait it was told, so from then on the survivors, whose chat wants more than the whole budget, have all of
 * it. Their busiest window in [measureFrom, measureTo) must reach `minimum`; the window before the kill is printed
 * (what they had while the victim took its share).
 */
export function killShareRow(f: KillFigures): InvariantRow {
  const before = maxInAnyWindow(
    f.survivorTimes.filter((at) => at >= f.plan.at - f.windowMs && at < f.plan.at),
    f.windowMs,
  );
  const after = maxInAnyWindow(
    f.survivorTimes.filter((at) => at >= f.plan.measureFrom && at < f.plan.measureTo),
    f.windowMs,
  );
  return {
    name: 'kill -9 of one sidecar: the others take its share within one window',
    ok: after >= f.minimum,
    measured: `killed ${f.victim} at ${fmt(f.plan.at - f.origin)}; the other ${f.nodes - 1}: ${before} in their busiest window before it, ${after} in their busiest window from one span after it (${fmt(f.plan.measureFrom - f.origin)}–${fmt(f.plan.measureTo - f.origin)})`,
    bound: `≥ ${f.minimum} of ${f.requests} (their ${f.nodes - 1}/${f.nodes} before the kill: ${Math.floor((f.requests * (f.nodes - 1)) / f.nodes)})`,
  };
}

/** A per-sidecar copy of a row: its name says which sidecar. */
export function forNode(name: string, row: InvariantRow): InvariantRow {
  return { ...row, name: `[${name}] ${row.name}` };
}

/** Which outages a sidecar lived through: one of its generations ran from before `down` until after `up` + settle. */
export function outagesSeen(lifetimes: readonly Interval[], outages: readonly RedisOutage[], settleMs = REJOIN_SETTLE_MS): number {
  return outages.filter((outage) => lifetimes.some(([from, to]) => from <= outage.down && to >= outage.up + settleMs)).length;
}
