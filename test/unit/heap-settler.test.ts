// The heap settler: one full collection once the heap grew HEAP_GROWTH_BYTES over where it settled and the event
// loop was quiet for the last interval, never while busy or for a small growth, at most once every MIN_GAP_MS, and
// a failed collection warned about once and not tried again. Probes given by the test; the process's own probes
// (the in-process inspector) are called for real at the end.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HEAP_CHECK_MS, HEAP_GROWTH_BYTES, HeapSettler, MIN_GAP_MS, QUIET_UTILIZATION, processHeapProbes, type HeapProbes } from '../../src/ops/heapSettler.js';

const MB = 1024 * 1024;

class ScriptedHeap implements HeapProbes {
  bytes = 20 * MB;
  utilization = 0;
  collections = 0;
  /** The heap's size once collected. */
  collectsTo = 20 * MB;
  failure: Error | undefined;
  heapBytes(): number {
    return this.bytes;
  }
  loopUtilization(): number {
    return this.utilization;
  }
  collect(): Promise<void> {
    this.collections++;
    if (this.failure !== undefined) return Promise.reject(this.failure);
    this.bytes = this.collectsTo;
    return Promise.resolve();
  }
}

function settlerWith(heap: ScriptedHeap) {
  const now = { value: 0 };
  const infos: { fields: object; message: string }[] = [];
  const warns: { fields: object; message: string }[] = [];
  const settler = new HeapSettler({
    probes: heap,
    clock: { now: () => now.value },
    logger: { info: (fields, message) => infos.push({ fields, message }), warn: (fields, message) => warns.push({ fields, message }) },
  });
  return { settler, now, infos, warns };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('HeapSettler', () => {
  it('collects once the heap grew by HEAP_GROWTH_BYTES and the loop was quiet, and says so', async () => {
    const heap = new ScriptedHeap();
    const { settler, infos } = settlerWith(heap);
    heap.bytes += HEAP_GROWTH_BYTES - 1;
    await settler.check();
    expect(heap.collections).toBe(0);
    heap.bytes += 1;
    await settler.check();
    expect(heap.collections).toBe(1);
    expect(infos).toEqual([{ fields: { heapMb: 36, afterMb: 20, ms: 0 }, message: 'memory: the heap grew in a burst that is over; collected once to give it back' }]);
  });

  it('waits while the loop is busy (a burst still going), and collects at the first quiet look', async () => {
    const heap = new ScriptedHeap();
    const { settler } = settlerWith(heap);
    heap.bytes = 100 * MB;
    heap.utilization = QUIET_UTILIZATION + 0.01;
    await settler.check();
    await settler.check();
    expect(heap.collections).toBe(0);
    heap.utilization = QUIET_UTILIZATION;
    await settler.check();
    expect(heap.collections).toBe(1);
  });

  it('measures growth from the lowest size since the last collection, and from where a collection left it', async () => {
    const heap = new ScriptedHeap();
    const { settler, now } = settlerWith(heap);
    heap.bytes = 10 * MB; // V8 gave memory back by itself
    await settler.check();
    heap.bytes = 10 * MB + HEAP_GROWTH_BYTES;
    await settler.check();
    expect(heap.collections).toBe(1);
    // A collection that gave little back is the new floor: the same size is no growth.
    heap.collectsTo = 25 * MB;
    now.value += MIN_GAP_MS;
    heap.bytes = 20 * MB + HEAP_GROWTH_BYTES;
    await settler.check();
    expect(heap.collections).toBe(2);
    now.value += MIN_GAP_MS;
    heap.bytes = 25 * MB + HEAP_GROWTH_BYTES - 1;
    await settler.check();
    expect(heap.collections).toBe(2);
  });

  it('collects at most once every MIN_GAP_MS, however often bursts come', async () => {
    const heap = new ScriptedHeap();
    const { settler, now } = settlerWith(heap);
    heap.bytes = 100 * MB;
    await settler.check();
    heap.bytes = 100 * MB;
    now.value += MIN_GAP_MS - 1;
    await settler.check();
    expect(heap.collections).toBe(1);
    now.value += 1;
    await settler.check();
    expect(heap.collections).toBe(2);
  });

  it('warns once when V8 cannot be asked, and never asks again', async () => {
    const heap = new ScriptedHeap();
    heap.failure = new Error('inspector unavailable');
    const { settler, now, warns } = settlerWith(heap);
    heap.bytes = 100 * MB;
    await settler.check();
    now.value += MIN_GAP_MS;
    await settler.check();
    expect(heap.collections).toBe(1);
    expect(warns).toEqual([{ fields: { err: 'inspector unavailable' }, message: expect.stringMatching(/^memory: could not ask V8 for a collection/) as unknown }]);
  });

  it('looks every HEAP_CHECK_MS once started, not after stop(), and never holds the process open', async () => {
    vi.useFakeTimers();
    const heap = new ScriptedHeap();
    const { settler } = settlerWith(heap);
    heap.bytes = 100 * MB;
    settler.start();
    await vi.advanceTimersByTimeAsync(HEAP_CHECK_MS - 1);
    expect(heap.collections).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(heap.collections).toBe(1);
    settler.stop();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('the process\'s own probes read the heap and the loop, and a collection through the inspector completes', async () => {
    const probes = processHeapProbes();
    expect(probes.heapBytes()).toBeGreaterThan(MB);
    const utilization = probes.loopUtilization();
    expect(utilization).toBeGreaterThanOrEqual(0);
    expect(utilization).toBeLessThanOrEqual(1);
    await expect(probes.collect()).resolves.toBeUndefined();
    await expect(probes.collect()).resolves.toBeUndefined();
  });
});
