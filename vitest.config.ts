import { defineConfig } from 'vitest/config';
import { PlainSummaryReporter } from './test/plainSummaryReporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration tests start real loopback servers and child processes; keep the 2-core CI machine responsive.
    maxWorkers: 2,
    // Isolation: no GSA_* variable from the host, a per-run TMPDIR that must be empty at the end, and every
    // temp dir made through test/fixtures/tempDir.ts removed after its file.
    globalSetup: ['./test/setup/isolation.ts'],
    setupFiles: ['./test/setup/removeTempDirs.ts'],
    reporters: ['default', new PlainSummaryReporter()],
  },
});
