// Which file a log tail holds: a file is known by its inode (dev+ino), and by its birth time where the file system
// keeps one, so a file that reuses a freed inode number is never taken for the one it replaced. Pure: no I/O.
// Must never call two files the same when their birth times, both known, differ.
import type { Stats } from 'node:fs';

/** What tells one file from another, taken from the stats of its fd when it was opened. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
  /** 0 where the file system does not keep it; else it tells a new file that reuses a freed inode number. */
  readonly birthtimeMs: number;
}

/**
 * Whether `stats` (the path's) are of the file known as `file`. A deleted file's inode number is often given to the
 * next file created at once (a game that deletes its log and starts a new one), so the birth time, where the file
 * system keeps one (statx on ext4, xfs, btrfs, tmpfs), tells them apart.
 */
export function isSameFile(stats: Pick<Stats, 'dev' | 'ino' | 'birthtimeMs'>, file: FileIdentity): boolean {
  return stats.dev === file.dev && stats.ino === file.ino && (stats.birthtimeMs === 0 || file.birthtimeMs === 0 || stats.birthtimeMs === file.birthtimeMs);
}
