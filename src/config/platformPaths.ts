// How a path written in the config file becomes a path on the platform the sidecar runs on. A relative
// reviews.dataDir belongs to the config file's directory, with that platform's rules: on Windows `.\data` and
// `C:\ProgramData\gsa-bridge\data` (or with forward slashes) are what a host writes; on Linux and macOS a backslash
// is a character of a file name, so a config copied from Windows names a strange directory (pathsWithBackslashes
// finds those for a warning). The rules are a parameter (node:path is this platform's) so Windows' are tested on
// Linux with path.win32. Must never touch the file system.
import path, { type PlatformPath } from 'node:path';

/**
 * `dataDir` made absolute: kept when it already is, else resolved against `base` (the config file's directory, or
 * the working directory when there is no file). `rules` defaults to this platform's path module.
 */
export function absoluteDataDir(dataDir: string, base: string, rules: PlatformPath = path): string {
  return rules.isAbsolute(dataDir) ? dataDir : rules.resolve(base, dataDir);
}

/** True when a path holds a backslash that this platform reads as part of a file name, not as a separator. */
export function backslashIsLiteral(value: string, platform: NodeJS.Platform = process.platform): boolean {
  return platform !== 'win32' && value.includes('\\');
}
