// The multi-node soak's schedule and judgement (multiNode.ts): when Redis restarts, which sidecar is killed and when
// the hostile co-tenant acts, and the rows of issue 14's and issue 19's invariants for N sidecars on one key. Pure:
// times are ms on the soak's clock, arrivals come from the emulator's call log, switch times from the sidecars' own
// log lines; no I/O.
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
  /** When each round of the co-tenant's acts begins (its FLUSHALL; ROUND for the rest). */
  readonly rounds: readonly number[];
}

export interface ScheduleInput {
  readonly loadMs: number;
  readonly windowMs: number;
  /** The window as the shared budget keeps it (guarded interval + late-grant margin). */
  readonly spanMs: number;
  readonly restartEveryMs: number;
  readonly downMs: number;
  readonly kill: boolean;
  /** Rounds of the hostile co-tenant's acts. @default false */
  readonly cotenant?: boolean;
}

/** After Redis answers again, the sidecars reconnect (node-redis backs off) and log "is back" within this. */
export const REJOIN_SETTLE_MS = 5000;
/** The kill at this fraction of the load phase. */
export const KILL_AT = 0.6;
/**
 * The first Redis restart at most this fraction into the load phase, so a 1-minute run has one (at 27 s): after the
 * first 429's hold (armed as the load starts: it holds the key for the first 10 s) and the co-tenant's first round,
 * and before the kill.
 */
export const FIRST_RESTART_AT = 0.45;

/**
 * One round of the co-tenant's acts (coTenant.ts), ms from the round's start: FLUSHALL at 0, while the window is
 * full (the load wants far more than the key allows); its claims on every class; a hold 10 years ahead, deleted
 * after `farHoldKeepMs`; then, once the window will have room within a second (waiting at most `roomWaitMs`: the
 * sidecars then ask while it stands), a hold `believableAheadMs` ahead (within the sidecars' cap of one window),
 * deleted after `believableKeepMs`.
 * `lengthMs` ends a recheck and a slack after that delete, with a margin.
 */
export const ROUND = {
  claimsAtMs: 1000,
  farHoldAtMs: 1500,
  farHoldKeepMs: 3000,
  believableFromMs: 5000,
  roomWaitMs: 4000,
  believableAheadMs: 8000,
  believableKeepMs: 2000,
  lengthMs: 13_500,
} as const;
/** The first round a window and 2 s into the load: after the hold of the key-wide 429 armed as the load starts. */
export const FIRST_ROUND_AFTER_WINDOW_MS = 2000;
/** Rounds come this often (each moved later past a Redis restart or the kill). */
export const ROUND_EVERY_MS = 60_000;

/** True when [a0, a1] and [b0, b1] share a moment. */
const overlaps = (a0: number, a1: number, b0: number, b1: number): boolean => a0 <= b1 && b0 <= a1;

/**
 * Redis goes down at min(every, 45% of the load) and every `restartEveryMs` after, while a restart and its rejoin fit
 * in the load phase; one sidecar is killed at 60% and kept dead for one span plus one window and 1 s (the window in
 * which the others must have taken its share), then started again. A restart whose outage and rejoin would overlap
 * the kill's span (from 1 s before the kill until the restarted sidecar settled) is left out: the kill's row and the
 * outage lines would each blur the other. The kill is left out when its measurement does not fit in the load phase.
 * The co-tenant's rounds begin a window and 2 s into the load and every minute after, each moved later until neither
 * it nor the windows straddling its FLUSHALL meet a restart (its outage, rejoin and straddling windows) or the kill
 * (from 1 s before it until the killed sidecar settled again); a round that no longer fits in the load is left out.
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
  const rounds: number[] = [];
  if (input.cotenant === true) {
    const busy: Interval[] = restarts.map((down) => [down - 1000, down + input.downMs + REJOIN_SETTLE_MS + input.windowMs] as const);
    if (kill !== undefined) busy.push([kill.at - 1000, kill.restartAt + REJOIN_SETTLE_MS]);
    const footprint = Math.max(ROUND.lengthMs, input.windowMs + 2000);
    for (let nominal = input.windowMs + FIRST_ROUND_AFTER_WINDOW_MS; nominal < input.loadMs; nominal += ROUND_EVERY_MS) {
      let at = Math.max(nominal, (rounds.at(-1) ?? -Infinity) + footprint + 1000);
      for (let moved = true; moved; ) {
        moved = false;
        for (const [from, to] of busy) {
          if (overlaps(at - 1000, at + footprint, from, to)) {
            at = to + 1001;
            moved = true;
          }
        }
      }
      if (at + ROUND.lengthMs < input.loadMs) rounds.push(at);
    }
  }
  return { restarts, kill, rounds };
}

/**
 * When a key-wide 429 may be armed at `t` without its hold meeting a co-tenant's round: not from `guardMs` before a
 * round (the fault may wait a window for a call to meet, then hold for the cap) until the round ends.
 */
export function keyWide429From(t: number, rounds: readonly number[], guardMs: number): number {
  let from = t;
  for (const round of rounds) if (from >= round - guardMs && from < round + ROUND.lengthMs) from = round + ROUND.lengthMs;
  return from;
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

/** A hold a key-wide 429 fault caused: from its 429's arrival for min(Retry-After, cap); the fault's 429s with it. */
export interface KeyWideHold {
  readonly at: number;
  readonly endsAt: number;
  readonly answered: readonly NodeCall[];
}

/**
 * The holds of the key-wide 429 faults, in time order: one starts at a 429 of the fault that arrives after the last
 * hold ended, and lasts min(Retry-After, cap).
 */
export function keyWideHolds(faults: readonly HoldFault[], calls: readonly NodeCall[], capMs: number): KeyWideHold[] {
  const sorted = [...calls].sort((a, b) => a.at - b.at);
  const holds: KeyWideHold[] = [];
  for (const fault of faults) {
    if (fault.status !== 429 || fault.endpoint !== undefined) continue;
    const answered = sorted.filter((call) => call.status === 429 && call.at >= fault.armedAt && call.at <= fault.clearedAt);
    let holdEnd = -Infinity;
    for (const call of answered) {
      if (call.at < holdEnd) continue;
      holdEnd = call.at + Math.min(fault.retryAfterMs, capMs);
      holds.push({ at: call.at, endsAt: holdEnd, answered });
    }
  }
  return holds;
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
  for (const hold of keyWideHolds(faults, calls, capMs)) {
    const start = hold.at;
    const holdEnd = hold.endsAt;
    if (unshared.some(([a, b]) => start < b && holdEnd > a)) {
      skipped.push(start);
      continue;
    }
    judged += 1;
    nodesGot.push(new Set(hold.answered.filter((other) => other.at >= start && other.at < start + slackMs).map((other) => other.node)).size);
    arrivalsInHolds += sorted.filter((other) => other.at >= start + slackMs && other.at < holdEnd).length;
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

/**
 * The earliest moment from `from` on at which the key's window has room again if nobody arrives meanwhile: fewer than
 * `requests` of `arrivals` (at the emulator, every sidecar) in the span that ends then.
 */
export function roomAt(arrivals: readonly number[], from: number, spanMs: number, requests: number): number {
  const recent = arrivals.filter((at) => at > from - spanMs && at <= from).sort((a, b) => a - b);
  if (recent.length < requests) return from;
  return (recent[recent.length - requests] ?? from) + spanMs;
}

export type HoldEpisodeKind = 'day-long 429 to one sidecar' | 'key-wide 429' | 'forged 10 years ahead' | 'forged within the cap';

/** A hold the others may meet in Redis: one GSA gave (to one sidecar, or key-wide), or one the co-tenant forged. */
export interface HoldEpisode {
  readonly kind: HoldEpisodeKind;
  /** When it began: the 429's arrival at the emulator, or when Redis had answered the forged write. */
  readonly at: number;
  /** A forged hold: when Redis had answered its DEL. */
  readonly deletedAt?: number;
  /** The end it named: the forged value, or the 429's arrival plus the Retry-After. */
  readonly endsAt: number;
  /** The sidecars judged (indexes): alive and sharing from before it until well after, none under a longer hold of its own. */
  readonly others: readonly number[];
  /** A forged hold: when the window as Redis held it at the delete had room again (coTenant.ts); undefined: not read. */
  readonly roomAt?: number | undefined;
  /** gsa_bridge_budget_hold_seconds read from each of `others` (same order) a second into it; undefined: not read. */
  readonly gauges?: readonly (number | undefined)[] | undefined;
}

export interface ResumeFigures {
  /** The run's start: times are printed from it. */
  readonly origin: number;
  readonly names: readonly string[];
  readonly episodes: readonly HoldEpisode[];
  readonly calls: readonly NodeCall[];
  /** The other sidecars' own cap on a hold (api.retry.maxRetryAfterMs). */
  readonly capMs: number;
  /** How often a sidecar waiting on a hold it believes asks again (HOLD_RECHECK_MS). */
  readonly recheckMs: number;
  /** Calls granted before the sidecars saw the change, and their trip to the emulator. */
  readonly slackMs: number;
  readonly spanMs: number;
  readonly requests: number;
  /** Kinds the run must have judged at least once. */
  readonly required: readonly HoldEpisodeKind[];
}

interface Judged {
  readonly episode: HoldEpisode;
  /** The moment the resume is measured from, and the latest allowed resume. */
  readonly from: number;
  readonly resumeBy: number;
  /** Per judged sidecar: ms from `from` to its next arrival (undefined: none). */
  readonly gaps: readonly (number | undefined)[];
  /** Arrivals of the judged sidecars while a believable forged hold stood (after the slack). */
  readonly whileHeld: number;
  readonly gaugesOk: boolean;
  /**
   * A believable forged hold deleted early: a judged sidecar decided while it stood (its hold gauge above 0) and the
   * resume bound ends before the forged end, so a resume at the forged end would fail.
   */
  readonly telling: boolean;
  readonly ok: boolean;
}

/** How much of [from, to] the intervals cover, overlaps counted once. */
function coveredMs(intervals: readonly Interval[], from: number, to: number): number {
  const spans = intervals
    .filter(([a, b]) => b > from && a < to)
    .map(([a, b]) => [Math.max(from, a), Math.min(to, b)] as const)
    .sort((x, y) => x[0] - y[0]);
  let covered = 0;
  let reached = from;
  for (const [a, b] of spans) {
    if (b <= reached) continue;
    covered += b - Math.max(a, reached);
    reached = b;
  }
  return covered;
}

/** When a believable hold stopped holding the others: its delete (or end), and their recheck after it. */
function heldUntil(f: ResumeFigures, episode: HoldEpisode): Interval | undefined {
  if (episode.endsAt - episode.at > f.capMs) return undefined;
  return [episode.at, (episode.deletedAt ?? episode.endsAt) + f.recheckMs];
}

function judgeEpisode(f: ResumeFigures, arrivals: readonly number[], byNode: ReadonlyMap<number, number[]>, episode: HoldEpisode): Judged {
  const believable = episode.endsAt - episode.at <= f.capMs;
  let from: number;
  let resumeBy: number;
  let after: number;
  if (believable && episode.deletedAt !== undefined) {
    // Removed: the others ask again within the recheck and go, unless the window itself has no room yet.
    from = episode.deletedAt;
    resumeBy = Math.max(from + f.recheckMs, roomAt(arrivals, from, f.spanMs, f.requests), episode.roomAt ?? -Infinity) + f.slackMs;
    after = from;
  } else if (believable) {
    // GSA's own hold, within the cap: it ends, then the same.
    from = episode.at;
    resumeBy = Math.max(episode.endsAt + f.recheckMs, roomAt(arrivals, episode.endsAt, f.spanMs, f.requests)) + f.slackMs;
    after = episode.at + f.slackMs;
  } else {
    // Beyond the others' cap: not believed; they never wait longer than their own cap for any hold.
    from = episode.at;
    resumeBy = episode.at + f.capMs + f.recheckMs + f.slackMs;
    after = episode.at;
  }
  // Time under another hold the others believed (GSA's, or a believable forged one that came meanwhile) is that
  // hold's, not this one's: the bound moves by as much.
  const otherHolds = f.episodes.filter((other) => other !== episode).flatMap((other) => {
    const held = heldUntil(f, other);
    return held === undefined ? [] : [held];
  });
  for (let extended = 0, k = 0; k < 4; k += 1) {
    const covered = coveredMs(otherHolds, from, resumeBy);
    if (covered <= extended) break;
    resumeBy += covered - extended;
    extended = covered;
  }
  const gaps = episode.others.map((node) => {
    const next = (byNode.get(node) ?? []).find((at) => at >= after);
    return next === undefined ? undefined : next - from;
  });
  const whileHeld =
    believable && episode.deletedAt !== undefined
      ? episode.others.reduce((sum, node) => sum + (byNode.get(node) ?? []).filter((at) => at >= episode.at + f.slackMs && at < (episode.deletedAt ?? 0)).length, 0)
      : 0;
  // At most their own cap, whatever the hold: a sidecar that followed a hold beyond it would show that hold's length.
  // (Not 0 for one beyond the cap: another hold may be in force meanwhile, GSA's budget 429 for one.)
  const capSeconds = f.capMs / 1000;
  const gaugesOk = (episode.gauges ?? []).every((gauge) => gauge === undefined || gauge <= capSeconds);
  const telling = resumeBy < episode.endsAt && (episode.gauges ?? []).some((gauge) => gauge !== undefined && gauge > 0);
  const ok = gaps.every((gap) => gap !== undefined && from + gap <= resumeBy) && whileHeld === 0 && gaugesOk;
  return { episode, from, resumeBy, gaps, whileHeld, gaugesOk, telling, ok };
}

/**
 * Every hold episode, whatever set it: after it, each other sidecar arrives at the emulator again within its own cap
 * plus a recheck and the slack, measured from the start (a hold beyond its cap is not believed; GSA's hold ends at
 * the capped Retry-After) or from the delete (a believable forged hold deleted early must stop holding at once, not
 * at the forged end). Where the window itself had no room yet, the resume may wait for it (read from the arrivals).
 */
export function othersResumeRow(f: ResumeFigures): InvariantRow {
  const arrivals = f.calls.map((call) => call.at);
  const byNode = new Map<number, number[]>();
  for (const call of [...f.calls].sort((a, b) => a.at - b.at)) {
    const list = byNode.get(call.node) ?? [];
    list.push(call.at);
    byNode.set(call.node, list);
  }
  // A hold no sidecar could be judged after (each was dead, held its own day or on its fallback) is not judged.
  const unjudged = f.episodes.filter((episode) => episode.others.length === 0);
  const judged = f.episodes.filter((episode) => episode.others.length > 0).map((episode) => judgeEpisode(f, arrivals, byNode, episode));
  const kinds = [...new Set([...f.required, ...judged.map((j) => j.episode.kind)])];
  const missing = f.required.filter((kind) => !judged.some((j) => j.episode.kind === kind));
  const untold = judged.filter((j) => j.episode.kind === 'forged within the cap');
  const told = untold.filter((j) => j.telling).length;
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const parts = kinds.map((kind) => {
    const of = judged.filter((j) => j.episode.kind === kind);
    if (of.length === 0) return `${kind}: none`;
    const worst = of.reduce<{ gap: number; bound: number } | undefined>((w, j) => {
      for (const gap of j.gaps) {
        const candidate = { gap: gap ?? Infinity, bound: j.resumeBy - j.from };
        if (w === undefined || candidate.gap - candidate.bound > w.gap - w.bound) w = candidate;
      }
      return w;
    }, undefined);
    const failed = of.filter((j) => !j.ok);
    const extra =
      kind === 'forged within the cap'
        ? `; ${of.reduce((sum, j) => sum + j.whileHeld, 0)} arrivals while it stood; the forged end ${of.map((j) => s(j.episode.endsAt - j.from)).join('/')} after the delete; ${told} of ${of.length} telling`
        : '';
    const gauges = of.flatMap((j) => j.episode.gauges ?? []);
    return (
      `${kind} ×${of.length}: next arrival of each other sidecar ${kind === 'forged within the cap' ? 'after the delete' : 'after the start'} at worst ` +
      `${worst === undefined || !Number.isFinite(worst.gap) ? 'never' : s(worst.gap)} (bound ${worst === undefined ? '–' : s(worst.bound)})${extra}` +
      (gauges.length === 0 ? '' : `; their hold gauge ${gauges.map((g) => (g === undefined ? '?' : g.toFixed(0))).join('/')} s`) +
      (failed.length === 0
        ? ''
        : `; FAILED at ${failed.map((j) => `${fmt(j.episode.at - f.origin)} (${j.episode.others.map((node, k) => `${f.names[node] ?? node} ${j.gaps[k] === undefined ? 'never' : s(j.gaps[k] ?? 0)}`).join(', ')})`).join(', ')}`)
    );
  });
  return {
    name: 'others resume within their own cap after every hold (GSA\'s, a day-long one, a forged one)',
    ok: judged.every((j) => j.ok) && missing.length === 0 && (untold.length === 0 || told > 0),
    measured:
      parts.join('; ') +
      (unjudged.length === 0 ? '' : `; not judged (no other sidecar alive and sharing through it): ${unjudged.map((e) => `${e.kind} at ${fmt(e.at - f.origin)}`).join(', ')}`) +
      (missing.length === 0 ? '' : `; MISSING: ${missing.join(', ')}`),
    bound:
      `each other sidecar's next arrival ≤ start + its cap ${s(f.capMs)} + recheck ${s(f.recheckMs)} + slack ${s(f.slackMs)} (for GSA's hold: its capped end instead of the cap); ` +
      `a believable forged hold deleted early: ≤ delete + ${s(f.recheckMs)} + ${s(f.slackMs)}, 0 arrivals while it stood, at least one met while it stood (gauge > 0) and resumed before the forged end; ` +
      `later only where the window had no room yet (by the arrivals, or as Redis held it at the delete) or another believable hold came meanwhile; their hold gauge ≤ ${f.capMs / 1000} s`,
  };
}

/** The most arrivals in a window (windowMs, ending at an arrival) that overlaps one of `include` and none of `exclude`. */
export function peakOverlapping(times: readonly number[], windowMs: number, include: readonly Interval[], exclude: readonly Interval[]): { peak: number; at: number | null; windows: number } {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let at: number | null = null;
  let windows = 0;
  let first = 0;
  for (let last = 0; last < sorted.length; last += 1) {
    const end = sorted[last] ?? 0;
    while (end - (sorted[first] ?? 0) >= windowMs) first += 1;
    if (!inStraddle(end, windowMs, include) || inStraddle(end, windowMs, exclude)) continue;
    windows += 1;
    if (last - first + 1 > peak) {
      peak = last - first + 1;
      at = end;
    }
  }
  return { peak, at, windows };
}

export interface FlushFigures {
  /** The run's start: times are printed from it. */
  readonly origin: number;
  readonly requests: number;
  readonly windowMs: number;
  readonly arrivals: readonly number[];
  readonly budget429s: readonly number[];
  /** Each FLUSHALL: from it until the last sidecar said it had put its starts back (at least the rebuild's grace). */
  readonly flushes: readonly Interval[];
  /** The Redis restarts' straddles: a window overlapping one is the restart row's. */
  readonly restarts: readonly Interval[];
  /** The run must have judged a FLUSHALL (the co-tenant is on). */
  readonly required: boolean;
}

/**
 * A FLUSHALL under load wipes the window with the rest; every sidecar puts its own starts back before anyone starts
 * again, so the windows straddling it keep the bound of Redis up: at most R, and no budget 429.
 */
export function flushWindowRow(f: FlushFigures): InvariantRow {
  const { peak, at, windows } = peakOverlapping(f.arrivals, f.windowMs, f.flushes, f.restarts);
  const refused = f.budget429s.filter((t) => inStraddle(t, f.windowMs, f.flushes) && !inStraddle(t, f.windowMs, f.restarts)).length;
  return {
    name: 'a window straddling a FLUSHALL under load',
    ok: peak <= f.requests && refused === 0 && (!f.required || (f.flushes.length > 0 && windows > 0)),
    measured:
      f.flushes.length === 0
        ? 'no FLUSHALL'
        : `${f.flushes.length} FLUSHALL (${f.flushes.map(([a, b]) => `${fmt(a - f.origin)}, rebuilt by ${fmt(b - f.origin)}`).join('; ')}): ` +
          `peak ${peak} in any ${f.windowMs} ms overlapping one${at === null ? '' : ` (at ${fmt(at - f.origin)})`} of ${windows} such windows; ${refused} budget 429s there`,
    bound: `≤ ${f.requests} per ${f.windowMs} ms, 0 budget 429s (as with Redis up)`,
  };
}

/** What one sidecar process logged about Redis's values, and what it lived through. */
export interface ProcessLines {
  readonly node: string;
  readonly lifetimeMs: number;
  /** Lines per doubt (DOUBT's names, redisBudgetReplies.ts) this process logged. */
  readonly doubts: ReadonlyMap<string, number>;
  /** "the shared state … was wiped or rebuilt" lines. */
  readonly wipes: number;
  /** FLUSHALLs it lived through while sharing (running from 1 s before until 3 s after). */
  readonly flushesSeen: number;
  /** It decided in Redis while a hold beyond its own cap was there (another sidecar's day-long one): it must say so. */
  readonly mustDoubtHold: boolean;
}

/** The same doubt is logged when it appears, then at most once in this long (redisBudget.ts, DOUBT_LINE_EVERY_MS). */
export const DOUBT_LINE_EVERY_MS = 60_000;

/**
 * The co-tenant's acts are said once, not once per decision: a hold beyond a sidecar's cap once per process (and at
 * most once a minute while it keeps coming back), its forged claims once per act by whichever sidecar removed them,
 * a FLUSHALL once per sidecar that lived through it; no other doubt.
 */
export function doubtLinesRow(processes: readonly ProcessLines[], claimActs: number, decisions: number): InvariantRow {
  const count = (doubt: string): number => processes.reduce((sum, p) => sum + (p.doubts.get(doubt) ?? 0), 0);
  const holdOk = processes.every((p) => {
    const lines = p.doubts.get('holdBeyondCap') ?? 0;
    return lines <= 1 + Math.floor(p.lifetimeMs / DOUBT_LINE_EVERY_MS) && (!p.mustDoubtHold || lines >= 1);
  });
  const claims = count('claimNotBelievable');
  const claimsOk = claims <= claimActs && (claimActs === 0 || claims >= 1);
  const wipesOk = processes.every((p) => p.wipes === p.flushesSeen);
  const others = new Map<string, number>();
  for (const p of processes) for (const [doubt, n] of p.doubts) if (doubt !== 'holdBeyondCap' && doubt !== 'claimNotBelievable' && n > 0) others.set(doubt, (others.get(doubt) ?? 0) + n);
  const byNode = new Map<string, ProcessLines[]>();
  for (const p of processes) byNode.set(p.node, [...(byNode.get(p.node) ?? []), p]);
  return {
    name: 'the co-tenant\'s acts logged once per act, not per decision',
    ok: holdOk && claimsOk && wipesOk && others.size === 0,
    measured:
      [...byNode]
        .map(([node, list]) => `${node}: hold beyond its cap ${list.map((p) => p.doubts.get('holdBeyondCap') ?? 0).join('+')}, wiped ${list.map((p) => `${p.wipes}/${p.flushesSeen}`).join('+')}`)
        .join('; ') +
      `; forged claims ${claims} line(s) for ${claimActs} act(s); other doubts ${others.size === 0 ? 'none' : [...others].map(([d, n]) => `${d} ${n}`).join(', ')}; ${decisions} calls on the key in all`,
    bound: `hold beyond the cap: ≥ 1 where one was met, ≤ 1 + 1 a minute per process; claims: 1 to ${claimActs}; wiped: one per FLUSHALL lived through; no other doubt`,
  };
}

/** The forged claims' acts: when the sidecars had removed them. */
export function forgedClaimsRow(acts: readonly { readonly at: number; readonly removedAfterMs?: number | undefined; readonly error?: string | undefined }[], boundMs: number, required: boolean, origin = 0): InvariantRow {
  const slow = acts.filter((act) => act.removedAfterMs === undefined || act.removedAfterMs > boundMs);
  return {
    name: 'a co-tenant\'s claims on every class, 10 years long, removed',
    ok: slow.length === 0 && (!required || acts.length > 0),
    measured:
      acts.length === 0
        ? 'no forged claims'
        : `${acts.length} act(s): removed ${acts.map((act) => (act.removedAfterMs === undefined ? `NOT within the poll${act.error === undefined ? '' : ` (${act.error})`}` : fmt(act.removedAfterMs))).join(', ')} after the write at ${acts.map((act) => fmt(act.at - origin)).join(', ')}`,
    bound: `each ≤ ${fmt(boundMs)} (a decision comes at least once a span while calls wait)`,
  };
}

/** The sidecar whose own cap lets it honour a day-long Retry-After: it holds the day itself, nobody else does. */
export interface SelfHeldFigures {
  readonly origin: number;
  readonly name: string;
  /** When its 429 arrived at the emulator. */
  readonly heldAt: number;
  readonly retryAfterMs: number;
  /** Its arrivals at the emulator after that one. */
  readonly callsAfter: number;
  /** gsa_bridge_budget_hold_seconds at the end of the load, and how long after the 429 it was read. */
  readonly gaugeAtEnd: number | undefined;
  readonly readAfterMs: number;
  /** "GSA answered 429 with a Retry-After of … s" lines it logged. */
  readonly warnLines: number;
  readonly reviewsWaiting: number;
  /** Its mod's server actions without an answer when the mods hung up, sent before and after its 429. */
  readonly actionsWaitingBefore: number;
  readonly actionsWaitingAfter: number;
}

export function selfHeldRow(f: SelfHeldFigures): InvariantRow {
  const expected = (f.retryAfterMs - f.readAfterMs) / 1000 - 60;
  return {
    name: 'the sidecar with a day-long cap holds the day itself (its config)',
    ok: f.callsAfter === 0 && f.gaugeAtEnd !== undefined && f.gaugeAtEnd >= expected && f.warnLines === 1 && f.actionsWaitingBefore === 0,
    measured:
      `429 Retry-After ${(f.retryAfterMs / 1000).toFixed(0)} s at ${fmt(f.heldAt - f.origin)}; ${f.callsAfter} calls after it; hold gauge ${f.gaugeAtEnd === undefined ? 'absent' : `${f.gaugeAtEnd.toFixed(0)} s`} ${fmt(f.readAfterMs)} later; ` +
      `${f.warnLines} warning line(s); waiting for its day: ${f.reviewsWaiting} review(s) (kept in its outbox), ${f.actionsWaitingAfter} action(s); ${f.actionsWaitingBefore} action(s) sent before it unanswered`,
    bound: `0 calls, gauge ≥ Retry-After − elapsed − 60 s (${expected.toFixed(0)} s), 1 warning line, nothing from before the 429 left waiting`,
  };
}

/** What each sidecar lost: acknowledged reviews the audit found nowhere, and its mod's actions never answered. */
export interface NodeLosses {
  readonly name: string;
  readonly acked: number;
  readonly lost: number;
  readonly actionsSent: number;
  /** Unanswered when the drain ended, before the mods hung up; not cut by a kill. */
  readonly actionsUnanswered: number;
  /** Of those, sent while the sidecar honoured its own day-long hold (not losses: they wait for the day). */
  readonly actionsHeld: number;
}

export function nothingLostRow(nodes: readonly NodeLosses[]): InvariantRow {
  return {
    name: 'nothing lost: every acknowledged review found, every mod action answered',
    ok: nodes.length > 0 && nodes.every((node) => node.lost === 0 && node.actionsUnanswered === node.actionsHeld),
    measured: nodes
      .map((node) => `${node.name}: ${node.lost} of ${node.acked} reviews lost, ${node.actionsUnanswered} of ${node.actionsSent} actions unanswered${node.actionsHeld === 0 ? '' : ` (${node.actionsHeld} waiting for its own day-long hold)`}`)
      .join('; '),
    bound: '0 lost, 0 unanswered (but those the day-long sidecar holds for its day)',
  };
}
