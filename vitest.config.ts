import { defineConfig } from 'vitest/config';
import { QUIET_TEST_MS } from './test/fixtures/patience.js';
import { PlainSummaryReporter } from './test/plainSummaryReporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // On a quiet machine; each file stretches them by how busy the machine is (test/setup/patientTimeouts.ts).
    testTimeout: QUIET_TEST_MS,
    hookTimeout: QUIET_TEST_MS,
    // Most test files wait on loopback servers, child processes and real windows rather than compute: on the 2-core
    // CI machine 2 workers kept 1.15 cores busy (152 s), 4 take 89 s (and pass with a CPU hog beside them, 113 s).
    maxWorkers: 4,
    // Isolation: no GSA_* variable from the host, a per-run TMPDIR that must be empty at the end, and every
    // temp dir made through test/fixtures/tempDir.ts removed after its file. Then dist/ rebuilt if a source changed,
    // so the child processes the tests spawn run the code under test (a few ms when nothing changed).
    globalSetup: ['./test/setup/isolation.ts', './test/setup/buildDist.ts'],
    setupFiles: ['./test/setup/patientTimeouts.ts', './test/setup/removeTempDirs.ts'],
    reporters: ['default', new PlainSummaryReporter()],
  },
});
