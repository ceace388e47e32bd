// Finds and reads the config file, then hands its JSON to parseConfig.
// Must never echo file content in an error (a syntax error may sit inside a secret) and never log.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from './errors.js';
import { applyEnvironment, CONFIG_PATH_VARIABLE, DEFAULT_CONFIG_PATH, environmentValue, shadowedFileKeys, type Environment, type ShadowedKey } from './environment.js';
import { parseConfigWith, type ParseConfigOptions } from './parse.js';
import { absoluteDataDir } from './platformPaths.js';
import type { AnyBridgeConfig, BridgeConfigOf, ConfigSchema, ConfiguredAdapter } from './schema.js';

export interface LoadConfigOptions {
  /** The --config value. Leave it undefined when the user gave none, so `requireFile: false` can apply. */
  readonly path?: string | undefined;
  /** Defaults to process.env. */
  readonly env?: Environment | undefined;
  /** Default true. When false and no file was named (neither `path` nor GSA_BRIDGE_CONFIG) and ./config.json does not
   * exist, the configuration comes from the environment alone, with no servers. A named file must always exist. */
  readonly requireFile?: boolean | undefined;
  /** Default true: api.clientId and api.clientSecret must be non-empty after the environment overlay. */
  readonly requireCredentials?: ParseConfigOptions['requireCredentials'];
  /** Directory a relative path is read from; defaults to process.cwd(). Messages still show the path as given. */
  readonly cwd?: string | undefined;
}

export interface LoadedConfigOf<Options> {
  readonly config: BridgeConfigOf<Options>;
  /** Absolute path of the file read, or null when the configuration came from the environment alone. */
  readonly path: string | null;
  /**
   * Config path (`api.clientSecret`) → the variable that set it (`GSA_CLIENT_SECRET`): a message about a value the
   * service refused names where the value really came from (describeCredentialSources).
   */
  readonly sources: ReadonlyMap<string, string>;
  /** Keys the file sets whose value a variable replaces with another one (shadowedFileKeys); empty without a file. */
  readonly shadowed: readonly ShadowedKey[];
}

/** Reads and validates the config file against `schema` (src/app/config.ts loadConfig passes the app's). */
export async function loadConfigWith<Options extends ConfiguredAdapter>(schema: ConfigSchema<Options>, options: LoadConfigOptions = {}): Promise<LoadedConfigOf<Options>> {
  const env = options.env ?? process.env;
  const named = options.path === undefined || options.path === '' ? environmentValue(env, CONFIG_PATH_VARIABLE) : options.path;
  const path = named ?? DEFAULT_CONFIG_PATH;
  const requireCredentials = options.requireCredentials ?? true;

  const cwd = options.cwd ?? process.cwd();
  const absolute = resolve(cwd, path);
  const text = await readConfigText(absolute, path);
  if (text === null) {
    if ((options.requireFile ?? true) || named !== undefined) {
      throw fileProblem(path, `config file not found: ${path} (set --config FILE or ${CONFIG_PATH_VARIABLE})`);
    }
    const raw = { servers: [] };
    return { config: withAbsoluteDataDir(parseConfigWith(schema, raw, env, { requireCredentials }), cwd), path: null, sources: applyEnvironment(raw, env).sources, shadowed: [] };
  }
  const raw = await parseJson(text, path);
  const config = withAbsoluteDataDir(parseConfigWith(schema, raw, env, { requireCredentials, file: path }), dirname(absolute));
  // The overlay again, for its map alone: it is pure and cheap, and parseConfig keeps returning just the config.
  return { config, path: absolute, sources: applyEnvironment(raw, env).sources, shadowed: shadowedFileKeys(raw, env) };
}

/**
 * A relative reviews.dataDir (and log.file) belongs to the config file, not to whatever directory the process started in: under
 * systemd without WorkingDirectory the cwd is `/`, and reviews would land in `/data`. With no file, the cwd it is.
 */
function withAbsoluteDataDir<Config extends AnyBridgeConfig>(config: Config, base: string): Config {
  const { dataDir } = config.reviews;
  const withDataDir = { ...config, reviews: { ...config.reviews, dataDir: absoluteDataDir(dataDir, base) } };
  // log.file too, for the same reason.
  const { file } = config.log;
  return file === undefined ? withDataDir : { ...withDataDir, log: { ...config.log, file: absoluteDataDir(file, base) } };
}

/** The file's text, or null when it does not exist. `shown` is the path as the host wrote it. */
async function readConfigText(absolute: string, shown: string): Promise<string | null> {
  try {
    return await readFile(absolute, 'utf8');
  } catch (error) {
    const code = errorCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw fileProblem(shown, `config file could not be read: ${shown} (${readFailureReason(code)})`);
  }
}

async function parseJson(text: string, path: string): Promise<unknown> {
  // Editors on Windows save a byte-order mark that JSON.parse rejects. CRLF line ends are JSON whitespace already.
  const json = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    // The SyntaxError is dropped on purpose: V8 quotes the text around the error, which may be a secret.
    // Loaded only here: jsonc-parser is needed only to place a syntax error, and a running sidecar never needs it.
    const { locateJsonSyntaxError } = await import('./jsonSyntax.js');
    const located = locateJsonSyntaxError(json);
    const where = located === null ? '' : `, line ${located.line}, column ${located.column}: ${located.reason}`;
    throw fileProblem(path, `config file is not valid JSON: ${path}${where}`);
  }
}

function fileProblem(path: string, message: string): ConfigError {
  return new ConfigError([{ path: '', message }], { file: path });
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  return typeof error.code === 'string' ? error.code : undefined;
}

function readFailureReason(code: string | undefined): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    case undefined:
      return 'unknown error';
    default:
      return code;
  }
}
