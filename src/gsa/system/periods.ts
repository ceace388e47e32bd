// GSA's duration codes for mutes and bans (System API v2, reference/gsa-system-api-v2.md §2.7): the only place they
// are listed. `m` is months for 1–11 and minutes only for 15, 30 and 45; `7d` (the docs' own example) is not a code.
// Pure: no I/O.

export const PERIOD_CODES = [
  '15m', '30m', '45m',
  '1h', '2h', '3h', '4h', '5h', '6h', '12h',
  '1d', '2d', '3d', '4d', '5d', '6d',
  '1w', '2w', '3w',
  '1m', '2m', '3m', '4m', '5m', '6m', '7m', '8m', '9m', '10m', '11m',
  '1y',
  '0', 'eod', 'eow', 'eom', 'eoy',
] as const;

export type PeriodCode = (typeof PERIOD_CODES)[number];

const CODES: ReadonlySet<string> = new Set(PERIOD_CODES);

export function isPeriodCode(value: string): value is PeriodCode {
  return CODES.has(value);
}

/** The codes as a host reads them in a message: "15m 30m 45m 1h–6h 12h 1d–6d 1w–3w 1m–11m (months) 1y 0 (forever) eod eow eom eoy". */
export const PERIOD_CODES_TEXT = '15m 30m 45m, 1h–6h 12h, 1d–6d, 1w–3w, 1m–11m (months), 1y, 0 (forever), eod eow eom eoy';

/** Why `value` is not a period code, naming the codes (and the nearest spelling for a common slip); undefined when it is one. */
export function periodProblem(value: string): string | undefined {
  if (isPeriodCode(value)) return undefined;
  const days = /^(\d+)d$/.exec(value);
  const hint = days !== null && Number(days[1]) === 7 ? ' (a week is 1w)' : '';
  return `is not one of GSA's period codes${hint}: ${PERIOD_CODES_TEXT}`;
}

/** How long a mute lasts, as the System API takes it: a period code, an end date (YYYY-MM-DD) or for good. */
export type MuteDuration =
  | { readonly type: 'period'; readonly period: PeriodCode }
  | { readonly type: 'date'; readonly date: string }
  | { readonly type: 'permanent' };
