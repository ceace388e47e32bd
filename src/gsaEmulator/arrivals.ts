/**
 * Bounded bookkeeping of the requests that reach the emulator, for long runs (the soak): counters by
 * endpoint and status, and a watch on the strict sliding window ("at most `requests` arrivals in any
 * `intervalMs`") counted on arrival, as the service counts. Memory stays bounded whatever the run length:
 * the watch keeps only the arrivals inside the current interval and the last `requests + 1` times.
 * Must never do I/O, and never keep a per-request record beyond those bounds.
 */
import { FAULT_ENDPOINTS, type CallEndpoint } from './faults.js';

/** The window a client promised to keep: at most `requests` arrivals in any `intervalMs`. */
export interface WindowSpec {
  readonly requests: number;
  readonly intervalMs: number;
}

/** What the watch saw since it was (re)started. */
export interface WindowReport extends WindowSpec {
  /** Arrivals counted since the watch started. */
  readonly arrivals: number;
  /** The most arrivals seen in any interval of `intervalMs` (both ends measured on arrival). */
  readonly maxInWindow: number;
  /** When (emulator clock) that maximum was first reached; null before any arrival. */
  readonly maxAt: number | null;
  /** The shortest time between an arrival and the one `requests` later; null until there were that many.
   * Below `intervalMs` means the window was exceeded, and by how much. */
  readonly minSpanMs: number | null;
  /** How many arrivals found the window already full (each one would be a 429 at the service). */
  readonly violations: number;
}

/** Totals for the whole life of the emulator (or since the last reset), however long the call log is capped. */
export interface CallCounters {
  readonly total: number;
  readonly byEndpoint: Readonly<Record<CallEndpoint, number>>;
  /** Status sent → count, keys as strings ("200", "429"); unanswered calls are not in it. */
  readonly byStatus: Readonly<Record<string, number>>;
}

/** Counts and window checks for the arrivals at the emulator. */
export class ArrivalWatch {
  #total = 0;
  #byEndpoint: Record<CallEndpoint, number> = emptyEndpoints();
  #byStatus = new Map<number, number>();
  #window: WindowTracker | undefined;

  /** Starts (or restarts) the window check; arrivals before this call do not count. */
  watchWindow(spec: WindowSpec): void {
    this.#window = new WindowTracker(spec);
  }

  arrived(endpoint: CallEndpoint, at: number): void {
    this.#total += 1;
    this.#byEndpoint[endpoint] += 1;
    // The watched window is the mod API key's: a System API call is another key's, with its own budget.
    if (endpoint !== 'system') this.#window?.arrived(at);
  }

  answered(status: number): void {
    this.#byStatus.set(status, (this.#byStatus.get(status) ?? 0) + 1);
  }

  counters(): CallCounters {
    return {
      total: this.#total,
      byEndpoint: { ...this.#byEndpoint },
      byStatus: Object.fromEntries([...this.#byStatus].sort(([a], [b]) => a - b).map(([status, count]) => [String(status), count])),
    };
  }

  /** null when no window is watched. */
  windowReport(): WindowReport | null {
    return this.#window?.report() ?? null;
  }

  /** Forgets the counters; a watched window keeps its spec and starts over. */
  reset(): void {
    this.#total = 0;
    this.#byEndpoint = emptyEndpoints();
    this.#byStatus.clear();
    if (this.#window !== undefined) this.#window = new WindowTracker(this.#window.spec);
  }
}

class WindowTracker {
  readonly spec: WindowSpec;
  readonly #inWindow: ArrivalWindow;
  /** The last `requests + 1` arrival times, as a ring. */
  readonly #recent: number[] = [];
  #next = 0;
  #arrivals = 0;
  #maxInWindow = 0;
  #maxAt: number | null = null;
  #minSpanMs: number | null = null;
  #violations = 0;

  constructor(spec: WindowSpec) {
    this.spec = spec;
    this.#inWindow = new ArrivalWindow(spec.intervalMs);
  }

  arrived(at: number): void {
    this.#arrivals += 1;
    if (this.#inWindow.countAt(at) >= this.spec.requests) this.#violations += 1;
    this.#inWindow.push(at);
    const count = this.#inWindow.countAt(at);
    if (count > this.#maxInWindow) {
      this.#maxInWindow = count;
      this.#maxAt = at;
    }

    const size = this.spec.requests + 1;
    if (this.#recent.length < size) this.#recent.push(at);
    else this.#recent[this.#next] = at;
    this.#next = (this.#next + 1) % size;
    if (this.#recent.length === size) {
      // The oldest of the last requests+1 arrivals sits where the next one will be written.
      const span = at - (this.#recent[this.#next] ?? at);
      if (this.#minSpanMs === null || span < this.#minSpanMs) this.#minSpanMs = span;
    }
  }

  report(): WindowReport {
    return {
      ...this.spec,
      arrivals: this.#arrivals,
      maxInWindow: this.#maxInWindow,
      maxAt: this.#maxAt,
      minSpanMs: this.#minSpanMs,
      violations: this.#violations,
    };
  }
}

/**
 * The arrival times inside the last `intervalMs`, oldest first: what a strict window judges by, for the watch above
 * and for the enforced budget (keyBudget.ts). An arrival is inside while less than `intervalMs` has passed since it,
 * so two arrivals exactly `intervalMs` apart are in different windows. Memory is bounded by the arrivals inside.
 */
export class ArrivalWindow {
  readonly #intervalMs: number;
  /** Times from `#head` on are inside; the array is compacted now and then rather than shifted per arrival. */
  #times: number[] = [];
  #head = 0;

  constructor(intervalMs: number) {
    this.#intervalMs = intervalMs;
  }

  /** Forgets the arrivals that left the window by `at`, and says how many are still inside. */
  countAt(at: number): number {
    while (this.#head < this.#times.length && at - (this.#times[this.#head] ?? at) >= this.#intervalMs) this.#head += 1;
    if (this.#head > 1024 && this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#head = 0;
    }
    return this.#times.length - this.#head;
  }

  /**
   * Counts an arrival at `at`. Times stay in order: one earlier than the newest is counted at the newest's time, so
   * it leaves the window later than it would (the strict side), never sooner.
   */
  push(at: number): void {
    const newest = this.#times.length > this.#head ? this.#times[this.#times.length - 1] : undefined;
    this.#times.push(newest === undefined ? at : Math.max(at, newest));
  }

  /** The oldest arrival still counted (as of the last countAt), undefined when none is. */
  get oldest(): number | undefined {
    return this.#head < this.#times.length ? this.#times[this.#head] : undefined;
  }
}

function emptyEndpoints(): Record<CallEndpoint, number> {
  return Object.fromEntries([...FAULT_ENDPOINTS, 'other'].map((endpoint) => [endpoint, 0])) as Record<CallEndpoint, number>;
}
