/**
 * The emulator's own reading of GSA's mute durations (System API v2, reference/gsa-system-api-v2.md §2.7): a period
 * code or an end date becomes the wall-clock time the mute ends, in UTC. Written from the reference doc on purpose,
 * not imported from the client's list, so a slip in one shows up against the other.
 * Pure: must never read a clock itself (the caller passes the emulator's wall clock) and never throw on input.
 */

/** Fixed-length codes: `m` is minutes only for 15/30/45 (1m–11m are months, below). */
const FIXED_MS: Readonly<Record<string, number>> = {
  '15m': 15 * 60_000,
  '30m': 30 * 60_000,
  '45m': 45 * 60_000,
  ...Object.fromEntries([1, 2, 3, 4, 5, 6, 12].map((h) => [`${h}h`, h * 3_600_000])),
  ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((d) => [`${d}d`, d * 86_400_000])),
  ...Object.fromEntries([1, 2, 3].map((w) => [`${w}w`, w * 7 * 86_400_000])),
};

/** When a mute ends: a Unix time in ms, or null for one that never ends. */
export type MuteEnd = { readonly ok: true; readonly until: number | null } | { readonly ok: false };

const INVALID: MuteEnd = { ok: false };

/**
 * The end of a mute of `period` starting at `wallNow` (Unix ms). Months and the year are calendar steps (1m from
 * 31 January ends on the last day of February, as Carbon's addMonthsNoOverflow would); `eod`/`eow`/`eom`/`eoy` end
 * on the last millisecond of the current UTC day, ISO week (Monday first), month or year; `0` never ends.
 */
export function periodEnd(period: string, wallNow: number): MuteEnd {
  if (period === '0') return { ok: true, until: null };
  const fixed = Object.hasOwn(FIXED_MS, period) ? FIXED_MS[period] : undefined;
  if (fixed !== undefined) return { ok: true, until: wallNow + fixed };
  const months = /^([1-9]|1[01])m$/.exec(period);
  if (months !== null) return { ok: true, until: addMonths(wallNow, Number(months[1])) };
  if (period === '1y') return { ok: true, until: addMonths(wallNow, 12) };
  const now = new Date(wallNow);
  const y = now.getUTCFullYear();
  const mo = now.getUTCMonth();
  const d = now.getUTCDate();
  switch (period) {
    case 'eod':
      return { ok: true, until: Date.UTC(y, mo, d + 1) - 1 };
    case 'eow': {
      const daysSinceMonday = (now.getUTCDay() + 6) % 7;
      return { ok: true, until: Date.UTC(y, mo, d - daysSinceMonday + 7) - 1 };
    }
    case 'eom':
      return { ok: true, until: Date.UTC(y, mo + 1, 1) - 1 };
    case 'eoy':
      return { ok: true, until: Date.UTC(y + 1, 0, 1) - 1 };
    default:
      return INVALID;
  }
}

/**
 * A `date` mute (`YYYY-MM-DD`, a real calendar day) ends at the start of that day, UTC; a day whose start is not
 * after `wallNow` (today or earlier) is invalid, as a mute that ended already would be. [inference: the docs say
 * "End date" and nothing about the time of day.]
 */
export function dateEnd(date: string, wallNow: number): MuteEnd {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (match === null) return INVALID;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const start = Date.UTC(y, m - 1, d);
  const check = new Date(start);
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) return INVALID;
  return start > wallNow ? { ok: true, until: start } : INVALID;
}

/** `months` calendar months later, the day clamped to the target month's last day; the time of day kept. */
function addMonths(wallNow: number, months: number): number {
  const now = new Date(wallNow);
  const targetMonth = now.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(now.getUTCFullYear(), targetMonth + 1, 0)).getUTCDate();
  return Date.UTC(
    now.getUTCFullYear(),
    targetMonth,
    Math.min(now.getUTCDate(), lastDay),
    now.getUTCHours(),
    now.getUTCMinutes(),
    now.getUTCSeconds(),
    now.getUTCMilliseconds(),
  );
}
