// `gsa-bridge moderation list`: what the chat filter and the `mute`/`unmute` commands did, read from the moderation
// log in the data directory (src/moderation/moderationLog.ts): one step a line, oldest first (time, server, player,
// rule, action, result, the service's answer), or one JSON object a line with --json. It only reads, so it is safe
// next to a running sidecar and takes no lock. It never talks to GSA, never needs credentials, and never shows chat
// text (the log holds none: a rule is the listed word's index).

import { ConfigError, loadConfig } from '../app/config.js';
import { KEPT_RECORDS, readModerationRecords, type ModerationRecord } from '../moderation/moderationLog.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK } from './exitCodes.js';
import { CONFIG_OPTION, defineCommand, parseCommandLine, type CommandGroupSpec } from './options.js';
import { reportConfigError } from './serviceSession.js';

export const MODERATION_LIST_COMMAND = defineCommand({
  name: 'moderation list',
  synopsis: '[--json] [--config FILE]',
  summary: 'what the chat filter and the mute/unmute commands did, one step a line (time, server, player, rule, action, result, answer)',
  details: [
    `The last ${KEPT_RECORDS.toLocaleString('en')} steps, oldest first; a rule is the index of the word in moderation.filter.words (chat text is never kept).`,
    'It only reads, so it is safe next to a running sidecar. Exit 0.',
  ],
  options: {
    json: { type: 'boolean', description: 'one JSON object a line, for scripts' },
    ...CONFIG_OPTION,
  },
});

export const MODERATION_COMMANDS: CommandGroupSpec = {
  name: 'moderation',
  summary: 'what the chat filter and the mute/unmute commands did',
  subcommands: [MODERATION_LIST_COMMAND],
};

/** One text line; the service's answer and the player's name are quoted, so nothing in them can fake a column. */
export function moderationTextLine(record: ModerationRecord): string {
  const player = record.player_name === undefined ? record.player : `${record.player} ${JSON.stringify(record.player_name)}`;
  const rule = record.rule === null ? '-' : `word #${record.rule}`;
  const action = record.period === null ? record.action : `${record.action} ${record.period}`;
  const answer = record.answer === null ? '' : `  ${JSON.stringify(record.answer)}`;
  return `${record.at}  ${record.server ?? '(all servers)'}  ${player}  ${rule}  ${action}  ${record.result}${answer}`;
}

async function listCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(MODERATION_LIST_COMMAND, args);
  let dataDir: string;
  try {
    // Reading files only: no credentials needed.
    dataDir = (await loadConfig({ path: options.config, env: context.env, requireFile: true, requireCredentials: false })).config.reviews.dataDir;
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }
  const { records, skipped } = await readModerationRecords(dataDir);
  for (const record of records) context.stdout.write(`${options.json ? JSON.stringify(record) : moderationTextLine(record)}\n`);
  if (skipped > 0) context.stderr.write(`skipped ${skipped} unreadable line(s) of the moderation log\n`);
  if (!options.json) context.stderr.write(`${records.length} ${records.length === 1 ? 'step' : 'steps'} in ${dataDir}\n`);
  return EXIT_OK;
}

export async function moderationCommand(args: readonly string[], context: CliContext): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') return listCommand(rest, context);
  throw new UsageError(sub === undefined ? 'say what to do: list' : `unknown moderation command "${sub}" (list)`);
}
