// Validates an in-memory configuration (a parsed file, or an object built by a command) with the environment on top.
// Must never touch the file system or process.env, and never mutate `raw`: a SIGHUP reload that fails keeps the old config.
import { ConfigError, type ConfigProblem } from './errors.js';
import { applyEnvironment, type Environment } from './environment.js';
import { configErrorMap, issuesToProblems } from './format.js';
import type { BridgeConfigOf, ConfigSchema } from './schema.js';

export interface ParseConfigOptions {
  /**
   * Whether api.clientId and api.clientSecret must be non-empty after the overlay. Default true. `unlessSystemKey`:
   * only when api.system.key is empty (a command that GSA's System API can serve alone, like `server restart`).
   */
  readonly requireCredentials?: boolean | 'unlessSystemKey' | undefined;
  /** The file `raw` came from, recorded on a ConfigError. */
  readonly file?: string | null | undefined;
}

const CREDENTIALS = [
  { key: 'clientId', variable: 'GSA_CLIENT_ID' },
  { key: 'clientSecret', variable: 'GSA_CLIENT_SECRET' },
] as const;

/**
 * Returns the effective configuration, or throws one ConfigError listing every problem. `schema` is the one the app
 * layer built with its adapter types (src/app/config.ts parseConfig passes it).
 */
export function parseConfigWith<Options>(schema: ConfigSchema<Options>, raw: unknown, env: Environment = {}, options: ParseConfigOptions = {}): BridgeConfigOf<Options> {
  const { raw: overlaid, sources } = applyEnvironment(raw, env);
  const result = schema.safeParse(overlaid, { error: configErrorMap });
  const problems = result.success ? [] : issuesToProblems(result.error.issues, schema);
  const requireCredentials = options.requireCredentials ?? true;
  if (requireCredentials === true || (requireCredentials === 'unlessSystemKey' && !hasSystemKey(overlaid))) problems.push(...missingCredentials(overlaid));
  if (!result.success || problems.length > 0) {
    // Naming the variable matters: a host who never edited the file would otherwise search it for the bad value.
    const traced = problems.map((problem) => {
      const variable = sources.get(problem.path);
      return variable === undefined ? problem : { path: problem.path, message: `${problem.message} (from ${variable})` };
    });
    throw new ConfigError(traced, { file: options.file ?? null });
  }
  return result.data;
}

// Only absent or blank credentials: a credential of the wrong type has already been reported by the schema.
function missingCredentials(overlaid: unknown): ConfigProblem[] {
  if (!isRecord(overlaid)) return [];
  const api = overlaid['api'] === undefined ? {} : overlaid['api'];
  if (!isRecord(api)) return [];
  return CREDENTIALS.filter(({ key }) => {
    const value = api[key];
    return value === undefined || (typeof value === 'string' && value.trim() === '');
  }).map(({ key, variable }) => ({
    path: `api.${key}`,
    message: `required: set it in the config file or the ${variable} environment variable`,
  }));
}

/** Whether the raw config (environment applied) has a non-empty api.system.key; its type is the schema's to report. */
function hasSystemKey(overlaid: unknown): boolean {
  if (!isRecord(overlaid) || !isRecord(overlaid['api'])) return false;
  const system = overlaid['api']['system'];
  return isRecord(system) && typeof system['key'] === 'string' && system['key'].trim() !== '';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
