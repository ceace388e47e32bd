// `gsa-bridge reload`: asks the sidecar running on the config's data directory to reload its config file, as SIGHUP
// does, for hosts without SIGHUP (Windows) or without a shell on the sidecar's host; and the "reload" control op the
// sidecar serves. The sidecar queues the request into the same loop as its signals (runCommand), so a reload asked
// for here and a SIGHUP never run at once, and answers with what the reload did.
// It never reloads anything itself and never reads the config for more than where the data directory is.

import type { ControlHandler } from '../datadir/dataDirLock.js';
import type { CliContext } from './context.js';
import { EXIT_OK, EXIT_REFUSED } from './exitCodes.js';
import { CONFIG_OPTION, defineCommand, parseCommandLine } from './options.js';
import { askRunningSidecar, controlDataDir } from './sidecarControl.js';

/**
 * The control op, on the wire: `{"op":"reload"}` → `{"ok":true,"result":"success","summary":"config reloaded (…)"}`,
 * `{"ok":true,"result":"invalid","problems":["servers[0]…: …"]}` or `{"ok":true,"result":"failed","error":"…"}`;
 * `{"ok":false,"error":"…"}` when the sidecar is stopping.
 */
export const RELOAD_OP = 'reload';

/** How the log lines of a reload asked for this way name their trigger (a SIGHUP's say "SIGHUP"). */
export const RELOAD_TRIGGER = 'reload (gsa-bridge reload)';

export const RELOAD_COMMAND = defineCommand({
  name: 'reload',
  synopsis: '[--config FILE]',
  summary: 'asks the running sidecar to reload its config file, as SIGHUP does (Windows has no SIGHUP)',
  details: [
    'The sidecar on the config\'s reviews.dataDir reloads, one reload at a time with SIGHUPs, and this prints what changed.',
    'Exit 0 reloaded; 1 refused (an invalid file: its problems are printed and the running config stays; or it could not be applied), or no sidecar runs.',
  ],
  options: { ...CONFIG_OPTION },
});

/** What one reload did, as runCommand's reload reports it. */
export type ReloadOutcome =
  | { readonly result: 'success'; readonly summary: string }
  | { readonly result: 'invalid'; readonly problems: readonly string[] }
  | { readonly result: 'failed'; readonly error: string };

/** Serves `reload` inside the running sidecar: `reload` queues one and resolves with its outcome, or with why not. */
export function reloadControlHandler(reload: () => Promise<ReloadOutcome | { readonly refused: string }>): ControlHandler {
  return async () => {
    const outcome = await reload();
    if ('refused' in outcome) return { ok: false, error: outcome.refused };
    return { ok: true, ...outcome };
  };
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item): item is string => typeof item === 'string') ? value : undefined;
}

export async function reloadCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(RELOAD_COMMAND, args);
  // An invalid file is what a reload refuses: the running sidecar says what is wrong with it, so it is asked anyway.
  const dataDir = await controlDataDir(context, options.config, true);
  if (typeof dataDir === 'number') return dataDir;
  const reply = await askRunningSidecar(context, dataDir, { op: RELOAD_OP }, 'reload its config');
  if (typeof reply === 'number') return reply;
  const { result } = reply;
  if (result === 'success' && typeof reply.summary === 'string') {
    context.stdout.write(`${reply.summary}\n`);
    return EXIT_OK;
  }
  const problems = strings(reply.problems);
  if (result === 'invalid' && problems !== undefined) {
    context.stderr.write('error: the config file is invalid; the running sidecar keeps its config:\n');
    for (const problem of problems) context.stderr.write(`${problem}\n`);
    return EXIT_REFUSED;
  }
  if (result === 'failed' && typeof reply.error === 'string') {
    context.stderr.write(`error: the running sidecar could not apply the config file: ${reply.error}\n`);
    return EXIT_REFUSED;
  }
  context.stderr.write('error: the running sidecar sent an answer this version does not understand (is it another version of gsa-bridge?)\n');
  return EXIT_REFUSED;
}
