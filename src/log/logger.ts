// Creates the process's pino logger: JSON lines on stderr (stdout stays free for command output), the
// secret-bearing keys redacted by path, and every known secret value scrubbed from each line as a last
// line of defence, in every encoding it may come back in (secretForms.ts). It must never be bypassed by writing secrets to the console directly.

import { pino, type Logger, type LevelWithSilent } from 'pino';
import { replaceForms, scrubbableForms } from './secretForms.js';

export type LogLevel = LevelWithSilent;

export interface LoggerOptions {
  readonly level: LogLevel;
  /** Literal secret values (client secret, RCON passwords, mod tokens) to scrub wherever they appear. */
  readonly secrets?: readonly string[];
  /** Where lines go; default process.stderr. */
  readonly destination?: { write(line: string): unknown };
}

/** Keys that hold secrets wherever they appear in a logged object, a level or two deep. */
export const REDACTED_PATHS = [
  'clientSecret',
  'client_secret',
  'password',
  'token',
  'authorization',
  '*.clientSecret',
  '*.client_secret',
  '*.password',
  '*.token',
  '*.authorization',
  'headers["x-client-secret"]',
  '*.headers["x-client-secret"]',
  'config.api.clientSecret',
  'config.servers[*].adapters[*].token',
  'config.servers[*].adapters[*].password',
];

const MASK = '***';

export function scrubSecrets(text: string, forms: readonly string[]): string {
  return replaceForms(text, forms, MASK);
}

/** Every child of a logger made by createLogger, so a level change reaches them (pino children keep their own level). */
const families = new WeakMap<Logger, Set<WeakRef<Logger>>>();

export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? process.stderr;
  const forms = scrubbableForms(options.secrets ?? []);
  const stream = forms.length === 0 ? destination : { write: (line: string) => destination.write(scrubSecrets(line, forms)) };
  const family = new Set<WeakRef<Logger>>();
  const logger = pino(
    {
      level: options.level,
      base: { name: 'gsa-bridge' },
      redact: { paths: REDACTED_PATHS, censor: MASK },
      // Children inherit this hook, so grandchildren are registered too.
      onChild: (child) => {
        family.add(new WeakRef(child));
      },
    },
    stream,
  );
  families.set(logger, family);
  return logger;
}

/**
 * Sets the level of a logger made by createLogger and of every child made from it since (a config reload: the
 * running adapters keep their loggers). Children already collected are forgotten.
 */
export function setLoggerLevel(logger: Logger, level: LogLevel): void {
  logger.level = level;
  const family = families.get(logger);
  if (family === undefined) return;
  for (const ref of family) {
    const child = ref.deref();
    if (child === undefined) family.delete(ref);
    else child.level = level;
  }
}

/** A logger that writes nothing, the default wherever one is injected. */
export function silentLogger(): Logger {
  return pino({ enabled: false });
}
