// The soak's judgement of its hostile neighbours, on made-up records: the quiet mod's muted players, the right-token
// probe, the RSS bound and the host's listing of reviews that were not delivered. The soak itself is too long for
// `npm test`; these keep the rows honest (each case below flips the row).
import { describe, expect, it } from 'vitest';
import type { QuietVerdict, TokenProbe } from '../../bench/soak/localNeighbours.js';
import { listedFatesRow, quietBlockedRow, rightTokenRow, rssBoundRow, RSS_BOUND_MB } from '../../bench/soak/neighbourRows.js';
import type { ReviewAudit } from '../../bench/soak/reviewAudit.js';
import type { SentReview } from '../../bench/soak/modFleet.js';

const A = '76561196000000000';
const B = '76561196000000001';

function verdict(player: string, sentAt: number, allow: boolean, reason = allow ? 'unknown' : 'muted'): QuietVerdict {
  return { player, sentAt, at: sentAt + 1, allow, reason };
}

describe('quiet mod row', () => {
  // One lifetime from 0 to 100 000 ms, bound 10 000 ms.
  const lifetimes = [0, 100_000];

  it('passes when each player is let through only before the bound and blocked from then on', () => {
    const verdicts = [verdict(A, 100, true), verdict(B, 100, true), verdict(A, 2000, false), verdict(B, 9000, false), verdict(A, 50_000, false), verdict(B, 50_000, false)];
    const row = quietBlockedRow(verdicts, lifetimes, 10_000);
    expect(row.ok).toBe(true);
    expect(row.measured).toContain('0 let through');
  });

  it('fails on a muted player let through after the bound', () => {
    const verdicts = [verdict(A, 2000, false), verdict(A, 50_000, true)];
    const row = quietBlockedRow(verdicts, lifetimes, 10_000);
    expect(row.ok).toBe(false);
    expect(row.measured).toContain('1 let through (unknown 1)');
  });

  it('fails on a player first blocked after the bound, or never, in a lifetime longer than the bound', () => {
    expect(quietBlockedRow([verdict(A, 2000, false), verdict(B, 100, true), verdict(B, 12_000, false)], lifetimes, 10_000).ok).toBe(false);
    expect(quietBlockedRow([verdict(A, 2000, false), verdict(B, 100, true)], lifetimes, 10_000).ok).toBe(false);
  });

  it('judges each lifetime from its own start: a restart lets a first line through again', () => {
    const restarted = [0, 40_000, 100_000];
    const verdicts = [verdict(A, 1000, false), verdict(A, 40_500, true), verdict(A, 41_000, false), verdict(A, 90_000, false)];
    expect(quietBlockedRow(verdicts, restarted, 10_000).ok).toBe(true);
  });

  it('does not pass on no data', () => {
    expect(quietBlockedRow([], lifetimes, 10_000).ok).toBe(false);
  });
});

describe('right token row', () => {
  const probe = (ms: number, ok = true): TokenProbe => ({ at: 0, ms, ok, ...(ok ? {} : { failure: 'HTTP 429' }) });

  it('passes when every connect took at most 1 s', () => {
    expect(rightTokenRow([probe(3), probe(999)]).ok).toBe(true);
  });

  it('fails on one slow connect, one refusal, or none at all', () => {
    expect(rightTokenRow([probe(3), probe(1001)]).ok).toBe(false);
    const refused = rightTokenRow([probe(3), probe(5, false)]);
    expect(refused.ok).toBe(false);
    expect(refused.measured).toContain('HTTP 429');
    expect(rightTokenRow([]).ok).toBe(false);
  });
});

describe('RSS bound row', () => {
  const sample = (rssKb: number, generation = 0): { at: number; pid: number; generation: number; rssKb: number; fds: number } => ({ at: 0, pid: 1, generation, rssKb, fds: 10 });

  it('holds at the bound and fails above it, in any process of the run', () => {
    expect(rssBoundRow([sample(80_000), sample(RSS_BOUND_MB * 1024, 1)]).ok).toBe(true);
    expect(rssBoundRow([sample(RSS_BOUND_MB * 1024 + 1), sample(80_000, 1)]).ok).toBe(false);
    expect(rssBoundRow([]).ok).toBe(false);
  });
});

describe('listed fates row', () => {
  const review = (n: number): SentReview => ({ id: `r${n}`, steamId: `7656119900000000${n}`, comment: `soak review ${n}`, sentAt: 0, ackAt: 1 });
  const audit = (fates: readonly ('delivered' | 'unconfirmed' | 'dead' | 'pending')[]): ReviewAudit => ({
    acknowledged: fates.length,
    byFate: { delivered: 0, unconfirmed: 0, dead: 0, pending: 0, lost: 0 },
    duplicates: 0,
    unreadableLines: 0,
    reviews: fates.map((fate, n) => ({ review: review(n), fate, copies: fate === 'delivered' ? 1 : 0, fateAt: undefined })),
  });
  const listed = (n: number, state: string): { state: string; player: { steam_id: string }; comment: string } => ({ state, player: { steam_id: review(n).steamId }, comment: review(n).comment });

  it('passes when every review not delivered is listed; delivered ones need not be', () => {
    expect(listedFatesRow(audit(['delivered', 'unconfirmed', 'pending']), [listed(1, 'unconfirmed'), listed(2, 'pending')]).ok).toBe(true);
  });

  it('fails when an unconfirmed review is missing from the listing', () => {
    const row = listedFatesRow(audit(['delivered', 'unconfirmed', 'pending']), [listed(2, 'pending')]);
    expect(row.ok).toBe(false);
    expect(row.measured).toContain('1 missing (e.g. r1, unconfirmed)');
  });
});
