// Renders --help from a command's option table (options.ts): the usage line, what it does, and every flag with its
// value, what it is for and its default. Pure text; it never runs a command.

import type { CommandGroupSpec, CommandSpec, OptionSpec } from './options.js';
import { usageLine } from './options.js';

function flagColumn(name: string, option: OptionSpec): string {
  return option.type === 'boolean' ? `--${name}` : `--${name} ${option.value ?? 'VALUE'}`;
}

/** "(required)", "(default: 30)", "(default: off)": every flag says what happens when it is left out. */
function defaultColumn(option: OptionSpec): string {
  if (option.required === true) return '(required)';
  if (option.defaultText !== undefined) return `(default: ${option.defaultText})`;
  if (option.type === 'boolean') return '(default: off)';
  if (option.default !== undefined) return `(default: ${String(option.default)})`;
  return '(default: none)';
}

function choicesOf(option: OptionSpec): string {
  return option.type === 'string' && option.choices !== undefined ? `; one of ${option.choices.join(', ')}` : '';
}

/** The options block of one command, flags aligned in one column. */
export function optionLines(spec: CommandSpec): string[] {
  const rows = Object.entries(spec.options).map(([name, option]) => [flagColumn(name, option), `${option.description}${choicesOf(option)} ${defaultColumn(option)}`] as const);
  rows.push(['-h, --help', 'show this help']);
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`);
}

export function commandHelp(spec: CommandSpec): string {
  return [`usage: ${usageLine(spec)}`, '', spec.summary, ...(spec.details ?? []), '', 'options:', ...optionLines(spec), ''].join('\n');
}

export function groupHelp(group: CommandGroupSpec): string {
  return [
    `usage: ${group.subcommands.map((sub) => usageLine(sub)).join('\n       ')}`,
    '',
    group.summary,
    ...group.subcommands.flatMap((sub) => ['', `gsa-bridge ${sub.name}: ${sub.summary}`, ...(sub.details ?? []), 'options:', ...optionLines(sub)]),
    '',
  ].join('\n');
}
