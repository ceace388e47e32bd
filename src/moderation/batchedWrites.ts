// Writes to one file, queued in memory and flushed in order, everything queued during a flush going out in the next
// one: under a burst the file gets one durable write per flush instead of one per item, and what waits is one array
// of items, not a promise chain holding a closure for each. The queue is bounded: past `maxPending` items the oldest
// are dropped down to `keepNewest` and the count is handed to `onDropped` (for a file that keeps only its newest
// records, which a compaction would drop anyway). It knows nothing of the file's format; it never throws out of
// push(), and a flush that fails is handed to `onError` and never stops the next one.

export interface BatchedWritesOptions<T> {
  /** Writes one batch, oldest first. A rejection goes to onError; the next batch is still written. */
  readonly write: (batch: readonly T[]) => Promise<void>;
  /** The batch whose write rejected. Must not throw. */
  readonly onError: (error: unknown, batch: readonly T[]) => void;
  /** Most items waiting at once; unbounded when absent. */
  readonly maxPending?: number | undefined;
  /** What is left of the waiting items once maxPending is passed: the newest this many. @default maxPending / 2 */
  readonly keepNewest?: number | undefined;
  /** Items dropped since the last flush, told just before the next flush starts. Must not throw. */
  readonly onDropped?: ((count: number) => void) | undefined;
}

export class BatchedWrites<T> {
  readonly #options: BatchedWritesOptions<T>;
  readonly #maxPending: number;
  readonly #keepNewest: number;
  #pending: T[] = [];
  #dropped = 0;
  /** The flushing loop while one runs: it runs until nothing waits. */
  #flushing: Promise<void> | undefined;

  constructor(options: BatchedWritesOptions<T>) {
    this.#options = options;
    this.#maxPending = options.maxPending ?? Number.POSITIVE_INFINITY;
    this.#keepNewest = Math.max(1, Math.min(options.keepNewest ?? Math.floor(this.#maxPending / 2), this.#maxPending));
  }

  /** Items waiting for a flush (not counting the batch being written). */
  get pending(): number {
    return this.#pending.length;
  }

  /** Queues the item; starts a flush at once when none runs (so the first item of a burst is not held back). */
  push(item: T): void {
    this.#pending.push(item);
    // Dropped in one splice down to keepNewest, not one at a time: a burst costs amortised O(1) per item.
    if (this.#pending.length > this.#maxPending) {
      const excess = this.#pending.length - this.#keepNewest;
      this.#pending.splice(0, excess);
      this.#dropped += excess;
    }
    this.#flushing ??= this.#flush();
  }

  /** Resolves when every item queued so far has been written (or its failure handed to onError). */
  settled(): Promise<void> {
    return this.#flushing ?? Promise.resolve();
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) {
      const batch = this.#pending;
      this.#pending = [];
      if (this.#dropped > 0) {
        const dropped = this.#dropped;
        this.#dropped = 0;
        this.#options.onDropped?.(dropped);
      }
      try {
        await this.#options.write(batch);
      } catch (error) {
        this.#options.onError(error, batch);
      }
    }
    this.#flushing = undefined;
  }
}
