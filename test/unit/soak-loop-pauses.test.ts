// The soak's --trace-sidecar-loop: the probe preloaded into a real process records a pause and what filled it,
// and the summary puts each long pause down to running, waiting for a core or blocked.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loopPauseSummary, pauseCause, readLoopProbe, type ProbedProcess } from '../../bench/soak/loopPauses.js';
import { parseSoakOptions } from '../../bench/soak/options.js';
import { tempDir } from '../fixtures/tempDir.js';

const PROBE = fileURLToPath(new URL('../../dist/bench/soak/loopProbe.js', import.meta.url));

describe("what the sidecar's event-loop pauses were made of", () => {
  it('puts a pause down to what filled most of it', () => {
    expect(pauseCause({ end: 100, ms: 60, runMs: 50, waitMs: 5 })).toBe('running');
    expect(pauseCause({ end: 100, ms: 60, runMs: 2, waitMs: 55 })).toBe('waiting for a core');
    // Neither running nor waiting: a system call, or waiting for another thread (a GC helper).
    expect(pauseCause({ end: 100, ms: 60, runMs: 3, waitMs: 7 })).toBe('blocked');
  });

  it('counts the long pauses after warm-up, the longest, their causes and the GCs they overlapped', () => {
    const probed: ProbedProcess = {
      pid: 1,
      startedAt: 0,
      pauses: [
        { end: 1000, ms: 400, runMs: 390, waitMs: 0 }, // loading the code: warm-up
        { end: 6000, ms: 40, runMs: 38, waitMs: 0 },
        { end: 7000, ms: 120, runMs: 4, waitMs: 110 },
        { end: 8000, ms: 90, runMs: 5, waitMs: 10 },
        { end: 9000, ms: 20, runMs: 12, waitMs: 0 }, // short
      ],
      gcs: [{ start: 7950, ms: 40 }],
    };
    expect(loopPauseSummary([probed])).toBe(
      '3 pause(s) of 35 ms or more after the first 5 s of 1 process(es), longest 120 ms; mostly running 1, waiting for a core 1, blocked 1; ' +
        '1 overlapped a GC; the longest own run in one pause 38.0 ms',
    );
    expect(loopPauseSummary([{ ...probed, pauses: [] }])).toBe('0 pause(s) of 35 ms or more after the first 5 s of 1 process(es); the longest own run in one pause 0.0 ms');
  });

  it('reads every process file, skipping a line cut by kill -9 and reading a repeated one once', async () => {
    const dir = await tempDir('soak-loop-probe');
    const lines = [
      { type: 'start', pid: 42, at: 0 },
      { type: 'pause', end: 6000, ms: 50, runMs: 1, waitMs: 48 },
      { type: 'gc', start: 5990, ms: 3 },
    ].map((record) => JSON.stringify(record));
    await writeFile(join(dir, '42.jsonl'), `${lines.join('\n')}\n${lines[1] ?? ''}\n{"type":"pau`);
    expect(await readLoopProbe(dir)).toStrictEqual([{ pid: 42, startedAt: 0, pauses: [{ end: 6000, ms: 50, runMs: 1, waitMs: 48 }], gcs: [{ start: 5990, ms: 3 }] }]);
  });

  it('is asked for with --trace-sidecar-loop, and off by default', () => {
    expect(parseSoakOptions([])).toMatchObject({ traceSidecarLoop: false });
    expect(parseSoakOptions(['--trace-sidecar-loop'])).toMatchObject({ traceSidecarLoop: true });
  });

  it.runIf(process.platform === 'linux')('records, preloaded into a process, a pause its own work made', async () => {
    const dir = await tempDir('soak-loop-probe-run');
    // 150 ms of the main thread's own run time in one go (its schedstat: V8's threads compiling meanwhile do not
    // count), after the probe's timer has started.
    const own = `() => Number(require('node:fs').readFileSync('/proc/self/task/' + process.pid + '/schedstat', 'utf8').split(' ')[0]) / 1e6`;
    const busy = `const own = ${own}; setTimeout(() => { const until = own() + 150; while (own() < until); setTimeout(() => process.exit(0), 50); }, 100);`;
    await promisify(execFile)(process.execPath, ['--import', PROBE, '-e', busy], { env: { PATH: process.env.PATH ?? '', SOAK_LOOP_PROBE_DIR: dir } });
    const [probed] = await readLoopProbe(dir);
    const longest = probed?.pauses.reduce((max, pause) => (pause.ms > max.ms ? pause : max));
    // Beside CPU hogs the pause lasts longer (the process also waits for a core), but the main thread ran in it
    // at least as long as the loop.
    expect(longest?.ms).toBeGreaterThanOrEqual(150);
    expect(longest?.runMs).toBeGreaterThanOrEqual(150);
  });
});
