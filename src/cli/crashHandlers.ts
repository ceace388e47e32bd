// What `run` does with an error nobody caught (an uncaughtException or an unhandledRejection): one fatal line
// through the redacting logger, with the error and where it came from, then exit non-zero at once, so the
// supervisor (systemd's Restart=on-failure, Docker's restart policy) starts a clean process. Carrying on after an
// unknown failure could leave the outbox or a listener half broken for months. The outbox journal is fsynced as
// records are written, so nothing acknowledged is lost by exiting here.
// It never swallows the error and never writes to the console directly (the logger redacts secrets).

import type { Logger } from 'pino';
import { EXIT_REFUSED } from './exitCodes.js';

/** The process, or a stand-in in tests: where the events come from. */
export interface CrashSource {
  on(event: 'uncaughtException' | 'unhandledRejection', listener: (error: unknown) => void): unknown;
  off(event: 'uncaughtException' | 'unhandledRejection', listener: (error: unknown) => void): unknown;
}

export interface CrashHandlerOptions {
  /** The current logger (it changes when a reload changes the secrets or the level). */
  readonly logger: () => Logger;
  /** Default `process`. */
  readonly source?: CrashSource | undefined;
  /** Default process.exit. */
  readonly exit?: ((code: number) => void) | undefined;
  /** What the process was doing, for the fatal line (e.g. "running", "stopping"). */
  readonly context?: (() => Record<string, unknown>) | undefined;
}

/** The exit code after an unexpected error: 1, like the CLI's other internal errors. */
export const EXIT_CRASHED = EXIT_REFUSED;

/** Installs both handlers; returns the function that removes them (for a clean return from `run`). */
export function installCrashHandlers(options: CrashHandlerOptions): () => void {
  const source = options.source ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const handle = (kind: 'uncaughtException' | 'unhandledRejection') => (error: unknown) => {
    try {
      const logger = options.logger();
      logger.fatal(
        { err: error, event: kind, ...options.context?.() },
        `${kind === 'uncaughtException' ? 'an uncaught exception' : 'an unhandled promise rejection'}: ${error instanceof Error ? error.message : String(error)}; exiting so the supervisor restarts the sidecar`,
      );
      logger.flush();
    } finally {
      exit(EXIT_CRASHED);
    }
  };
  const onException = handle('uncaughtException');
  const onRejection = handle('unhandledRejection');
  source.on('uncaughtException', onException);
  source.on('unhandledRejection', onRejection);
  return () => {
    source.off('uncaughtException', onException);
    source.off('unhandledRejection', onRejection);
  };
}
