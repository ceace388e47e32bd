// Per test file: removes the temp directories the file made with test/fixtures/tempDir.ts once it is done.
// Runs after the file's own afterAll hooks are registered, so it also cleans up after a file whose hooks failed.
import { afterAll } from 'vitest';
import { removeTempDirs } from '../fixtures/tempDir.js';

afterAll(async () => {
  await removeTempDirs();
});
