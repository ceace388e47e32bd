// The one error the configuration module throws, carrying every problem found so a host can fix them in one pass.
// Must never carry a configured value (not in the message, not as a cause): the value may be a secret.

/** One thing wrong with the configuration. `path` is a JSON path such as `servers[0].adapters[1].port` or `(root)`;
 * it is `''` for problems with the file itself (missing, unreadable, not JSON). */
export interface ConfigProblem {
  readonly path: string;
  readonly message: string;
}

/** The line a host sees for one problem: `servers[0].adapters[1].port: must be 1–65535`. */
export function formatProblem(problem: ConfigProblem): string {
  return problem.path === '' ? problem.message : `${problem.path}: ${problem.message}`;
}

export interface ConfigErrorOptions {
  /** The config file the problems were found in, or null when the configuration came from memory or the environment. */
  readonly file?: string | null | undefined;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'invalid_config';
  readonly problems: readonly ConfigProblem[];
  readonly file: string | null;

  constructor(problems: readonly ConfigProblem[], options: ConfigErrorOptions = {}) {
    super(problems.map(formatProblem).join('\n'));
    this.problems = Object.freeze([...problems]);
    this.file = options.file ?? null;
  }
}
