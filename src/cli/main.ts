// The CLI's entry: picks the command, runs it, and turns usage errors into exit 2 with a hint.
// Commands live one per file; this file only dispatches.

import { listenFailureMessage } from '../net/listenFailure.js';
import { PRODUCT_NAME, VERSION } from '../version.js';
import { processContext, type CliContext } from './context.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exitCodes.js';
import { UsageError } from './usageError.js';

type Command = (args: readonly string[], context: CliContext) => Promise<number>;

/** A command's code and usage line, loaded on demand. */
interface LoadedCommand {
  readonly run: Command;
  readonly usage: string;
}

// Each command is imported only when it is the one asked for: `run` must not carry the emulator, the demo or
// the reference client in its memory (a long-lived process pays for every module it ever loaded).
const COMMANDS: Readonly<Record<string, { load: () => Promise<LoadedCommand>; summary: string }>> = {
  run: {
    load: async () => import('./runCommand.js').then((m) => ({ run: m.runCommand, usage: m.RUN_USAGE })),
    summary: 'the sidecar (default config ./config.json); SIGTERM stops, SIGHUP reloads',
  },
  demo: {
    load: async () => import('./demoCommand.js').then((m) => ({ run: m.demoCommand, usage: m.DEMO_USAGE })),
    summary: 'emulator + client on loopback, a scripted session; --once exits after it',
  },
  emulator: {
    load: async () => import('./emulatorCommand.js').then((m) => ({ run: m.emulatorCommand, usage: m.EMULATOR_USAGE })),
    summary: 'the GSA-compatible emulator alone (default port 8790)',
  },
  server: {
    load: async () => import('./serverCommand.js').then((m) => ({ run: m.serverCommand, usage: m.SERVER_USAGE })),
    summary: 'one webhook call: exit 0 accepted, 1 refused',
  },
  'mute-check': {
    load: async () => import('./muteCheckCommand.js').then((m) => ({ run: m.muteCheckCommand, usage: m.MUTE_CHECK_USAGE })),
    summary: 'one mute check, JSON on stdout',
  },
  review: {
    load: async () => import('./reviewCommand.js').then((m) => ({ run: m.reviewCommand, usage: m.REVIEW_USAGE })),
    summary: 'one review, sent directly',
  },
  config: {
    load: async () => import('./configCheckCommand.js').then((m) => ({ run: m.configCommand, usage: m.CONFIG_CHECK_USAGE })),
    summary: 'validate the config; print it with secrets masked',
  },
  reviews: {
    load: async () => import('./reviewsCommand.js').then((m) => ({ run: m.reviewsCommand, usage: m.REVIEWS_USAGE })),
    summary: 'list the outbox (pending, unconfirmed, dead); re-queue chosen reviews',
  },
};

/** The full help loads every command for its usage line: fine once, for a person reading it. */
async function helpText(): Promise<string> {
  const commands = await Promise.all(Object.values(COMMANDS).map(async (command) => ({ ...(await command.load()), summary: command.summary })));
  return [
    `${PRODUCT_NAME} ${VERSION}: connects a game server to GameServerApp (chat gating, reviews, server actions).`,
    '',
    'Usage:',
    ...commands.flatMap((command) => [`  ${command.usage}`, `      ${command.summary}`]),
    `  ${PRODUCT_NAME} --version | --help`,
    '',
    'Environment (overrides the config file): GSA_API_URL, GSA_CLIENT_ID, GSA_CLIENT_SECRET, GSA_BRIDGE_CONFIG, GSA_BRIDGE_LOG_LEVEL.',
    'Secrets are read from the config file or the environment, never from arguments.',
    'Exit codes: 0 ok, 1 refused by the service or unreachable, 2 usage or configuration error.',
    '',
  ].join('\n');
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
  const entry = name === undefined ? undefined : COMMANDS[name];
  if (entry === undefined) {
    context.stderr.write(name === undefined ? await helpText() : `unknown command "${name}"; see ${PRODUCT_NAME} --help\n`);
    return EXIT_USAGE;
  }
  const command = await entry.load();
  if (rest.includes('--help') || rest.includes('-h')) {
    context.stdout.write(`usage: ${command.usage}\n`);
    return EXIT_OK;
  }
  try {
    return await command.run(rest, context);
  } catch (error) {
    if (error instanceof UsageError) {
      context.stderr.write(`error: ${error.message}\nusage: ${command.usage}\n`);
      return EXIT_USAGE;
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
