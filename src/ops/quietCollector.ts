// Gives the memory of a burst back once the sidecar is quiet again: after a burst of API requests (thousands of
// players looked up at once, e.g. a full server restarting), and once no request has been made for 5 seconds, it
// runs one full garbage collection and one young one, at most once a minute.
// Why: a burst promotes the objects of every request in flight to V8's old space, where they die. V8 collects old
// space only when it grows past a limit set from the last full collection, and Node never tells V8 that the
// process is idle, so a sidecar that goes quiet after a burst keeps that garbage (tens of MB) for good. The
// young generation, grown to 2 x 16 MB during the burst, is shrunk by V8 at a collection only when the last 5 s
// allocated little: hence 5 s of quiet, and the young collection after the full one.
// The collector is obtained at run time (no `--expose-gc` flag for hosts to pass): see collectGarbage().
// It never collects on the hot path or while requests flow, never more than once per minIntervalMs, and never keeps
// the process alive (its timer is unref'd).

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Clock } from '../time/clock.js';

/** Monotonic: the quiet time must not stretch or shrink when the wall clock is set. */
const performanceClock: Clock = { now: () => performance.now() };

export interface QuietCollectorOptions {
  /** Requests since the last collection that make a burst worth collecting after. Default 2000. */
  readonly burstRequests?: number | undefined;
  /** How long no request must have been made before collecting. Default 5000 ms (V8's allocation-rate window). */
  readonly quietMs?: number | undefined;
  /** Least time between two collections. Default 60 000 ms. */
  readonly minIntervalMs?: number | undefined;
  /** Runs the collection; default a full, synchronous V8 collection (collectGarbage). Tests pass a spy. */
  readonly collect?: (() => void) | undefined;
  /** Default performance.now(). Tests pass fake time. */
  readonly clock?: Clock | undefined;
}

let fullCollection: (() => void) | undefined;

/**
 * One full, synchronous V8 collection, then a young one (which is where V8 shrinks the young generation). V8's `gc` function exists only in contexts created while `--expose-gc` is
 * set, so the flag is set for the moment it takes to create one context and take its `gc`, then unset again: no
 * other context (and no code the sidecar loads) ever sees a `gc` global.
 */
export function collectGarbage(): void {
  if (fullCollection === undefined) {
    setFlagsFromString('--expose-gc');
    try {
      const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;
      fullCollection = () => {
        gc();
        gc({ type: 'minor' });
      };
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  fullCollection();
}

export class QuietCollector {
  readonly #burstRequests: number;
  readonly #quietMs: number;
  readonly #minIntervalMs: number;
  readonly #collect: () => void;
  readonly #clock: Clock;
  /** Requests since the last collection. */
  #requests = 0;
  #lastRequestAt = 0;
  /** When the last collection ran; -Infinity before the first. */
  #collectedAt = -Infinity;
  #collections = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: QuietCollectorOptions = {}) {
    this.#burstRequests = options.burstRequests ?? 2000;
    this.#quietMs = options.quietMs ?? 5000;
    this.#minIntervalMs = options.minIntervalMs ?? 60_000;
    this.#collect = options.collect ?? collectGarbage;
    this.#clock = options.clock ?? performanceClock;
  }

  /** Collections run so far (for tests and the memory bench). */
  get collections(): number {
    return this.#collections;
  }

  /** One API request was made. Cheap (a counter and a clock reading; a timer once per burst): it runs for each. */
  readonly noteRequest = (): void => {
    this.#requests++;
    this.#lastRequestAt = this.#clock.now();
    if (this.#timer === undefined && this.#requests >= this.#burstRequests && !this.#closed) this.#arm(this.#quietMs);
  };

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(delayMs: number): void {
    this.#timer = setTimeout(this.#fire, Math.max(1, delayMs));
    this.#timer.unref();
  }

  readonly #fire = (): void => {
    this.#timer = undefined;
    const now = this.#clock.now();
    // Still busy: look again when it will have been quiet for quietMs since the last request. Not before the
    // interval since the last collection is over either.
    const wait = Math.max(this.#lastRequestAt + this.#quietMs - now, this.#collectedAt + this.#minIntervalMs - now);
    if (wait > 0) {
      this.#arm(wait);
      return;
    }
    this.#requests = 0;
    this.#collectedAt = now;
    this.#collections++;
    this.#collect();
  };
}
