// The data directory's lock: one holder at a time however the directory is reached (a symlink, a bind mount,
// another network namespace), the holder named from the lock file, control requests only with the token from it,
// a squatter on the old abstract socket name powerless, and SIGKILL of a holder freeing the lock at once; what may
// stand at gsa-bridge.lock (a file others can read is tightened; a FIFO, a directory or another user's file refused).
// Real processes (a node process taking the lock through dist/, `unshare --net`, `setpriv` as nobody, `mount --bind`);
// the cases of a real `gsa-bridge run` are in reviews-lock.test.ts.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { chmod, chown, mkdir, open, readdir, readFile, realpath, stat, symlink, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type Server } from 'node:net';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { askHolder, CONTROL_SOCKET_FILE, DataDirLock, DataDirLockError, LOCK_FILE, lockHolder } from '../../src/datadir/dataDirLock.js';
import { AS_NOBODY, LOCK_MODULE, NEW_NETWORK_NAMESPACE, NOBODY, networkNamespaceUnavailable, spawnLockHolder, spawnSquatter } from '../fixtures/lockProcess.js';
import { tempDir } from '../fixtures/tempDir.js';

const locks: DataDirLock[] = [];
const mounts: string[] = [];
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(locks.splice(0).map((lock) => lock.release()));
  for (const mount of mounts.splice(0)) execFileSync('umount', [mount]);
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

const isRoot = process.getuid?.() === 0;
const noNamespace = networkNamespaceUnavailable();
if (noNamespace !== undefined) console.warn(`data-dir-lock: skipping the network namespace cases: ${noNamespace}`);
if (!isRoot) console.warn('data-dir-lock: skipping the bind mount and `nobody` squatter cases: they need root');
if (process.platform !== 'linux') console.warn('data-dir-lock: skipping the abstract socket squatter cases: abstract sockets are Linux only');

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

/** The abstract socket name the lock used to be: derived from the real path, so anybody could bind it first. */
async function oldAbstractHash(dataDir: string): Promise<string> {
  return createHash('sha256').update(await realpath(dataDir)).digest('hex');
}

/** One request line to a socket, one answer line back. */
function rawRequest(address: string, line: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(address, () => socket.write(`${line}\n`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => {
      resolve(JSON.parse(text));
    });
    socket.on('error', reject);
  });
}

const HOST = hostname();

describe('DataDirLock', () => {
  it('lets one holder in, refuses the next naming the holder from the lock file, and is free again once released', async () => {
    const dataDir = join(await tempDir('lock'), 'new', 'data');
    const first = await acquire(dataDir);
    expect((await readdir(dataDir)).sort()).toEqual([LOCK_FILE, CONTROL_SOCKET_FILE]);
    expect((await stat(join(dataDir, LOCK_FILE))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(join(dataDir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, hostname: HOST, version: '1.2.3', control: join(dataDir, CONTROL_SOCKET_FILE) });
    const refused = await lockError(DataDirLock.acquire(dataDir, { version: '9.9.9' }));
    expect(refused.code).toBe('locked');
    expect(refused.holder).toEqual({ pid: process.pid, hostname: HOST, version: '1.2.3', startedAt: 1_800_000_000_000, dataDir });
    expect(refused.message).toBe(
      `the data directory ${dataDir} is in use by another gsa-bridge (pid ${process.pid}, host ${HOST}, version 1.2.3, started 2027-01-15T08:00:00.000Z); ` +
        'stop that one first, or give this one its own data directory. Nothing was changed.',
    );
    expect(await lockHolder(dataDir)).toMatchObject({ pid: process.pid, hostname: HOST });

    await first.release();
    // The lock file stays (deleting it would let two processes lock two different files), empty.
    expect(await readdir(dataDir)).toEqual([LOCK_FILE]);
    expect(await readFile(join(dataDir, LOCK_FILE), 'utf8')).toBe('');
    expect(await lockHolder(dataDir)).toBeUndefined();
    await acquire(dataDir, '2.0.0');
    expect(await lockHolder(dataDir)).toMatchObject({ version: '2.0.0' });
  });

  it('is one lock for two spellings of the same directory (a symlink)', async () => {
    const dir = await tempDir('lock');
    const real = join(dir, 'real');
    await acquire(real);
    await symlink(real, join(dir, 'alias'));
    expect((await lockError(DataDirLock.acquire(join(dir, 'alias'), { version: 'x' }))).code).toBe('locked');
  });

  it.skipIf(!isRoot || process.platform !== 'linux')('is one lock for a bind mount of the directory at another path', async () => {
    const dir = await tempDir('lock');
    const real = join(dir, 'real');
    const alias = join(dir, 'alias');
    await acquire(real);
    await mkdir(alias);
    execFileSync('mount', ['--bind', real, alias]);
    mounts.push(alias);
    expect(await realpath(alias)).toBe(alias); // not a symlink: no path trick can tell the two apart
    const refused = await lockError(DataDirLock.acquire(alias, { version: 'x' }));
    expect(refused.code).toBe('locked');
    expect(refused.holder).toMatchObject({ pid: process.pid, version: '1.2.3' });
    expect(await lockHolder(alias)).toMatchObject({ pid: process.pid });
  });

  it('serves control requests only with the token from the lock file, and only once a handler is set', async () => {
    const dataDir = await tempDir('lock');
    const lock = await acquire(dataDir);
    expect(await askHolder(dataDir, { op: 'retry' })).toEqual({ ok: false, error: 'the sidecar is starting or reloading; try again in a moment' });
    lock.serve((request) => Promise.resolve({ ok: true, echoed: request.op }));
    expect(await askHolder(dataDir, { op: 'retry' })).toEqual({ ok: true, echoed: 'retry' });
    // askHolder quotes the token it reads from the lock file; a request quoting another is refused.
    expect(lock.controlAddress).toBe(join(dataDir, CONTROL_SOCKET_FILE));
    expect(await rawRequest(lock.controlAddress!, '{"op":"retry","token":"guess"}')).toMatchObject({ ok: false, error: expect.stringContaining(LOCK_FILE) as unknown });
    await lock.release();
    await expect(askHolder(dataDir, { op: 'retry' })).rejects.toMatchObject({ code: 'unavailable', message: `no process holds ${dataDir}` });
  });

  it('listens on a random abstract name, found through the lock file, when the socket path is too long', async () => {
    const dataDir = join(await tempDir('lock'), 'a-directory-name-long-enough-that-its-control-socket-path-cannot-fit-into-sun-path');
    const lock = await acquire(dataDir);
    expect(Buffer.byteLength(join(dataDir, CONTROL_SOCKET_FILE))).toBeGreaterThan(107);
    lock.serve(() => Promise.resolve({ ok: true }));
    expect(await askHolder(dataDir, { op: 'retry' })).toEqual({ ok: true });
    expect(await readdir(dataDir)).toEqual([LOCK_FILE]);
  });

  it('tightens a lock file others could open, and refuses one that is a symlink', async () => {
    const dataDir = await tempDir('lock');
    await writeFile(join(dataDir, LOCK_FILE), 'left over\n', { mode: 0o666 });
    await chmod(join(dataDir, LOCK_FILE), 0o666);
    await acquire(dataDir);
    expect((await stat(join(dataDir, LOCK_FILE))).mode & 0o777).toBe(0o600);

    const other = await tempDir('lock');
    await symlink(join(dataDir, LOCK_FILE), join(other, LOCK_FILE));
    const refused = await lockError(DataDirLock.acquire(other, { version: 'x' }));
    expect(refused.code).toBe('unavailable');
    expect(refused.message).toContain(`${join(other, LOCK_FILE)} is a symbolic link`);
  });
});

describe('the old abstract socket name', () => {
  it.skipIf(process.platform !== 'linux')('a squatter on it neither blocks the lock, nor answers for it, nor gets the token', async () => {
    const dataDir = await tempDir('lock');
    const requests: string[] = [];
    const squatter = createServer((socket) => {
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        requests.push(chunk);
        socket.end('{"ok":true,"pid":1,"hostname":"squatter","version":"9.9.9","startedAt":0,"dataDir":"/"}\n');
      });
    });
    servers.push(squatter);
    const name = `\0gsa-bridge-${await oldAbstractHash(dataDir)}`;
    await new Promise<void>((resolve) => squatter.listen(name, resolve));

    expect(await lockHolder(dataDir)).toBeUndefined();
    const lock = await acquire(dataDir, '3.0.0');
    lock.serve(() => Promise.resolve({ ok: true, from: 'the holder' }));
    const refused = await lockError(DataDirLock.acquire(dataDir, { version: 'x' }));
    expect(refused.message).toContain(`(pid ${process.pid}, host ${HOST}, version 3.0.0,`);
    expect(refused.message).not.toContain('9.9.9');
    expect(await lockHolder(dataDir)).toMatchObject({ pid: process.pid, version: '3.0.0' });
    expect(await askHolder(dataDir, { op: 'retry' })).toEqual({ ok: true, from: 'the holder' });
    expect(requests).toEqual([]);
  });

  it.skipIf(!isRoot || process.platform !== 'linux')('nor does one running as nobody, who cannot enter the directory', async () => {
    const dataDir = await tempDir('lock');
    const squatter = spawnSquatter(await oldAbstractHash(dataDir), AS_NOBODY);
    expect(await squatter.next('bound')).toEqual({ event: 'bound', uid: 65534 });

    const lock = await acquire(dataDir, '3.0.1');
    lock.serve(() => Promise.resolve({ ok: true, from: 'the holder' }));
    expect(await lockHolder(dataDir)).toMatchObject({ pid: process.pid, version: '3.0.1' });
    expect(await askHolder(dataDir, { op: 'retry' })).toEqual({ ok: true, from: 'the holder' });
    expect(squatter.events.filter((event) => event.event === 'request')).toEqual([]);
  });
});

describe('other processes', () => {
  it('a refused process names the holder (pid, host, version) from the lock file', async () => {
    const dataDir = await tempDir('lock');
    const holder = spawnLockHolder(dataDir, '7.7.7-child');
    const { pid } = await holder.next('locked');
    const refused = await lockError(DataDirLock.acquire(dataDir, { version: 'x' }));
    expect(refused.message).toContain(`is in use by another gsa-bridge (pid ${String(pid)}, host ${HOST}, version 7.7.7-child, started `);
    expect(refused.holder).toMatchObject({ pid, hostname: HOST, version: '7.7.7-child' });

    holder.child.stdin?.end();
    expect(await holder.exited()).toBe(0);
    await acquire(dataDir);
  });

  it.skipIf(noNamespace !== undefined)('one lock across network namespaces (two containers on one volume), both ways', async () => {
    const dataDir = await tempDir('lock');
    await acquire(dataDir, '4.0.0');
    const contender = spawnLockHolder(dataDir, 'netns', NEW_NETWORK_NAMESPACE);
    expect(await contender.next('refused', 'locked')).toMatchObject({ event: 'refused' });
    expect(await contender.next('refused')).toMatchObject({ code: 'locked', message: expect.stringContaining(`(pid ${process.pid}, host ${HOST}, version 4.0.0,`) as unknown });
    expect(await contender.exited()).toBe(3);
    await Promise.all(locks.splice(0).map((lock) => lock.release()));

    const holder = spawnLockHolder(dataDir, '4.0.1-netns', NEW_NETWORK_NAMESPACE);
    const { pid } = await holder.next('locked');
    const refused = await lockError(DataDirLock.acquire(dataDir, { version: 'x' }));
    expect(refused.message).toContain(`(pid ${String(pid)}, host ${HOST}, version 4.0.1-netns,`);
    // The control socket is a file in the directory: reachable from the other namespace too.
    expect(await askHolder(dataDir, { op: 'retry' })).toEqual({ ok: false, error: 'the sidecar is starting or reloading; try again in a moment' });
  });

  it.skipIf(noNamespace !== undefined)('SIGKILL of the holder frees the lock at once: the next one takes it and removes the stale socket', async () => {
    const dataDir = await tempDir('lock');
    const holder = spawnLockHolder(dataDir, '5.0.0', NEW_NETWORK_NAMESPACE);
    await holder.next('locked');
    expect((await lockError(DataDirLock.acquire(dataDir, { version: 'x' }))).code).toBe('locked');

    holder.child.kill('SIGKILL');
    expect(await holder.exited()).toBe('SIGKILL');
    expect((await readdir(dataDir)).sort()).toEqual([LOCK_FILE, CONTROL_SOCKET_FILE]); // left behind by the kill
    const lock = await acquire(dataDir, '5.0.1');
    lock.serve(() => Promise.resolve({ ok: true, from: 'the new holder' }));
    expect(await lockHolder(dataDir)).toMatchObject({ pid: process.pid, version: '5.0.1' });
    expect(await askHolder(dataDir, { op: 'retry' })).toEqual({ ok: true, from: 'the new holder' });
  });
});

describe('what stands at gsa-bridge.lock', () => {
  const notPlain = (file: string): string => `${file} is not a plain file; the lock file must be one: remove it`;

  /** Each way a process opens the lock file: `run` taking the lock, and `reviews list`/`retry` asking who holds it. */
  const everyWayIn = (dataDir: string): [string, () => Promise<unknown>][] => [
    ['DataDirLock.acquire', () => DataDirLock.acquire(dataDir, { version: 'x' })],
    ['lockHolder', () => lockHolder(dataDir)],
    ['askHolder', () => askHolder(dataDir, { op: 'retry' })],
  ];

  /** The call's result, or a failure naming it when it has not returned within a generous bound (a FIFO open that blocks). */
  async function returnsWithin<T>(what: string, promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        reject(new Error(`${what} did not return within 10 s: it hangs on the FIFO`));
      }, 10_000);
    });
    try {
      return await Promise.race([promise, bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  it.each([
    { mode: 0o640, left: 0o600, what: 'group-readable (0640)', result: '0600' },
    { mode: 0o604, left: 0o600, what: 'readable by others (0604)', result: '0600' },
    { mode: 0o660, left: 0o600, what: 'group-writable (0660)', result: '0600' },
    // Only group and other access goes: the owner's own bits are left as they are.
    { mode: 0o700, left: 0o700, what: 'open to its owner only (0700)', result: '0700' },
  ])('takes a lock file found $what and leaves it $result', async ({ mode, left }) => {
    const dataDir = await tempDir('lock-mode');
    const file = join(dataDir, LOCK_FILE);
    await writeFile(file, '');
    await chmod(file, mode);
    await acquire(dataDir);
    expect((await stat(file)).mode & 0o777).toBe(left);
    expect(await lockHolder(dataDir)).toMatchObject({ pid: process.pid });
  });

  it('refuses a FIFO named gsa-bridge.lock as not a plain file, without hanging, from start, lockHolder and askHolder', async () => {
    const dataDir = await tempDir('lock-fifo');
    const file = join(await realpath(dataDir), LOCK_FILE);
    execFileSync('mkfifo', ['-m', '0600', file]);
    try {
      for (const [what, call] of everyWayIn(dataDir)) {
        const refused = await lockError(returnsWithin(what, call()));
        expect({ what, code: refused.code, message: refused.message }).toEqual({ what, code: 'unavailable', message: notPlain(file) });
      }
    } finally {
      // Should an open have blocked for a writer, this releases it (a FIFO with no reader answers ENXIO: nothing to do).
      await open(file, fsConstants.O_WRONLY | fsConstants.O_NONBLOCK).then((handle) => handle.close(), () => undefined);
    }
    expect(await readdir(dataDir)).toEqual([LOCK_FILE]);
  });

  it('refuses a directory named gsa-bridge.lock as not a plain file, from start, lockHolder and askHolder', async () => {
    const dataDir = await tempDir('lock-dir');
    const file = join(await realpath(dataDir), LOCK_FILE);
    await mkdir(file, { mode: 0o700 });
    for (const [what, call] of everyWayIn(dataDir)) {
      const refused = await lockError(call());
      expect({ what, code: refused.code, message: refused.message }).toEqual({ what, code: 'unavailable', message: notPlain(file) });
    }
    expect(await readdir(dataDir)).toEqual([LOCK_FILE]);
  });

  /**
   * Lets other users through `dir` and every directory above it that shuts them out (adds only o+x, so they can
   * reach a name they know, not list anything); returns how to put the modes back.
   */
  async function letOthersThrough(dir: string): Promise<() => Promise<void>> {
    const changed: { path: string; mode: number }[] = [];
    for (let current = dir; ; current = dirname(current)) {
      const { mode } = await stat(current);
      if ((mode & 0o001) === 0) {
        await chmod(current, (mode & 0o7777) | 0o001);
        changed.push({ path: current, mode: mode & 0o7777 });
      }
      if (dirname(current) === current) break;
    }
    return async () => {
      for (const { path, mode } of changed) await chmod(path, mode);
    };
  }

  // Root skips the owner check (it may tend any user's directory), so the refusal is seen from a child running as
  // nobody; it loads dist/ (see test/fixtures/lockProcess.ts: `npm test` rebuilds it first).
  it.skipIf(!isRoot)(
    `refuses a lock file another user owns, naming its uid, from a child running as nobody${isRoot ? '' : ' (skipped: only root can make a file for another user and start a child as nobody)'}`,
    async () => {
      const parent = await tempDir('lock-owner');
      const dataDir = join(await realpath(parent), 'data');
      // Root's directory, which nobody can enter but not write; root's lock file, which nobody could open for writing.
      await mkdir(dataDir, { mode: 0o755 });
      await chmod(dataDir, 0o755);
      const file = join(dataDir, LOCK_FILE);
      await writeFile(file, '');
      await chmod(file, 0o666);
      const restore = await letOthersThrough(dataDir);
      // The child imports dist/ from this checkout, which may sit under a directory only root can enter (mktemp -d).
      const restoreModule = await letOthersThrough(dirname(LOCK_MODULE));
      try {
        const child = spawnLockHolder(dataDir, 'as-nobody', AS_NOBODY);
        expect(await child.next('refused', 'locked')).toEqual({
          event: 'refused',
          code: 'unavailable',
          message: `the lock file ${file} belongs to uid 0, not to this process (uid ${NOBODY.uid}): run gsa-bridge as the user that owns the data directory`,
        });
        expect(await child.exited()).toBe(3);
      } finally {
        await restoreModule();
        await restore();
      }
      const after = await stat(file);
      expect({ uid: after.uid, mode: after.mode & 0o777 }).toEqual({ uid: 0, mode: 0o666 });
      expect(await readdir(dataDir)).toEqual([LOCK_FILE]);
    },
  );

  it.skipIf(!isRoot)(
    `as root, takes a lock file another user owns, and tightens it${isRoot ? '' : ' (skipped: only root can make a file for another user)'}`,
    async () => {
      const dataDir = await tempDir('lock-root');
      const file = join(dataDir, LOCK_FILE);
      await writeFile(file, '');
      await chown(file, NOBODY.uid, NOBODY.gid);
      await chmod(file, 0o640);
      await acquire(dataDir);
      const after = await stat(file);
      expect({ uid: after.uid, mode: after.mode & 0o777 }).toEqual({ uid: NOBODY.uid, mode: 0o600 });
    },
  );
});
