// Creates the process's pino logger: JSON lines by default, or human-readable lines (prettyLines.ts) for a person
// at a terminal; on stderr by default (stdout stays free for command output). The secret-bearing keys are redacted
// by path, and every known secret value is scrubbed from each line as a last line of defence, in every encoding it
// may come back in (secretForms.ts), before the line is made pretty and again after; a log file (`log.file`), when
// given, gets the same scrubbed lines as JSON. Every line carries `server`
// and `adapter` (null when it is about the whole process). It must never be bypassed by writing secrets to the
// console directly.

import { pino, type Logger, type LevelWithSilent } from 'pino';
import { prettyLineFormatter } from './prettyLines.js';
import { replaceForms, scrubbableForms } from './secretForms.js';

export type LogLevel = LevelWithSilent;

/** `json`: one pino JSON object a line, for machines. `pretty`: time, level, server/adapter, message, for people. */
export type LogFormat = 'json' | 'pretty';

export interface LogDestination {
  write(line: string): unknown;
}

export interface LoggerOptions {
  readonly level: LogLevel;
  /** Literal secret values (client secret, RCON passwords, mod tokens) to scrub wherever they appear. */
  readonly secrets?: readonly string[];
  /** Where lines go; default process.stderr. */
  readonly destination?: LogDestination;
  /** Default 'json'. */
  readonly format?: LogFormat;
  /** ANSI colours in the pretty format (a terminal only). Default false. */
  readonly colors?: boolean;
  /** A second place every line goes, always as scrubbed JSON whatever `format` says (log.file). Default none. */
  readonly file?: LogDestination | undefined;
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

interface Scope {
  readonly server?: null;
  readonly adapter?: null;
}

// Whether a logger (root or child) already binds server and adapter, worked out once per logger: pino writes a
// binding and a line field of the same name twice, so the nulls are added only where no binding exists.
const scopes = new WeakMap<Logger, Scope>();

function missingScope(logger: Logger): Scope {
  let scope = scopes.get(logger);
  if (scope === undefined) {
    const bindings = logger.bindings();
    scope = { ...('server' in bindings ? {} : { server: null }), ...('adapter' in bindings ? {} : { adapter: null }) };
    scopes.set(logger, scope);
  }
  return scope;
}

/** The secret forms one logger scrubs; a reload that brings new secrets adds to them (addLoggerSecrets). */
interface Scrubber {
  forms: readonly string[];
}

function outputStream(options: LoggerOptions, scrubber: Scrubber): LogDestination {
  const destination = options.destination ?? process.stderr;
  const scrub = (line: string): string => (scrubber.forms.length === 0 ? line : scrubSecrets(line, scrubber.forms));
  const { file } = options;
  if (options.format !== 'pretty') {
    if (file === undefined) return { write: (line: string) => destination.write(scrub(line)) };
    return {
      write: (line: string) => {
        const scrubbed = scrub(line);
        destination.write(scrubbed);
        file.write(scrubbed);
      },
    };
  }
  const pretty = prettyLineFormatter({ colors: options.colors ?? false });
  // Scrubbed as JSON (where every encoding is known) and again as text, in case formatting un-escaped a form.
  return {
    write: (line: string) => {
      const scrubbed = scrub(line);
      file?.write(scrubbed);
      return destination.write(scrub(pretty(scrubbed)));
    },
  };
}

const scrubbers = new WeakMap<Logger, Scrubber>();

/**
 * Adds secrets to what a logger made by createLogger (and every child of it) scrubs: a reload that brings a new
 * token or new API keys keeps one logger, so every part of the process, old and new, scrubs them. The old ones
 * stay scrubbed too: lines about the old config may still be written.
 */
export function addLoggerSecrets(logger: Logger, secrets: readonly string[]): void {
  const scrubber = scrubbers.get(logger);
  if (scrubber === undefined) throw new Error('addLoggerSecrets: not a logger made by createLogger');
  // Longest first, as scrubbableForms orders them, so a secret that contains another is replaced whole.
  scrubber.forms = [...new Set([...scrubber.forms, ...scrubbableForms(secrets)])].sort((a, b) => b.length - a.length);
}

/** Every child of a logger made by createLogger, so a level change reaches them (pino children keep their own level). */
const families = new WeakMap<Logger, Set<WeakRef<Logger>>>();

export function createLogger(options: LoggerOptions): Logger {
  const family = new Set<WeakRef<Logger>>();
  const scrubber: Scrubber = { forms: scrubbableForms(options.secrets ?? []) };
  const logger = pino(
    {
      level: options.level,
      base: { name: 'gsa-bridge' },
      redact: { paths: REDACTED_PATHS, censor: MASK },
      // Children inherit this hook, so grandchildren are registered too.
      onChild: (child) => {
        family.add(new WeakRef(child));
      },
      // A line's own fields win over these (pino's default merge), so `logger.info({ server }, …)` still works. A
      // fresh object each line: pino merges the line's fields into the one mixin returns.
      mixin: (_object, _level, logger) => ({ ...missingScope(logger as Logger) }),
    },
    outputStream(options, scrubber),
  );
  families.set(logger, family);
  scrubbers.set(logger, scrubber);
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
