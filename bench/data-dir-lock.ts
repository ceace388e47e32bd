// Benchmark: what the data directory's lock costs. The kernel lock alone (fs-native-extensions tryLock + unlock
// on an open file), a whole DataDirLock.acquire + release (create/check the directory, open the lock file, lock,
// bind the control socket, write who holds it, and undo it all), a refused acquire (it retries for 75 ms before
// refusing, see BUSY_RETRY_MS), and lockHolder on a held and on a free directory. Nothing here runs at steady
// state: `run` takes the lock once per process, `reviews retry` once per command.
//
//   node dist/bench/data-dir-lock.js [acquire rounds, default 1000]

import { closeSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tryLock, unlock } from 'fs-native-extensions';
import { DataDirLock, DataDirLockError, lockHolder } from '../src/datadir/dataDirLock.js';

const rounds = Number(process.argv[2] ?? 1000);
const LOCK_ROUNDS = 100_000;
const REFUSED_ROUNDS = 50;

async function timed(count: number, step: () => Promise<void> | void): Promise<number> {
  const start = process.hrtime.bigint();
  for (let index = 0; index < count; index++) await step();
  return Number(process.hrtime.bigint() - start) / count / 1e6;
}

const dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-bench-lock-'));
try {
  const rows: [string, number, number][] = [];
  const fd = openSync(join(dir, 'plain'), 'w+', 0o600);
  rows.push([
    'tryLock + unlock (kernel lock alone)',
    LOCK_ROUNDS,
    await timed(LOCK_ROUNDS, () => {
      if (!tryLock(fd, 2 ** 30, 1)) throw new Error('the bench file is locked by someone else');
      unlock(fd, 2 ** 30, 1);
    }),
  ]);
  closeSync(fd);

  const dataDir = join(dir, 'data');
  await (await DataDirLock.acquire(dataDir, { version: 'bench' })).release();
  rows.push(['DataDirLock.acquire + release', rounds, await timed(rounds, async () => (await DataDirLock.acquire(dataDir, { version: 'bench' })).release())]);

  const held = await DataDirLock.acquire(dataDir, { version: 'bench' });
  rows.push([
    'refused acquire (held elsewhere)',
    REFUSED_ROUNDS,
    await timed(REFUSED_ROUNDS, async () => {
      try {
        await DataDirLock.acquire(dataDir, { version: 'refused' });
      } catch (error) {
        if (!(error instanceof DataDirLockError) || error.code !== 'locked') throw error;
        return;
      }
      throw new Error('a second acquire was not refused');
    }),
  ]);
  rows.push(['lockHolder, held', rounds, await timed(rounds, async () => { await lockHolder(dataDir); })]);
  await held.release();
  rows.push(['lockHolder, free', rounds, await timed(rounds, async () => { await lockHolder(dataDir); })]);

  console.log('| operation | rounds | ms each |');
  console.log('|---|---:|---:|');
  for (const [name, count, ms] of rows) console.log(`| ${name} | ${count} | ${ms.toFixed(ms < 0.1 ? 4 : 3)} |`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
