// The process's open-file limit (RLIMIT_NOFILE), read where Linux shows it (/proc/self/limits: Node has no API for
// it, and a native addon for one number is not worth it), so `run` can log it at start and warn when it is low:
// every mod, RCON and service connection, and every idle socket a local process opens, costs a descriptor.
// Must never throw or stop the start: where the file does not exist (macOS, Windows) or cannot be read, nothing
// is logged.
import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';

export interface OpenFileLimit {
  /** The limit that applies (Node raises it to the hard limit at start, so this is what the sidecar really has). */
  readonly soft: number;
  readonly hard: number;
}

/** Below this the log line is a warning: a systemd unit without LimitNOFILE gets 1024 on older systems. */
export const LOW_OPEN_FILE_LIMIT = 4096;

const LIMITS_FILE = '/proc/self/limits';

/** The "Max open files" row of /proc/<pid>/limits; `unlimited` reads as Infinity; undefined when absent or odd. */
export function parseOpenFileLimit(limitsText: string): OpenFileLimit | undefined {
  const row = /^Max open files[ \t]+(\S+)[ \t]+(\S+)/m.exec(limitsText);
  if (row === null) return undefined;
  const soft = limitValue(row[1]);
  const hard = limitValue(row[2]);
  return soft === undefined || hard === undefined ? undefined : { soft, hard };
}

/** Reads the limit of this process; undefined where the system does not show it. */
export async function readOpenFileLimit(path = LIMITS_FILE): Promise<OpenFileLimit | undefined> {
  try {
    return parseOpenFileLimit(await readFile(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** One line at start: info with the limit, a warning when it is low; nothing where it cannot be read. */
export async function logOpenFileLimit(logger: Logger, path = LIMITS_FILE): Promise<void> {
  const limit = await readOpenFileLimit(path);
  if (limit === undefined) return;
  // JSON has no Infinity: an unlimited limit is logged as the word.
  const fields = { openFileLimit: describe(limit.soft), openFileLimitHard: describe(limit.hard) };
  if (limit.soft < LOW_OPEN_FILE_LIMIT) {
    logger.warn(
      fields,
      `open file limit: ${describe(limit.soft)}, below ${String(LOW_OPEN_FILE_LIMIT)}: connections may fail with EMFILE; raise it (LimitNOFILE= in the systemd unit, ulimit -n, docker run --ulimit nofile=)`,
    );
    return;
  }
  logger.info(fields, `open file limit: ${describe(limit.soft)}`);
}

function limitValue(text: string | undefined): number | undefined {
  if (text === 'unlimited') return Number.POSITIVE_INFINITY;
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

function describe(limit: number): string {
  return Number.isFinite(limit) ? String(limit) : 'unlimited';
}
