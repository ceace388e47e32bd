import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { backoffDelayMs } from '../../src/time/backoff.js';
import { allSettledWithin, withDeadline } from '../../src/time/deadline.js';

describe('backoffDelayMs', () => {
  const options = { minDelayMs: 500, maxDelayMs: 30_000 };

  it('doubles from the first step and stops at the longest', () => {
    const top = (): number => 0.999_999;
    expect([1, 2, 3, 4].map((attempt) => backoffDelayMs(attempt, options, top))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffDelayMs(20, options, top)).toBe(30_000);
    expect(backoffDelayMs(5000, options, top)).toBe(30_000);
  });

  it('jitters between half and all of the step', () => {
    expect(backoffDelayMs(3, options, () => 0)).toBe(1000);
    expect(backoffDelayMs(3, options, () => 0.5)).toBe(1500);
  });
});

describe('withDeadline', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers with the work when it settles in time', async () => {
    const result = withDeadline(new Promise<string>((resolve) => setTimeout(() => { resolve('done'); }, 299)), 300, () => 'late');
    await vi.advanceTimersByTimeAsync(299);
    await expect(result).resolves.toBe('done');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers with the fallback at the deadline, not a tick before', async () => {
    let settled: string | undefined;
    void withDeadline(new Promise<string>(() => undefined), 300, () => 'late').then((value) => (settled = value));
    await vi.advanceTimersByTimeAsync(299);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(settled).toBe('late');
  });

  it('passes a rejection on', async () => {
    await expect(withDeadline(Promise.reject(new Error('boom')), 300, () => 'late')).rejects.toThrow('boom');
  });

  it('allSettledWithin says whether everything settled in time', async () => {
    const slow = new Promise((resolve) => setTimeout(resolve, 1000));
    const inTime = allSettledWithin([Promise.reject(new Error('x')), Promise.resolve(1)], 10);
    const late = allSettledWithin([slow], 500);
    await vi.advanceTimersByTimeAsync(500);
    await expect(inTime).resolves.toBe(true);
    await expect(late).resolves.toBe(false);
  });
});
