// The CLI's entry: picks the command, runs it, and turns usage errors into exit 2 with a hint.
// Commands live one per file; this file only dispatches.

import { listenFailureMessage } from '../net/listenFailure.js';
import { PRODUCT_NAME, VERSION } from '../version.js';
import { CONFIG_CHECK_USAGE, configCommand } from './configCheckCommand.js';
import { processContext, type CliContext } from './context.js';
import { DEMO_USAGE, demoCommand } from './demoCommand.js';
import { EMULATOR_USAGE, emulatorCommand } from './emulatorCommand.js';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from './exitCodes.js';
import { MUTE_CHECK_USAGE, muteCheckCommand } from './muteCheckCommand.js';
import { REVIEW_USAGE, reviewCommand } from './reviewCommand.js';
import { REVIEWS_USAGE, reviewsCommand } from './reviewsCommand.js';
import { RUN_USAGE, runCommand } from './runCommand.js';
import { SERVER_USAGE, serverCommand } from './serverCommand.js';
import { UsageError } from './usageError.js';

type Command = (args: readonly string[], context: CliContext) => Promise<number>;

const COMMANDS: Readonly<Record<string, { run: Command; usage: string; summary: string }>> = {
  run: { run: runCommand, usage: RUN_USAGE, summary: 'the sidecar (default config ./config.json); SIGTERM stops, SIGHUP reloads' },
  demo: { run: demoCommand, usage: DEMO_USAGE, summary: 'emulator + client on loopback, a scripted session; --once exits after it' },
  emulator: { run: emulatorCommand, usage: EMULATOR_USAGE, summary: 'the GSA-compatible emulator alone (default port 8790)' },
  server: { run: serverCommand, usage: SERVER_USAGE, summary: 'one webhook call: exit 0 accepted, 1 refused' },
  'mute-check': { run: muteCheckCommand, usage: MUTE_CHECK_USAGE, summary: 'one mute check, JSON on stdout' },
  review: { run: reviewCommand, usage: REVIEW_USAGE, summary: 'one review, sent directly' },
  config: { run: configCommand, usage: CONFIG_CHECK_USAGE, summary: 'validate the config; print it with secrets masked' },
  reviews: { run: reviewsCommand, usage: REVIEWS_USAGE, summary: 'list the outbox (pending, unconfirmed, dead); re-queue chosen reviews' },
};

function helpText(): string {
  return [
    `${PRODUCT_NAME} ${VERSION}: connects a game server to GameServerApp (chat gating, reviews, server actions).`,
    '',
    'Usage:',
    ...Object.values(COMMANDS).flatMap((command) => [`  ${command.usage}`, `      ${command.summary}`]),
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
    context.stdout.write(helpText());
    return EXIT_OK;
  }
  const command = name === undefined ? undefined : COMMANDS[name];
  if (command === undefined) {
    context.stderr.write(name === undefined ? helpText() : `unknown command "${name}"; see ${PRODUCT_NAME} --help\n`);
    return EXIT_USAGE;
  }
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
