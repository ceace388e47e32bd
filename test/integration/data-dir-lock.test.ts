// The data directory's lock in-process: one holder at a time, "who are you" answers, control requests need the
// directory's token, and a released lock is free again at once. Real sockets; the process-level cases (a second
// `run`, SIGKILL) are in reviews-lock.test.ts.
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, realpath, rm, symlink } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { askHolder, CONTROL_TOKEN_FILE, DataDirLock, DataDirLockError, lockHolder } from '../../src/bridge/dataDirLock.js';

const locks: DataDirLock[] = [];
const dirs: string[] = [];

afterEach(async () => {
  await Promise.all(locks.splice(0).map((lock) => lock.release()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-lock-unit-'));
  dirs.push(dir);
  return dir;
}

async function acquire(dataDir: string, version = '1.2.3'): Promise<DataDirLock> {
  const lock = await DataDirLock.acquire(dataDir, { version, startedAt: 1_800_000_000_000 });
  locks.push(lock);
  return lock;
}

async function lockError(promise: Promise<unknown>): Promise<DataDirLockError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DataDirLockError) return error;
    throw error;
  }
  throw new Error('expected a DataDirLockError');
}

describe('DataDirLock', () => {
  it('lets one holder in, refuses the next naming the holder, and is free again once released', async () => {
    const dataDir = join(await tempDir(), 'new', 'data');
    const first = await acquire(dataDir);
    expect(await readdir(dataDir)).toEqual([CONTROL_TOKEN_FILE]);
    const refused = await lockError(DataDirLock.acquire(dataDir, { version: '9.9.9' }));
    expect(refused.code).toBe('locked');
    expect(refused.holder).toEqual({ pid: process.pid, version: '1.2.3', startedAt: 1_800_000_000_000, dataDir });
    expect(refused.message).toBe(
      `the data directory ${dataDir} is in use by another gsa-bridge (pid ${process.pid}, version 1.2.3, started 2027-01-15T08:00:00.000Z); ` +
        'stop that one first, or give this one its own data directory. Nothing was changed.',
    );
    expect(await lockHolder(dataDir)).toMatchObject({ pid: process.pid });

    await first.release();
    expect(await readdir(dataDir)).toEqual([]);
    expect(await lockHolder(dataDir)).toBeUndefined();
    await acquire(dataDir, '2.0.0');
    expect(await lockHolder(dataDir)).toMatchObject({ version: '2.0.0' });
  });

  it('is one lock for two spellings of the same directory (a symlink)', async () => {
    const dir = await tempDir();
    const real = join(dir, 'real');
    await acquire(real);
    await symlink(real, join(dir, 'alias'));
    expect((await lockError(DataDirLock.acquire(join(dir, 'alias'), { version: 'x' }))).code).toBe('locked');
  });

  it('serves control requests only with the directory token, and only once a handler is set', async () => {
    const dataDir = await tempDir();
    const lock = await acquire(dataDir);
    expect(await askHolder(dataDir, { op: 'retry' })).toEqual({ ok: false, error: 'the sidecar is starting or reloading; try again in a moment' });
    lock.serve((request) => Promise.resolve({ ok: true, echoed: request.op }));
    expect(await askHolder(dataDir, { op: 'retry' })).toEqual({ ok: true, echoed: 'retry' });
    // askHolder quotes the token it reads from the directory; a request quoting another is refused.
    if (process.platform === 'linux') {
      const address = `\0gsa-bridge-${createHash('sha256').update(await realpath(dataDir)).digest('hex')}`;
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = createConnection(address, () => socket.write('{"op":"retry","token":"guess"}\n'));
        let text = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => {
          resolve(text);
        });
        socket.on('error', reject);
      });
      expect(JSON.parse(reply)).toMatchObject({ ok: false, error: expect.stringContaining(CONTROL_TOKEN_FILE) as unknown });
    }
  });
});
