// `gsa-bridge emulator [--host H] [--port P] [--config FILE]`: the GSA-compatible emulator alone, for mod
// authors and tests. Credentials come from the config or environment (never argv), else demo defaults.

import { ConfigError, loadConfig } from '../config/index.js';
import { GsaEmulator, type EmulatorOptions } from '../gsa/emulator/index.js';
import type { CliContext } from './context.js';
import { EXIT_OK } from './exitCodes.js';
import { defineCommand, parseCommandLine } from './options.js';
import { reportConfigError } from './serviceSession.js';
import { shutdownSignal } from './shutdownSignal.js';

export const DEFAULT_EMULATOR_PORT = 8790;

export const EMULATOR_COMMAND = defineCommand({
  name: 'emulator',
  synopsis: '[--host H] [--port P] [--config FILE]',
  summary: 'the GSA-compatible emulator alone, for mod authors and tests (Ctrl-C stops it)',
  details: ['Its credentials and servers come from --config, else GSA_CLIENT_ID / GSA_CLIENT_SECRET, else demo defaults (printed).'],
  options: {
    host: { type: 'string', value: 'H', default: '127.0.0.1', description: 'the address to listen on' },
    port: { type: 'integer', value: 'P', min: 0, max: 65535, default: DEFAULT_EMULATOR_PORT, description: 'the port to listen on (0: any free port)' },
    config: { type: 'string', value: 'FILE', description: 'a config file whose api credentials and servers the emulator accepts', defaultText: 'none: the environment or demo defaults' },
  },
});

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
  const { host, port, config: configPath } = parseCommandLine(EMULATOR_COMMAND, args).options;

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
