// The quiet collector with fake timers and a fake clock: it collects once after a burst of requests, only when
// no request has come for quietMs, never more than once per minIntervalMs, never after close(); and the real
// collection (a full V8 GC obtained without --expose-gc) runs and leaves no `gc` global behind.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { QuietCollector, collectGarbage } from '../../src/ops/quietCollector.js';
import { systemClock } from '../../src/time/clock.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

function collector(): { quiet: QuietCollector; collected: number[] } {
  const collected: number[] = [];
  const quiet = new QuietCollector({ burstRequests: 10, quietMs: 2000, minIntervalMs: 60_000, clock: systemClock, collect: () => collected.push(Date.now()) });
  return { quiet, collected };
}

/** `count` requests, one every `everyMs`. */
function requests(quiet: QuietCollector, count: number, everyMs: number): void {
  for (let index = 0; index < count; index++) {
    quiet.noteRequest();
    vi.advanceTimersByTime(everyMs);
  }
}

describe('QuietCollector', () => {
  it('collects once, quietMs after the last request of a burst', () => {
    const { quiet, collected } = collector();
    const started = Date.now();
    // 30 requests over 3 s: the burst is still going when the first check comes.
    requests(quiet, 30, 100);
    const lastRequest = started + 29 * 100;
    vi.advanceTimersByTime(1899);
    expect(collected).toEqual([]);
    vi.advanceTimersByTime(10_000);
    expect(collected).toEqual([lastRequest + 2000]);
  });

  it('does nothing for fewer requests than a burst', () => {
    const { quiet, collected } = collector();
    requests(quiet, 9, 10);
    vi.advanceTimersByTime(600_000);
    expect(collected).toEqual([]);
    // The count goes on: the tenth request makes it a burst.
    requests(quiet, 1, 0);
    vi.advanceTimersByTime(2000);
    expect(collected).toHaveLength(1);
  });

  it('collects at most once per minIntervalMs, and a burst during the pause is collected after it', () => {
    const { quiet, collected } = collector();
    requests(quiet, 10, 0);
    vi.advanceTimersByTime(2000);
    expect(collected).toHaveLength(1);
    const first = collected[0] ?? 0;
    requests(quiet, 10, 0);
    vi.advanceTimersByTime(30_000);
    expect(collected).toHaveLength(1);
    vi.advanceTimersByTime(30_000);
    expect(collected).toEqual([first, first + 60_000]);
    vi.advanceTimersByTime(600_000);
    expect(collected).toHaveLength(2);
  });

  it('never collects after close()', () => {
    const { quiet, collected } = collector();
    requests(quiet, 10, 0);
    quiet.close();
    requests(quiet, 10, 0);
    vi.advanceTimersByTime(600_000);
    expect(collected).toEqual([]);
  });
});

describe('collectGarbage', () => {
  it('runs a full collection and leaves no gc global', () => {
    vi.useRealTimers();
    expect(() => {
      collectGarbage();
      collectGarbage();
    }).not.toThrow();
    expect('gc' in globalThis).toBe(false);
  });
});
