// `gsa-bridge config check [--config FILE]`: validates the file with the environment applied and prints the
// effective config with every secret masked. Exit 0 valid, 2 invalid (one line per problem with its path).

import { ConfigError, loadConfig, maskSecrets } from '../config/index.js';
import { CONFIG_OPTION, parseCommandArguments, stringFlag } from './arguments.js';
import type { CliContext } from './context.js';
import { EXIT_OK } from './exitCodes.js';
import { reportConfigError } from './serviceSession.js';
import { UsageError } from './usageError.js';

export const CONFIG_CHECK_USAGE = 'gsa-bridge config check [--config FILE]';

export async function configCommand(args: readonly string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArguments(args, CONFIG_OPTION, 1);
  const subcommand = parsed.positionals[0];
  if (subcommand !== 'check') throw new UsageError(subcommand === undefined ? 'name a subcommand: check' : `unknown subcommand "config ${subcommand}"; use: config check`);
  try {
    const loaded = await loadConfig({ path: stringFlag(parsed, 'config'), env: context.env, requireFile: true, cwd: context.cwd });
    context.stdout.write(`${JSON.stringify(maskSecrets(loaded.config), null, 2)}\n`);
    context.stderr.write(`config OK: ${loaded.path ?? '(environment only)'}\n`);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }
}
