// The soak's judgement of what its hostile neighbours could not break: muted players on a quiet mod stay blocked
// while another source floods chat, the right mod token always gets in, memory stays bounded against a game
// server that never ends a reply, and every review whose fate is not "delivered" is one `reviews list` shows.
// Pure functions over what the soak recorded; no I/O.
import { fmt, percentile, type InvariantRow } from './invariants.js';
import type { QuietVerdict, TokenProbe } from './localNeighbours.js';
import type { ReviewAudit } from './reviewAudit.js';
import { contentKey } from './reviewAudit.js';
import type { ResourceSample } from './sidecarProcess.js';

/** The start of the sidecar lifetime a moment belongs to (the last start at or before it), or undefined. */
function lifetimeStart(runningSince: readonly number[], at: number): number | undefined {
  let start: number | undefined;
  for (const since of runningSince) if (since <= at) start = since;
  return start;
}

/**
 * Every verdict for a muted player on the quiet mod that was asked `boundMs` or more after its sidecar started
 * must block, and every player must have been blocked within `boundMs` of each start whose process lived longer
 * than that. Before it, a first line may be let through as `unknown` (the first lookup waits its turn).
 * `lifetimes` are the start times followed by the end of the run.
 */
export function quietBlockedRow(verdicts: readonly QuietVerdict[], lifetimes: readonly number[], boundMs: number): InvariantRow {
  const starts = lifetimes.slice(0, -1);
  let judged = 0;
  const letThrough = new Map<string, number>();
  const firstBlock = new Map<string, number>();
  const players = new Set(verdicts.map((verdict) => verdict.player));
  for (const verdict of verdicts) {
    const start = lifetimeStart(starts, verdict.sentAt);
    if (start === undefined) continue;
    const key = `${start}\u0000${verdict.player}`;
    if (!verdict.allow && !firstBlock.has(key)) firstBlock.set(key, verdict.at - start);
    if (verdict.sentAt - start < boundMs) continue;
    judged += 1;
    if (verdict.allow) letThrough.set(verdict.reason, (letThrough.get(verdict.reason) ?? 0) + 1);
  }
  // Player-lifetimes long enough to judge: each must have had its first block within the bound.
  let lateOrNever = 0;
  for (let index = 0; index < starts.length; index += 1) {
    const start = starts[index] ?? 0;
    const end = lifetimes[index + 1] ?? start;
    if (end - start <= boundMs) continue;
    for (const player of players) {
      const first = firstBlock.get(`${start}\u0000${player}`);
      if (first === undefined || first > boundMs) lateOrNever += 1;
    }
  }
  const allowed = [...letThrough.values()].reduce((a, b) => a + b, 0);
  const firsts = [...firstBlock.values()];
  return {
    name: 'muted players on the quiet mod are blocked during the flood',
    ok: allowed === 0 && lateOrNever === 0 && firsts.length > 0,
    measured:
      `${verdicts.length} verdicts; first block after a start: p50 ${fmt(percentile(firsts, 0.5))}, max ${fmt(firsts.reduce((a, b) => Math.max(a, b), 0))} ` +
      `(${firsts.length} player-lifetimes, ${lateOrNever} late or never); ${judged} asked ≥ ${fmt(boundMs)} after a start, ${allowed} let through` +
      (allowed === 0 ? '' : ` (${[...letThrough].map(([reason, n]) => `${reason} ${n}`).join(', ')})`),
    bound: `blocked within ${fmt(boundMs)} of a start, then always`,
  };
}

export const RIGHT_TOKEN_BOUND_MS = 1000;

export function rightTokenRow(probes: readonly TokenProbe[]): InvariantRow {
  const failed = probes.filter((probe) => !probe.ok);
  const slow = probes.filter((probe) => probe.ok && probe.ms > RIGHT_TOKEN_BOUND_MS);
  const times = probes.filter((probe) => probe.ok).map((probe) => probe.ms);
  return {
    name: 'the right token connects within 1 s',
    ok: failed.length === 0 && slow.length === 0 && probes.length > 0,
    measured:
      `${probes.length} connects, p50 ${fmt(percentile(times, 0.5))}, max ${fmt(times.reduce((a, b) => Math.max(a, b), 0))}, ` +
      `${slow.length} slower than ${fmt(RIGHT_TOKEN_BOUND_MS)}, ${failed.length} refused${failed.length === 0 ? '' : ` (${failed[0]?.failure ?? '?'})`}`,
    bound: `every connect ≤ ${fmt(RIGHT_TOKEN_BOUND_MS)}`,
  };
}

/**
 * The whole run, every process: RSS never above this. The soak's sidecar idles near 70 MB and carries its load at
 * about 110 MB; a reply that is never ended grew it past 480 MB before replies and connection buffers were capped.
 */
export const RSS_BOUND_MB = 256;

export function rssBoundRow(samples: readonly ResourceSample[]): InvariantRow {
  const maxKb = samples.reduce((max, sample) => Math.max(max, sample.rssKb), 0);
  return {
    name: `RSS under ${RSS_BOUND_MB} MB with an endless-reply game server`,
    ok: samples.length > 0 && maxKb <= RSS_BOUND_MB * 1024,
    measured: `max ${(maxKb / 1024).toFixed(1)} MB over ${samples.length} samples of ${new Set(samples.map((s) => s.generation)).size} process(es)`,
    bound: `≤ ${RSS_BOUND_MB} MB`,
  };
}

/** One line of `gsa-bridge reviews list --json`, as far as the check needs it. */
export interface ListedReview {
  readonly state: string;
  readonly player: { readonly steam_id?: string };
  readonly comment: string;
}

/** Every acknowledged review that was not delivered must be listed by `reviews list`, in the state the audit found. */
export function listedFatesRow(audit: ReviewAudit, listed: readonly ListedReview[]): InvariantRow {
  const listedKeys = new Map(listed.map((review) => [contentKey(review.player.steam_id ?? '', review.comment), review.state]));
  const notDelivered = audit.reviews.filter((review) => review.fate !== 'delivered');
  const missing = notDelivered.filter((review) => !listedKeys.has(contentKey(review.review.steamId, review.review.comment)));
  const byFate = new Map<string, number>();
  for (const review of notDelivered) byFate.set(review.fate, (byFate.get(review.fate) ?? 0) + 1);
  return {
    name: 'every review not delivered is shown by `reviews list`',
    ok: missing.length === 0,
    measured:
      `${notDelivered.length} not delivered (${[...byFate].map(([fate, n]) => `${fate} ${n}`).join(', ') || 'none'}), ${listed.length} listed, ${missing.length} missing` +
      (missing.length === 0 ? '' : ` (e.g. ${missing[0]?.review.id ?? '?'}, ${missing[0]?.fate ?? '?'})`),
    bound: '0 missing',
  };
}
