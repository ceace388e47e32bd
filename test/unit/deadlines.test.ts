import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SharedDeadlines } from '../../src/gsa/client/deadlines.js';

describe('SharedDeadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('never fires before the timeout and at most one slice (5%) after', () => {
    const deadlines = new SharedDeadlines(1000);
    const signal = deadlines.signal();
    vi.advanceTimersByTime(999);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(51);
    expect(signal.aborted).toBe(true);
  });

  it('shares one signal within a slice and gives a later request its own', () => {
    const deadlines = new SharedDeadlines(1000);
    const first = deadlines.signal();
    vi.advanceTimersByTime(49);
    expect(deadlines.signal()).toBe(first);
    vi.advanceTimersByTime(1);
    const later = deadlines.signal();
    expect(later).not.toBe(first);
    // The later request started 50 ms after the first: its signal must outlive the first one's by as much.
    vi.advanceTimersByTime(1000);
    expect(first.aborted).toBe(true);
    expect(later.aborted).toBe(false);
    vi.advanceTimersByTime(50);
    expect(later.aborted).toBe(true);
  });

  it('a request started at the very end of a slice still gets its full timeout', () => {
    const deadlines = new SharedDeadlines(100); // slice 5 ms
    const signal = deadlines.signal();
    vi.advanceTimersByTime(4.9);
    expect(deadlines.signal()).toBe(signal);
    // started at 4.9 ms: must not fire before 104.9 ms
    vi.advanceTimersByTime(99.9);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(0.2);
    expect(signal.aborted).toBe(true);
  });
});

describe('SharedDeadlines with timers ahead of the clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('never hands out a signal that already fired', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const deadlines = new SharedDeadlines(1000);
    const first = deadlines.signal();
    vi.advanceTimersByTime(2000); // timers jump; performance.now() (real) barely moves
    expect(first.aborted).toBe(true);
    expect(deadlines.signal().aborted).toBe(false);
  });
});
