// How `gsa-bridge mutes` and `gsa-bridge reload` reach the sidecar running on a config's data directory: through
// the directory's control channel (src/datadir), quoting the token from its lock file. Finds the directory from the
// config file, for `reload` even from a file that no longer validates (the sidecar, not this command, says what is
// wrong with it). Prints one error line and returns exit 1 when no sidecar runs there or it cannot be asked.
// It never takes the data directory's lock and never writes anything in it.

import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { ConfigError, CONFIG_PATH_VARIABLE, DEFAULT_CONFIG_PATH, environmentValue, loadConfig } from '../app/config.js';
import { askHolder, DataDirLockError, describeHolder, lockHolder, type ControlReply, type ControlRequest } from '../datadir/dataDirLock.js';
import type { CliContext } from './context.js';
import { EXIT_REFUSED } from './exitCodes.js';
import { reportConfigError } from './serviceSession.js';

/** reviews.dataDir's default (src/config/schema.ts), for a file too broken to read it from. */
const DEFAULT_DATA_DIR = './data';

/**
 * reviews.dataDir of the config file, absolute; or the exit code after printing why it is unknown. With
 * `evenIfInvalid`, a file that does not validate is read for that one key (or its default) all the same.
 */
export async function controlDataDir(context: CliContext, configPath: string | undefined, evenIfInvalid: boolean): Promise<string | number> {
  try {
    // Only the directory is needed: no credentials.
    return (await loadConfig({ path: configPath, env: context.env, requireFile: true, requireCredentials: false, cwd: context.cwd })).config.reviews.dataDir;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const found = evenIfInvalid ? await rawDataDir(context, configPath) : undefined;
    return found ?? reportConfigError(context, error);
  }
}

/** reviews.dataDir read straight from the file's JSON (or the default when the JSON does not say), or undefined when the file cannot be read. */
async function rawDataDir(context: CliContext, configPath: string | undefined): Promise<string | undefined> {
  const named = configPath === undefined || configPath === '' ? environmentValue(context.env, CONFIG_PATH_VARIABLE) : configPath;
  const file = resolve(context.cwd ?? process.cwd(), named ?? DEFAULT_CONFIG_PATH);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let dataDir: unknown;
  try {
    dataDir = (JSON.parse(text.replace(/^\uFEFF/, '')) as { reviews?: { dataDir?: unknown } } | null)?.reviews?.dataDir;
  } catch {
    dataDir = undefined;
  }
  const chosen = typeof dataDir === 'string' && dataDir !== '' ? dataDir : DEFAULT_DATA_DIR;
  return isAbsolute(chosen) ? chosen : resolve(dirname(file), chosen);
}

/**
 * Sends `request` to the sidecar holding `dataDir` and returns its answer when it handled it (`ok: true`), or
 * prints one error line (`doing` says what it was asked, e.g. "list the players seen muted") and returns exit 1.
 */
export async function askRunningSidecar(context: CliContext, dataDir: string, request: ControlRequest, doing: string): Promise<Extract<ControlReply, { ok: true }> | number> {
  let holder;
  try {
    holder = await lockHolder(dataDir);
  } catch (error) {
    if (!(error instanceof DataDirLockError)) throw error;
    context.stderr.write(`error: could not tell whether a sidecar runs on ${dataDir}: ${error.message}\n`);
    return EXIT_REFUSED;
  }
  if (holder === undefined) {
    context.stderr.write(
      `error: no sidecar runs on the data directory ${dataDir} (reviews.dataDir of the config file), so nothing could ${doing}; ` +
        'start it with gsa-bridge run, or name its config file with --config\n',
    );
    return EXIT_REFUSED;
  }
  const who = describeHolder(holder);
  let reply: ControlReply;
  try {
    reply = await askHolder(dataDir, request);
  } catch (error) {
    if (!(error instanceof DataDirLockError)) throw error;
    context.stderr.write(`error: the running sidecar (${who}) could not be asked to ${doing}: ${error.message}\n`);
    return EXIT_REFUSED;
  }
  if (!reply.ok) {
    context.stderr.write(`error: the running sidecar (${who}) did not ${doing}: ${reply.error}\n`);
    return EXIT_REFUSED;
  }
  return reply;
}
