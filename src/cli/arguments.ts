// Parses a command's flags with node:util parseArgs and turns every mistake into a UsageError naming the
// flag. It never reads secrets from argv: there are no flags for them (they would show in `ps`).

import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { PlayerIds } from '../gsa/index.js';
import { UsageError } from './usageError.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArguments {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

export function parseCommandArguments(args: readonly string[], options: Options, maxPositionals = 0): ParsedArguments {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length > maxPositionals) {
    throw new UsageError(`unexpected argument "${parsed.positionals[maxPositionals] ?? ''}"`);
  }
  return { values: parsed.values as Record<string, string | boolean | undefined>, positionals: parsed.positionals };
}

export function stringFlag(parsed: ParsedArguments, name: string): string | undefined {
  const value = parsed.values[name];
  return typeof value === 'string' ? value : undefined;
}

export function requiredFlag(parsed: ParsedArguments, name: string): string {
  const value = stringFlag(parsed, name);
  if (value === undefined) throw new UsageError(`--${name} is required`);
  return value;
}

/** A whole number flag; `undefined` when absent. */
export function integerFlag(parsed: ParsedArguments, name: string): number | undefined {
  const value = stringFlag(parsed, name);
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`--${name} must be a whole number, got "${value}"`);
  return Number(value);
}

/** Exactly one of --steam-id / --eos-id, as the CLI contract writes it. */
export function playerFlags(parsed: ParsedArguments): PlayerIds {
  const steamId = stringFlag(parsed, 'steam-id');
  const eosId = stringFlag(parsed, 'eos-id');
  if ((steamId === undefined) === (eosId === undefined)) throw new UsageError('give exactly one of --steam-id ID or --eos-id ID');
  return steamId !== undefined ? { steamId } : { eosId };
}

export const CONFIG_OPTION = { config: { type: 'string' } } as const satisfies Options;
export const PLAYER_OPTIONS = { 'steam-id': { type: 'string' }, 'eos-id': { type: 'string' } } as const satisfies Options;
