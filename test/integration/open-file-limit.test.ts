// A real `gsa-bridge run` logs its open-file limit at start (the one it really has: Node raises the soft limit to
// the hard one), and warns when it is low. Linux only: elsewhere the limit is not shown in /proc and not logged.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { parseOpenFileLimit } from '../../src/ops/openFileLimit.js';
import { SIDECAR_RUNNING, useProcessHarness } from '../fixtures/processHarness.js';
import { waitForOutput, type SidecarProcess } from '../fixtures/sidecarProcess.js';

const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));
const onLinux = process.platform === 'linux';
if (!onLinux) console.log(`open-file-limit tests skipped: ${process.platform} has no /proc/self/limits, so the limit is not logged`);

const harness = useProcessHarness({ server: 'ovddykvbs', clientSecret: 'client-secret-f11e5', modToken: 'mod-token-f11e5', label: 'nofile' });
const children: SidecarProcess[] = [];

afterEach(async () => {
  for (const sidecar of children.splice(0)) {
    if (sidecar.child.exitCode === null && sidecar.child.signalCode === null) sidecar.child.kill('SIGKILL');
    await sidecar.exited();
  }
});

/** `gsa-bridge run` under `ulimit -n <limit>` (soft and hard: Node cannot raise it back). */
function spawnWithLimit(configPath: string, limit: number): SidecarProcess {
  const child = spawn('/bin/sh', ['-c', `ulimit -n ${String(limit)} && exec "$@"`, 'sh', process.execPath, BIN, 'run', '--config', configPath], {
    cwd: dirname(configPath),
    env: { PATH: process.env.PATH ?? '', TMPDIR: process.env.TMPDIR ?? '/tmp' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = once(child, 'exit').then(([code, signal]) => (code as number | null) ?? (signal as string));
  const sidecar: SidecarProcess = { child, output: () => output, exited: () => exit };
  children.push(sidecar);
  return sidecar;
}

function limitLine(output: string): Record<string, unknown> | undefined {
  const line = output.split('\n').find((text) => text.includes('open file limit'));
  return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
}

describe.runIf(onLinux)('the open-file limit at start', () => {
  it('is logged by a real run, as the process has it', async () => {
    const setup = await harness.writeSetup();
    const sidecar = await harness.startSidecar(setup);
    const pid = sidecar.child.pid;
    if (pid === undefined) throw new Error('no pid');
    const actual = parseOpenFileLimit(await readFile(`/proc/${String(pid)}/limits`, 'utf8'));
    const line = limitLine(sidecar.output());
    expect(line).toMatchObject({ msg: expect.stringMatching(/^open file limit: /) as unknown, openFileLimit: String(actual?.soft) });
    // Logged before the listeners start, so it is there by the time the sidecar says it runs.
    expect(sidecar.output().indexOf('open file limit')).toBeLessThan(sidecar.output().search(SIDECAR_RUNNING));
  });

  it('is a warning when it is below 4096', async () => {
    const setup = await harness.writeSetup();
    const sidecar = spawnWithLimit(setup.configPath, 1000);
    await waitForOutput(sidecar, SIDECAR_RUNNING);
    expect(limitLine(sidecar.output())).toMatchObject({
      level: 40,
      openFileLimit: '1000',
      msg: expect.stringMatching(/^open file limit: 1000, below 4096: .*LimitNOFILE=/) as unknown,
    });
  });
});
