import { defineConfig } from 'vitest/config';
import { PlainSummaryReporter } from './test/plainSummaryReporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Integration tests start real loopback servers and child processes; keep the 2-core CI machine responsive.
    maxWorkers: 2,
    reporters: ['default', new PlainSummaryReporter()],
  },
});
