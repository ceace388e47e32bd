// RepeatSummary on fake timers: the first occurrence of a kind is news, the rest are counted; one summary per
// interval while they keep coming, none for a quiet one (which ends the run); kinds are counted apart; close()
// reports what is left and stops the timers.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RepeatSummary, type RepeatSummaryReport } from '../../src/log/repeatSummary.js';

type Kind = 'a' | 'b';
let reports: RepeatSummaryReport<Kind>[];
let repeats: RepeatSummary<Kind>;

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  reports = [];
  repeats = new RepeatSummary<Kind>({ intervalMs: 60_000, clock: { now: () => Date.now() }, onSummary: (report) => reports.push(report) });
});

afterEach(() => {
  repeats.close();
  vi.useRealTimers();
});

describe('RepeatSummary', () => {
  it('says the first of 10,000 is news, then reports 9,999 once when the interval ends', () => {
    const news = Array.from({ length: 10_000 }, () => repeats.first('a')).filter(Boolean);
    expect(news).toHaveLength(1);
    expect(reports).toEqual([]);
    vi.advanceTimersByTime(59_999);
    expect(reports).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(reports).toEqual([{ kind: 'a', repeats: 9_999, sinceMs: 60_000 }]);
  });

  it('reports once per interval while occurrences keep coming, and ends the run after a quiet interval', () => {
    repeats.first('a');
    for (let minute = 0; minute < 3; minute++) {
      vi.advanceTimersByTime(30_000);
      expect(repeats.first('a')).toBe(false);
      expect(repeats.first('a')).toBe(false);
      vi.advanceTimersByTime(30_000);
    }
    expect(reports.map((report) => report.repeats)).toEqual([2, 2, 2]);
    vi.advanceTimersByTime(60_000); // quiet: nothing to say, and the run ends
    expect(reports).toHaveLength(3);
    expect(repeats.first('a')).toBe(true);
    vi.advanceTimersByTime(600_000);
    expect(reports).toHaveLength(3);
  });

  it('counts kinds apart', () => {
    expect(repeats.first('a')).toBe(true);
    expect(repeats.first('b')).toBe(true);
    repeats.first('b');
    expect([repeats.pending('a'), repeats.pending('b')]).toEqual([0, 1]);
    vi.advanceTimersByTime(60_000);
    expect(reports).toEqual([{ kind: 'b', repeats: 1, sinceMs: 60_000 }]);
  });

  it('reports what is left on close(), leaves no timer behind, and treats later occurrences as news', () => {
    repeats.first('a');
    repeats.first('a');
    vi.advanceTimersByTime(10_000);
    repeats.close();
    expect(reports).toEqual([{ kind: 'a', repeats: 1, sinceMs: 10_000 }]);
    expect(vi.getTimerCount()).toBe(0);
    expect(repeats.first('a')).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('hands the summary the latest context of its kind', () => {
    const withContext = new RepeatSummary<'a', { strike: number }>({ intervalMs: 1_000, onSummary: (report) => seen.push(report) });
    const seen: RepeatSummaryReport<'a', { strike: number }>[] = [];
    expect(withContext.first('a', { strike: 1 })).toBe(true);
    expect(withContext.first('a', { strike: 2 })).toBe(false);
    expect(withContext.first('a', { strike: 3 })).toBe(false);
    vi.advanceTimersByTime(1_000);
    expect(seen).toEqual([{ kind: 'a', latest: { strike: 3 }, repeats: 2, sinceMs: 1_000 }]);
    withContext.close();
  });

  it('follows at most maxKinds kinds at once: one more is news every time, with no timer, until a run ends', () => {
    const open = new RepeatSummary<string>({ intervalMs: 1_000, maxKinds: 2, onSummary: (report) => reports.push(report as RepeatSummaryReport<Kind>) });
    expect(open.first('p1')).toBe(true);
    expect(open.first('p2')).toBe(true);
    expect(vi.getTimerCount()).toBe(2);
    expect([open.first('p3'), open.first('p3')]).toEqual([true, true]);
    expect(open.pending('p3')).toBe(0);
    expect(vi.getTimerCount()).toBe(2);
    // Both quiet for an interval: their runs end, and a third kind is followed again.
    vi.advanceTimersByTime(1_000);
    expect([open.first('p3'), open.first('p3')]).toEqual([true, false]);
    open.close();
  });
});
