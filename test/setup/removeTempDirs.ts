// Per test file: stops the redis-servers it started (test/fixtures/redisServer.ts) and removes the temp directories the file made with test/fixtures/tempDir.ts once it is done.
// Runs after the file's own afterAll hooks are registered, so it also cleans up after a file whose hooks failed.
import { afterAll } from 'vitest';
import { stopAllRedis } from '../fixtures/redisServer.js';
import { removeTempDirs } from '../fixtures/tempDir.js';

afterAll(async () => {
  // A redis-server still running would hold its directory.
  await stopAllRedis();
  await removeTempDirs();
});
