// The logger a command gets: JSON lines for machines, human-readable ones when stderr is a terminal or --pretty is
// given, colours only on a terminal that allows them (NO_COLOR, TERM=dumb). One-shot commands print their result
// for a person, so their logs stay at warn unless GSA_BRIDGE_LOG_LEVEL asks for more; `run` keeps log.level.
// It never decides anything about secrets beyond passing them on to be scrubbed.

import type { Logger } from 'pino';
import { LOG_LEVELS } from '../app/config.js';
import { createLogger, type LogDestination, type LogFormat, type LogLevel } from '../log/logger.js';
import type { CliContext } from './context.js';

export interface CommandLoggerOptions {
  /** The effective log.level (file, then GSA_BRIDGE_LOG_LEVEL). */
  readonly level: LogLevel;
  readonly secrets?: readonly string[];
  /** --pretty was given. */
  readonly pretty: boolean;
  /** A command that prints a result and exits (everything but run, demo and emulator). */
  readonly oneShot?: boolean;
  /** `run`'s log.file: every line also goes there, scrubbed alike, as JSON. */
  readonly file?: LogDestination | undefined;
}

const QUIETER_THAN_WARN: readonly LogLevel[] = ['warn', 'error', 'fatal', 'silent'];

/** Logs go to stderr: that stream decides whether a person reads them. */
export function logFormatFor(context: CliContext, pretty: boolean): LogFormat {
  return pretty || context.stderr.isTTY === true ? 'pretty' : 'json';
}

function colorsFor(context: CliContext): boolean {
  return context.stderr.isTTY === true && (context.env.NO_COLOR ?? '') === '' && context.env.TERM !== 'dumb';
}

function isLogLevel(value: string | undefined): value is LogLevel {
  return value !== undefined && (LOG_LEVELS as readonly string[]).includes(value);
}

/** warn, or quieter when the file says so; whatever GSA_BRIDGE_LOG_LEVEL says when it is set (also without a file). */
export function oneShotLevel(level: LogLevel, env: CliContext['env']): LogLevel {
  const asked = env.GSA_BRIDGE_LOG_LEVEL;
  if (isLogLevel(asked)) return asked;
  return QUIETER_THAN_WARN.includes(level) ? level : 'warn';
}

export function commandLogger(context: CliContext, options: CommandLoggerOptions): Logger {
  return createLogger({
    level: options.oneShot === true ? oneShotLevel(options.level, context.env) : options.level,
    secrets: options.secrets ?? [],
    destination: context.stderr,
    format: logFormatFor(context, options.pretty),
    colors: colorsFor(context),
    file: options.file,
  });
}
