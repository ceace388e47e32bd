// The environment overlay: GSA_* variables override the matching keys of the config file.
// Pure: the environment is a parameter; must never read process.env itself, and never mutate the input object.

/** The environment as a plain record (process.env fits). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Names the config file when --config is not given. */
export const CONFIG_PATH_VARIABLE = 'GSA_BRIDGE_CONFIG';
export const DEFAULT_CONFIG_PATH = './config.json';

export interface EnvironmentOverride {
  readonly variable: string;
  readonly section: string;
  readonly key: string;
}

/** Variable → config key. The names are a public contract (spec/interfaces.md). */
export const ENVIRONMENT_OVERRIDES: readonly EnvironmentOverride[] = [
  { variable: 'GSA_API_URL', section: 'api', key: 'baseUrl' },
  { variable: 'GSA_CLIENT_ID', section: 'api', key: 'clientId' },
  { variable: 'GSA_CLIENT_SECRET', section: 'api', key: 'clientSecret' },
  // A dotted key reaches into a nested object: api.system.key.
  { variable: 'GSA_SYSTEM_API_KEY', section: 'api', key: 'system.key' },
  { variable: 'GSA_BRIDGE_LOG_LEVEL', section: 'log', key: 'level' },
];

export interface OverlaidConfig {
  /** The file's content with the environment on top, still unvalidated. */
  readonly raw: unknown;
  /** Config path (`api.clientSecret`) → the variable that set it, so a bad value can be traced to the environment. */
  readonly sources: ReadonlyMap<string, string>;
}

/** A variable's value, or undefined when it is unset or blank: an exported-but-empty variable must not wipe a file value. */
export function environmentValue(env: Environment, variable: string): string | undefined {
  const value = env[variable];
  return value === undefined || value.trim() === '' ? undefined : value;
}

export function applyEnvironment(raw: unknown, env: Environment): OverlaidConfig {
  const sources = new Map<string, string>();
  // A root that is not an object is reported by the schema; overlaying onto it would hide that.
  if (!isPlainObject(raw)) return { raw, sources };
  const result: Record<string, unknown> = { ...raw };
  for (const { variable, section, key } of ENVIRONMENT_OVERRIDES) {
    const value = environmentValue(env, variable);
    if (value === undefined) continue;
    const overlaid = overlay(result[section], key.split('.'), value);
    if (overlaid === undefined) continue;
    result[section] = overlaid;
    sources.set(`${section}.${key}`, variable);
  }
  return { raw: result, sources };
}

/** A key the file sets that a variable overrides with another value: the file's value is not used. */
export interface ShadowedKey {
  /** The config path, e.g. `api.clientSecret`. */
  readonly path: string;
  readonly variable: string;
}

/**
 * The keys whose file value the environment replaces with a different one. A reload reads the file again but not the
 * environment (it is the process's own), so a host who fixes such a key in the file sees nothing change: the reload
 * says why. Only paths and variable names come out, never a value.
 */
export function shadowedFileKeys(raw: unknown, env: Environment): readonly ShadowedKey[] {
  if (!isPlainObject(raw)) return [];
  const shadowed: ShadowedKey[] = [];
  for (const { variable, section, key } of ENVIRONMENT_OVERRIDES) {
    const value = environmentValue(env, variable);
    if (value === undefined) continue;
    let inFile: unknown = raw[section];
    for (const part of key.split('.')) inFile = isPlainObject(inFile) ? inFile[part] : undefined;
    if (typeof inFile === 'string' && inFile.trim() !== '' && inFile !== value) shadowed.push({ path: `${section}.${key}`, variable });
  }
  return shadowed;
}

/**
 * `current` with `value` at `path` (copies, never mutating), or undefined when something on the path is not an object:
 * the schema then reports that value, which an overlay would hide.
 */
function overlay(current: unknown, path: readonly string[], value: string): Record<string, unknown> | undefined {
  if (current !== undefined && !isPlainObject(current)) return undefined;
  const [head, ...rest] = path;
  if (head === undefined) return undefined;
  if (rest.length === 0) return { ...current, [head]: value };
  const inner = overlay(current?.[head], rest, value);
  return inner === undefined ? undefined : { ...current, [head]: inner };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Where the API credentials came from, for a message telling a host what to check after GSA refused them. A variable
 * overrides the file, so fixing the file changes nothing while it is set: the variable is named, not the key.
 * `file` is the config file read (null: the environment alone).
 * @example "api.clientId and api.clientSecret in /etc/gsa-bridge/config.json"
 * @example "api.clientId in /etc/gsa-bridge/config.json and GSA_CLIENT_SECRET (set in the environment, it overrides api.clientSecret)"
 */
export function describeCredentialSources(sources: ReadonlyMap<string, string>, file: string | null): string {
  const keys = ['clientId', 'clientSecret'].map((key) => ({ path: `api.${key}`, variable: sources.get(`api.${key}`) }));
  const inFile = file === null ? '' : ` in ${file}`;
  if (keys.every(({ variable }) => variable === undefined)) return `${keys.map(({ path }) => path).join(' and ')}${inFile}`;
  const overridden = keys.flatMap(({ path, variable }) => (variable === undefined ? [] : [{ path, variable }]));
  const fromFile = keys.filter(({ variable }) => variable === undefined).map(({ path }) => `${path}${inFile}`);
  const variables = overridden.map(({ variable }) => variable).join(' and ');
  const paths = overridden.map(({ path }) => path).join(' and ');
  const fromEnvironment = `${variables} (set in the environment, ${overridden.length === 1 ? 'it overrides' : 'they override'} ${paths})`;
  return [...fromFile, fromEnvironment].join(' and ');
}
