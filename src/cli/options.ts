// The option table of a command and the parser it drives. One table per command is the single source of both
// what the command accepts and what its --help says (help.ts), so the two cannot drift apart. Every mistake is a
// UsageError in the project's own words, naming the flag and pointing at --help.
// It never reads secrets from argv: there are no flags for them (they would show in `ps`).

import { closestKey } from '../config/keySuggestion.js';
import type { PlayerIds } from '../gsa/index.js';
import { UsageError } from './errors.js';

export type OptionType = 'string' | 'integer' | 'boolean';

interface OptionBase {
  /** One line for --help: what the flag is for. */
  readonly description: string;
  /** Letters the value may have, for help (NAME, FILE, MIN). Not for booleans. */
  readonly value?: string;
  /** A value the flag must have; missing, the command refuses to run. */
  readonly required?: boolean;
  /** What --help says the default is when it is not a literal value ("the config's only server"). */
  readonly defaultText?: string;
}

export interface StringOptionSpec extends OptionBase {
  readonly type: 'string';
  readonly default?: string;
  /** The only values accepted. */
  readonly choices?: readonly string[];
}

export interface IntegerOptionSpec extends OptionBase {
  readonly type: 'integer';
  readonly default?: number;
  readonly min?: number;
  readonly max?: number;
}

export interface BooleanOptionSpec extends OptionBase {
  readonly type: 'boolean';
}

export type OptionSpec = StringOptionSpec | IntegerOptionSpec | BooleanOptionSpec;
export type OptionTable = Readonly<Record<string, OptionSpec>>;

/** The value a flag has after parsing: booleans are false when absent; a default makes a value always present. */
type ValueOf<S extends OptionSpec> = S extends BooleanOptionSpec
  ? boolean
  : S extends IntegerOptionSpec
    ? S extends { readonly default: number } | { readonly required: true } ? number : number | undefined
    : S extends { readonly default: string } | { readonly required: true } ? string : string | undefined;

export type OptionValues<T extends OptionTable> = { readonly [K in keyof T]: ValueOf<T[K]> };

export interface CommandSpec<T extends OptionTable = OptionTable> {
  /** As typed after `gsa-bridge`: "server", "config check", "reviews list". */
  readonly name: string;
  /** What follows the name in the usage line; every flag of `options` appears in it. */
  readonly synopsis: string;
  /** One line for the command list. */
  readonly summary: string;
  /** More lines for the command's own --help: what it does, what its exit codes mean. */
  readonly details?: readonly string[];
  readonly options: T;
  /** How many positional arguments it takes (default none). */
  readonly maxPositionals?: number;
}

/** A command made of subcommands (`config check`, `reviews list|retry`), each with its own table. */
export interface CommandGroupSpec {
  readonly name: string;
  readonly summary: string;
  readonly subcommands: readonly CommandSpec[];
}

export interface ParsedCommandLine<T extends OptionTable> {
  readonly options: OptionValues<T>;
  readonly positionals: readonly string[];
  /** -h or --help was given: the caller prints help and does nothing else, whatever else is wrong. */
  readonly help: boolean;
}

/** Declares a command's table with its literal types kept, so parsing returns typed values. */
export function defineCommand<const T extends OptionTable>(spec: CommandSpec<T>): CommandSpec<T> {
  return spec;
}

/** Usage line of a command, as help and errors print it. */
export function usageLine(spec: CommandSpec): string {
  return `gsa-bridge ${spec.name}${spec.synopsis === '' ? '' : ` ${spec.synopsis}`}`;
}

function seeHelp(spec: CommandSpec): string {
  return `see gsa-bridge ${spec.name} --help`;
}

function integerValue(flag: string, option: IntegerOptionSpec, text: string): number {
  const trimmed = text.trim();
  const value = /^-?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  const min = option.min ?? Number.MIN_SAFE_INTEGER;
  const max = option.max ?? Number.MAX_SAFE_INTEGER;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    const range = option.min !== undefined && option.max !== undefined ? ` from ${min} to ${max}` : option.min !== undefined ? ` of at least ${min}` : '';
    throw new UsageError(`--${flag} must be a whole number${range}, got "${text}"`);
  }
  return value;
}

function stringValue(flag: string, option: StringOptionSpec, text: string): string {
  if (option.choices !== undefined && !option.choices.includes(text)) {
    throw new UsageError(`--${flag} must be one of ${option.choices.join(', ')}, got "${text}"`);
  }
  return text;
}

function unknownOption(spec: CommandSpec, flag: string): UsageError {
  const guess = flag.startsWith('--') ? closestKey(flag.slice(2), Object.keys(spec.options)) : undefined;
  const hint = guess === undefined ? '' : ` (did you mean --${guess}?)`;
  return new UsageError(`gsa-bridge ${spec.name} has no option ${flag}${hint}; ${seeHelp(spec)}`);
}

/**
 * Parses `args` by the command's table. `--name value` and `--name=value`; a value may start with a single "-" (a
 * negative number, a comment) but not with "--", which is taken for a forgotten value (`--server --steam-id 1`);
 * `--` ends the flags. A flag given twice is refused rather than silently overridden.
 * @throws UsageError naming the flag, unless help was asked for (then help is true and nothing is checked).
 */
export function parseCommandLine<T extends OptionTable>(spec: CommandSpec<T>, args: readonly string[]): ParsedCommandLine<T> {
  const values: Record<string, string | number | boolean | undefined> = {};
  const positionals: string[] = [];
  const problems: UsageError[] = [];
  let help = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (arg === '--') {
      positionals.push(...args.slice(index + 1));
      break;
    }
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) {
      problems.push(unknownOption(spec, arg));
      continue;
    }
    const equals = arg.indexOf('=');
    const name = arg.slice(2, equals === -1 ? undefined : equals);
    const inline = equals === -1 ? undefined : arg.slice(equals + 1);
    const option = Object.hasOwn(spec.options, name) ? spec.options[name] : undefined;
    if (option === undefined) {
      problems.push(unknownOption(spec, `--${name}`));
      continue;
    }
    if (Object.hasOwn(values, name)) {
      problems.push(new UsageError(`--${name} is given twice; give it once`));
      continue;
    }
    if (option.type === 'boolean') {
      if (inline !== undefined) problems.push(new UsageError(`--${name} takes no value (got "${inline}")`));
      values[name] = true;
      continue;
    }
    let text = inline;
    if (text === undefined) {
      const next = args[index + 1];
      if (next === undefined || next.startsWith('--')) {
        problems.push(new UsageError(`--${name} needs a value: --${name} ${option.value ?? 'VALUE'}`));
        continue;
      }
      text = next;
      index++;
    }
    try {
      values[name] = option.type === 'integer' ? integerValue(name, option, text) : stringValue(name, option, text);
    } catch (error) {
      problems.push(error as UsageError);
    }
  }
  if (help) return { options: values as OptionValues<T>, positionals, help };

  const [problem] = problems;
  if (problem !== undefined) throw problem;
  const maxPositionals = spec.maxPositionals ?? 0;
  if (positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument "${positionals[maxPositionals] ?? ''}"; ${seeHelp(spec)}`);
  }
  for (const [name, option] of Object.entries(spec.options)) {
    if (Object.hasOwn(values, name)) continue;
    if (option.required === true) throw new UsageError(`--${name} ${option.value ?? 'VALUE'} is required`);
    values[name] = option.type === 'boolean' ? false : option.default;
  }
  return { options: values as OptionValues<T>, positionals, help };
}

/** True when args ask for help: parsed as the command parses them, so `--comment -h` is a comment, not a request. */
export function helpRequested(spec: CommandSpec, args: readonly string[]): boolean {
  try {
    return parseCommandLine(spec, args).help;
  } catch {
    return false;
  }
}

/** Exactly one of --steam-id / --eos-id, as the CLI contract writes it. */
export function playerOf(options: { readonly 'steam-id': string | undefined; readonly 'eos-id': string | undefined }): PlayerIds {
  const steamId = options['steam-id'];
  const eosId = options['eos-id'];
  if ((steamId === undefined) === (eosId === undefined)) throw new UsageError('give exactly one of --steam-id ID or --eos-id ID');
  return steamId !== undefined ? { steamId } : { eosId };
}

// Flags several commands share, so they read and default the same everywhere.

export const CONFIG_OPTION = {
  config: { type: 'string', value: 'FILE', description: 'the config file', defaultText: '$GSA_BRIDGE_CONFIG, else ./config.json' },
} as const satisfies OptionTable;

export const PRETTY_OPTION = {
  pretty: { type: 'boolean', description: 'human-readable log lines on stderr instead of JSON', defaultText: 'on when stderr is a terminal' },
} as const satisfies OptionTable;

export const PLAYER_OPTIONS = {
  'steam-id': { type: 'string', value: 'ID', description: "the player's SteamID64 (17 digits)", defaultText: 'none; give this or --eos-id' },
  'eos-id': { type: 'string', value: 'ID', description: "the player's Epic Online Services id (32 hex digits)", defaultText: 'none; give this or --steam-id' },
} as const satisfies OptionTable;

/** The one overall time limit of a one-shot command (server, mute-check, review), retries included. */
export const TIMEOUT_OPTION = {
  timeout: {
    type: 'integer',
    value: 'SECONDS',
    min: 1,
    max: 3600,
    default: 15,
    description: 'give up after this many seconds, retries included (exit 1); on a terminal each retry is shown',
  },
} as const satisfies OptionTable;
