// `gsa-bridge reports list`: every player report the report outbox holds, read from its journal in the data
// directory (reports.jsonl, src/ledger/reportJournal.ts): when, server, reporter, type, the first words of the
// comment, state and why, one line each oldest first, or a JSON array with --json.
// It only reads, so it is safe next to a running sidecar and takes no lock. It never talks to GSA, never needs
// credentials, and never sends or re-queues a report (an unconfirmed one is for the host to check in GSA's dashboard).

import { readReportListing } from '../ledger/ledgerViews.js';
import { REPORT_STATES, type ReportEntry } from '../ledger/reportStates.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK } from './exitCodes.js';
import { damagedNotes, isoTime, listingDataDir, playerJson, playerText } from './ledgerListing.js';
import { CONFIG_OPTION, defineCommand, parseCommandLine, type CommandGroupSpec } from './options.js';

const GUIDE = 'docs/reports-and-orders.md';
/** Words of the comment shown in a line. */
const PREVIEW_WORDS = 8;

export const REPORTS_LIST_COMMAND = defineCommand({
  name: 'reports list',
  synopsis: '[--state pending|sending|delivered|refused|unconfirmed] [--json] [--config FILE]',
  summary: 'every player report the sidecar holds, one a line (when, server, reporter, type, first words, state, why)',
  details: [
    "Oldest first; settled reports are kept up to the last 1000. unconfirmed: it may have reached GSA and was never sent again: check it in GSA's dashboard.",
    'sending: being sent by the running sidecar; if no sidecar runs, it was being sent when the sidecar stopped, and its next start makes it unconfirmed.',
    'It only reads, so it is safe next to a running sidecar. Exit 0.',
  ],
  options: {
    state: { type: 'string', value: 'STATE', choices: REPORT_STATES, description: 'only reports in this state', defaultText: 'every state' },
    json: { type: 'boolean', description: 'a JSON array of objects, for scripts' },
    ...CONFIG_OPTION,
  },
});

export const REPORTS_COMMANDS: CommandGroupSpec = {
  name: 'reports',
  summary: 'the report outbox: every player report with its state (pending, sending, delivered, refused, unconfirmed)',
  subcommands: [REPORTS_LIST_COMMAND],
};

function preview(comment: string): string {
  const words = comment.split(/\s+/).filter((word) => word.length > 0);
  const shown = words.slice(0, PREVIEW_WORDS).join(' ');
  return words.length > PREVIEW_WORDS ? `${shown} …` : shown;
}

/** One line; the comment, the name and GSA's words are quoted, so nothing a player wrote can fake a column or a line. */
export function reportTextLine(entry: ReportEntry): string {
  const { report } = entry;
  const against = report.reportedPlayer === undefined ? '' : ` against ${report.reportedPlayer}`;
  const why = entry.reason === undefined ? (entry.message === undefined ? '' : `  ${JSON.stringify(entry.message)}`) : `  ${entry.reason.code}: ${JSON.stringify(entry.reason.message)}`;
  return `${isoTime(report.at) ?? ''}  ${entry.state.padEnd(11)}  ${report.server}  ${playerText(report.player)}  type ${JSON.stringify(report.type)}${against}  ${JSON.stringify(preview(report.comment))}${why}  (${report.id})`;
}

export function reportJson(entry: ReportEntry): Record<string, unknown> {
  const { report } = entry;
  return {
    id: report.id,
    at: isoTime(report.at),
    state: entry.state,
    server: report.server,
    player: playerJson(report.player),
    character_id: report.characterId,
    coords: report.coords,
    type: report.type,
    reported_player: report.reportedPlayer ?? null,
    comment: report.comment,
    adapter: report.origin.adapter,
    request_id: report.origin.requestId ?? null,
    settled_at: isoTime(entry.settledAt),
    message: entry.message ?? null,
    reason: entry.reason ?? null,
  };
}

async function listCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(REPORTS_LIST_COMMAND, args);
  const dataDir = await listingDataDir(context, options.config);
  if (typeof dataDir === 'number') return dataDir;
  const listing = await readReportListing(dataDir);
  const entries = listing.entries.filter((entry) => options.state === undefined || entry.state === options.state);
  if (options.json) {
    context.stdout.write(`${JSON.stringify(entries.map(reportJson), null, 2)}\n`);
  } else if (entries.length === 0) {
    context.stdout.write(`no ${options.state === undefined ? '' : `${options.state} `}reports recorded in ${dataDir}\n`);
  } else {
    for (const entry of entries) context.stdout.write(`${reportTextLine(entry)}\n`);
    context.stderr.write(`${entries.length} ${entries.length === 1 ? 'report' : 'reports'} in ${dataDir}\n`);
  }
  damagedNotes(context, listing, GUIDE);
  return EXIT_OK;
}

export async function reportsCommand(args: readonly string[], context: CliContext): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') return listCommand(rest, context);
  throw new UsageError(sub === undefined ? 'say what to do: list' : `unknown reports command "${sub}" (list)`);
}
