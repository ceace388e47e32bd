// `gsa-bridge mute (--steam-id ID | --eos-id ID | --player UUID) (--period P | --until YYYY-MM-DD | --permanent)
// [--note TEXT]`: one mute on every server of the dashboard through GSA's System API. The duration is checked before
// anything is sent (GSA's period codes only; a date from today on). A player GSA does not know, and a mute within
// GSA's 120 s per player, are refusals (exit 1) with the service's words. It never takes or prints the key.

import { periodProblem, type MuteDuration, type PeriodCode } from '../gsa/index.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { CONFIG_OPTION, PRETTY_OPTION, TIMEOUT_OPTION, defineCommand, parseCommandLine } from './options.js';
import { runPlayerModeration } from './playerModeration.js';
import { SYSTEM_PLAYER_OPTIONS, playerChoice } from './systemPlayerOptions.js';

export const MUTE_COMMAND = defineCommand({
  name: 'mute',
  synopsis: '(--steam-id ID | --eos-id ID | --player UUID) (--period P | --until YYYY-MM-DD | --permanent) [--note TEXT] [--timeout SECONDS] [--config FILE] [--pretty]',
  summary: "mutes a player on every server of the dashboard through GSA's System API (needs api.system.key or GSA_SYSTEM_API_KEY)",
  details: [
    "P is one of GSA's period codes: 15m 30m 45m, 1h–6h 12h, 1d–6d, 1w–3w, 1m–11m (months), 1y, 0 (forever), eod eow eom eoy.",
    'GSA allows one mute or unmute per player every 120 s. Exit 0 accepted, 1 refused by the service (its message printed),',
    '2 on a usage or config error (a period that is not a code, a date in the past, no System API key).',
  ],
  options: {
    ...SYSTEM_PLAYER_OPTIONS,
    period: { type: 'string', value: 'P', description: "how long, as one of GSA's period codes", defaultText: 'none; give one of --period, --until, --permanent' },
    until: { type: 'string', value: 'YYYY-MM-DD', description: 'the day the mute ends (today or later)', defaultText: 'none' },
    permanent: { type: 'boolean', description: 'mute for good', defaultText: 'off' },
    note: { type: 'string', value: 'TEXT', description: "a note kept with the mute on GSA's side", defaultText: 'none' },
    ...TIMEOUT_OPTION,
    ...CONFIG_OPTION,
    ...PRETTY_OPTION,
  },
});

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `--until`'s value checked: a real calendar day, not before today (UTC). */
export function untilDate(value: string, now: number): string {
  const match = DATE.exec(value);
  const day = match === null ? Number.NaN : Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (match === null || Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== value) {
    throw new UsageError(`--until must be a day as YYYY-MM-DD, got "${value}"`);
  }
  const today = new Date(now).toISOString().slice(0, 10);
  if (value < today) throw new UsageError(`--until ${value} is in the past (today is ${today} UTC)`);
  return value;
}

function durationOf(options: { readonly period: string | undefined; readonly until: string | undefined; readonly permanent: boolean }, now: number): MuteDuration {
  const given = [options.period !== undefined, options.until !== undefined, options.permanent].filter(Boolean).length;
  if (given !== 1) throw new UsageError('give exactly one of --period P, --until YYYY-MM-DD or --permanent');
  if (options.period !== undefined) {
    const problem = periodProblem(options.period);
    if (problem !== undefined) throw new UsageError(`--period "${options.period}" ${problem}`);
    return { type: 'period', period: options.period as PeriodCode };
  }
  if (options.until !== undefined) return { type: 'date', date: untilDate(options.until, now) };
  return { type: 'permanent' };
}

/** The duration as the moderation log shows it: the period code, the end date, or `permanent`. */
function periodText(duration: MuteDuration): string {
  return duration.type === 'period' ? duration.period : duration.type === 'date' ? duration.date : 'permanent';
}

export async function muteCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(MUTE_COMMAND, args);
  const choice = playerChoice(options);
  const duration = durationOf(options, Date.now());
  return runPlayerModeration(context, {
    action: 'mute',
    choice,
    period: periodText(duration),
    options,
    send: (system, uuid, call) => system.mute(uuid, duration, options.note, call),
  });
}
