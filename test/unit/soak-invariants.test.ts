// The soak's judgement, on made-up measurements: the review audit's fates, the sidecar's share of a verdict's
// latency, the worst window over sidecar lifetimes, the starvation bound net of Retry-After holds, and the
// memory/handle trend. The soak itself is too long
// for `npm test`; these keep its arithmetic honest.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { actionOutcomes, heldMs, resourceRows, serviceHolds, sidecarShareMs, starvationFigures, starvationRows, verdictRow, worstWindow } from '../../bench/soak/invariants.js';
import { reviewShareCapacityPerSecond, soakRetry, starvationBoundMs } from '../../bench/soak/options.js';
import type { SentAction, SentReview } from '../../bench/soak/modFleet.js';
import { auditReviews, type AuditedReview, type ReviewAudit } from '../../bench/soak/reviewAudit.js';
import { SoakSidecar, type ResourceSample } from '../../bench/soak/sidecarProcess.js';
import { removeTempDir, tempDir } from '../fixtures/tempDir.js';
import { stallBefore } from '../../bench/soak/loopStalls.js';
import { coreWaitBetween, type CoreWaitSample } from '../../bench/soak/coreWait.js';
import { listenerPort } from '../../bench/soak/common.js';

function acked(n: number, ackAt = 100): SentReview {
  return { id: `r${n}`, steamId: `7656119900000000${n}`, comment: `soak x review ${n}`, sentAt: ackAt - 1, ackAt, ackWallMs: 1_000_000 + ackAt };
}

function line(record: unknown): string {
  return `${JSON.stringify(record)}\n`;
}

describe('review audit', () => {
  it('finds each acknowledged review at the emulator, in a listing, pending, or lost; counts duplicates', async () => {
    const dir = await tempDir('soak-audit');
    const reviews = [1, 2, 3, 4, 5, 6, 7].map((n) => acked(n));
    const queued = (n: number, id: string): unknown => ({ v: 1, op: 'queued', id, at: 1, player: { steam_id: `7656119900000000${n}` }, comment: `soak x review ${n}` });
    await writeFile(
      join(dir, 'reviews.jsonl'),
      [
        line(queued(3, 'j3')),
        line({ v: 1, op: 'unconfirmed', id: 'j3', at: 1_000_500, error: { code: 'timeout' } }),
        line(queued(6, 'j6')),
        line(queued(1, 'j1')),
        line({ v: 1, op: 'delivered', id: 'j1', at: 2 }),
        '{"v":1,"op":"queu', // a torn tail after kill -9
      ].join(''),
    );
    await writeFile(join(dir, 'dead-letter.jsonl'), line({ v: 1, op: 'dead', id: 'j4', at: 1_000_900, player: { steam_id: '76561199000000004' }, comment: 'soak x review 4' }));
    await writeFile(join(dir, 'unconfirmed.jsonl'), line({ v: 1, op: 'unconfirmed', id: 'j5', at: 1_000_300, player: { steam_id: '76561199000000005' }, comment: 'soak x review 5' }));
    const stored = [
      { steamId: '76561199000000001', comment: 'soak x review 1', at: 150 },
      { steamId: '76561199000000001', comment: 'soak x review 1', at: 170 },
      { steamId: '76561199000000002', comment: 'soak x review 2', at: 180 },
    ];
    const unacked: SentReview = { id: 'r8', steamId: '76561199000000008', comment: 'soak x review 8', sentAt: 5 };

    const audit = await auditReviews([...reviews, unacked], stored, dir, (wall) => wall - 1_000_000);

    expect(audit.acknowledged).toBe(7);
    expect(audit.byFate).toStrictEqual({ delivered: 2, unconfirmed: 2, dead: 1, pending: 1, lost: 1 });
    expect(audit.duplicates).toBe(1);
    expect(audit.unreadableLines).toBe(1);
    expect(audit.reviews.map((r) => [r.review.id, r.fate, r.fateAt])).toStrictEqual([
      ['r1', 'delivered', 150],
      ['r2', 'delivered', 180],
      ['r3', 'unconfirmed', 500],
      ['r4', 'dead', 900],
      ['r5', 'unconfirmed', 300],
      ['r6', 'pending', undefined],
      ['r7', 'lost', undefined],
    ]);
  });

  it('counts a review the sidecar called delivered as lost when the emulator never stored it, whatever a listing says', async () => {
    const dir = await tempDir('soak-audit-said-delivered');
    const queued = (n: number): unknown => ({ v: 1, op: 'queued', id: `j${n}`, at: 1, player: { steam_id: `7656119900000000${n}` }, comment: `soak x review ${n}` });
    // j1: journaled delivered, not stored (a 2xx that was not GSA's success, read as one).
    // j2: the mod heard ok: true, but the review is listed unconfirmed and was not stored.
    // j3: listed unconfirmed, the mod heard so, not stored: honestly unconfirmed.
    await writeFile(
      join(dir, 'reviews.jsonl'),
      [queued(1), { v: 1, op: 'delivered', id: 'j1', at: 2 }, queued(2), { v: 1, op: 'unconfirmed', id: 'j2', at: 3 }, queued(3), { v: 1, op: 'unconfirmed', id: 'j3', at: 4 }].map(line).join(''),
    );
    const reviews = [{ ...acked(1), resultOk: true }, { ...acked(2), resultOk: true }, { ...acked(3), resultOk: false }];
    const audit = await auditReviews(reviews, [], dir, (wall) => wall);
    expect(audit.reviews.map((r) => [r.review.id, r.fate])).toStrictEqual([
      ['r1', 'lost'],
      ['r2', 'lost'],
      ['r3', 'unconfirmed'],
    ]);
    // Stored, it is delivered whatever the sidecar wrote.
    expect((await auditReviews([acked(3)], [{ steamId: '76561199000000003', comment: 'soak x review 3', at: 50 }], dir, (wall) => wall)).byFate.delivered).toBe(1);
  });

  it('reads a data directory with no files as all pending-or-lost, without failing', async () => {
    const dir = await tempDir('soak-audit-empty');
    const audit = await auditReviews([acked(1)], [], dir, (wall) => wall);
    expect(audit.byFate.lost).toBe(1);
  });
});

describe('verdict latency: the sidecar share', () => {
  it('subtracts the slowest ping echo around the verdict, above the fastest echo of the run', () => {
    const pings = [
      { connection: 0, sentAt: 0, ms: 1 },
      { connection: 0, sentAt: 280, ms: 21 },
      { connection: 0, sentAt: 340, ms: 11 },
      { connection: 1, sentAt: 300, ms: 100 },
    ];
    const verdicts = [
      { connection: 0, sentAt: 0, ms: 320 }, // arrived at 320: pings sent 170..370 on connection 0 → 21 - 1
      { connection: 0, sentAt: 1000, ms: 310 }, // no ping near: nothing to subtract
    ];
    expect(sidecarShareMs(verdicts, pings)).toStrictEqual([300, 310]);
    // A stall while the line was on its way in counts too: a ping in flight then was held as long.
    expect(sidecarShareMs([{ connection: 3, sentAt: 0, ms: 330 }], [{ connection: 3, sentAt: 10, ms: 30 }, { connection: 3, sentAt: 60, ms: 1 }])).toStrictEqual([301]);
    // A ping that came back before the line was sent says nothing about it.
    expect(sidecarShareMs([{ connection: 3, sentAt: 100, ms: 330 }], [{ connection: 3, sentAt: 10, ms: 30 }, { connection: 3, sentAt: 60, ms: 1 }])).toStrictEqual([330]);
    // A stall that held a ping sent long before the verdict still counts: the echo was in flight when it arrived.
    expect(sidecarShareMs([{ connection: 2, sentAt: 0, ms: 900 }], [{ connection: 2, sentAt: 100, ms: 800 }, { connection: 2, sentAt: 5000, ms: 1 }])).toStrictEqual([101]);
    const row = verdictRow(verdicts, pings, 300);
    expect(row.ok).toBe(false);
    expect(row.measured).toContain('1 late');
  });

  it("does not charge the sidecar for a verdict this process read late because it was stalled itself", () => {
    const late = [{ connection: 0, sentAt: 0, ms: 350 }];
    expect(verdictRow(late, [], 300).ok).toBe(false);
    // A 60 ms stall of the soak process ended 4 ms before it read the verdict: 350 - 60 = 290.
    const row = verdictRow(late, [], 300, [], [{ endedAt: 346, ms: 60 }]);
    expect(row.ok).toBe(true);
    expect(row.measured).toContain('1 more read late by a stall of this process');
    // A stall long before the read (more than 20 ms) explains nothing.
    expect(verdictRow(late, [], 300, [], [{ endedAt: 300, ms: 60 }]).ok).toBe(false);
    expect(stallBefore([{ endedAt: 10, ms: 3 }, { endedAt: 100, ms: 40 }], 110)).toBe(40);
    expect(stallBefore([], 99)).toBe(0);
  });

  it('charges the stall a verdict was read in, though the timer recorded it just after the read', () => {
    // libuv runs a turn's socket callbacks before its timers: the process resumed at 341, read the verdict, and the
    // 5 ms timer then recorded a stall of 60 ms ending at 341.4. The read waited 59 ms of it.
    const late = [{ connection: 0, sentAt: 0, ms: 340 }];
    expect(verdictRow(late, [], 300, [], [{ endedAt: 341.4, ms: 60 }]).ok).toBe(true);
    expect(stallBefore([{ endedAt: 100, ms: 40 }], 99)).toBe(39);
    // A read before the stall began was not delayed by it.
    expect(stallBefore([{ endedAt: 100, ms: 40 }], 59)).toBe(0);
    // The longest stall in the backlog counts, not a small one the timer recorded after it.
    expect(stallBefore([{ endedAt: 100, ms: 40 }, { endedAt: 104, ms: 2 }], 106)).toBe(40);
    // Only the part after `since` (when the ping went out) delayed its echo.
    expect(stallBefore([{ endedAt: 100, ms: 40 }], 101, 90)).toBe(11);
    expect(stallBefore([{ endedAt: 100, ms: 40 }], 115, 101)).toBe(0);
  });

  it('subtracts a stall of this process once, not in the ping baseline and again from the verdict', () => {
    // This process stalled from 310 to 390. The ping sent at 300 was read at 391 (91 ms), the verdict at 400: the
    // stall delayed both reads, so the baseline is what the ping took net of it (11 − 1 = 10 ms), and the verdict's
    // share 400 − 10 − 80 = 310 ms. Counted twice it would be 230 ms.
    const pings = [
      { connection: 0, sentAt: -100, ms: 1 },
      { connection: 0, sentAt: 300, ms: 91 },
    ];
    const row = verdictRow([{ connection: 0, sentAt: 0, ms: 400 }], pings, 300, [], [{ endedAt: 390, ms: 80 }]);
    expect(row.ok).toBe(false);
    expect(row.measured).toContain('max 310.0 ms, 1 late');
  });

  it('keeps a ping held by an earlier stall of this process in the baseline', () => {
    // This process and the sidecar were held together from 5 to 65: the ping sent at 0 came back at 66, so the
    // sidecar read the line sent at 0 at 65, and its verdict came at 335. That stall is not charged to the verdict
    // (read long after it), so the ping keeps it: 335 − (66 − 1) = 270.
    const pings = [
      { connection: 0, sentAt: -50, ms: 1 },
      { connection: 0, sentAt: 0, ms: 66 },
    ];
    expect(verdictRow([{ connection: 0, sentAt: 0, ms: 335 }], pings, 300, [], [{ endedAt: 65, ms: 60 }]).ok).toBe(true);
  });

  it('passes verdicts whose share stays within decisionTimeoutMs + 5 ms', () => {
    expect(verdictRow([{ connection: 0, sentAt: 0, ms: 305 }], [], 300).ok).toBe(true);
    expect(verdictRow([], [], 300).ok).toBe(false);
  });
});

describe("verdict latency: the sidecar's wait for a core", () => {
  // The kernel adds a wait to the counter when it ends: samples every 5 ms, pid 7.
  const samples = (...points: [at: number, waitMs: number][]): CoreWaitSample[] => points.map(([at, waitMs]) => ({ at, pid: 7, waitMs }));

  it('places a wait that ended between two samples where it covers the least of the span', () => {
    // 100 ms of waiting ended between 300 and 305: it lay in [200, 300] or [205, 305].
    const waited = samples([295, 10], [300, 10], [305, 110], [310, 110]);
    expect(coreWaitBetween(waited, 270, 400)).toBe(30);
    expect(coreWaitBetween(waited, 0, 400)).toBe(100);
    expect(coreWaitBetween(waited, 100, 200)).toBe(0);
    // A gap in the samples (the soak was stalled itself): the wait may have ended as early as 150.
    expect(coreWaitBetween(samples([150, 0], [305, 100]), 270, 400)).toBe(0);
    // The thread got a core between 262 and 267 (a wait ended then), so the 80 ms wait that ended by 351 began after
    // 262: it lay at least in [262, 342].
    const after = samples([255, 0], [262, 0], [267, 3], [351, 83]);
    expect(coreWaitBetween(after, 270, 365)).toBe(72);
    // No samples, one sample, a restart between them: nothing.
    expect(coreWaitBetween([], 0, 400)).toBe(0);
    expect(coreWaitBetween([{ at: 300, pid: 7, waitMs: 0 }, { at: 305, pid: 8, waitMs: 100 }], 0, 400)).toBe(0);
  });

  it("credits a late verdict the sidecar's wait for a core after the policy's deadline, not during the timer", () => {
    // Sent at 0, policy deadline 270, read at 380: the sidecar waited 100 ms for a core, ending between 365 and 370.
    const verdict = { connection: 0, sentAt: 0, ms: 380 };
    const late = samples([0, 0], [360, 0], [365, 0], [370, 100], [375, 100], [400, 100]);
    expect(verdictRow([verdict], [], 300).ok).toBe(false);
    const row = verdictRow([verdict], [], 300, [], [], late);
    expect(row.ok).toBe(true);
    expect(row.measured).toContain('1 more late while the sidecar waited for a core');
    // The same wait, over by 100, in the middle of the timer's run, delayed nothing.
    const early = samples([0, 0], [195, 0], [200, 100], [400, 100]);
    expect(verdictRow([verdict], [], 300, [], [], early).ok).toBe(false);
    // Its own work or GC (no wait on record) stays charged.
    expect(verdictRow([verdict], [], 300, [], [], samples([0, 0], [400, 0])).ok).toBe(false);
  });
});

describe('window over sidecar lifetimes', () => {
  it('takes the highest peak, the shortest span and every overrun', () => {
    const base = { requests: 10, intervalMs: 1000, maxAt: 1 };
    const worst = worstWindow([
      { ...base, arrivals: 20, maxInWindow: 10, minSpanMs: 1000, violations: 0 },
      { ...base, arrivals: 5, maxInWindow: 12, minSpanMs: 990, violations: 2 },
      { ...base, arrivals: 0, maxInWindow: 0, minSpanMs: null, violations: 0, maxAt: null },
    ]);
    expect(worst).toStrictEqual({ ...base, arrivals: 25, maxInWindow: 12, minSpanMs: 990, violations: 2 });
  });
});

describe('starvation: the bound, net of service-requested holds', () => {
  it('derives the bound from the soak config: the cap scaled to the window, two guarded windows, backoff, timeouts', () => {
    expect(soakRetry({ windowMs: 10_000 }).maxRetryAfterMs).toBe(10_000);
    // 10 s cap + 2 × 10.1 s (T′) + 5 s client backoff + 2 × 2 s timeouts
    expect(starvationBoundMs({ windowMs: 10_000 })).toBe(39_200);
    expect(starvationBoundMs({ windowMs: 60_000 }, 3_000)).toBe(60_000 + 2 * 60_600 + 5_000 + 6_000);
    // 30 of every 100 slots per 10 s
    expect(reviewShareCapacityPerSecond({ windowRequests: 100, windowMs: 10_000 })).toBeCloseTo(3);
  });

  const calls = [
    { at: 1_000, endpoint: 'mute', status: 200 },
    { at: 2_000, endpoint: 'mute', status: 429 }, // the 86400 fault, armed 1_500..2_100
    { at: 2_050, endpoint: 'mute', status: 200 },
    { at: 5_000, endpoint: 'review', status: 503 }, // the review 503, armed 4_000..6_000
    { at: 5_500, endpoint: 'mute', status: 503 }, // a 503 outside the fault's endpoint: no hold
    { at: 9_000, endpoint: 'webhook', status: 429 }, // a 429 with no fault armed: not the service's Retry-After
  ];
  const faults = [
    { armedAt: 1_500, clearedAt: 2_100, status: 429, retryAfterMs: 86_400_000 },
    { armedAt: 4_000, clearedAt: 6_000, status: 503, endpoint: 'review', retryAfterMs: 3_600_000 },
  ];

  it('finds the holds the emulator sent, capped as the sidecar caps them, key-wide for a 429', () => {
    expect(serviceHolds(faults, calls, 10_000)).toStrictEqual([
      { from: 2_000, to: 12_000, scope: 'all' },
      { from: 5_000, to: 15_000, scope: 'review' },
    ]);
  });

  it('counts the held part of a wait once where holds overlap, and only holds that apply to the class', () => {
    const holds = serviceHolds(faults, calls, 10_000);
    expect(heldMs(holds, 'review', 0, 20_000)).toBe(13_000); // 2..12 ∪ 5..15
    expect(heldMs(holds, 'action', 0, 20_000)).toBe(10_000); // the review 503 does not pause actions
    expect(heldMs(holds, 'review', 13_000, 14_000)).toBe(1_000);
    expect(heldMs(holds, 'action', 12_000, 30_000)).toBe(0);
    expect(heldMs([], 'review', 0, 1_000)).toBe(0);
  });

  it('judges only the time outside holds against the bound, and still fails a review left without a fate', () => {
    const base = { boundMs: 39_200, retryAfterCapMs: 10_000, actionsUnanswered: 0, actionsRefused: new Map<string, number>(), actionsOrphaned: 0 };
    // 45 s with 10 s under a hold: 35 s outside, within the bound. 45 s with 5 s held: 40 s outside, starved.
    const [reviews, actions] = starvationRows({
      ...base,
      reviewWaits: [{ ms: 45_000, heldMs: 10_000 }],
      reviewsWithoutFate: 0,
      actionWaits: [{ ms: 45_000, heldMs: 5_000 }],
    });
    expect(reviews?.ok).toBe(true);
    expect(reviews?.bound).toContain('39.2 s + the Retry-After hold');
    expect(actions?.ok).toBe(false);
    expect(actions?.measured).toContain('1 over the bound');
    const [pending] = starvationRows({ ...base, reviewWaits: [{ ms: 1_000, heldMs: 0 }], reviewsWithoutFate: 1, actionWaits: [] });
    expect(pending?.ok).toBe(false);
  });

  it('takes the waits from the audit and the actions: held time per class, refusals on the spot apart from GSA\u2019s 429s', () => {
    const audited = (n: number, fate: AuditedReview['fate'], fateAt: number | undefined): AuditedReview => ({ review: acked(n, 1_000), fate, copies: 1, fateAt });
    const reviews = [audited(1, 'delivered', 21_000), audited(2, 'pending', undefined), audited(3, 'unconfirmed', undefined)];
    const audit: ReviewAudit = { acknowledged: 3, byFate: { delivered: 1, unconfirmed: 1, dead: 0, pending: 1, lost: 0 }, duplicates: 0, reviews, unreadableLines: 0 };
    const action = (id: string, outcome: string | undefined, answeredAt?: number, orphaned?: boolean): SentAction => ({
      id,
      sentAt: 2_000,
      ...(answeredAt === undefined ? {} : { answeredAt }),
      ...(outcome === undefined ? {} : { outcome }),
      ...(orphaned === undefined ? {} : { orphaned }),
    });
    const actions = [action('a1', 'ok', 7_000), action('a2', 'rate_limited', 3_000), action('a3', 'rate_limited', 3_000), action('a4', 'error:unavailable', 2_100), action('a5', undefined, undefined, true), action('a6', undefined)];
    // A review hold from 5 s to 9 s, a key-wide one from 6 s to 8 s: 4 s held for a review waiting from 1 s to 21 s,
    // 1 s for the action waiting from 2 s to 7 s (the review hold is not its).
    const holds = [
      { from: 5_000, to: 9_000, scope: 'review' as const },
      { from: 6_000, to: 8_000, scope: 'all' as const },
    ];
    const figures = starvationFigures({ audit, actions, webhook429s: 1, holds, endedAt: 31_000 }, 39_200, 10_000);
    // Delivered: ack → fate; unconfirmed with no time: charged until the end; pending: without a fate.
    expect(figures.reviewWaits).toEqual([
      { ms: 20_000, heldMs: 4_000 },
      { ms: 30_000, heldMs: 4_000 },
    ]);
    expect(figures.reviewsWithoutFate).toBe(1);
    expect(figures.actionWaits).toEqual([{ ms: 5_000, heldMs: 1_000 }]);
    // One rate_limited is GSA's 429, the other the sidecar's own refusal.
    expect([...figures.actionsRefused]).toEqual([
      ['unavailable', 1],
      ['rate_limited (not from GSA)', 1],
    ]);
    expect(figures.actionsUnanswered).toBe(1);
    expect(figures.actionsOrphaned).toBe(1);
    expect([...actionOutcomes(actions)]).toEqual([
      ['ok', 1],
      ['rate_limited', 2],
      ['error:unavailable', 1],
      ['cut by a kill', 1],
      ['no answer', 1],
    ]);
  });
});

describe('RSS and handles flat after warm-up', () => {
  function samples(rss: (i: number) => number, fds: (i: number) => number, count = 40): ResourceSample[] {
    return Array.from({ length: count }, (_, i) => ({ at: i * 1000, pid: 7, generation: 2, rssKb: rss(i), fds: fds(i) }));
  }

  it('passes a flat process, ignoring its warm-up and earlier generations', () => {
    const early: ResourceSample[] = [{ at: 0, pid: 6, generation: 1, rssKb: 999_999, fds: 999 }];
    const rows = resourceRows([...early, ...samples((i) => (i < 10 ? 50_000 + i * 5000 : 90_000), () => 25)]);
    expect(rows.map((r) => r.ok)).toStrictEqual([true, true]);
  });

  it('fails a process whose memory and descriptors keep growing', () => {
    const rows = resourceRows(samples((i) => 80_000 + i * 5000, (i) => 25 + i));
    expect(rows.map((r) => r.ok)).toStrictEqual([false, false]);
  });

  it('fails when there are too few samples to judge', () => {
    expect(resourceRows(samples(() => 1, () => 1, 3)).every((r) => !r.ok)).toBe(true);
  });
});

describe('the soak sidecar when its directory is gone', () => {
  it('fails that start with a clear error instead of crashing the soak on an unhandled spawn error', async () => {
    const logs = await tempDir('soak-sidecar-log');
    const gone = await tempDir('soak-sidecar-gone');
    await removeTempDir(gone);
    const sidecar = new SoakSidecar(join(gone, 'config.json'), join(logs, 'sidecar.log'), () => performance.now());
    try {
      await expect(sidecar.start()).rejects.toThrow(/could not be started: .*ENOENT.*still exist/);
      expect(sidecar.alive()).toBe(false);
    } finally {
      await sidecar.close();
    }
  });
});

describe("the soak's listener ports", () => {
  it.runIf(process.platform === 'linux')('are free, below the ephemeral range a listen(0) draws from, and skip one in use', async () => {
    const ephemeralStart = Number((await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')).trim().split(/\s+/)[0]);
    const taken = await listenerPort();
    expect(taken).toBeGreaterThanOrEqual(10_000);
    expect(taken).toBeLessThan(ephemeralStart);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(taken, '127.0.0.1', resolve));
    try {
      // The first draw lands on the port in use, the next anywhere else.
      const draws = [(taken - 10_000 + 0.5) / (ephemeralStart - 10_000), 0.5];
      const port = await listenerPort(() => draws.shift() ?? Math.random());
      expect(port).not.toBe(taken);
      expect(port).toBeLessThan(ephemeralStart);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
