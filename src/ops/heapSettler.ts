// Gives the memory of a burst back once the burst is over. A flood of chat (20,000 filtered lines in a second)
// leaves V8's heap tens of MB larger than before, almost all of it garbage: its young generation grown to the
// most it may take, and objects promoted while thousands of lines were in flight. V8 gives such memory back only
// at a full collection, and when nothing allocates after the burst none comes: its memory reducer starts only after
// the old generation grew, so the resident size stayed up for 15 s, 60 s, or until the next load (bench
// moderation-burst). Every CHECK_MS the settler reads the heap's size; once it is GROWTH_BYTES over where it settled
// and the event loop was quiet for the whole last interval (the burst is over), it asks V8 for one full collection
// that gives memory back (the inspector's HeapProfiler.collectGarbage, in process: no port, no flag), at most once
// every MIN_GAP_MS. Under steady load it does nothing: V8 collects as it goes.
// It never keeps the process alive (its timer is unref'd), never throws out of its timer, and is `run`'s alone: a
// library embedding the sidecar keeps its own process's memory policy.

import type { Session } from 'node:inspector';
import { getHeapStatistics } from 'node:v8';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { systemClock, type Clock } from '../time/clock.js';
import { steadyClock } from '../time/steadyClock.js';

/** How often the heap is looked at. */
export const HEAP_CHECK_MS = 5_000;
/** The heap's growth over where it last settled that is worth a collection. */
export const HEAP_GROWTH_BYTES = 16 * 1024 * 1024;
/** The event loop's utilization over the last interval at or under which the process is quiet. */
export const QUIET_UTILIZATION = 0.1;
/** The least time between two collections. */
export const MIN_GAP_MS = 10_000;

/** What the settler reads and calls: the process's own unless a test gives its own. */
export interface HeapProbes {
  /** V8's heap size, committed (total_heap_size). */
  heapBytes(): number;
  /** The event loop's utilization (0–1) since the previous call; the first call's covers the time since start. */
  loopUtilization(): number;
  /** One full collection that gives memory back; resolves when it is done. */
  collect(): Promise<void>;
}

export interface HeapSettlerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface HeapSettlerOptions {
  readonly logger: HeapSettlerLogger;
  /** For the gap between collections and the pause logged. @default the wall clock, never going backward */
  readonly clock?: Clock | undefined;
  /** @default the process's (processHeapProbes) */
  readonly probes?: HeapProbes | undefined;
}

const MB = 1024 * 1024;

/** The process's heap, event loop and a collection through an in-process inspector session. */
export function processHeapProbes(): HeapProbes {
  let last: EventLoopUtilization | undefined;
  let session: Session | undefined;
  return {
    heapBytes: () => getHeapStatistics().total_heap_size,
    loopUtilization: () => {
      const now = performance.eventLoopUtilization();
      const since = last === undefined ? now : performance.eventLoopUtilization(now, last);
      last = now;
      return since.utilization;
    },
    collect: async () => {
      // Loaded when first needed: a Node built without the inspector fails here (warned once), not at start.
      if (session === undefined) {
        const inspector = await import('node:inspector');
        session = new inspector.Session();
        session.connect();
      }
      const connected = session;
      await new Promise<void>((resolve, reject) => {
        connected.post('HeapProfiler.collectGarbage', (error) => {
          if (error === null) resolve();
          else reject(error);
        });
      });
    },
  };
}

export class HeapSettler {
  readonly #logger: HeapSettlerLogger;
  readonly #clock: Clock;
  readonly #probes: HeapProbes;
  #timer: NodeJS.Timeout | undefined;
  /** The heap's size where it last settled: the lowest seen since the last collection. */
  #settledBytes: number;
  #lastCollectedAt = Number.NEGATIVE_INFINITY;
  #collecting = false;
  #failed = false;

  constructor(options: HeapSettlerOptions) {
    this.#logger = options.logger;
    this.#clock = options.clock ?? steadyClock(systemClock);
    this.#probes = options.probes ?? processHeapProbes();
    this.#settledBytes = this.#probes.heapBytes();
    this.#probes.loopUtilization();
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      void this.check();
    }, HEAP_CHECK_MS);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One look at the heap (the timer's; tests call it): collects when the heap grew and the process is quiet. */
  async check(): Promise<void> {
    const utilization = this.#probes.loopUtilization();
    const bytes = this.#probes.heapBytes();
    if (bytes < this.#settledBytes) this.#settledBytes = bytes;
    if (this.#collecting || this.#failed) return;
    if (bytes - this.#settledBytes < HEAP_GROWTH_BYTES || utilization > QUIET_UTILIZATION) return;
    const started = this.#clock.now();
    if (started - this.#lastCollectedAt < MIN_GAP_MS) return;
    this.#collecting = true;
    this.#lastCollectedAt = started;
    try {
      await this.#probes.collect();
    } catch (error) {
      // Once: a process without the inspector cannot be helped, and V8 still collects by itself.
      this.#failed = true;
      this.#logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'memory: could not ask V8 for a collection after a burst; its memory comes back when V8 collects by itself');
      return;
    } finally {
      this.#collecting = false;
    }
    const after = this.#probes.heapBytes();
    this.#settledBytes = after;
    this.#logger.info(
      { heapMb: Math.round(bytes / MB), afterMb: Math.round(after / MB), ms: this.#clock.now() - started },
      'memory: the heap grew in a burst that is over; collected once to give it back',
    );
  }
}
