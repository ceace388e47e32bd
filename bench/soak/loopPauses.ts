// What the sidecar's event-loop pauses were made of, from the records loopProbe.ts wrote inside it (the soak's
// --trace-sidecar-loop): each pause of 35 ms or more after a process's first 5 s is put down to what filled most
// of it. Running is the sidecar's own work, or V8's on its main thread. Waiting for a core is the machine's.
// Blocked is neither: in a system call, or waiting for another thread (a V8 GC helper). A pause a GC overlapped is
// counted apart too.
// A context line for the table, never a row: the verdict row judges the verdicts; this says where to look.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A pause as loopProbe.ts recorded it: it ended at `end` (monotonic ms) and lasted `ms`. */
export interface LoopPause {
  readonly end: number;
  readonly ms: number;
  readonly runMs: number;
  readonly waitMs: number;
}

/** A GC pause V8 reported: from `start` (monotonic ms), `ms` long. */
export interface GcPause {
  readonly start: number;
  readonly ms: number;
}

/** One sidecar process's records. */
export interface ProbedProcess {
  readonly pid: number;
  readonly startedAt: number;
  readonly pauses: readonly LoopPause[];
  readonly gcs: readonly GcPause[];
}

/** The pauses the summary counts, and what fills a pause. */
export const LONG_PAUSE_MS = 35;
/** Loading the code and the first connections: judged apart, as the verdict row does. */
export const PROBE_WARM_UP_MS = 5000;

export type PauseCause = 'running' | 'waiting for a core' | 'blocked';

/** What filled most of a pause. */
export function pauseCause(pause: LoopPause): PauseCause {
  const blockedMs = pause.ms - pause.runMs - pause.waitMs;
  if (pause.waitMs >= pause.runMs && pause.waitMs >= blockedMs) return 'waiting for a core';
  return pause.runMs >= blockedMs ? 'running' : 'blocked';
}

/** One line: the long pauses after warm-up, the longest, and their causes. */
export function loopPauseSummary(processes: readonly ProbedProcess[]): string {
  const long: { pause: LoopPause; inGc: boolean }[] = [];
  let longestRunMs = 0;
  for (const probed of processes) {
    for (const pause of probed.pauses) {
      if (pause.end - pause.ms < probed.startedAt + PROBE_WARM_UP_MS) continue;
      longestRunMs = Math.max(longestRunMs, pause.runMs);
      if (pause.ms < LONG_PAUSE_MS) continue;
      const from = pause.end - pause.ms;
      long.push({ pause, inGc: probed.gcs.some((gc) => gc.start < pause.end && gc.start + gc.ms > from) });
    }
  }
  const causes = new Map<PauseCause, number>();
  for (const { pause } of long) causes.set(pauseCause(pause), (causes.get(pauseCause(pause)) ?? 0) + 1);
  const longest = long.reduce((max, { pause }) => Math.max(max, pause.ms), 0);
  const byCause = [...causes].map(([cause, n]) => `${cause} ${n}`).join(', ');
  return (
    `${long.length} pause(s) of ${LONG_PAUSE_MS} ms or more after the first ${PROBE_WARM_UP_MS / 1000} s of ${processes.length} process(es)` +
    (long.length === 0 ? '' : `, longest ${longest.toFixed(0)} ms; mostly ${byCause}; ${long.filter((p) => p.inGc).length} overlapped a GC`) +
    `; the longest own run in one pause ${longestRunMs.toFixed(1)} ms`
  );
}

/** Reads every process's records from the probe's directory; a line cut by kill -9 is skipped, a repeated one read once. */
export async function readLoopProbe(directory: string): Promise<ProbedProcess[]> {
  const processes: ProbedProcess[] = [];
  for (const name of (await readdir(directory)).filter((file) => file.endsWith('.jsonl'))) {
    let startedAt = Number.NaN;
    const pauses: LoopPause[] = [];
    const gcs: GcPause[] = [];
    // A line written twice (loopProbe.ts writes again at exit what may not have been written) counts once.
    for (const line of new Set((await readFile(join(directory, name), 'utf8')).split('\n'))) {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        continue;
      }
      const number = (key: string): number => (typeof record[key] === 'number' ? record[key] : Number.NaN);
      if (record.type === 'start') startedAt = number('at');
      else if (record.type === 'pause') pauses.push({ end: number('end'), ms: number('ms'), runMs: number('runMs'), waitMs: number('waitMs') });
      else if (record.type === 'gc') gcs.push({ start: number('start'), ms: number('ms') });
    }
    processes.push({ pid: Number(name.replace('.jsonl', '')), startedAt, pauses, gcs });
  }
  return processes;
}
