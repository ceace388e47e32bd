import { defineConfig } from 'vitest/config';
import { QUIET_TEST_MS } from './test/fixtures/patience.js';
import { PlainSummaryReporter } from './test/plainSummaryReporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // On a quiet machine; each file stretches them by how busy the machine is (test/setup/patientTimeouts.ts).
    testTimeout: QUIET_TEST_MS,
    hookTimeout: QUIET_TEST_MS,
    // Most test files wait on loopback servers, child processes and real windows rather than compute, so more workers
    // than cores pay off, up to a point. Measured on the 2-core machine, shared with other test runs (issue 19):
    // beside two CPU hogs, 4 workers took 185-330 s and a sidecar up to 19 s to start, 3 took 219-258 s with starts
    // under 6 s, 2 took 276-307 s; without the hogs, 149-160 s, 157-174 s and 196-228 s. Three keep most of the speed
    // and lose the long tails that a busy machine gives four.
    maxWorkers: 3,
    // Isolation: no GSA_* variable from the host, a per-run TMPDIR that must be empty at the end, and every
    // temp dir made through test/fixtures/tempDir.ts removed after its file. Then dist/ rebuilt if a source changed,
    // so the child processes the tests spawn run the code under test (a few ms when nothing changed).
    globalSetup: ['./test/setup/isolation.ts', './test/setup/buildDist.ts'],
    setupFiles: ['./test/setup/patientTimeouts.ts', './test/setup/removeTempDirs.ts'],
    reporters: ['default', new PlainSummaryReporter()],
  },
});
