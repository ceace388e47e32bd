// The durable file steps the review journal and the data directory share: a data directory that survives power
// loss, an append that is fsynced before it is trusted, a directory entry fsynced after a file appears, writes
// that loop until every byte is out. Files are created 0600 and directories 0700: reviews hold player ids.
// Must never know a record's format or hold a file open past one call, and never report success before an fsync.

import { mkdir, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

export function isErrnoCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function syncDirectory(dir: string): Promise<void> {
  // Windows cannot open a directory for fsync; NTFS journals its own metadata.
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** mkdir -p, then fsyncs every directory that gained an entry, so a new data directory survives power loss. */
export async function makeDataDir(dir: string): Promise<void> {
  const target = path.resolve(dir);
  const firstCreated = await mkdir(target, { recursive: true, mode: DIR_MODE });
  if (firstCreated === undefined) return;
  const top = path.resolve(firstCreated);
  for (let current = target; ; current = path.dirname(current)) {
    await syncDirectory(current);
    if (current === top || path.dirname(current) === current) break;
  }
  await syncDirectory(path.dirname(top));
}

export async function writeFully(handle: FileHandle, data: Buffer): Promise<void> {
  for (let written = 0; written < data.length; ) {
    const { bytesWritten } = await handle.write(data, written, data.length - written);
    written += bytesWritten;
  }
}

export async function removeIfPresent(file: string): Promise<boolean> {
  try {
    await unlink(file);
    return true;
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return false;
    throw error;
  }
}

/** Appends one line (or several, as bytes) and fsyncs it; a newly created file also gets its directory entry fsynced. */
export async function appendDurably(file: string, line: string | Buffer): Promise<void> {
  let handle: FileHandle;
  let created = true;
  try {
    handle = await open(file, 'ax', FILE_MODE);
  } catch (error) {
    if (!isErrnoCode(error, 'EEXIST')) throw error;
    created = false;
    handle = await open(file, 'a', FILE_MODE);
  }
  try {
    await writeFully(handle, typeof line === 'string' ? Buffer.from(line, 'utf8') : line);
    await handle.datasync();
  } finally {
    await handle.close();
  }
  if (created) await syncDirectory(path.dirname(file));
}

/**
 * Replaces `file` by `data` so that a crash at any step leaves either the old or the new file whole: written to
 * `tmp`, fsynced, renamed over it. A failure removes `tmp` and leaves `file` as it was. The caller fsyncs the
 * directory next (syncDirectory): until then power loss may undo the rename.
 */
export async function replaceByRename(file: string, tmp: string, data: Buffer): Promise<void> {
  try {
    await removeIfPresent(tmp);
    const handle = await open(tmp, 'wx', FILE_MODE);
    try {
      await writeFully(handle, data);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(tmp, file);
  } catch (error) {
    await removeIfPresent(tmp).catch(() => undefined);
    throw error;
  }
}
