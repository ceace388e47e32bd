// Signals that reach a real `gsa-bridge run` while it is still starting. The config file is a FIFO, so the process
// stops inside its config read until the test writes it: the signals are sent then, at a point every version of
// `run` passes through, with no sleep. (Before the fix the handlers came after the config and the lock: a SIGHUP
// there killed the process, exit 129.) Earlier than this no test can be deterministic: the entry point holds the
// signals from its first line, but Node's own start (tens of ms before any JavaScript) keeps the default action.
import { execFile } from 'node:child_process';
import { open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SIDECAR_RUNNING, useProcessHarness, type ProcessSetup } from '../fixtures/processHarness.js';
import { waitForOutput, type SidecarProcess } from '../fixtures/sidecarProcess.js';

const { writeSetup, startGsa, spawn } = useProcessHarness({ server: 'ovddykvbs', clientSecret: 'client-secret-start-5e', modToken: 'start-token-77', label: 'start-signals' });

const RELOADED = /SIGHUP: config reloaded/g;

/**
 * Replaces the setup's config file by a FIFO, spawns `run` on it, and resolves once the process has opened it for
 * reading (it is then inside its config read, past every import). `release()` writes the config into the FIFO and
 * puts the regular file back at the path, so a reload reads a plain file.
 */
async function spawnPausedInConfigRead(setup: ProcessSetup): Promise<{ sidecar: SidecarProcess; release: () => Promise<void> }> {
  const text = await readFile(setup.configPath, 'utf8');
  const plain = `${setup.configPath}.plain`;
  await writeFile(plain, text, { mode: 0o600 });
  await rm(setup.configPath);
  await promisify(execFile)('mkfifo', ['-m', '600', setup.configPath]);
  const sidecar = spawn(setup.configPath);
  // Opening a FIFO for writing completes when the reader opens it: the process is reading its config now.
  const fifo = await open(setup.configPath, 'w');
  return {
    sidecar,
    release: async () => {
      await rename(plain, setup.configPath);
      try {
        await fifo.writeFile(text);
      } finally {
        await fifo.close();
      }
    },
  };
}

describe('signals while run is starting', () => {
  it('a burst of SIGHUPs during start does not kill it: one reload once it runs', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    const { sidecar, release } = await spawnPausedInConfigRead(setup);
    for (let sent = 0; sent < 5; sent++) sidecar.child.kill('SIGHUP');
    await release().catch(() => undefined);

    await waitForOutput(sidecar, /SIGHUP: config reloaded/);
    const output = sidecar.output();
    // The reload came after start, and the process said why it reloads.
    expect(output.search(/SIGHUP: config reloaded/)).toBeGreaterThan(output.search(SIDECAR_RUNNING));
    expect(output).toMatch(/SIGHUP arrived while starting: reloading the config now that the sidecar runs/);

    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
    // Every SIGHUP queued before the SIGTERM was handled before the process stopped: one reload for five signals.
    expect(sidecar.output().match(RELOADED)).toHaveLength(1);
  });

  it('a SIGTERM during start stops it cleanly once started, exit 0', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    const { sidecar, release } = await spawnPausedInConfigRead(setup);
    sidecar.child.kill('SIGTERM');
    await release().catch(() => undefined);

    expect(await sidecar.exited()).toBe(0);
    const output = sidecar.output();
    expect(output).toMatch(SIDECAR_RUNNING);
    expect(output).toMatch(/stopping: answering what is in flight/);
    expect(output).toMatch(/"msg":"stopped"/);
  });
});
