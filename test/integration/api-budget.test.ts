// The API budget through the real client and the real emulator under heavy mute load: reviews and a server action
// still start within their computed bounds, and the strict window holds, counted where the requests arrive.
// Time is fake (the client's timers and clock, and the emulator's clock): a request released at fake time t is
// recorded at t however loaded the machine is, because fake time does not move while real I/O completes.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { worstCaseWaitMs } from '../../src/gsa/budget/budgetShares.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient, GsaError } from '../../src/gsa/index.js';
import { guardedIntervalMs } from '../../src/gsa/budget/rateLimiter.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'ovddykvbs';
const SERVER_ID = 4711;
const REQUESTS = 20;
const INTERVAL_MS = 2000;
const SPAN_MS = guardedIntervalMs(INTERVAL_MS);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Polls with setImmediate, which these fake timers leave alone, so real socket I/O can finish. */
async function waitForRealIo(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + patientMs(10_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`${what}: not reached within 10 s of real time`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function playerId(index: number): string {
  return `7656119${String(8_000_000_000 + index)}`;
}

describe('the API budget under heavy mute load (real client, real emulator)', () => {
  it('sends 5 reviews and a server action within their bounds behind 1,000 mute checks, inside the window', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
    const emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: SERVER_ID }], now: () => Date.now() });
    cleanup.push(() => emulator.close());
    const client = new GsaClient({
      baseUrl: emulator.url,
      clientId: emulator.clientId,
      clientSecret: emulator.clientSecret,
      // Longer than the whole test in fake time: nothing in flight is ever aborted by advancing the clock.
      timeoutMs: 600_000,
      // A connection per slot of the window, so a whole window leaves at once and the counts below stay exact.
      rateLimit: { requests: REQUESTS, intervalMs: INTERVAL_MS, maxQueued: 200, maxInFlight: REQUESTS },
      retry: { retries: 0 },
    });
    cleanup.push(() => client.close());

    let settled = 0;
    const outcomes: string[] = [];
    const track = (what: string, call: Promise<unknown>): void => {
      call.then(
        () => {
          settled += 1;
          outcomes.push(`${what}:ok`);
        },
        (error: unknown) => {
          settled += 1;
          outcomes.push(`${what}:${error instanceof GsaError ? error.code : 'bug'}`);
        },
      );
    };
    const start = Date.now();
    for (let index = 0; index < 1000; index++) track('mute', client.checkMuted(SERVER, { steamId: playerId(index) }));
    for (let index = 0; index < 5; index++) track('review', client.submitReview(SERVER, { steamId: playerId(index) }, 5, `review ${index}`));
    track('action', client.restart(SERVER_ID));

    // 20 mute checks took the first window; of the 980 left, the newest 200 wait and 780 gave way (rate_limited).
    const sent = 20 + 200 + 6;
    for (let windows = 0; emulator.calls.length < sent; windows++) {
      const expected = Math.min(sent, REQUESTS * (windows + 1));
      await waitForRealIo(() => emulator.calls.length === expected && settled === 780 + expected, `window ${windows}: ${expected} answered`);
      await vi.advanceTimersByTimeAsync(SPAN_MS);
    }
    await waitForRealIo(() => settled === 1006, 'every call settled');
    expect(outcomes.filter((outcome) => outcome === 'mute:rate_limited')).toHaveLength(780);
    expect(outcomes.filter((outcome) => outcome !== 'mute:rate_limited').every((outcome) => outcome.endsWith(':ok'))).toBe(true);

    const arrivals = (endpoint: string): number[] => emulator.calls.filter((call) => call.endpoint === endpoint).map((call) => call.at - start);
    const reviews = arrivals('review');
    expect(reviews).toHaveLength(5);
    reviews.forEach((at, index) => {
      expect(at).toBeLessThanOrEqual(worstCaseWaitMs('review', index + 1, REQUESTS, SPAN_MS));
    });
    const [action] = arrivals('webhook');
    expect(action).toBeLessThanOrEqual(worstCaseWaitMs('action', 1, REQUESTS, SPAN_MS));
    // Both bounds are one window here, and they were met with the first slots that freed.
    expect([...reviews, action]).toEqual(Array.from({ length: 6 }, () => SPAN_MS));
    expect(emulator.reviews).toHaveLength(5);

    const times = emulator.calls.map((call) => call.at);
    for (let index = 0; index + REQUESTS < times.length; index++) {
      expect(times[index + REQUESTS]! - times[index]!).toBeGreaterThanOrEqual(INTERVAL_MS);
    }
  });
});
