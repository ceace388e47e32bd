// `gsa-bridge config check [--config FILE] [--connect]`: validates the file with the environment applied, prints the
// effective config with every secret masked, and warns about values left from config.example.json. With --connect it
// also checks (printed first, the config after them, the verdict last), one line each, that the service accepts the credentials and knows each server, that each listener
// port is free, and that each RCON adapter logs in (connectionChecks.ts). Exit 0 valid (and every check passed), 1 a
// check failed, 2 invalid. Without --connect it contacts nothing.

import { ConfigError, collectSecrets, describeCredentialSources, loadConfig, maskSecrets } from '../app/config.js';
import { commandLogger } from './commandLogger.js';
import { connectionChecks, formatCheckLine } from './connectionChecks.js';
import { placeholderWarnings } from './configPlaceholders.js';
import { backslashPathWarnings } from '../app/pathWarnings.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK, EXIT_REFUSED } from './exitCodes.js';
import { CONFIG_OPTION, PRETTY_OPTION, defineCommand, parseCommandLine, type CommandGroupSpec } from './options.js';
import { reportConfigError } from './serviceSession.js';

export const CONFIG_CHECK_COMMAND = defineCommand({
  name: 'config check',
  synopsis: '[--config FILE] [--connect] [--pretty]',
  summary: 'validate the config and print it with secrets masked; --connect also tries the service and the ports',
  details: [
    'With --connect: one line per check. The credentials and each server name cost one read-only mute lookup per server',
    "(of the 100/min budget); a System API key, one GET game/available (of its own budget); each listener port (WebSocket",
    'adapters, http) is bound and released; each RCON adapter logs in',
    'once and sends one read-only command (ark and squad ListPlayers, rust serverinfo), then disconnects.',
    'Exit 0 valid (and, with --connect, every check passed), 1 a check failed, 2 invalid: one line per problem with its path.',
  ],
  options: {
    ...CONFIG_OPTION,
    connect: { type: 'boolean', description: 'also check the credentials, the server names and the listener ports', defaultText: 'off: nothing is contacted' },
    ...PRETTY_OPTION,
  },
});

export const CONFIG_COMMANDS: CommandGroupSpec = {
  name: 'config',
  summary: 'check the configuration',
  subcommands: [CONFIG_CHECK_COMMAND],
};

export async function configCommand(args: readonly string[], context: CliContext): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand !== 'check') throw new UsageError(subcommand === undefined ? 'name a subcommand: check' : `unknown subcommand "config ${subcommand}"; use: config check`);
  const { options } = parseCommandLine(CONFIG_CHECK_COMMAND, rest);
  let loaded;
  try {
    loaded = await loadConfig({ path: options.config, env: context.env, requireFile: true, cwd: context.cwd });
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }
  const { config } = loaded;
  const effectiveConfig = `${JSON.stringify(maskSecrets(config), null, 2)}\n`;
  if (!options.connect) context.stdout.write(effectiveConfig);
  context.stderr.write(`config OK: ${loaded.path ?? '(environment only)'}\n`);
  for (const warning of [...placeholderWarnings(config), ...backslashPathWarnings(config)]) context.stderr.write(`warning: ${warning}\n`);
  if (!options.connect) return EXIT_OK;

  // With --connect the checks are what was asked for: they come first (the top of a pipe or a CI log), the effective
  // config after them for reference, and the verdict last, naming what failed, so a terminal keeps it in view.
  const logger = commandLogger(context, { level: config.log.level, secrets: collectSecrets(config), pretty: options.pretty, oneShot: true });
  const { lines, serviceCalls } = await connectionChecks(config, logger, { credentialSources: describeCredentialSources(loaded.sources, loaded.path) });
  for (const line of lines) context.stdout.write(`${formatCheckLine(line)}\n`);
  context.stdout.write(effectiveConfig);
  const failed = lines.filter((line) => line.outcome === 'fail').map((line) => line.subject);
  const spent = `${serviceCalls} read-only ${serviceCalls === 1 ? 'request' : 'requests'} to the service, of its ${config.api.rateLimit.requests} per ${config.api.rateLimit.intervalMs / 1000} s`;
  context.stderr.write(`${failed.length === 0 ? 'every check passed' : `${failed.length} ${failed.length === 1 ? 'check' : 'checks'} failed: ${failed.join('; ')}`} (${spent})\n`);
  return failed.length === 0 ? EXIT_OK : EXIT_REFUSED;
}
