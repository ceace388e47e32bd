// The wrong-token throttle on its own, with fake timers: a few free failures, then 429 waits that double; one
// summary per interval; a bounded address table. It is only told about wrong tokens: the adapter never asks it
// about the right one (test/integration/token-guessing.test.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { UpgradeThrottle, type FailureSummary } from '../../adapters/websocket/upgradeThrottle.js';

let summaries: FailureSummary[];
let throttle: UpgradeThrottle;

function make(options: { maxAddresses?: number } = {}): UpgradeThrottle {
  return new UpgradeThrottle({
    freeFailures: 3,
    minBlockMs: 1000,
    maxBlockMs: 8000,
    // No jitter: the full step, so the waits are exact.
    random: () => 0.999_999_999,
    clock: { now: () => Date.now() },
    onSummary: (summary) => summaries.push(summary),
    ...options,
  });
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  summaries = [];
  throttle = make();
});

afterEach(() => {
  throttle.close();
  vi.useRealTimers();
});

describe('UpgradeThrottle', () => {
  it('answers an address 401 a few times, then with a wait that doubles up to the maximum', () => {
    const address = '192.0.2.7';
    expect(throttle.failed(address)).toBe(0);
    expect(throttle.failed(address)).toBe(0);
    expect(throttle.failed(address)).toBe(0); // the third: still a 401, and a wait of 1 s from now
    expect(throttle.failed(address)).toBe(1000);
    vi.advanceTimersByTime(400);
    // A wrong token during the wait is answered with what is left of it, and does not lengthen it.
    expect(throttle.failed(address)).toBe(600);
    vi.advanceTimersByTime(600);
    expect(throttle.failed(address)).toBe(0); // checked after the wait, and failed: the wait doubles
    expect(throttle.failed(address)).toBe(2000);
    vi.advanceTimersByTime(2000);
    throttle.failed(address);
    expect(throttle.failed(address)).toBe(4000);
    for (let index = 0; index < 5; index++) {
      vi.advanceTimersByTime(8000);
      throttle.failed(address);
    }
    expect(throttle.failed(address)).toBe(8000);
    // Other addresses are not affected.
    expect(throttle.failed('192.0.2.8')).toBe(0);
  });

  it('starts an address afresh after 10 quiet minutes', () => {
    for (let index = 0; index < 3; index++) throttle.failed('192.0.2.7');
    vi.advanceTimersByTime(600_000);
    expect(throttle.failed('192.0.2.7')).toBe(0);
    expect(throttle.failed('192.0.2.7')).toBe(0);
  });

  it('reports the first failure at once, then one summary per interval, and goes quiet when they stop', () => {
    throttle.failed('192.0.2.7');
    expect(summaries).toEqual([expect.objectContaining({ first: true, rejected: 1, throttled: 0, top: [['192.0.2.7', 1]] })]);
    for (let index = 0; index < 1000; index++) throttle.failed('192.0.2.7');
    for (let index = 0; index < 7; index++) throttle.failed(`198.51.100.${index}`);
    expect(summaries).toHaveLength(1);
    vi.advanceTimersByTime(60_000);
    expect(summaries).toHaveLength(2);
    // Two more failures reach the free limit of 3 (401s); the rest are answered 429 (no time passed).
    expect(summaries[1]).toMatchObject({ first: false, rejected: 2 + 7, throttled: 998, otherAddresses: 3 });
    expect(summaries[1]?.top[0]).toEqual(['192.0.2.7', 1000]);
    expect(summaries[1]?.top).toHaveLength(5);
    vi.advanceTimersByTime(600_000);
    expect(summaries).toHaveLength(2);
    throttle.failed('192.0.2.9');
    expect(summaries.at(-1)).toMatchObject({ first: true, rejected: 1 });
  });

  it('remembers a bounded number of addresses, forgetting the one that failed longest ago', () => {
    throttle.close();
    throttle = make({ maxAddresses: 100 });
    for (let index = 0; index < 3; index++) throttle.failed('203.0.113.1');
    for (let index = 0; index < 10_000; index++) throttle.failed(`10.${index >> 16}.${(index >> 8) & 255}.${index & 255}`);
    expect(throttle.size).toBe(100);
    // Forgotten: its next wrong token is a 401 again, not a 429.
    expect(throttle.failed('203.0.113.1')).toBe(0);
  });
});
