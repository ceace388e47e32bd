// BatchedWrites: the queue in front of the moderation files. Writes are held open by the test (no timers, no
// disk), so what is queued during a write is known exactly: it goes out in the next write, in order, in one batch;
// a failed write is reported and the next one still runs; past maxPending the oldest are dropped and counted.
import { describe, expect, it } from 'vitest';
import { BatchedWrites } from '../../src/moderation/batchedWrites.js';

/** A write function whose calls stay open until the test finishes them. */
function heldWrites() {
  const batches: number[][] = [];
  const finishers: ((error?: Error) => void)[] = [];
  const write = (batch: readonly number[]): Promise<void> => {
    batches.push([...batch]);
    return new Promise<void>((resolve, reject) => {
      finishers.push((error) => {
        if (error === undefined) resolve();
        else reject(error);
      });
    });
  };
  /** Finishes the oldest open write, then lets the queue start its next one. */
  const finish = async (error?: Error): Promise<void> => {
    const next = finishers.shift();
    if (next === undefined) throw new Error('no write is open');
    next(error);
    for (let tick = 0; tick < 5; tick++) await Promise.resolve();
  };
  return { batches, write, finish };
}

describe('BatchedWrites', () => {
  it('writes the first item at once and everything queued meanwhile in one next write, in order', async () => {
    const held = heldWrites();
    const writes = new BatchedWrites<number>({ write: held.write, onError: () => undefined });
    writes.push(1);
    for (let item = 2; item <= 100; item++) writes.push(item);
    expect(held.batches).toEqual([[1]]);
    expect(writes.pending).toBe(99);
    await held.finish();
    expect(held.batches).toEqual([[1], Array.from({ length: 99 }, (_, index) => index + 2)]);
    let settled = false;
    void writes.settled().then(() => (settled = true));
    await held.finish();
    await writes.settled();
    expect(settled).toBe(true);
    expect(held.batches).toHaveLength(2);
  });

  it('reports a failed write with its batch and still writes the next one', async () => {
    const held = heldWrites();
    const failed: number[][] = [];
    const writes = new BatchedWrites<number>({ write: held.write, onError: (_error, batch) => failed.push([...batch]) });
    writes.push(1);
    writes.push(2);
    await held.finish(new Error('disk full'));
    expect(failed).toEqual([[1]]);
    expect(held.batches).toEqual([[1], [2]]);
    await held.finish();
    await writes.settled();
    expect(failed).toEqual([[1]]);
  });

  it('past maxPending drops the oldest waiting down to keepNewest and says how many, before the next write', async () => {
    const held = heldWrites();
    const dropped: number[] = [];
    const writes = new BatchedWrites<number>({ write: held.write, onError: () => undefined, maxPending: 10, keepNewest: 5, onDropped: (count) => dropped.push(count) });
    for (let item = 1; item <= 31; item++) writes.push(item);
    // 1 is being written; 2..31 waited, cut to the newest 5 each time an 11th arrived.
    expect(writes.pending).toBeLessThanOrEqual(10);
    expect(dropped).toEqual([]);
    await held.finish();
    const second = held.batches[1] ?? [];
    expect(second.at(-1)).toBe(31);
    expect(second).toEqual(Array.from({ length: second.length }, (_, index) => 32 - second.length + index));
    expect(dropped).toEqual([30 - second.length]);
    await held.finish();
    await writes.settled();
  });
});
