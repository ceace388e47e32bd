// Global setup for the whole run: isolates the tests from the developer's machine and checks they clean up.
// - GSA_* variables are removed from the environment the test workers inherit: a host's GSA_BRIDGE_CONFIG or
//   GSA_CLIENT_SECRET must not change what a test sees.
// - TMPDIR points at a fresh per-run directory, so os.tmpdir() in every worker (and in child processes given
//   the inherited environment) lands there. At the end the run fails if anything is left in it, naming what.
// - NODE_DISABLE_COMPILE_CACHE=1: on Node 22 and later, tsc and eslint (spawned by the suite) turn on Node's
//   compile cache, which would write node-compile-cache into that directory; it is Node's, not a test's leftover.
// Must never delete anything outside the directory it made.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RUN_TEMP_PREFIX = 'gsa-bridge-test-run-';

export async function setup(): Promise<() => Promise<void>> {
  for (const name of Object.keys(process.env)) if (name.startsWith('GSA_')) Reflect.deleteProperty(process.env, name);
  const previous = process.env.TMPDIR;
  process.env.NODE_DISABLE_COMPILE_CACHE = '1';
  const root = await mkdtemp(join(tmpdir(), RUN_TEMP_PREFIX));
  process.env.TMPDIR = root;
  return async () => {
    if (previous === undefined) Reflect.deleteProperty(process.env, 'TMPDIR');
    else process.env.TMPDIR = previous;
    const left = await readdir(root);
    await rm(root, { recursive: true, force: true });
    if (left.length > 0) {
      // vitest reports an error thrown here but keeps its exit code; set it so CI fails too.
      process.exitCode = 1;
      throw new Error(`tests left ${left.length} temp entr${left.length === 1 ? 'y' : 'ies'} behind: ${left.join(', ')}; remove them in the test (test/fixtures/tempDir.ts does)`);
    }
  };
}
