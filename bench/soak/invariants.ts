// The soak's verdict: each invariant of issue 6 section 5 as one row (pass/fail, the measured value, the bound
// it was judged against), printed as a table. Pure: takes what the run measured, returns rows and text.
// Must never loosen a bound because the machine was slow: the contract's numbers are the bounds; the table
// prints the transport baseline next to them so a reader can tell the sidecar's share from the machine's.
import type { WindowReport } from '../../src/gsaEmulator/index.js';
import type { SentAction, Timed } from './modFleet.js';
import type { ReviewAudit } from './reviewAudit.js';
import type { ResourceSample } from './sidecarProcess.js';
import { chargedStall, type LoopStall } from './loopStalls.js';
import { coreWaitBetween, type CoreWaitSample } from './coreWait.js';
import { policyAnswerAfterMs } from '../../src/bridge/chatGate.js';

export interface InvariantRow {
  readonly name: string;
  readonly ok: boolean;
  readonly measured: string;
  readonly bound: string;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * p) - 1))] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

export function fmt(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  return ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${ms.toFixed(1)} ms`;
}

export function lostReviewsRow(audit: ReviewAudit): InvariantRow {
  const f = audit.byFate;
  return {
    name: 'every acknowledged review reached GSA or is listed',
    ok: f.lost === 0,
    measured:
      `${audit.acknowledged} acked: ${f.delivered} delivered, ${f.unconfirmed} unconfirmed, ${f.dead} dead, ` +
      `${f.pending} pending, ${f.lost} LOST; ${audit.duplicates} duplicate(s)`,
    bound: '0 lost',
  };
}

/** The worst of the per-lifetime window reports: highest peak, shortest span, every overrun. */
export function worstWindow(reports: readonly WindowReport[]): WindowReport {
  const spans = reports.flatMap((r) => (r.minSpanMs === null ? [] : [r.minSpanMs]));
  const peak = reports.reduce<WindowReport | undefined>((worst, r) => (worst === undefined || r.maxInWindow > worst.maxInWindow ? r : worst), undefined);
  return {
    requests: reports[0]?.requests ?? 0,
    intervalMs: reports[0]?.intervalMs ?? 0,
    arrivals: reports.reduce((sum, r) => sum + r.arrivals, 0),
    maxInWindow: peak?.maxInWindow ?? 0,
    maxAt: peak?.maxAt ?? null,
    minSpanMs: spans.length === 0 ? null : Math.min(...spans),
    violations: reports.reduce((sum, r) => sum + r.violations, 0),
  };
}

export function windowRow(window: WindowReport, lifetimes: number): InvariantRow {
  return {
    name: 'strict window, counted at the emulator on arrival',
    ok: window.violations === 0 && window.maxInWindow <= window.requests && window.arrivals > 0,
    measured:
      `peak ${window.maxInWindow} in any ${window.intervalMs} ms; shortest span of ${window.requests + 1} arrivals ` +
      `${window.minSpanMs === null ? '–' : fmt(window.minSpanMs)}; ${window.violations} over; ${window.arrivals} arrivals ` +
      `(per sidecar lifetime, ${lifetimes} of them)`,
    bound: `≤ ${window.requests} per ${window.intervalMs} ms`,
  };
}

/** Pings sent up to this long after a verdict arrived still share its trip through both event loops. */
const BASELINE_AFTER_MS = 50;

/**
 * The sidecar's share of each verdict's latency: the latency minus the transport delay of its lifetime, taken as
 * the slowest ping echo on the same connection that was in flight at any time between the chat line's send and
 * shortly after its verdict arrived, above the run's fastest echo. A stall of the machine (another process on the
 * cores, either process's GC) while the line was on its way in, while its timer ran or while the verdict was on
 * its way back delays an echo in flight then as much as the verdict, so it cancels. A late verdict with every
 * ping around it answered promptly does not.
 */
export function sidecarShareMs(
  verdicts: readonly Timed[],
  pings: readonly Timed[],
  /** How much of a ping's echo to leave out of one verdict's baseline (a stall of the soak charged to that verdict). */
  pingNetMs: (verdict: number, ping: Timed) => number = () => 0,
): number[] {
  const byConnection = new Map<number, Timed[]>();
  for (const ping of pings) {
    const list = byConnection.get(ping.connection) ?? [];
    list.push(ping);
    byConnection.set(ping.connection, list);
  }
  for (const list of byConnection.values()) list.sort((a, b) => a.sentAt - b.sentAt);
  const floor = pings.reduce((min, ping) => Math.min(min, ping.ms), Infinity);
  return verdicts.map((verdict, index) => {
    const arrived = verdict.sentAt + verdict.ms;
    const list = byConnection.get(verdict.connection) ?? [];
    let low = 0;
    let high = list.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      // One ping in flight per connection: sorted by send time, the echoes are sorted by arrival too.
      const ping = list[mid];
      if (ping !== undefined && ping.sentAt + ping.ms < verdict.sentAt) low = mid + 1;
      else high = mid;
    }
    let baseline = 0;
    for (let i = low; i < list.length && (list[i]?.sentAt ?? Infinity) <= arrived + BASELINE_AFTER_MS; i += 1) {
      const ping = list[i];
      if (ping !== undefined) baseline = Math.max(baseline, ping.ms - pingNetMs(index, ping) - floor);
    }
    return verdict.ms - baseline;
  });
}

/** A verdict sent this soon after a sidecar logged "running" met a process still warming up (JIT, first GCs). */
const WARM_UP_MS = 5000;

/**
 * How much of a verdict's lateness the sidecar spent waiting for a core (coreWait.ts): its main thread's wait in the
 * two spans where a wait delays the verdict, while the line was being read (from its send, as long as the verdict
 * is late) and from the policy's deadline until the verdict was read, short of `readStalledMs` before the read (a
 * stall of this process, charged apart). A wait in the middle of the decision timer's run delays nothing. At most
 * the lateness itself.
 */
export function coreWaitCreditMs(verdict: Timed, policyAfterMs: number, readStalledMs: number, samples: readonly CoreWaitSample[]): number {
  const lateness = verdict.ms - policyAfterMs;
  if (lateness <= 0 || samples.length === 0) return 0;
  const readAt = verdict.sentAt + verdict.ms - readStalledMs;
  const deadline = verdict.sentAt + policyAfterMs;
  const waited =
    lateness >= policyAfterMs
      ? coreWaitBetween(samples, verdict.sentAt, readAt)
      : coreWaitBetween(samples, verdict.sentAt, verdict.sentAt + lateness) + coreWaitBetween(samples, deadline, readAt);
  return Math.min(lateness, waited);
}

export function verdictRow(
  verdicts: readonly Timed[],
  pings: readonly Timed[],
  decisionTimeoutMs: number,
  runningSince: readonly number[] = [],
  soakStalls: readonly LoopStall[] = [],
  coreWait: readonly CoreWaitSample[] = [],
): InvariantRow {
  const limit = decisionTimeoutMs + 5;
  const policyAfterMs = policyAnswerAfterMs(decisionTimeoutMs);
  const raw = verdicts.map((v) => v.ms);
  // A verdict this process read late because it was itself stalled is not the sidecar's lateness either. A ping whose
  // echo the same stall held is counted without it, so the stall is subtracted once, not in the baseline and again
  // from the verdict. (A ping held by an earlier stall of this process keeps it: the sidecar was held then too, or the
  // verdict would not be late.)
  const charged = verdicts.map((verdict) => chargedStall(soakStalls, verdict.sentAt + verdict.ms, verdict.sentAt));
  const heldBySameStall = (index: number, ping: Timed): number => {
    const stall = charged[index];
    if (stall === undefined || stall.ms === 0) return 0;
    const held = Math.min(ping.sentAt + ping.ms, stall.from + stall.ms) - Math.max(ping.sentAt, stall.from);
    return Math.max(0, Math.min(stall.ms, held));
  };
  let readLate = 0;
  let waitedLate = 0;
  const share = sidecarShareMs(verdicts, pings, heldBySameStall).map((netOfPings, index) => {
    const verdict = verdicts[index];
    const stalled = charged[index]?.ms ?? 0;
    if (verdict === undefined) return netOfPings;
    if (stalled > 0 && netOfPings > limit) readLate += 1;
    // The sidecar's wait for a core, as the kernel counts it, where no ping in flight showed it: the larger of the
    // two is the machine's, not both (a ping in flight during the wait was held by it too).
    const baseline = verdict.ms - netOfPings;
    const waited = coreWaitCreditMs(verdict, policyAfterMs, stalled, coreWait);
    const ms = verdict.ms - Math.max(baseline, waited) - stalled;
    if (netOfPings - stalled > limit && ms <= limit) waitedLate += 1;
    return ms;
  });
  const pingMs = pings.map((p) => p.ms);
  const max = (values: readonly number[]): number => values.reduce((a, b) => Math.max(a, b), 0);
  const lateRaw = raw.filter((ms) => ms > limit).length;
  const late = share.filter((ms) => ms > limit).length;
  const lateWarmingUp = verdicts.filter(
    (verdict, index) => (share[index] ?? 0) > limit && runningSince.some((since) => verdict.sentAt >= since && verdict.sentAt < since + WARM_UP_MS),
  ).length;
  return {
    name: 'no verdict later than decisionTimeoutMs + 5 ms',
    ok: late === 0 && verdicts.length > 0,
    measured:
      `sidecar's share (latency − ping baseline or its wait for a core): p99 ${fmt(percentile(share, 0.99))}, max ${fmt(max(share))}, ${late} late ` +
      `(${lateWarmingUp} within ${WARM_UP_MS / 1000} s of a start; ${readLate} more read late by a stall of this process, ${waitedLate} more late while the sidecar waited for a core, not counted). ` +
      `At the mod: ${raw.length} verdicts, p50 ${fmt(percentile(raw, 0.5))}, p99 ${fmt(percentile(raw, 0.99))}, max ${fmt(max(raw))}, ${lateRaw} late. ` +
      `Ping echo: p50 ${fmt(percentile(pingMs, 0.5))}, p99 ${fmt(percentile(pingMs, 0.99))}, max ${fmt(max(pingMs))} (${pingMs.length})`,
    bound: `≤ ${limit} ms (sidecar's share)`,
  };
}

/**
 * A pause the service asked for: a `429` or `503` with a `Retry-After`, from the moment its answer arrived for as
 * long as the sidecar honours it (the Retry-After, capped at `api.retry.maxRetryAfterMs`). A 429 pauses every call
 * on the key (the limiter holds); a 503 pauses only the class whose call got it (its retry or the outbox's next
 * round). The invariant is "sent within a bounded time whatever the chat load", and the service's own Retry-After
 * is allowed to pause everything, so time under a hold is not held against the sidecar.
 */
export interface ServiceHold {
  readonly from: number;
  readonly to: number;
  /** 'all' for a 429 (the whole key), else the class whose call got the 503. */
  readonly scope: 'all' | 'review' | 'action';
}

/** A Retry-After fault as the soak injected it, and the time it was armed. */
export interface HoldFault {
  readonly armedAt: number;
  readonly clearedAt: number;
  readonly status: number;
  readonly endpoint?: string;
  /** What the Retry-After asked for, in ms (before the sidecar's cap). */
  readonly retryAfterMs: number;
}

/** The emulator's call log, as much of it as the holds need. */
export interface LoggedCall {
  readonly at: number;
  readonly endpoint: string;
  readonly status: number;
}

const scopeOf = (endpoint: string): ServiceHold['scope'] => (endpoint === 'review' ? 'review' : endpoint === 'webhook' ? 'action' : 'all');

/**
 * The holds the emulator actually sent: each call answered with a fault's status while that fault was armed (faults
 * run one at a time, so nothing else answers that status then), held for min(Retry-After, cap) from its arrival.
 */
export function serviceHolds(faults: readonly HoldFault[], calls: readonly LoggedCall[], capMs: number): ServiceHold[] {
  const holds: ServiceHold[] = [];
  for (const fault of faults) {
    for (const call of calls) {
      if (call.at < fault.armedAt || call.at > fault.clearedAt || call.status !== fault.status) continue;
      if (fault.endpoint !== undefined && call.endpoint !== fault.endpoint) continue;
      const scope = fault.status === 429 ? 'all' : scopeOf(call.endpoint);
      holds.push({ from: call.at, to: call.at + Math.min(fault.retryAfterMs, capMs), scope });
    }
  }
  return holds;
}

/** How much of [from, to] a hold covered for this class, overlapping holds counted once. */
export function heldMs(holds: readonly ServiceHold[], scope: 'review' | 'action', from: number, to: number): number {
  const spans = holds
    .filter((h) => (h.scope === 'all' || h.scope === scope) && h.to > from && h.from < to)
    .map((h) => [Math.max(from, h.from), Math.min(to, h.to)] as const)
    .sort((a, b) => a[0] - b[0]);
  let covered = 0;
  let reached = from;
  for (const [start, end] of spans) {
    if (end <= reached) continue;
    covered += end - Math.max(start, reached);
    reached = end;
  }
  return covered;
}

/** One review's or action's wait: all of it, and the part under a service-requested hold. */
export interface Wait {
  readonly ms: number;
  readonly heldMs: number;
}

export interface StarvationFigures {
  /** The base bound, for time not under a hold (options.ts, starvationBoundMs). */
  readonly boundMs: number;
  /** The sidecar's Retry-After cap, for the bound column. */
  readonly retryAfterCapMs: number;
  /** Fate latency (ack → fate) of reviews that reached one. */
  readonly reviewWaits: readonly Wait[];
  /** Acked reviews with no fate at the end. */
  readonly reviewsWithoutFate: number;
  /** Answer latency of server actions that got an answer. */
  readonly actionWaits: readonly Wait[];
  readonly actionsUnanswered: number;
  /** Server actions refused on the spot (`error` frame: rate_limited, unavailable …) by code. */
  readonly actionsRefused: ReadonlyMap<string, number>;
  readonly actionsOrphaned: number;
}

/** A wait starved when the part of it not under a service-requested hold exceeds the base bound. */
export function starved(wait: Wait, boundMs: number): boolean {
  return wait.ms - wait.heldMs > boundMs;
}

/** One sidecar's side of the starvation rows: its audited reviews, its mod's server actions, and the holds it was under. */
export interface StarvationInputs {
  readonly audit: ReviewAudit;
  readonly actions: readonly SentAction[];
  /** 429s GSA gave this sidecar's webhook calls: a `rate_limited` answer one of them explains is GSA's, not a refusal on the spot. */
  readonly webhook429s: number;
  readonly holds: readonly ServiceHold[];
  /** When the load ended: a review with a fate but no time for it is charged the wait until then, to be safe. */
  readonly endedAt: number;
}

/** What each server action came to, by outcome ('ok', a failure code, `error:<code>`, 'cut by a kill', 'no answer'). */
export function actionOutcomes(actions: readonly SentAction[]): Map<string, number> {
  const outcomes = new Map<string, number>();
  for (const action of actions) {
    const outcome = action.outcome ?? (action.orphaned === true ? 'cut by a kill' : 'no answer');
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }
  return outcomes;
}

/** The waits and counts starvationRows judges, from what one sidecar's reviews and actions went through. */
export function starvationFigures(input: StarvationInputs, boundMs: number, retryAfterCapMs: number): StarvationFigures {
  const wait = (scope: 'review' | 'action', from: number, to: number): Wait => ({ ms: Math.max(0, to - from), heldMs: heldMs(input.holds, scope, from, to) });
  const reviewWaits: Wait[] = [];
  let reviewsWithoutFate = 0;
  for (const audited of input.audit.reviews) {
    const ackAt = audited.review.ackAt ?? audited.review.sentAt;
    if (audited.fateAt !== undefined) reviewWaits.push(wait('review', ackAt, Math.max(ackAt, audited.fateAt)));
    else if (audited.fate === 'pending' || audited.fate === 'lost') reviewsWithoutFate += 1;
    else reviewWaits.push(wait('review', ackAt, input.endedAt));
  }
  // Refused on the spot: an `error` frame, or a `rate_limited` result that no 429 from the emulator explains (the
  // sidecar's own queue was full: issue 6 says mute lookups must never crowd out a server action).
  const refused = new Map<string, number>();
  for (const [outcome, n] of actionOutcomes(input.actions)) if (outcome.startsWith('error:')) refused.set(outcome.slice(6), n);
  const localRateLimited = input.actions.filter((action) => action.outcome === 'rate_limited').length - input.webhook429s;
  if (localRateLimited > 0) refused.set('rate_limited (not from GSA)', localRateLimited);
  const refusedHere = (action: SentAction): boolean => action.outcome?.startsWith('error:') === true || action.outcome === 'rate_limited';
  return {
    boundMs,
    retryAfterCapMs,
    reviewWaits,
    reviewsWithoutFate,
    actionWaits: input.actions.filter((a) => a.answeredAt !== undefined && !refusedHere(a)).map((a) => wait('action', a.sentAt, a.answeredAt ?? a.sentAt)),
    actionsUnanswered: input.actions.filter((a) => a.answeredAt === undefined && a.orphaned !== true).length,
    actionsRefused: refused,
    actionsOrphaned: input.actions.filter((a) => a.orphaned === true && a.answeredAt === undefined).length,
  };
}

export function starvationRows(f: StarvationFigures): InvariantRow[] {
  const slowReviews = f.reviewWaits.filter((w) => starved(w, f.boundMs)).length;
  const slowActions = f.actionWaits.filter((w) => starved(w, f.boundMs)).length;
  const refused = [...f.actionsRefused].map(([code, n]) => `${n} ${code}`).join(', ');
  const ms = (waits: readonly Wait[]): number[] => waits.map((w) => w.ms);
  const unheld = (waits: readonly Wait[]): number => waits.reduce((max, w) => Math.max(max, w.ms - w.heldMs), 0);
  const held = (waits: readonly Wait[]): number => waits.reduce((max, w) => Math.max(max, w.heldMs), 0);
  const bound = `each ≤ ${fmt(f.boundMs)} + the Retry-After hold (each ≤ ${fmt(f.retryAfterCapMs)}) that overlapped its wait`;
  return [
    {
      name: 'reviews never starved (ack → fate)',
      ok: slowReviews === 0 && f.reviewsWithoutFate === 0,
      measured:
        `${f.reviewWaits.length} reached a fate: p50 ${fmt(percentile(ms(f.reviewWaits), 0.5))}, max ${fmt(Math.max(0, ...ms(f.reviewWaits)))}; ` +
        `max outside holds ${fmt(unheld(f.reviewWaits))}, max under holds ${fmt(held(f.reviewWaits))}; ` +
        `${slowReviews} over the bound; ${f.reviewsWithoutFate} without a fate at the end`,
      bound,
    },
    {
      name: 'server actions never starved (send → answer)',
      ok: slowActions === 0 && f.actionsUnanswered === 0 && f.actionsRefused.size === 0,
      measured:
        `${f.actionWaits.length} answered: max ${fmt(Math.max(0, ...ms(f.actionWaits)))}, max outside holds ${fmt(unheld(f.actionWaits))}; ` +
        `${slowActions} over the bound; ${f.actionsUnanswered} unanswered; refused on the spot: ${refused === '' ? 'none' : refused}; ${f.actionsOrphaned} cut by a kill`,
      bound: `${bound}, none refused`,
    },
  ];
}

/** How much the last quarter's median may exceed the post-warm-up median. */
export const RSS_GROWTH_LIMIT = 0.2;
export const FD_GROWTH_LIMIT = 0.2;
/** Descriptors come and go with sockets; a handful more is noise, not a leak. */
export const FD_GROWTH_SLACK = 8;

/**
 * Flatness over the last generation (the process that lived through the second half): samples after its first
 * quarter are "post-warm-up"; the median of its last quarter must stay within the growth limit of their median.
 */
export function resourceRows(samples: readonly ResourceSample[]): InvariantRow[] {
  const lastGeneration = samples.at(-1)?.generation;
  const own = samples.filter((s) => s.generation === lastGeneration);
  if (own.length < 8) {
    const row = { ok: false, measured: `only ${own.length} samples of the last process`, bound: '≥ 8 samples' };
    return [
      { name: 'RSS flat after warm-up', ...row },
      { name: 'open handles flat after warm-up', ...row },
    ];
  }
  const warm = own.slice(Math.floor(own.length / 4));
  const last = own.slice(Math.floor((own.length * 3) / 4));
  const rssWarm = median(warm.map((s) => s.rssKb));
  const rssLast = median(last.map((s) => s.rssKb));
  const fdWarm = median(warm.map((s) => s.fds));
  const fdLast = median(last.map((s) => s.fds));
  const rssMax = Math.max(...own.map((s) => s.rssKb));
  const fdLimit = fdWarm + Math.max(FD_GROWTH_SLACK, fdWarm * FD_GROWTH_LIMIT);
  return [
    {
      name: 'RSS flat after warm-up',
      ok: rssLast <= rssWarm * (1 + RSS_GROWTH_LIMIT),
      measured: `post-warm-up median ${(rssWarm / 1024).toFixed(1)} MB, last-quarter median ${(rssLast / 1024).toFixed(1)} MB, max ${(rssMax / 1024).toFixed(1)} MB (${own.length} samples)`,
      bound: `last quarter ≤ +${RSS_GROWTH_LIMIT * 100}%`,
    },
    {
      name: 'open handles flat after warm-up',
      ok: fdLast <= fdLimit,
      measured: `post-warm-up median ${fdWarm}, last-quarter median ${fdLast}, max ${Math.max(...own.map((s) => s.fds))}`,
      bound: `last quarter ≤ ${fdLimit.toFixed(0)}`,
    },
  ];
}

export function renderTable(rows: readonly InvariantRow[]): string {
  const width = Math.max(...rows.map((r) => r.name.length));
  const lines = rows.map((r) => `${r.ok ? 'PASS' : 'FAIL'}  ${r.name.padEnd(width)}  ${r.measured}  [bound: ${r.bound}]`);
  return lines.join('\n');
}

/** Prints the run's context lines, the table and the verdict; the exit code: 0 when every row holds, else 1. */
export function reportRows(context: readonly string[], rows: readonly InvariantRow[]): number {
  process.stdout.write(['', ...context, '', renderTable(rows), ''].join('\n'));
  const failed = rows.filter((row) => !row.ok).length;
  process.stdout.write(failed === 0 ? 'soak: all invariants hold\n' : `soak: ${failed} invariant(s) FAILED\n`);
  return failed === 0 ? 0 : 1;
}
