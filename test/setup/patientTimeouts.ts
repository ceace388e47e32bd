// Per test file: vitest's testTimeout and hookTimeout (20 s, enough on a quiet machine) stretched by how busy the
// machine is as the file starts (test/fixtures/patience.ts), like every bound on a wait in the fixtures. A timeout
// here only turns a hang into a failure; what a test proves is in its assertions, never in this bound. A test that
// sets its own timeout keeps it.
import { vi } from 'vitest';
import { patientMs, QUIET_TEST_MS } from '../fixtures/patience.js';

vi.setConfig({ testTimeout: patientMs(QUIET_TEST_MS), hookTimeout: patientMs(QUIET_TEST_MS) });
