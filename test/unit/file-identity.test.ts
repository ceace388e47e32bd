// isSameFile (adapters/rcon/sources/fileIdentity.ts), pure: the log tail's rule for "the path still names the file I
// hold". An inode number alone is not enough: a file that reuses a freed one, born later, is another file. Stats come
// from a real temp file, so the fields are the ones node:fs fills; the "other" files differ in one field each.
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSameFile } from '../../adapters/rcon/sources/fileIdentity.js';
import { tempDir } from '../fixtures/tempDir.js';

async function realStats(): Promise<{ dev: number; ino: number; birthtimeMs: number }> {
  const path = join(await tempDir('file-identity'), 'game.log');
  await writeFile(path, 'a line\n');
  const { dev, ino, birthtimeMs } = await stat(path);
  return { dev, ino, birthtimeMs };
}

describe('isSameFile', () => {
  it('is the same file for the same device, inode and birth time', async () => {
    const stats = await realStats();
    expect(isSameFile(stats, { ...stats })).toBe(true);
  });

  it('is another file for another inode or device', async () => {
    const stats = await realStats();
    expect(isSameFile(stats, { ...stats, ino: stats.ino + 1 })).toBe(false);
    expect(isSameFile(stats, { ...stats, dev: stats.dev + 1 })).toBe(false);
  });

  it('is another file when a reused inode number has another birth time', () => {
    const held = { dev: 2049, ino: 131_075, birthtimeMs: 1_764_000_000_000 };
    expect(isSameFile({ ...held, birthtimeMs: held.birthtimeMs + 1 }, held)).toBe(false);
    expect(isSameFile({ ...held, birthtimeMs: held.birthtimeMs - 60_000 }, held)).toBe(false);
  });

  it('goes by the inode alone where the file system keeps no birth time (0 on either side)', () => {
    const held = { dev: 2049, ino: 131_075, birthtimeMs: 0 };
    expect(isSameFile({ ...held, birthtimeMs: 1_764_000_000_000 }, held)).toBe(true);
    expect(isSameFile(held, { ...held, birthtimeMs: 1_764_000_000_000 })).toBe(true);
  });
});
