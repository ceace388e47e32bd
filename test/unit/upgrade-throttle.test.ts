// The wrong-token throttle on its own, with fake timers: a few free failures, then refusals with a doubling
// wait; one summary per interval; a bounded address table.
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
  it('lets an address fail a few times, then refuses it for a wait that doubles up to the maximum', () => {
    const address = '192.0.2.7';
    throttle.failed(address);
    throttle.failed(address);
    expect(throttle.retryAfterMs(address)).toBe(0);
    throttle.failed(address); // the third: refused for 1 s from now
    expect(throttle.retryAfterMs(address)).toBe(1000);
    vi.advanceTimersByTime(1000);
    expect(throttle.retryAfterMs(address)).toBe(0);
    throttle.failed(address);
    expect(throttle.retryAfterMs(address)).toBe(2000);
    vi.advanceTimersByTime(2000);
    throttle.failed(address);
    expect(throttle.retryAfterMs(address)).toBe(4000);
    for (let index = 0; index < 5; index++) {
      vi.advanceTimersByTime(8000);
      throttle.failed(address);
    }
    expect(throttle.retryAfterMs(address)).toBe(8000);
    // Other addresses are not affected.
    expect(throttle.retryAfterMs('192.0.2.8')).toBe(0);
  });

  it('forgets an address on the right token', () => {
    for (let index = 0; index < 3; index++) throttle.failed('192.0.2.7');
    throttle.succeeded('192.0.2.7');
    expect(throttle.retryAfterMs('192.0.2.7')).toBe(0);
  });

  it('reports the first failure at once, then one summary per interval, and goes quiet when they stop', () => {
    throttle.failed('192.0.2.7');
    expect(summaries).toEqual([expect.objectContaining({ first: true, rejected: 1, throttled: 0, top: [['192.0.2.7', 1]] })]);
    // As the adapter does: a throttled address is refused unchecked, anything else is checked (and fails here).
    for (let index = 0; index < 1000; index++) if (throttle.retryAfterMs('192.0.2.7') === 0) throttle.failed('192.0.2.7');
    for (let index = 0; index < 7; index++) throttle.failed(`198.51.100.${index}`);
    expect(summaries).toHaveLength(1);
    vi.advanceTimersByTime(60_000);
    expect(summaries).toHaveLength(2);
    // Two more checked failures reach the free limit of 3; the rest are refused unchecked (no time passed).
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
    expect(throttle.retryAfterMs('203.0.113.1')).toBe(0);
  });
});
