// `gsa-bridge emulator [--host H] [--port P] [--config FILE]`: the GSA-compatible emulator alone, for mod
// authors and tests. Credentials come from the config or environment (never argv), else demo defaults.

import { ConfigError, loadConfig } from '../config/index.js';
import { GsaEmulator, type EmulatorOptions } from '../gsa/emulator/index.js';
import { CONFIG_OPTION, integerFlag, parseCommandArguments, stringFlag } from './arguments.js';
import type { CliContext } from './context.js';
import { EXIT_OK } from './exitCodes.js';
import { reportConfigError } from './serviceSession.js';
import { shutdownSignal } from './shutdownSignal.js';
import { UsageError } from './usageError.js';

export const EMULATOR_USAGE = 'gsa-bridge emulator [--host H] [--port P] [--config FILE]';
export const DEFAULT_EMULATOR_PORT = 8790;

async function optionsFromConfig(path: string, context: CliContext): Promise<EmulatorOptions> {
  const { config } = await loadConfig({ path, env: context.env, requireFile: true });
  return {
    clientId: config.api.clientId,
    clientSecret: config.api.clientSecret,
    servers: config.servers.map((server) => (server.id === undefined ? { name: server.name } : { name: server.name, id: server.id })),
  };
}

function optionsFromEnvironment(context: CliContext): EmulatorOptions {
  const clientId = context.env.GSA_CLIENT_ID ?? '';
  const clientSecret = context.env.GSA_CLIENT_SECRET ?? '';
  return { ...(clientId !== '' ? { clientId } : {}), ...(clientSecret !== '' ? { clientSecret } : {}) };
}

export async function emulatorCommand(args: readonly string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArguments(args, { ...CONFIG_OPTION, host: { type: 'string' }, port: { type: 'string' } });
  const port = integerFlag(parsed, 'port') ?? DEFAULT_EMULATOR_PORT;
  if (port < 0 || port > 65535) throw new UsageError('--port must be 0–65535');
  const host = stringFlag(parsed, 'host') ?? '127.0.0.1';
  const configPath = stringFlag(parsed, 'config');

  let options: EmulatorOptions;
  try {
    options = configPath !== undefined ? await optionsFromConfig(configPath, context) : optionsFromEnvironment(context);
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }
  const emulator = await GsaEmulator.start({ ...options, host, port });
  const secretSource = options.clientSecret === undefined ? `${emulator.clientSecret} (demo default)` : '(from your config or GSA_CLIENT_SECRET)';
  context.stdout.write(
    [
      `GSA emulator listening on ${emulator.url}`,
      `  client id:     ${emulator.clientId}`,
      `  client secret: ${secretSource}`,
      `  servers:       ${emulator.servers.map((server) => (server.id === undefined ? server.name : `${server.name} (id ${server.id})`)).join(', ')}`,
      `  control:       ${emulator.url}/_emulator/state (local testing only)`,
      'Set api.baseUrl (or GSA_API_URL) to this URL. Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  await shutdownSignal();
  await emulator.close();
  return EXIT_OK;
}
