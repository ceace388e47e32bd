// A real `gsa-bridge run` collects its young generation on the main thread alone (src/cli/scavengeOnMainThread.ts):
// under chat load, every scavenge V8 traces after the start shows no helper-thread time. Run with V8's
// `--trace-gc-nvp`, which prints each collection's phases, `background.scavenge.parallel` among them.
import { describe, expect, it } from 'vitest';
import { SIDECAR_RUNNING, useProcessHarness } from '../fixtures/processHarness.js';
import { patientMs } from '../fixtures/patience.js';
import { waitForOutput } from '../fixtures/sidecarProcess.js';

const harness = useProcessHarness({ server: 'ovddykvbs', clientSecret: 'client-secret-5c4v9', modToken: 'mod-token-5c4v9', label: 'scavenge' });

/** `node --trace-gc-nvp bin/gsa-bridge.js run …`: the harness's command, with the flag after the node binary. */
const TRACE_GC = ['/bin/sh', '-c', 'exec "$0" --trace-gc-nvp "$@"'];
const SCAVENGE = /gc=s\b[^\n]*?background\.scavenge\.parallel=([\d.]+)/g;
const BATCH = 500;
const SCAVENGES_WANTED = 3;
const LOAD_DEADLINE_MS = 60_000;

describe.runIf(process.platform !== 'win32')('young-generation collections of a real run', () => {
  it('run on the main thread alone: no scavenge after the start takes helper-thread time', { timeout: 180_000 }, async () => {
    const setup = await harness.writeSetup();
    await harness.startGsa(setup);
    const sidecar = harness.spawn(setup.configPath, TRACE_GC);
    await waitForOutput(sidecar, SIDECAR_RUNNING, patientMs(60_000));
    const startedAt = sidecar.output().search(SIDECAR_RUNNING);
    const scavenges = (): number[] => [...sidecar.output().slice(startedAt).matchAll(SCAVENGE)].map((match) => Number(match[1]));

    // Chat from players the cache does not know, a batch at a time, until V8 has scavenged a few times.
    const mod = await harness.connect(sidecar);
    let sent = 0;
    const deadline = Date.now() + LOAD_DEADLINE_MS;
    while (scavenges().length < SCAVENGES_WANTED) {
      if (Date.now() > deadline) throw new Error(`only ${scavenges().length} scavenges after ${sent} chat lines`);
      for (let i = 0; i < BATCH; i += 1, sent += 1) {
        mod.send({ type: 'chat', id: `c${sent}`, player: { steam_id: `7656119800${String(sent).padStart(7, '0')}` }, channel: 'global', text: `line ${sent}` });
      }
      await mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === `c${sent - 1}`, 20_000);
    }
    expect(scavenges().length).toBeGreaterThanOrEqual(SCAVENGES_WANTED);
    expect(scavenges().filter((helperMs) => helperMs > 0)).toStrictEqual([]);
  });
});
