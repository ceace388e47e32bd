// HotHistogram against prom-client's own Histogram: the same values observed by both, and the Prometheus text each
// registry exposes must be identical (every cumulative bucket, the sum and the count). The values are the ones a
// bucket rule gets wrong: exactly on each bound, just either side of it, 0, -0, negatives, huge ones, and many
// random ones from a seeded generator (so a failure replays).
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HotHistogram } from '../../src/ops/hotHistogram.js';
import { seededRandom } from '../fixtures/hostileText.js';

const NAME = 'gsa_bridge_test_duration_seconds';
const HELP = 'A histogram observed by both implementations.';
/**
 * The chat verdict buckets of src/ops/metrics.ts, and a short set with a negative and a zero bound. Not -1: prom-client
 * 15 marks "above every bound" with the bound -1 internally, so it counts such values in a bucket le="-1" too.
 */
const VERDICT_BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5, 1];
const SIGNED_BUCKETS = [-2, 0, 1];

/** The next double above (direction 1) or below (-1) a finite value. */
function nextDouble(value: number, direction: 1 | -1): number {
  if (value === 0) return direction * Number.MIN_VALUE;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  const bits = view.getBigUint64(0);
  view.setBigUint64(0, (value > 0) === (direction > 0) ? bits + 1n : bits - 1n);
  return view.getFloat64(0);
}

/** Each bound, the doubles either side of it, 0, -0, negatives, tiny and huge values. */
function edgeValues(buckets: readonly number[]): number[] {
  const values = [0, -0, -1e-9, -0.5, -7, -1e300, Number.MIN_VALUE, 1e-300, 1e12, 1e300, Number.MAX_SAFE_INTEGER];
  for (const bound of buckets) values.push(bound, nextDouble(bound, -1), nextDouble(bound, 1), bound / 2, bound * 2);
  return values;
}

/** Uniform below, between and above the bounds, log-uniform over 12 decades, and exact bounds again, mixed. */
function randomValues(buckets: readonly number[], count: number, seed: number): number[] {
  const random = seededRandom(seed);
  const lowest = buckets[0] ?? 0;
  const highest = buckets.at(-1) ?? 1;
  const span = highest - lowest;
  const values: number[] = [];
  for (let i = 0; i < count; i++) {
    const pick = random();
    if (pick < 0.4) values.push(lowest - span * 0.1 + random() * span * 1.3);
    else if (pick < 0.7) values.push(10 ** (random() * 12 - 8));
    else if (pick < 0.9) values.push(buckets[Math.floor(random() * buckets.length)] ?? 0);
    else values.push(-(10 ** (random() * 6 - 3)));
  }
  return values;
}

/** Both histograms, each in a registry of its own under the same name, so their texts can be compared whole. */
function pair(buckets: readonly number[]) {
  const hotRegistry = new Registry();
  const referenceRegistry = new Registry();
  const hot = new HotHistogram({ name: NAME, help: HELP, buckets, registers: [hotRegistry] });
  const reference = new Histogram({ name: NAME, help: HELP, buckets: [...buckets], registers: [referenceRegistry] });
  return {
    observe(values: readonly number[]): void {
      for (const value of values) {
        hot.observe(value);
        reference.observe(value);
      }
    },
    reset(): void {
      hot.reset();
      reference.reset();
    },
    texts: async (): Promise<{ hot: string; reference: string }> => ({ hot: await hotRegistry.metrics(), reference: await referenceRegistry.metrics() }),
    hot,
  };
}

describe('HotHistogram, against prom-client\'s Histogram', () => {
  it('exposes the same text before anything is observed', async () => {
    const { texts } = pair(VERDICT_BUCKETS);
    const { hot, reference } = await texts();
    expect(hot).toBe(reference);
    expect(hot).toContain(`${NAME}_bucket{le="+Inf"} 0`);
  });

  it.each([
    ['the verdict buckets', VERDICT_BUCKETS],
    ['buckets with a negative and a zero bound', SIGNED_BUCKETS],
  ])('counts values on, just below and just above every bound the same way (%s)', async (_name, buckets) => {
    const both = pair(buckets);
    for (const value of edgeValues(buckets)) {
      both.observe([value]);
      const { hot, reference } = await both.texts();
      // One value at a time, so a failure names the value that went to the wrong bucket.
      expect({ value, text: hot }).toEqual({ value, text: reference });
    }
  });

  it('counts a value exactly on a bound in that bound\'s bucket (le is "less than or equal")', async () => {
    const both = pair(VERDICT_BUCKETS);
    both.observe([0.3]);
    const { hot } = await both.texts();
    expect(hot).toContain(`${NAME}_bucket{le="0.25"} 0`);
    expect(hot).toContain(`${NAME}_bucket{le="0.3"} 1`);
  });

  it.each([1, 2, 13, 20_261_125])('agrees on 20,000 random values (seed %i), and again after a reset', async (seed) => {
    const both = pair(VERDICT_BUCKETS);
    both.observe(randomValues(VERDICT_BUCKETS, 20_000, seed));
    let { hot, reference } = await both.texts();
    expect(hot).toBe(reference);
    both.reset();
    both.observe(randomValues(SIGNED_BUCKETS, 1000, seed + 1));
    ({ hot, reference } = await both.texts());
    expect(hot).toBe(reference);
  });

  it('drops NaN and infinities, which prom-client refuses, and never throws into the publisher', async () => {
    const both = pair(VERDICT_BUCKETS);
    const finite = [0.0005, 0.2, 3];
    both.observe(finite);
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => {
        both.hot.observe(value);
      }).not.toThrow();
    }
    const { hot, reference } = await both.texts();
    expect(hot).toBe(reference);
    expect(hot).toContain(`${NAME}_count 3`);
  });
});
