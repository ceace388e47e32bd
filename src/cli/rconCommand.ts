// `gsa-bridge rcon --server NAME [--adapter ID] -- COMMAND…`: sends one command through a configured RCON adapter
// and prints the game's answer, so a host can test the connection and the password without running the sidecar.
// One session: log in (bounded), one command, close (adapters/rcon/rconProbe.ts). Exit 0 answered, 1 the login or
// the command failed (one line naming the adapter and what to check), 2 usage or configuration.
// It must never: take the password from an argument, print or log the password, log the command text (the host
// typed it; it is sent as typed, never sanitised), or open more than one session.

import { adapterIdOf, type AdapterOptions, type RconOptions } from '../../adapters/index.js';
import { adviceFor, loginBoundOf, sendOneRconCommand } from '../../adapters/rcon/rconProbe.js';
import { ConfigError, collectSecrets, loadConfig, type BridgeConfig, type ServerConfig } from '../app/config.js';
import { commandLogger } from './commandLogger.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK, EXIT_REFUSED } from './exitCodes.js';
import { CONFIG_OPTION, PRETTY_OPTION, defineCommand, parseCommandLine } from './options.js';
import { reportConfigError } from './serviceSession.js';

export const RCON_COMMAND = defineCommand({
  name: 'rcon',
  synopsis: '--server NAME [--adapter ID] [--config FILE] [--pretty] -- COMMAND…',
  summary: "send one command through a configured RCON adapter and print the game's answer",
  details: [
    'Everything after -- is the game command, its words joined by spaces and sent as typed (e.g. -- ListPlayers).',
    'One session: log in, send, print the answer on stdout, close. The password comes from the config file only.',
    "The session's own log is silent unless GSA_BRIDGE_LOG_LEVEL asks for it (e.g. debug).",
    'Exit 0 answered, 1 the login or the command failed (the line says what to check), 2 on a usage or config error.',
  ],
  options: {
    server: { type: 'string', value: 'NAME', required: true, description: 'the GSA container name, as in the config' },
    adapter: { type: 'string', value: 'ID', description: "the rcon adapter's id (its \"id\", or the derived <server>-rcon-<port>)", defaultText: "the server's only rcon adapter" },
    ...CONFIG_OPTION,
    ...PRETTY_OPTION,
  },
  // Words before `--` are refused with a hint (see commandWords); the table only has to let them through.
  maxPositionals: Number.MAX_SAFE_INTEGER,
});

const EXAMPLE = 'gsa-bridge rcon --server NAME -- ListPlayers';

/** The flags before `--`, and the game command after it. */
function commandWords(args: readonly string[]): { readonly flags: readonly string[]; readonly words: readonly string[] } {
  // A flag's value never starts with `--` (options.ts), so the first bare `--` is the end of the flags.
  const end = args.indexOf('--');
  return end === -1 ? { flags: args, words: [] } : { flags: args.slice(0, end), words: args.slice(end + 1) };
}

interface ChosenAdapter {
  readonly options: RconOptions;
  readonly id: string;
  /** Its place in the file, for messages naming a key: `servers[0].adapters[1]`. */
  readonly path: string;
}

function isRcon(adapter: AdapterOptions): adapter is RconOptions {
  return adapter.type === 'rcon';
}

function chooseAdapter(config: BridgeConfig, serverName: string, wanted: string | undefined): ChosenAdapter {
  const serverIndex = config.servers.findIndex((candidate) => candidate.name === serverName);
  const server: ServerConfig | undefined = config.servers[serverIndex];
  if (server === undefined) {
    const known = config.servers.map((candidate) => candidate.name);
    throw new UsageError(`--server ${serverName}: no such server in the config${known.length === 0 ? ' (it has none)' : ` (it has: ${known.join(', ')})`}`);
  }
  const adapters = server.adapters.map((options, index) => ({ options, id: adapterIdOf(server.name, options), path: `servers[${serverIndex}].adapters[${index}]` }));
  const rcon = adapters.flatMap(({ options, id, path }) => (isRcon(options) ? [{ options, id, path }] : []));
  const rconIds = rcon.map((adapter) => adapter.id).join(', ');
  if (wanted !== undefined) {
    const found = rcon.find((adapter) => adapter.id === wanted);
    if (found !== undefined) return found;
    const other = adapters.find((adapter) => adapter.id === wanted);
    if (other !== undefined) throw new UsageError(`--adapter ${wanted}: that is a ${other.options.type} adapter, not rcon${rcon.length === 0 ? '' : `; rcon adapters of ${server.name}: ${rconIds}`}`);
    throw new UsageError(`--adapter ${wanted}: server ${server.name} has no such adapter${rcon.length === 0 ? ' and no rcon adapter at all' : ` (rcon adapters: ${rconIds})`}`);
  }
  const [only, ...more] = rcon;
  if (only === undefined) throw new UsageError(`server ${server.name} has no rcon adapter in the config`);
  if (more.length > 0) throw new UsageError(`server ${server.name} has ${rcon.length} rcon adapters: choose one with --adapter ID (${rconIds})`);
  return only;
}

export async function rconCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { flags, words } = commandWords(args);
  const { options, positionals } = parseCommandLine(RCON_COMMAND, flags);
  const [stray] = positionals;
  if (stray !== undefined) throw new UsageError(`"${stray}": the game command goes after --, as in: ${EXAMPLE}`);
  const command = words.join(' ');
  if (command.trim() === '') throw new UsageError(`no game command: give it after --, as in: ${EXAMPLE}`);

  let config: BridgeConfig;
  try {
    // The adapters live in the file only (the environment has no adapter settings), so a file is required.
    ({ config } = await loadConfig({ path: options.config, env: context.env, requireFile: true, cwd: context.cwd }));
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }
  const adapter = chooseAdapter(config, options.server, options.adapter);
  // The clients' own warnings would repeat the one line printed below: silent unless GSA_BRIDGE_LOG_LEVEL asks.
  const logger = commandLogger(context, { level: 'silent', secrets: collectSecrets(config), pretty: options.pretty, oneShot: true }).child({
    server: options.server,
    adapter: adapter.id,
  });
  logger.debug({ profile: adapter.options.profile, loginBoundMs: loginBoundOf(adapter.options) }, 'sending one rcon command');
  const outcome = await sendOneRconCommand({ options: adapter.options, id: adapter.id, command, logger, path: adapter.path });
  if (outcome.ok) {
    const { answer } = outcome;
    if (answer === '') context.stderr.write(`adapter ${adapter.id}: the server answered with no text\n`);
    else context.stdout.write(answer.endsWith('\n') ? answer : `${answer}\n`);
    return EXIT_OK;
  }
  const { profile, host, port } = adapter.options;
  const what = outcome.stage === 'login' ? 'RCON login failed' : 'the command got no answer';
  const advice = adviceFor(outcome, adapter.options, adapter.id, adapter.path);
  context.stderr.write(
    `error: rcon adapter ${adapter.id} (${profile} at ${host}:${String(port)}): ${what}: ${outcome.message}${advice === undefined ? '' : `; ${advice}`}\n`,
  );
  return EXIT_REFUSED;
}
