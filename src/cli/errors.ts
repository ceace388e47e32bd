// The CLI's own errors: one base class, one subclass per failure, each with a stable `code` that main() and tests
// switch on and an exit code from spec/interfaces.md (2 usage or configuration, 1 refused or not done).
// Messages say what went wrong and what to do. Never put a secret into one: they are printed as they are.

import { EXIT_REFUSED, EXIT_USAGE } from './exitCodes.js';

export type CliErrorCode = 'usage' | 'unknown_server' | 'server_without_id' | 'not_confirmed' | 'no_system_key' | 'sidecar_start_failed';

export abstract class CliError extends Error {
  abstract readonly code: CliErrorCode;
  /** The process's exit code when this error ends a command. */
  abstract readonly exitCode: number;

  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The arguments are wrong (unknown flag, missing value, bad number): nothing was sent. main() adds the usage line. */
export class UsageError extends CliError {
  readonly code = 'usage';
  readonly exitCode = EXIT_USAGE;
}

/** `--server NAME` names no server of the config: a configuration mistake, nothing was sent. */
export class UnknownServerError extends CliError {
  readonly code = 'unknown_server';
  readonly exitCode = EXIT_USAGE;

  constructor(name: string, known: readonly string[]) {
    super(
      known.length === 0
        ? `--server ${name}: the config has no servers; add it to "servers" with its "id", or pass --id GAMESERVER_ID`
        : `--server ${name}: no such server in the config (it has: ${known.join(', ')}); or pass --id GAMESERVER_ID`,
    );
  }
}

/** `--server NAME` names a configured server without an `id`, which the webhooks need. */
export class ServerWithoutIdError extends CliError {
  readonly code = 'server_without_id';
  readonly exitCode = EXIT_USAGE;

  constructor(name: string) {
    super(`--server ${name}: this server has no "id" in the config; add its GAMESERVER_ID there, or pass --id GAMESERVER_ID`);
  }
}

/** A person at the terminal answered no (or nothing) to a confirmation: nothing was sent. */
export class NotConfirmedError extends CliError {
  readonly code = 'not_confirmed';
  readonly exitCode = EXIT_REFUSED;
}

/** A command that only GSA's System API can do, run without its key: a configuration problem, nothing was sent. */
export class NoSystemKeyError extends CliError {
  readonly code = 'no_system_key';
  readonly exitCode = EXIT_USAGE;

  constructor(command: string) {
    super(`${command} needs GSA's System API key: set api.system.key or GSA_SYSTEM_API_KEY`);
  }
}

/** `run`: the sidecar could not start, for a reason other than a busy port (logged as fatal first); all it opened is closed. */
export class SidecarStartError extends CliError {
  readonly code = 'sidecar_start_failed';
  readonly exitCode = EXIT_REFUSED;

  constructor(cause: unknown) {
    super(`the sidecar could not start: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.cause = cause;
  }
}
