// `gsa-bridge orders list`: every shop order and token spend a mod asked for, read from the money ledger in the data
// directory (orders.jsonl, src/ledger/moneyRecords.ts): when, server, player, item or amount, state and GSA's answer,
// one line each oldest first, or a JSON array with --json. For a host settling a dispute ("I paid and got nothing").
// It only reads, so it is safe next to a running sidecar and takes no lock. It never talks to GSA, never needs
// credentials, and never sends, retries or changes anything.

import { readOrderListing } from '../ledger/ledgerViews.js';
import type { MoneyEntry } from '../ledger/moneyRecords.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK } from './exitCodes.js';
import { damagedNotes, isoTime, listingDataDir, playerJson, playerText } from './ledgerListing.js';
import { CONFIG_OPTION, defineCommand, parseCommandLine, type CommandGroupSpec } from './options.js';

const GUIDE = 'docs/reports-and-orders.md';

export const ORDERS_LIST_COMMAND = defineCommand({
  name: 'orders list',
  synopsis: '[--json] [--config FILE]',
  summary: "every shop order and token spend a mod asked for: when, server, player, item or amount, state (done, refused, unconfirmed) and GSA's answer",
  details: [
    'Oldest first; the sidecar keeps the last 10000. unconfirmed: sent, and its answer was lost; it was never sent again: check it in GSA\'s dashboard.',
    'pending: asked and not answered yet (a running sidecar is waiting for GSA); if no sidecar runs, its next start makes it unconfirmed.',
    'It only reads, so it is safe next to a running sidecar. Exit 0.',
  ],
  options: {
    json: { type: 'boolean', description: 'a JSON array of objects, for scripts' },
    ...CONFIG_OPTION,
  },
});

export const ORDERS_COMMANDS: CommandGroupSpec = {
  name: 'orders',
  summary: 'the money ledger: every shop order and token spend, with its state and GSA\'s answer',
  subcommands: [ORDERS_LIST_COMMAND],
};

function what(entry: MoneyEntry): string {
  return entry.kind === 'order' ? `order item ${entry.item ?? '?'}` : `tokens ${entry.amount ?? '?'}`;
}

/** One line; GSA's answer and the player's name are quoted, so nothing in them can fake a column or a line. */
export function orderTextLine(entry: MoneyEntry): string {
  const answer = entry.message === undefined ? '' : `  ${JSON.stringify(entry.message)}`;
  const request = entry.requestId === undefined ? '' : ` request ${JSON.stringify(entry.requestId)}`;
  return `${isoTime(entry.at) ?? ''}  ${entry.server}  ${playerText(entry.player)}  ${what(entry)}  ${entry.state}${answer}  (${entry.id}, adapter ${entry.adapter}${request})`;
}

export function orderJson(entry: MoneyEntry): Record<string, unknown> {
  return {
    id: entry.id,
    at: isoTime(entry.at),
    kind: entry.kind,
    server: entry.server,
    player: playerJson(entry.player),
    item: entry.item ?? null,
    amount: entry.amount ?? null,
    state: entry.state,
    message: entry.message ?? null,
    settled_at: isoTime(entry.settledAt),
    adapter: entry.adapter,
    request_id: entry.requestId ?? null,
  };
}

async function listCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(ORDERS_LIST_COMMAND, args);
  const dataDir = await listingDataDir(context, options.config);
  if (typeof dataDir === 'number') return dataDir;
  const listing = await readOrderListing(dataDir);
  if (options.json) {
    context.stdout.write(`${JSON.stringify(listing.entries.map(orderJson), null, 2)}\n`);
  } else if (listing.entries.length === 0) {
    context.stdout.write(`no orders or token spends recorded in ${dataDir}\n`);
  } else {
    for (const entry of listing.entries) context.stdout.write(`${orderTextLine(entry)}\n`);
    const count = listing.entries.length;
    context.stderr.write(`${count} ${count === 1 ? 'order or token spend' : 'orders and token spends'} in ${dataDir}\n`);
  }
  damagedNotes(context, listing, GUIDE);
  return EXIT_OK;
}

export async function ordersCommand(args: readonly string[], context: CliContext): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'list') return listCommand(rest, context);
  throw new UsageError(sub === undefined ? 'say what to do: list' : `unknown orders command "${sub}" (list)`);
}
