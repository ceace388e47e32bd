// Warns, at start, when files that hold secrets or players' data can be read by other local users: the config
// file (when it holds a secret) and an existing review data directory. POSIX permission bits only; on Windows
// (ACLs, no mode bits worth reading) it says nothing. It never changes a permission and never reads a secret
// out loud: it only checks whether the file contains one.

import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';

export interface PermissionCheck {
  /** The config file read, or null when the config came from the environment alone. */
  readonly configPath: string | null;
  /** Secret values of the config; the file is only worth a warning when it holds one of them. */
  readonly secrets: readonly string[];
  /** reviews.dataDir; checked only when it exists already (the sidecar creates it 0700). */
  readonly dataDir: string;
  /** Default process.platform. */
  readonly platform?: NodeJS.Platform | undefined;
}

/** Read permission for group or others. */
const SHARED_READ = 0o044;

function octal(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

async function modeOf(path: string): Promise<{ mode: number; directory: boolean } | undefined> {
  try {
    const info = await stat(path);
    return { mode: info.mode, directory: info.isDirectory() };
  } catch {
    // Missing or unreadable: not ours to judge here; loading and the journal report those properly.
    return undefined;
  }
}

/** One line per file that others can read, saying what to run; empty when all is well. */
export async function filePermissionWarnings(check: PermissionCheck): Promise<string[]> {
  if ((check.platform ?? process.platform) === 'win32') return [];
  const warnings: string[] = [];
  if (check.configPath !== null) {
    const info = await modeOf(check.configPath);
    if (info !== undefined && (info.mode & SHARED_READ) !== 0) {
      const text = await readFile(check.configPath, 'utf8').catch(() => '');
      if (check.secrets.some((secret) => secret.length > 0 && text.includes(secret))) {
        warnings.push(
          `the config file ${check.configPath} holds secrets and is readable by group or others (mode ${octal(info.mode)}): run chmod 600 ${check.configPath}`,
        );
      }
    }
  }
  const dataDir = resolve(check.dataDir);
  const info = await modeOf(dataDir);
  if (info?.directory === true && (info.mode & SHARED_READ) !== 0) {
    warnings.push(
      `the review data directory ${dataDir} is readable by group or others (mode ${octal(info.mode)}); reviews hold player ids and comments: run chmod 700 ${dataDir}`,
    );
  }
  return warnings;
}
