// Opens `run`'s log file (log.file, log.maxBytes, log.maxFiles) for the logger, or says why it cannot be opened as a
// config error naming log.file (a directory that does not exist or cannot be written is the host's to fix: exit 2).
// It never writes a line itself and never opens anything when log.file is not set.

import { accessSync, constants } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, DEFAULT_LOG_FILE_MAX_BYTES, DEFAULT_LOG_FILE_MAX_FILES, type BridgeConfig } from '../app/config.js';
import { RotatingLogFile } from '../log/rotatingLogFile.js';

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'its directory does not exist';
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 'permission denied (the sidecar\'s user must be able to write the file and create files in its directory, for rotation)';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return code ?? (error instanceof Error ? error.message : String(error));
  }
}

/** The open log file, undefined without log.file, or the ConfigError to report. */
export function openLogFile(config: BridgeConfig, configFile: string | null, onError: (error: Error) => void): RotatingLogFile | ConfigError | undefined {
  const { file, maxBytes, maxFiles } = config.log;
  if (file === undefined) return undefined;
  try {
    // Rotation renames in the directory: a file that can be written in a directory that cannot would stop rotating.
    accessSync(dirname(file), constants.W_OK);
    return RotatingLogFile.open({ path: file, maxBytes: maxBytes ?? DEFAULT_LOG_FILE_MAX_BYTES, maxFiles: maxFiles ?? DEFAULT_LOG_FILE_MAX_FILES, onError });
  } catch (error) {
    return new ConfigError([{ path: 'log.file', message: `cannot write ${file}: ${reason(error)}` }], { file: configFile });
  }
}
