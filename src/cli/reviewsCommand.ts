// `gsa-bridge reviews list|retry`: what the review outbox holds (pending, unconfirmed, dead, damaged) or recently delivered,
// and a person's re-queue of chosen reviews. `list` only reads, so it is safe next to a running sidecar. `retry` takes the data
// directory's lock itself when no sidecar runs, and otherwise asks the running sidecar (through the lock socket)
// to do it, so the journal is only ever written by the one process that holds the directory.
// It never sends anything to GSA itself and never needs the API credentials.

import { access, stat } from 'node:fs/promises';
import { ConfigError, loadConfig, type BridgeConfig } from '../app/config.js';
import { askHolder, DataDirLock, DataDirLockError, describeHolder, lockHolder, type ControlHandler, type ControlRequest } from '../datadir/dataDirLock.js';
import { DELIVERED_HISTORY, type DeliveredReview, type LetterKind, type RequeueResult, type RequeueSelection } from '../reviews/journalRecords.js';
import type { DamagedRecord } from '../reviews/damagedRecords.js';
import { readOutboxContents } from '../reviews/letters.js';
import { ReviewJournal } from '../reviews/reviewJournal.js';
import type { PlayerIdentity } from '../bridge/port.js';
import type { OutboxReview, ReviewOutbox } from '../reviews/reviewOutbox.js';
import { VERSION } from '../version.js';
import { commandLogger } from './commandLogger.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK, EXIT_REFUSED } from './exitCodes.js';
import { CONFIG_OPTION, PRETTY_OPTION, defineCommand, parseCommandLine, type CommandGroupSpec } from './options.js';
import { reportConfigError } from './serviceSession.js';

/**
 * What the outbox holds (damaged: journal lines that no longer read as a record, set aside in reviews.damaged.jsonl),
 * then what it delivered (listed only when asked for: those reviews left the outbox).
 */
const STATES = ['pending', 'unconfirmed', 'dead', 'damaged', 'delivered'] as const;
type State = (typeof STATES)[number];
/** Words of the comment shown in a list line. */
const PREVIEW_WORDS = 8;
/** Most ids one retry request may name. */
const MAX_IDS = 10_000;

export const REVIEWS_LIST_COMMAND = defineCommand({
  name: 'reviews list',
  synopsis: '[--state pending|unconfirmed|dead|damaged|delivered] [--json] [--config FILE]',
  summary: 'what the review outbox holds, one review a line (id, state, server, player, stars, first words, reason)',
  // Plain digits, not toLocaleString: `run` loads this module (its control handler), and the first number ICU
  // formats costs a long-lived process about 7 MB resident (ICU's data and its formatter).
  details: [
    `--state delivered lists the last ${DELIVERED_HISTORY} reviews GSA stored instead (id, server, player, stars, when, GSA's receipt; not the comment).`,
    'damaged: a journal line that no longer reads as a record (id when it still shows one, file, line, size, why); see docs/reviews.md to re-queue it.',
    'It only reads, so it is safe next to a running sidecar. Exit 0.',
  ],
  options: {
    state: { type: 'string', value: 'STATE', choices: STATES, description: 'only reviews in this state', defaultText: 'pending, unconfirmed, dead and damaged' },
    json: { type: 'boolean', description: 'one JSON object a line, for scripts' },
    ...CONFIG_OPTION,
  },
});

export const REVIEWS_RETRY_COMMAND = defineCommand({
  name: 'reviews retry',
  synopsis: '(ID… | --all-dead | --all-unconfirmed) [--config FILE] [--pretty]',
  summary: 're-queues chosen dead or unconfirmed reviews for delivery',
  details: ['A running sidecar on the same data directory does it (and delivers at once); otherwise it is written to the journal. Exit 0, or 1 when an id is unknown.'],
  maxPositionals: MAX_IDS,
  options: {
    'all-dead': { type: 'boolean', description: 'every dead review' },
    'all-unconfirmed': { type: 'boolean', description: 'every unconfirmed review' },
    ...CONFIG_OPTION,
    ...PRETTY_OPTION,
  },
});

export const REVIEWS_COMMANDS: CommandGroupSpec = {
  name: 'reviews',
  summary: 'the review outbox: list what it holds (pending, unconfirmed, dead) or last delivered; re-queue chosen reviews',
  subcommands: [REVIEWS_LIST_COMMAND, REVIEWS_RETRY_COMMAND],
};

interface Row {
  readonly state: Exclude<State, 'delivered' | 'damaged'>;
  readonly review: OutboxReview;
  readonly reason: { readonly code: string; readonly status: number | null; readonly message: string } | null;
  /** Its fate is in the journal, its letter not written yet (the sidecar retries the write). */
  readonly held: boolean;
}

const HELD_NOTE = 'not yet in its letter file: the sidecar retries writing it';

function preview(comment: string): string {
  const words = comment.split(/\s+/).filter((word) => word.length > 0);
  const shown = words.slice(0, PREVIEW_WORDS).join(' ');
  return words.length > PREVIEW_WORDS ? `${shown} …` : shown;
}

function playerOf(player: PlayerIdentity): string {
  return player.steamId ?? player.eosId ?? '?';
}

function playerJson(player: PlayerIdentity): Record<string, string> {
  return {
    ...(player.steamId === undefined ? {} : { steam_id: player.steamId }),
    ...(player.eosId === undefined ? {} : { eos_id: player.eosId }),
    ...(player.name === undefined ? {} : { name: player.name }),
  };
}

function textLine(row: Row): string {
  const { review, reason } = row;
  // JSON.stringify quotes the preview, so nothing in a player's comment can fake a column or a line.
  const because = reason === null ? '' : `  ${reason.code}${reason.status === null ? '' : ` ${reason.status}`}: ${reason.message}`;
  const held = row.held ? ` (${HELD_NOTE})` : '';
  return `${review.id}  ${row.state.padEnd(11)}  ${review.server}  ${playerOf(review.player)}  ${review.stars}★  ${JSON.stringify(preview(review.comment))}${because}${held}`;
}

function damagedTextLine(record: DamagedRecord): string {
  return `${record.id ?? '?'}  ${'damaged'.padEnd(11)}  line ${record.lineNumber} of ${record.file} (${record.bytes} bytes): ${record.reason}`;
}

/** Shaped like the other rows (what a damaged line says is unknown: null), with where it is. */
function damagedJsonLine(record: DamagedRecord): string {
  return JSON.stringify({
    id: record.id ?? null,
    state: 'damaged',
    server: null,
    player: null,
    stars: null,
    comment: null,
    queued_at: null,
    reason: { code: 'damaged', status: null, message: record.reason },
    file: record.file,
    line: record.lineNumber,
    bytes: record.bytes,
  });
}

function deliveredTextLine(review: DeliveredReview): string {
  // Quoted like a comment: the receipt is the service's text.
  const receipt = review.receipt === undefined ? '' : `  ${JSON.stringify(review.receipt)}`;
  const when = new Date(review.deliveredAt).toISOString();
  return `${review.id}  ${'delivered'.padEnd(11)}  ${review.server}  ${playerOf(review.player)}  ${review.stars}★  delivered ${when}${receipt}`;
}

function deliveredJsonLine(review: DeliveredReview): string {
  return JSON.stringify({
    id: review.id,
    state: 'delivered',
    server: review.server,
    player: playerJson(review.player),
    stars: review.stars,
    queued_at: review.queuedAt,
    delivered_at: review.deliveredAt,
    receipt: review.receipt ?? null,
    reason: null,
  });
}

function jsonLine(row: Row): string {
  const { review } = row;
  return JSON.stringify({
    id: review.id,
    state: row.state,
    server: review.server,
    player: playerJson(review.player),
    stars: review.stars,
    comment: review.comment,
    queued_at: review.queuedAt,
    reason: row.reason,
    ...(row.held ? { held: true } : {}),
  });
}

async function loadDataDir(context: CliContext, configPath: string | undefined): Promise<BridgeConfig | number> {
  try {
    // Listing and re-queueing read files only: no credentials needed.
    return (await loadConfig({ path: configPath, env: context.env, requireFile: true, requireCredentials: false })).config;
  } catch (error) {
    if (error instanceof ConfigError) return reportConfigError(context, error);
    throw error;
  }
}

async function exists(dir: string): Promise<boolean> {
  try {
    await access(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why this user must not write the directory itself, or undefined. Files a compaction or a letter write creates are
 * owned by whoever writes them (0600): written by root, the sidecar's own user could no longer open its journal.
 */
async function foreignOwner(dir: string): Promise<string | undefined> {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const owner = (await stat(dir)).uid;
  if (owner === uid) return undefined;
  return `${dir} belongs to uid ${owner}, and this command runs as uid ${uid}: with no sidecar running, run it as the directory's owner (e.g. sudo -u <that user> gsa-bridge reviews retry …), so the files it writes stay the sidecar's`;
}

async function listCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(REVIEWS_LIST_COMMAND, args);
  const { state } = options;
  const config = await loadDataDir(context, options.config);
  if (typeof config === 'number') return config;
  const { dataDir } = config.reviews;
  const contents = (await exists(dataDir)) ? await readOutboxContents(dataDir) : { pending: [], letters: [], unreadable: [], delivered: [], damaged: [] };
  const { json } = options;
  if (state === 'delivered') {
    // From the journal alone: the letter files hold no delivered review.
    for (const review of contents.delivered) context.stdout.write(`${json ? deliveredJsonLine(review) : deliveredTextLine(review)}\n`);
    if (!json) context.stderr.write(`${contents.delivered.length} ${contents.delivered.length === 1 ? 'review' : 'reviews'} in ${dataDir}\n`);
    return EXIT_OK;
  }
  for (const { file, reason } of contents.unreadable) context.stderr.write(`could not read ${file} (${reason}); its reviews are not listed\n`);
  const rows: Row[] = [
    ...contents.pending.map((review): Row => ({ state: 'pending', review, reason: null, held: false })),
    ...contents.letters.map((letter): Row => ({ state: letter.kind, review: letter.review, reason: letter.reason, held: letter.held === true })),
  ].filter((row) => state === undefined || row.state === state);
  for (const row of rows) context.stdout.write(`${json ? jsonLine(row) : textLine(row)}\n`);
  const damaged = state === undefined || state === 'damaged' ? contents.damaged : [];
  for (const record of damaged) context.stdout.write(`${json ? damagedJsonLine(record) : damagedTextLine(record)}\n`);
  const count = rows.length + damaged.length;
  if (!json) context.stderr.write(`${count} ${count === 1 ? 'review' : 'reviews'} in ${dataDir}\n`);
  return EXIT_OK;
}

function retryArguments(args: readonly string[]): { readonly selection: RequeueSelection; readonly configPath: string | undefined; readonly pretty: boolean } {
  const { options, positionals } = parseCommandLine(REVIEWS_RETRY_COMMAND, args);
  const allDead = options['all-dead'];
  const allUnconfirmed = options['all-unconfirmed'];
  if ([allDead, allUnconfirmed, positionals.length > 0].filter(Boolean).length !== 1) {
    throw new UsageError('give review ids, or --all-dead, or --all-unconfirmed (one of them)');
  }
  const selection: RequeueSelection = allDead ? { all: 'dead' } : allUnconfirmed ? { all: 'unconfirmed' } : { ids: positionals };
  return { selection, configPath: options.config, pretty: options.pretty };
}

/** The retry request's wire form, shared by the CLI and the handler below. */
function retryRequest(selection: RequeueSelection): ControlRequest {
  return 'all' in selection ? { op: 'retry', all: selection.all } : { op: 'retry', ids: [...selection.ids] };
}

function parseRetryRequest(request: ControlRequest): RequeueSelection | string {
  const { all, ids } = request;
  if (all === 'dead' || all === 'unconfirmed') return { all: all satisfies LetterKind };
  if (Array.isArray(ids) && ids.length <= MAX_IDS && ids.every((id): id is string => typeof id === 'string' && id.length > 0 && id.length <= 200)) {
    return { ids };
  }
  return 'a retry names "all": "dead" | "unconfirmed", or "ids": [review ids]';
}

function summary(result: RequeueResult): { requeued: string[]; alreadyPending: string[]; unknown: string[] } {
  return { requeued: result.requeued.map((review) => review.id), alreadyPending: [...result.alreadyPending], unknown: [...result.unknown] };
}

/** Serves `reviews retry` inside the running sidecar (see runCommand): re-queues through its current outbox. */
export function reviewsControlHandler(outbox: () => ReviewOutbox): ControlHandler {
  return async (request) => {
    if (request.op !== 'retry') return { ok: false, error: `unknown request "${request.op}"` };
    const selection = parseRetryRequest(request);
    if (typeof selection === 'string') return { ok: false, error: selection };
    return { ok: true, ...summary(await outbox().requeue(selection)) };
  };
}

function isSummary(value: Record<string, unknown>): value is { requeued: string[]; alreadyPending: string[]; unknown: string[] } {
  return ['requeued', 'alreadyPending', 'unknown'].every((key) => Array.isArray(value[key]));
}

/**
 * What a retry did: each id on stdout, then one summary line only when something was re-queued (`where` says who
 * delivers it, given "it" or "them"), and one error line naming every id not found (exit 1; the known ones of a mixed
 * request are re-queued all the same).
 */
function report(
  context: CliContext,
  selection: RequeueSelection,
  result: { requeued: string[]; alreadyPending: string[]; unknown: string[] },
  where: (them: string) => string,
): number {
  const { requeued, alreadyPending, unknown } = result;
  for (const id of requeued) context.stdout.write(`re-queued ${id}\n`);
  for (const id of alreadyPending) context.stdout.write(`already pending ${id}\n`);
  if (requeued.length > 0) {
    const one = requeued.length === 1;
    context.stderr.write(`${requeued.length} ${one ? 'review' : 'reviews'} re-queued ${where(one ? 'it' : 'them')}\n`);
  }
  if (unknown.length > 0) {
    const nothing = requeued.length === 0 ? '; nothing was re-queued' : '';
    context.stderr.write(`error: no dead or unconfirmed review with ${unknown.length === 1 ? 'id' : 'ids'} ${unknown.join(', ')} (see gsa-bridge reviews list)${nothing}\n`);
    return EXIT_REFUSED;
  }
  if ('all' in selection && requeued.length === 0 && alreadyPending.length === 0) context.stderr.write(`no ${selection.all} reviews to re-queue\n`);
  return EXIT_OK;
}

async function retryCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { selection, configPath, pretty } = retryArguments(args);
  const config = await loadDataDir(context, configPath);
  if (typeof config === 'number') return config;
  const { dataDir } = config.reviews;
  if (!(await exists(dataDir))) {
    context.stderr.write(`error: ${dataDir} does not exist: there is nothing to re-queue (check reviews.dataDir in the config)\n`);
    return EXIT_REFUSED;
  }

  const foreign = await foreignOwner(dataDir);
  // Another user's directory: this process may not even open its lock file, so it cannot tell whether a sidecar
  // runs there; either way the advice is the same (run as that user).
  if (foreign !== undefined && (await lockHolder(dataDir).catch(() => undefined)) === undefined) {
    context.stderr.write(`error: ${foreign}; nothing was changed\n`);
    return EXIT_REFUSED;
  }

  let lock: DataDirLock;
  try {
    lock = await DataDirLock.acquire(dataDir, { version: VERSION });
  } catch (error) {
    if (!(error instanceof DataDirLockError) || error.code !== 'locked') throw error;
    // A sidecar runs: it alone writes the journal, so it does the re-queue and delivers at once.
    const who = describeHolder(error.holder);
    let reply;
    try {
      reply = await askHolder(dataDir, retryRequest(selection));
    } catch (askError) {
      context.stderr.write(`error: the running sidecar (${who}) holds ${dataDir} and could not be asked to re-queue: ${(askError as Error).message}; nothing was changed\n`);
      return EXIT_REFUSED;
    }
    if (!reply.ok || !isSummary(reply)) {
      const why = reply.ok ? 'an answer this version does not understand' : reply.error;
      context.stderr.write(`error: the running sidecar (${who}) did not re-queue: ${why}\n`);
      return EXIT_REFUSED;
    }
    return report(context, selection, reply, (them) => `by the running sidecar (${who}); it delivers ${them} now`);
  }

  try {
    const logger = commandLogger(context, { level: config.log.level, pretty, oneShot: true });
    const { journal } = await ReviewJournal.open({ dataDir, logger, compactAfterFinished: Number.MAX_SAFE_INTEGER, retainAcceptedMs: config.reviews.cooldownMs });
    try {
      return report(context, selection, summary(await journal.requeue(selection)), (them) => `in the journal; the sidecar delivers ${them} when it next runs`);
    } finally {
      await journal.close();
    }
  } finally {
    await lock.release();
  }
}

export async function reviewsCommand(args: readonly string[], context: CliContext): Promise<number> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'list':
      return listCommand(rest, context);
    case 'retry':
      return retryCommand(rest, context);
    default:
      throw new UsageError(sub === undefined ? 'say what to do: list or retry' : `unknown reviews command "${sub}" (list or retry)`);
  }
}
