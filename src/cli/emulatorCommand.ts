// `gsa-bridge emulator [--host H] [--port P] [--config FILE] [--rate-limit N/MS]`: the GSA-compatible emulator alone,
// for mod authors and tests. With `--game NAME [--log-file PATH]` it starts a fake game console instead
// (gameConsoleCommand.ts). Credentials (the mod API's client id and secret, the System API key) come from the config
// or environment (never argv), else demo defaults.
// `--rate-limit` makes it enforce the service's API budget per key (off by default, as in tests and the demo).

import { ConfigError, loadConfig } from '../app/config.js';
import { GsaEmulator, type EmulatorOptions, type WindowSpec } from '../gsaEmulator/index.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK } from './exitCodes.js';
import { defineCommand, parseCommandLine } from './options.js';
import { reportConfigError } from './serviceSession.js';
import { shutdownSignal } from './shutdownSignal.js';

export const DEFAULT_EMULATOR_PORT = 8790;

/** The `--game` names, as gameEmulator/gameConsoles.ts lists them (kept here so --help loads no fake console). */
export const EMULATED_GAMES = ['ark', 'atlas', 'squad', 'rust', 'conan', '7dtd', 'minecraft'] as const;

export const EMULATOR_COMMAND = defineCommand({
  name: 'emulator',
  synopsis: '[--host H] [--port P] [--config FILE] [--rate-limit REQUESTS/INTERVAL_MS] | --game NAME [--host H] [--port P] [--config FILE] [--log-file PATH] [--chat-every SECONDS]',
  summary: 'the GSA-compatible emulator alone, for mod authors and tests; or, with --game, a fake game console (Ctrl-C stops it)',
  details: [
    'With --game: a fake game console ALONE (not the GSA emulator: run `gsa-bridge emulator` in another terminal for that) with the game\'s framing and quirks, on the game\'s usual port unless --port says otherwise: ark/atlas 27020, squad 21114, rust 28016, conan 25575, 7dtd 8081, minecraft 25575. It prints the adapter to put in your config and plays a scripted chat (two players join, one ordinary line, one from the player `gsa-bridge demo` mutes, a `!review 5 Great admins`).',
    'Its RCON password comes from --config (the first rcon adapter with that profile) or GSA_BRIDGE_RCON_PASSWORD, else one is generated and printed once. Never on the command line.',
    '--log-file is where the fake writes the game\'s log: required for chat on conan (ConanSandbox.log) and minecraft (logs/latest.log), optional on ark/atlas (a file, or ServerGame.*.log for a new numbered file per start).',
    'Its credentials and servers come from --config, else GSA_CLIENT_ID / GSA_CLIENT_SECRET, else demo defaults (printed).',
    "It also serves GSA's System API v2 under /system-api/v2/ (players/find, player/{uuid}, mute/unmute, game-server actions and broadcast, with GSA's cooldowns): its key comes from api.system.key in --config, else GSA_SYSTEM_API_KEY, else the demo key (printed).",
    '--rate-limit 100/60000 enforces the service\'s budget per API key: at most 100 calls in any 60000 ms (a strict sliding window), 429 with Retry-After past it, X-RateLimit-Limit / -Remaining on every answer.',
  ],
  options: {
    host: { type: 'string', value: 'H', default: '127.0.0.1', description: 'the address to listen on' },
    port: {
      type: 'integer',
      value: 'P',
      min: 0,
      max: 65535,
      description: 'the port to listen on (0: any free port)',
      defaultText: `${DEFAULT_EMULATOR_PORT}; with --game, the game's usual RCON port`,
    },
    config: {
      type: 'string',
      value: 'FILE',
      description: 'a config file whose api credentials and servers the emulator accepts; with --game, whose rcon adapter gives the password',
      defaultText: 'none: the environment or demo defaults',
    },
    game: { type: 'string', value: 'NAME', choices: EMULATED_GAMES, description: "a fake game console instead of the GSA emulator", defaultText: 'none: the GSA emulator' },
    'log-file': { type: 'string', value: 'PATH', description: "with --game: where the fake writes the game's log", defaultText: 'none: no log is written' },
    'chat-every': { type: 'integer', value: 'SECONDS', min: 0, max: 86400, default: 30, description: 'with --game: seconds between two rounds of scripted chat (0: no scripted chat)' },
    'rate-limit': {
      type: 'string',
      value: 'REQUESTS/INTERVAL_MS',
      description: 'enforce the API budget per key: at most REQUESTS calls in any INTERVAL_MS, 429 past it',
      defaultText: 'off: every call is answered',
    },
  },
});

/** The emulator's keys and servers from a config file (the environment overlaid); an empty `api.system.key` keeps the demo key. */
export async function optionsFromConfig(path: string, context: Pick<CliContext, 'env'>): Promise<EmulatorOptions> {
  const { config } = await loadConfig({ path, env: context.env, requireFile: true });
  const systemKey = config.api.system?.key ?? '';
  return {
    clientId: config.api.clientId,
    clientSecret: config.api.clientSecret,
    ...(systemKey !== '' ? { systemKey } : {}),
    servers: config.servers.map((server) => (server.id === undefined ? { name: server.name } : { name: server.name, id: server.id })),
  };
}

/** The emulator's keys from GSA_CLIENT_ID / GSA_CLIENT_SECRET / GSA_SYSTEM_API_KEY; an unset or empty one keeps its demo default. */
export function optionsFromEnvironment(context: Pick<CliContext, 'env'>): EmulatorOptions {
  const clientId = context.env.GSA_CLIENT_ID ?? '';
  const clientSecret = context.env.GSA_CLIENT_SECRET ?? '';
  const systemKey = context.env.GSA_SYSTEM_API_KEY ?? '';
  return {
    ...(clientId !== '' ? { clientId } : {}),
    ...(clientSecret !== '' ? { clientSecret } : {}),
    ...(systemKey !== '' ? { systemKey } : {}),
  };
}

/** `--rate-limit REQUESTS/INTERVAL_MS`, two whole numbers of 1 or more. @throws UsageError quoting the value. */
export function parseRateLimit(text: string): WindowSpec {
  const match = /^(\d{1,9})\/(\d{1,12})$/.exec(text);
  const requests = Number(match?.[1]);
  const intervalMs = Number(match?.[2]);
  if (match === null || !(requests >= 1) || !(intervalMs >= 1)) {
    throw new UsageError(
      `--rate-limit must be REQUESTS/INTERVAL_MS, two whole numbers of 1 or more (for example 100/60000: 100 calls a minute), got "${text}"`,
    );
  }
  return { requests, intervalMs };
}

export async function emulatorCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { host, port: givenPort, config: configPath, 'rate-limit': rateLimit, game, 'log-file': logFile, 'chat-every': chatEvery } =
    parseCommandLine(EMULATOR_COMMAND, args).options;
  if (game !== undefined) {
    if (rateLimit !== undefined) throw new UsageError('--rate-limit applies to the GSA emulator, not to --game');
    const { gameConsoleCommand } = await import('./gameConsoleCommand.js');
    return gameConsoleCommand(
      { game: game as (typeof EMULATED_GAMES)[number], host, port: givenPort, logFile, configPath, chatEverySeconds: chatEvery },
      context,
    );
  }
  if (logFile !== undefined) throw new UsageError('--log-file needs --game NAME');
  const port = givenPort ?? DEFAULT_EMULATOR_PORT;
  const enforceBudget = rateLimit === undefined ? undefined : parseRateLimit(rateLimit);

  let options: EmulatorOptions;
  try {
    options = configPath !== undefined ? await optionsFromConfig(configPath, context) : optionsFromEnvironment(context);
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }
  const emulator = await GsaEmulator.start({ ...options, host, port, ...(enforceBudget === undefined ? {} : { enforceBudget }) });
  const secretSource = options.clientSecret === undefined ? `${emulator.clientSecret} (demo default)` : '(from your config or GSA_CLIENT_SECRET)';
  const systemKeySource = options.systemKey === undefined ? `${emulator.systemKey} (demo default)` : '(from your config or GSA_SYSTEM_API_KEY)';
  context.stdout.write(
    [
      `GSA emulator listening on ${emulator.url}`,
      `  client id:     ${emulator.clientId}`,
      `  client secret: ${secretSource}`,
      `  system key:    ${systemKeySource}   (System API v2: Authorization: Bearer <key>)`,
      `  servers:       ${emulator.servers.map((server) => (server.id === undefined ? server.name : `${server.name} (id ${server.id})`)).join(', ')}`,
      ...(enforceBudget === undefined
        ? []
        : [`  rate limit:    ${enforceBudget.requests} calls per ${enforceBudget.intervalMs} ms per API key, the system key apart (429 with Retry-After past it)`]),
      `  control:       ${emulator.url}/_emulator/state (local testing only)`,
      'Set api.baseUrl (or GSA_API_URL) to this URL. Ctrl-C stops it.',
      '',
    ].join('\n'),
  );
  await shutdownSignal();
  await emulator.close();
  return EXIT_OK;
}
