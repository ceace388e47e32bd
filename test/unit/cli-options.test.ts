// The option tables: each command's --help lists every flag with its default, the usage line names every flag, and
// the parser speaks the project's words (no node:util parseArgs messages), refusing what is wrong before anything runs.
import { describe, expect, it } from 'vitest';
import { CONFIG_COMMANDS } from '../../src/cli/configCheckCommand.js';
import { DEMO_COMMAND } from '../../src/cli/demoCommand.js';
import { EMULATOR_COMMAND } from '../../src/cli/emulatorCommand.js';
import { MUTE_CHECK_COMMAND } from '../../src/cli/muteCheckCommand.js';
import { parseCommandLine, type CommandSpec } from '../../src/cli/options.js';
import { RCON_COMMAND } from '../../src/cli/rconCommand.js';
import { REVIEW_COMMAND } from '../../src/cli/reviewCommand.js';
import { REVIEWS_COMMANDS } from '../../src/cli/reviewsCommand.js';
import { RUN_COMMAND } from '../../src/cli/runCommand.js';
import { SERVER_COMMAND } from '../../src/cli/serverCommand.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';

const EVERY_COMMAND: readonly CommandSpec[] = [
  RUN_COMMAND,
  DEMO_COMMAND,
  EMULATOR_COMMAND,
  SERVER_COMMAND,
  MUTE_CHECK_COMMAND,
  REVIEW_COMMAND,
  ...CONFIG_COMMANDS.subcommands,
  ...REVIEWS_COMMANDS.subcommands,
  RCON_COMMAND,
];

/** The real CLI entry, in-process, with an empty environment. */
const cli = runCliInProcess;

describe('--help of every command', () => {
  it.each(EVERY_COMMAND.map((spec) => [spec.name, spec] as const))('%s: every flag in the usage line and in the list, each with its default', async (name, spec) => {
    const { code, stdout } = await cli([...name.split(' '), '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^usage: gsa-bridge ${name}`));
    for (const flag of Object.keys(spec.options)) {
      expect(spec.synopsis, `usage line names --${flag}`).toContain(`--${flag}`);
      const line = stdout.split('\n').find((candidate) => candidate.startsWith(`  --${flag} `) || candidate === `  --${flag}`);
      expect(line, `--${flag} listed`).toBeDefined();
      expect(line, `--${flag} says its default`).toMatch(/\((default: .+|required)\)$/);
    }
  });

  it('shows literal defaults where there are ones', async () => {
    const { stdout } = await cli(['emulator', '--help']);
    expect(stdout).toMatch(/--port P +the port to listen on \(0: any free port\) \(default: 8790; with --game, the game.s usual RCON port\)/);
    expect(stdout).toMatch(/--host H +the address to listen on \(default: 127\.0\.0\.1\)/);
  });

  it('the group help of config and reviews lists each subcommand with its options', async () => {
    const { stdout } = await cli(['reviews', '--help']);
    expect(stdout).toContain('gsa-bridge reviews list');
    expect(stdout).toContain('gsa-bridge reviews retry');
    expect(stdout).toMatch(/--all-dead +every dead review \(default: off\)/);
  });

  it('--help wins over anything else wrong on the line, and runs nothing', async () => {
    expect(await cli(['server', 'explode', '--bogus', '--help'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^usage: gsa-bridge server/) as unknown });
  });
});

describe('parser errors in the project words: exit 2 with the usage line', () => {
  it.each([
    [['server', 'restart', '--ids', '3'], 'error: gsa-bridge server has no option --ids (did you mean --id?); see gsa-bridge server --help'],
    [['server', 'restart', '-x'], 'error: gsa-bridge server has no option -x; see gsa-bridge server --help'],
    [['mute-check', '--server'], 'error: --server needs a value: --server NAME'],
    [['mute-check', '--server', '--steam-id', '76561198000000001'], 'error: --server needs a value: --server NAME'],
    [['server', 'restart', '--id', '1', '--id', '2'], 'error: --id is given twice; give it once'],
    [['server', 'wipe', '--id', '1', '--yes=no'], 'error: --yes takes no value (got "no")'],
    [['server', 'update', '--id', '1', '--countdown', 'soon'], 'error: --countdown must be a whole number of at least 0, got "soon"'],
    [['demo', '--port', '70000'], 'error: --port must be a whole number from 0 to 65535, got "70000"'],
    [['reviews', 'list', '--state', 'gone'], 'error: --state must be one of pending, unconfirmed, dead, damaged, delivered, got "gone"'],
    [['run', 'extra'], 'error: unexpected argument "extra"; see gsa-bridge run --help'],
    [['review', '--server', 's', '--steam-id', '76561198000000001'], 'error: --stars N is required'],
  ])('%j', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(message);
    expect(run.stderr.split('\n')[1]).toMatch(/^usage: gsa-bridge /);
    expect(run.stderr).not.toMatch(/parseArgs|To specify a positional argument|ERR_PARSE_ARGS/);
  });
});

describe('parseCommandLine', () => {
  it('takes --name=value, values starting with one "-", defaults, and everything after -- as positionals', () => {
    const parsed = parseCommandLine(REVIEW_COMMAND, ['--server=s', '--eos-id', '0123456789abcdef0123456789abcdef', '--stars', '-1', '--comment', '-meh']);
    expect(parsed.options).toMatchObject({ server: 's', stars: -1, comment: '-meh', pretty: false, config: undefined });
    expect(parseCommandLine(REVIEWS_COMMANDS.subcommands[1] ?? RUN_COMMAND, ['id-1', '--', '--all-dead']).positionals).toEqual(['id-1', '--all-dead']);
    expect(parseCommandLine(DEMO_COMMAND, []).options).toEqual({ once: false, port: 0, pretty: false });
  });

  it('a value that looks like help is a value, not a request for help', () => {
    expect(parseCommandLine(REVIEW_COMMAND, ['--server', 's', '--steam-id', '76561198000000001', '--stars', '5', '--comment', '-h']).help).toBe(false);
  });
});
