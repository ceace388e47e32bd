// Keeps a repeated log line from flooding the log: the first occurrence of a kind is logged in full at once, the
// ones after it are only counted, and at the end of each interval that had more, one summary says how many. An
// interval with none ends the kind's run: its next occurrence is logged in full again. A flood of any size therefore
// costs one line, then one line per interval while it lasts (a hostile game server sending 100k malformed frames).
// It never formats or writes a line itself (the caller owns the logger, the level and the words), never holds
// more than a counter and the latest context per kind, and never keeps the process alive (its timers are unref'd).
// Kinds may be open-ended (a player's id): past maxKinds followed at once, a new kind is simply logged in full.
//
//   const repeats = new RepeatSummary<'unknown_id'>({ onSummary: ({ kind, repeats, sinceMs }) => logger.warn(…) });
//   if (repeats.first('unknown_id')) logger.warn({ id }, 'reply for an unknown id, dropped');
//   …
//   repeats.close();   // reports what was counted and not yet told

import { systemClock, type Clock } from '../time/clock.js';

export interface RepeatSummaryReport<Kind extends string, Context = undefined> {
  readonly kind: Kind;
  /** The context given with the kind's latest occurrence (undefined when none was given). */
  readonly latest: Context | undefined;
  /** Occurrences counted (not logged) since the kind's last line. */
  readonly repeats: number;
  /** How long ago that last line (the full one or the previous summary) was, by the clock. */
  readonly sinceMs: number;
}

export interface RepeatSummaryOptions<Kind extends string, Context = undefined> {
  /** How often the counted occurrences of a kind are reported while they keep coming. @default 60000 */
  readonly intervalMs?: number | undefined;
  /**
   * The most kinds followed at once (each has a timer); the first occurrence of one more kind is logged in full and
   * not followed. @default unbounded (a small, fixed set of kinds)
   */
  readonly maxKinds?: number | undefined;
  /** Told once per interval and kind that had occurrences after its last line; also on close(). */
  readonly onSummary: (report: RepeatSummaryReport<Kind, Context>) => void;
  /** Only for `sinceMs`; the interval itself is a timer (fake timers drive it in tests). @default the system clock */
  readonly clock?: Clock | undefined;
}

interface Run<Context> {
  /** When the kind's last line (full or summary) was told. */
  toldAt: number;
  repeats: number;
  latest: Context | undefined;
  readonly timer: NodeJS.Timeout;
}

export const DEFAULT_REPEAT_SUMMARY_INTERVAL_MS = 60_000;

/** One per owner (an adapter, a listener); `Kind` is a small, fixed set of what can repeat, or open-ended under maxKinds. */
export class RepeatSummary<Kind extends string, Context = undefined> {
  readonly #intervalMs: number;
  readonly #maxKinds: number;
  readonly #onSummary: (report: RepeatSummaryReport<Kind, Context>) => void;
  readonly #clock: Clock;
  readonly #runs = new Map<Kind, Run<Context>>();
  #closed = false;

  constructor(options: RepeatSummaryOptions<Kind, Context>) {
    this.#intervalMs = Math.max(1, options.intervalMs ?? DEFAULT_REPEAT_SUMMARY_INTERVAL_MS);
    this.#maxKinds = options.maxKinds ?? Number.POSITIVE_INFINITY;
    this.#onSummary = options.onSummary;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Notes one occurrence of `kind`. True when the caller should log it in full (the first since the kind was last
   * quiet for an interval); false when it was only counted, for the next summary. After close() it is always true.
   */
  first(kind: Kind, context?: Context): boolean {
    if (this.#closed) return true;
    const run = this.#runs.get(kind);
    if (run !== undefined) {
      run.repeats += 1;
      run.latest = context;
      return false;
    }
    if (this.#runs.size >= this.#maxKinds) return true;
    const timer = setInterval(() => {
      this.#tick(kind);
    }, this.#intervalMs);
    timer.unref();
    this.#runs.set(kind, { toldAt: this.#clock.now(), repeats: 0, latest: context, timer });
    return true;
  }

  /** The summary interval, for callers that say it in their first line. */
  get intervalMs(): number {
    return this.#intervalMs;
  }

  /** Occurrences counted and not yet reported, per kind (for tests and status). */
  pending(kind: Kind): number {
    return this.#runs.get(kind)?.repeats ?? 0;
  }

  /** Stops the timers and reports every count not yet told. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const [kind, run] of this.#runs) {
      clearInterval(run.timer);
      if (run.repeats > 0) this.#report(kind, run);
    }
    this.#runs.clear();
  }

  #tick(kind: Kind): void {
    const run = this.#runs.get(kind);
    if (run === undefined) return;
    if (run.repeats === 0) {
      // A quiet interval ends the run: the next occurrence is news again.
      clearInterval(run.timer);
      this.#runs.delete(kind);
      return;
    }
    this.#report(kind, run);
    run.toldAt = this.#clock.now();
    run.repeats = 0;
  }

  #report(kind: Kind, run: Run<Context>): void {
    this.#onSummary({ kind, latest: run.latest, repeats: run.repeats, sinceMs: Math.max(0, this.#clock.now() - run.toldAt) });
  }
}
