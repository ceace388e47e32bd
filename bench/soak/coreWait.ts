// How long the sidecar's main thread waited for a CPU core, as the kernel counts it: the second field of
// /proc/<pid>/task/<pid>/schedstat, the time it was runnable but not running. Sampled every few ms by the soak, so a
// verdict late because the machine ran something else (this process, the game server, anything) is not charged
// to the sidecar's code, while its own work, its GC and its blocking stay charged. Linux only: elsewhere nothing is
// recorded and nothing is credited.
// It never blocks (one read of a small /proc file per sample) and never touches the sidecar process.
import { closeSync, openSync, readSync } from 'node:fs';

/** One reading of the counter: the sidecar process `pid` had waited `waitMs` for a core in all at `at`. */
export interface CoreWaitSample {
  readonly at: number;
  readonly pid: number;
  readonly waitMs: number;
}

const SAMPLE_EVERY_MS = 5;
/** A wait that ended this long after a span is not looked at (the longest in the soak runs measured: 0.5 s). */
const LONGEST_WAIT_MS = 10_000;
/** How many samples back the last growth is looked for (a second's worth). */
const MAX_LOOK_BACK = 200;

export class CoreWaitRecorder {
  readonly samples: CoreWaitSample[] = [];
  readonly #now: () => number;
  readonly #pid: () => number | undefined;
  readonly #buffer = Buffer.alloc(128);
  #timer: NodeJS.Timeout | undefined;
  #fd: number | undefined;
  #fdPid: number | undefined;

  /** `pid`: the sidecar process running now, if any. */
  constructor(now: () => number, pid: () => number | undefined) {
    this.#now = now;
    this.#pid = pid;
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.sample();
    }, SAMPLE_EVERY_MS);
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#close();
  }

  /** One reading; skipped while no sidecar runs or where /proc has no schedstat. */
  sample(): void {
    const pid = this.#pid();
    if (pid === undefined) return;
    try {
      if (this.#fdPid !== pid) {
        this.#close();
        this.#fd = openSync(`/proc/${pid}/task/${pid}/schedstat`, 'r');
        this.#fdPid = pid;
      }
      const length = readSync(this.#fd ?? -1, this.#buffer, 0, this.#buffer.length, 0);
      const waitNs = Number(this.#buffer.toString('latin1', 0, length).split(' ')[1]);
      if (Number.isFinite(waitNs)) this.samples.push({ at: this.#now(), pid, waitMs: waitNs / 1e6 });
    } catch {
      // The process exited between the check and the read (the exit is recorded elsewhere), or this is not Linux.
      this.#close();
    }
  }

  #close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
    this.#fdPid = undefined;
  }
}

/** How much of [from, to] the span [end − ms, end] covers. */
function overlap(end: number, ms: number, from: number, to: number): number {
  return Math.max(0, Math.min(to, end) - Math.max(from, end - ms));
}

/**
 * How long the sidecar surely waited for a core between `from` and `to`. The kernel adds a wait to the counter when
 * it ends (when the thread gets a core), so a growth of W between two samples is a wait of W that ended somewhere
 * between them, and began after the previous growth's wait ended (the thread ran then). It is placed where, within
 * those limits, it covers the least of the span, and counted that much. A wait still going on at the last sample,
 * and growth across a restart, count nothing.
 */
export function coreWaitBetween(samples: readonly CoreWaitSample[], from: number, to: number): number {
  if (!(to > from)) return 0;
  let low = 0;
  let high = samples.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((samples[mid]?.at ?? Infinity) < from) low = mid + 1;
    else high = mid;
  }
  const first = Math.max(1, low);
  // The earliest a wait can have begun: after the sample before the last growth (that wait ended after it, and the
  // thread ran before it waited again).
  let ranAfter = -Infinity;
  for (let j = first - 1; j >= 1 && first - j <= MAX_LOOK_BACK; j -= 1) {
    const before = samples[j - 1];
    const after = samples[j];
    if (before === undefined || after === undefined || before.pid !== after.pid) break;
    if (after.waitMs > before.waitMs) {
      ranAfter = before.at;
      break;
    }
  }
  let waited = 0;
  for (let i = first; i < samples.length; i += 1) {
    const before = samples[i - 1];
    const after = samples[i];
    if (before === undefined || after === undefined) break;
    if (before.at > to + LONGEST_WAIT_MS) break;
    if (before.pid !== after.pid) {
      ranAfter = -Infinity;
      continue;
    }
    const grown = after.waitMs - before.waitMs;
    if (grown <= 0) continue;
    const earliestEnd = Math.min(after.at, Math.max(before.at, ranAfter + grown));
    waited += Math.min(overlap(earliestEnd, grown, from, to), overlap(after.at, grown, from, to));
    ranAfter = before.at;
  }
  return waited;
}

/** What the samples add up to: the sidecar's wait for a core over the run, and the most it grew between two samples. */
export function coreWaitSummary(samples: readonly CoreWaitSample[]): string {
  let totalMs = 0;
  let longestMs = 0;
  for (let i = 1; i < samples.length; i += 1) {
    const before = samples[i - 1];
    const after = samples[i];
    if (before === undefined || after === undefined || before.pid !== after.pid) continue;
    const grown = Math.max(0, after.waitMs - before.waitMs);
    totalMs += grown;
    longestMs = Math.max(longestMs, grown);
  }
  if (samples.length === 0) return 'not measured (no /proc schedstat)';
  return `${(totalMs / 1000).toFixed(1)} s in all, at most ${longestMs.toFixed(0)} ms at once (${samples.length} samples)`;
}
