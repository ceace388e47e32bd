// The CLI's entry: picks the command, prints its help when asked, runs it, and turns the CLI's own errors into their
// exit codes (spec/interfaces.md: 0 ok, 1 refused or not done, 2 usage or configuration). Commands live one per
// file, each with the option table that drives its parsing and its help; this file only dispatches.

import { listenFailureMessage } from '../net/listenFailure.js';
import { PRODUCT_NAME, VERSION } from '../version.js';
import { processContext, type CliContext } from './context.js';
import { CliError, UsageError } from './errors.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exitCodes.js';
import { commandHelp, groupHelp } from './help.js';
import { helpRequested, usageLine, type CommandGroupSpec, type CommandSpec } from './options.js';

type Command = (args: readonly string[], context: CliContext) => Promise<number>;

/** A command's code and its option table(s), loaded on demand. */
interface LoadedCommand {
  readonly run: Command;
  readonly spec: CommandSpec | CommandGroupSpec;
}

function isGroup(spec: CommandSpec | CommandGroupSpec): spec is CommandGroupSpec {
  return 'subcommands' in spec;
}

// Each command is imported only when it is the one asked for: `run` must not carry the emulator, the demo or
// the reference client in its memory (a long-lived process pays for every module it ever loaded).
const COMMANDS: Readonly<Record<string, () => Promise<LoadedCommand>>> = {
  run: async () => import('./runCommand.js').then((m) => ({ run: m.runCommand, spec: m.RUN_COMMAND })),
  demo: async () => import('./demoCommand.js').then((m) => ({ run: m.demoCommand, spec: m.DEMO_COMMAND })),
  emulator: async () => import('./emulatorCommand.js').then((m) => ({ run: m.emulatorCommand, spec: m.EMULATOR_COMMAND })),
  server: async () => import('./serverCommand.js').then((m) => ({ run: m.serverCommand, spec: m.SERVER_COMMAND })),
  'mute-check': async () => import('./muteCheckCommand.js').then((m) => ({ run: m.muteCheckCommand, spec: m.MUTE_CHECK_COMMAND })),
  review: async () => import('./reviewCommand.js').then((m) => ({ run: m.reviewCommand, spec: m.REVIEW_COMMAND })),
  config: async () => import('./configCheckCommand.js').then((m) => ({ run: m.configCommand, spec: m.CONFIG_COMMANDS })),
  reviews: async () => import('./reviewsCommand.js').then((m) => ({ run: m.reviewsCommand, spec: m.REVIEWS_COMMANDS })),
  reports: async () => import('./reportsCommand.js').then((m) => ({ run: m.reportsCommand, spec: m.REPORTS_COMMANDS })),
  orders: async () => import('./ordersCommand.js').then((m) => ({ run: m.ordersCommand, spec: m.ORDERS_COMMANDS })),
  rcon: async () => import('./rconCommand.js').then((m) => ({ run: m.rconCommand, spec: m.RCON_COMMAND })),
  moderation: async () => import('./moderationCommand.js').then((m) => ({ run: m.moderationCommand, spec: m.MODERATION_COMMANDS })),
  mute: async () => import('./muteCommand.js').then((m) => ({ run: m.muteCommand, spec: m.MUTE_COMMAND })),
  unmute: async () => import('./unmuteCommand.js').then((m) => ({ run: m.unmuteCommand, spec: m.UNMUTE_COMMAND })),
  broadcast: async () => import('./broadcastCommand.js').then((m) => ({ run: m.broadcastCommand, spec: m.BROADCAST_COMMAND })),
  mutes: async () => import('./mutesCommand.js').then((m) => ({ run: m.mutesCommand, spec: m.MUTES_COMMAND })),
  reload: async () => import('./reloadCommand.js').then((m) => ({ run: m.reloadCommand, spec: m.RELOAD_COMMAND })),
  log: async () => import('./logCheckCommand.js').then((m) => ({ run: m.logCommand, spec: m.LOG_COMMANDS })),
};

/** The full help loads every command for its table: fine once, for a person reading it. */
async function helpText(): Promise<string> {
  const specs = await Promise.all(Object.values(COMMANDS).map(async (load) => (await load()).spec));
  const leaves = specs.flatMap((spec) => (isGroup(spec) ? spec.subcommands : [spec]));
  return [
    `${PRODUCT_NAME} ${VERSION}: connects a game server to GameServerApp (chat gating, reviews, server actions).`,
    '',
    'Usage:',
    ...leaves.flatMap((spec) => [`  ${usageLine(spec)}`, `      ${spec.summary}`]),
    `  ${PRODUCT_NAME} --version | --help`,
    '',
    `Every command's flags and their defaults: ${PRODUCT_NAME} <command> --help.`,
    'Environment (overrides the config file): GSA_API_URL, GSA_CLIENT_ID, GSA_CLIENT_SECRET, GSA_SYSTEM_API_KEY, GSA_BRIDGE_CONFIG,',
    'GSA_BRIDGE_LOG_LEVEL.',
    'Secrets are read from the config file or the environment, never from arguments.',
    'Logs go to stderr: JSON, or human-readable when stderr is a terminal or with --pretty. Commands other than run log',
    'at warn unless GSA_BRIDGE_LOG_LEVEL asks for more.',
    'Exit codes: 0 ok, 1 refused by the service, unreachable or not confirmed, 2 usage or configuration error.',
    '',
  ].join('\n');
}

/** The table `args` are parsed by: the command's, or its subcommand's when args name one. */
function specFor(spec: CommandSpec | CommandGroupSpec, args: readonly string[]): { readonly spec: CommandSpec | CommandGroupSpec; readonly args: readonly string[] } {
  if (!isGroup(spec)) return { spec, args };
  const sub = spec.subcommands.find((candidate) => candidate.name === `${spec.name} ${args[0] ?? ''}`);
  return sub === undefined ? { spec, args } : { spec: sub, args: args.slice(1) };
}

function usageOf(spec: CommandSpec | CommandGroupSpec): string {
  return isGroup(spec) ? spec.subcommands.map((sub) => usageLine(sub)).join('\n       ') : usageLine(spec);
}

export async function main(argv: readonly string[], context: CliContext = processContext()): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-v') {
    context.stdout.write(`${PRODUCT_NAME} ${VERSION}\n`);
    return EXIT_OK;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    context.stdout.write(await helpText());
    return EXIT_OK;
  }
  const load = name === undefined ? undefined : COMMANDS[name];
  if (load === undefined) {
    context.stderr.write(name === undefined ? await helpText() : `error: unknown command "${name}"; see ${PRODUCT_NAME} --help\n`);
    return EXIT_USAGE;
  }
  const command = await load();
  const chosen = specFor(command.spec, rest);
  if (isGroup(chosen.spec) ? chosen.args.some((arg) => arg === '--help' || arg === '-h') : helpRequested(chosen.spec, chosen.args)) {
    context.stdout.write(isGroup(chosen.spec) ? groupHelp(chosen.spec) : commandHelp(chosen.spec));
    return EXIT_OK;
  }
  try {
    return await command.run(rest, context);
  } catch (error) {
    if (error instanceof CliError) {
      const usage = error instanceof UsageError ? `usage: ${usageOf(chosen.spec)}\n` : '';
      context.stderr.write(`error: ${error.message}\n${usage}`);
      return error.exitCode;
    }
    // A port in use is the host's configuration to fix (interfaces.md): one line with the address, no stack.
    const listenFailure = listenFailureMessage(error);
    if (listenFailure !== undefined) {
      context.stderr.write(`error: ${listenFailure}\n`);
      return EXIT_USAGE;
    }
    // A bug, not a refusal: say so plainly, with the stack for the report.
    context.stderr.write(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT_REFUSED;
  }
}
