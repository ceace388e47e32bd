// Loaded into the sidecar process with `node --import` when the soak runs with --trace-sidecar-loop, never
// otherwise: records each event-loop pause of 10 ms or more and what the main thread did in it, for
// loopPauses.ts. A 2 ms interval timer that ran late saw the pause. For each pause it records the end (ms on
// CLOCK_MONOTONIC, the clock of process.hrtime), the length, and the main thread's run time and its wait for a core
// in it (/proc/<pid>/task/<pid>/schedstat). It also records each GC pause V8 reports. The file is
// $SOAK_LOOP_PROBE_DIR/<pid>.jsonl, appended once a second off the main thread, and at exit (with whatever an
// earlier write may not have finished).
// Its timer and writes are all it adds to the process; it must never throw into the sidecar.
import { appendFileSync, closeSync, openSync, readSync } from 'node:fs';
import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const TICK_MS = 2;
const MIN_PAUSE_MS = 10;
const MIN_GC_MS = 2;

const directory = process.env.SOAK_LOOP_PROBE_DIR;
if (directory !== undefined && directory !== '') startProbe(join(directory, `${process.pid}.jsonl`));

function startProbe(file: string): void {
  const lines: string[] = [];
  const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;
  // performance.now() counts from this process's start on the same clock: the GC entries are placed with it.
  const origin = monotonicMs() - performance.now();
  let schedstat: number | undefined;
  try {
    schedstat = openSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'r');
  } catch {
    // Not Linux: pauses are recorded without the split into run time and waiting.
  }
  const buffer = Buffer.alloc(128);
  const thread = (): { readonly runMs: number; readonly waitMs: number } => {
    if (schedstat === undefined) return { runMs: Number.NaN, waitMs: Number.NaN };
    const length = readSync(schedstat, buffer, 0, buffer.length, 0);
    const [run, wait] = buffer.toString('latin1', 0, length).split(' ').map(Number);
    return { runMs: (run ?? Number.NaN) / 1e6, waitMs: (wait ?? Number.NaN) / 1e6 };
  };
  lines.push(JSON.stringify({ type: 'start', pid: process.pid, at: monotonicMs() }));
  let last = monotonicMs();
  let lastThread = thread();
  setInterval(() => {
    const at = monotonicMs();
    const now = thread();
    const ms = at - last - TICK_MS;
    if (ms >= MIN_PAUSE_MS) {
      lines.push(JSON.stringify({ type: 'pause', end: at, ms, runMs: now.runMs - lastThread.runMs, waitMs: now.waitMs - lastThread.waitMs }));
    }
    last = at;
    lastThread = now;
  }, TICK_MS).unref();
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration >= MIN_GC_MS) lines.push(JSON.stringify({ type: 'gc', start: origin + entry.startTime, ms: entry.duration }));
    }
  }).observe({ entryTypes: ['gc'] });
  const take = (): string => {
    const text = lines.length === 0 ? '' : `${lines.join('\n')}\n`;
    lines.length = 0;
    return text;
  };
  // A write still on the thread pool when the process exits may never happen: it is written again at exit
  // (readLoopProbe drops a line written twice).
  const inFlight = new Set<string>();
  setInterval(() => {
    const text = take();
    if (text === '') return;
    inFlight.add(text);
    appendFile(file, text).then(
      () => inFlight.delete(text),
      () => undefined,
    );
  }, 1000).unref();
  process.on('exit', () => {
    try {
      appendFileSync(file, [...inFlight, take()].join(''));
      if (schedstat !== undefined) closeSync(schedstat);
    } catch {
      // The soak reads what it finds.
    }
  });
}
