// Runs one command that talks to the service: loads the config (file and environment), builds the logger
// and the client, runs the call, and maps the outcome to the contract's exit codes and plain messages.
// It owns the client's lifetime: the pool is closed whatever happens.

import type { Logger } from 'pino';
import { ConfigError, collectSecrets, formatProblem, loadConfig, serviceClientOptions, type BridgeConfig } from '../config/index.js';
import { GsaClient, GsaError } from '../gsa/index.js';
import { commandLogger } from './commandLogger.js';
import type { CliContext } from './context.js';
import { EXIT_REFUSED, EXIT_USAGE } from './exitCodes.js';

export interface ServiceSession {
  readonly client: GsaClient;
  readonly config: BridgeConfig;
  readonly logger: Logger;
}

export interface ServiceSessionOptions {
  /** --config, if given. */
  readonly configPath: string | undefined;
  /** --pretty was given. */
  readonly pretty: boolean;
}

/** Prints every problem of an invalid config on its own line, as `path: message`. */
export function reportConfigError(context: CliContext, error: ConfigError): number {
  for (const problem of error.problems) context.stderr.write(`${formatProblem(problem)}\n`);
  return EXIT_USAGE;
}

export async function withServiceSession(
  context: CliContext,
  options: ServiceSessionOptions,
  run: (session: ServiceSession) => Promise<number>,
): Promise<number> {
  let config: BridgeConfig;
  try {
    // One-shot commands need no file when the environment supplies the URL and credentials; a file the host
    // named (flag or GSA_BRIDGE_CONFIG) must exist, though.
    const named = options.configPath !== undefined || (context.env.GSA_BRIDGE_CONFIG ?? '') !== '';
    ({ config } = await loadConfig({ path: options.configPath, env: context.env, requireFile: named, cwd: context.cwd }));
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }
  const logger = commandLogger(context, { level: config.log.level, secrets: collectSecrets(config), pretty: options.pretty, oneShot: true });
  const client = new GsaClient({ ...serviceClientOptions(config), logger });
  try {
    return await run({ client, config, logger });
  } catch (error) {
    if (!(error instanceof GsaError)) throw error;
    context.stderr.write(`error (${error.code}): ${error.message}\n`);
    return error.code === 'invalid_input' ? EXIT_USAGE : EXIT_REFUSED;
  } finally {
    await client.close();
  }
}
