// The longest delay Node's timers accept. setTimeout turns anything above 2^31-1 ms into 1 ms (with only a
// warning), so an unchecked "wait a very long time" becomes "do it again at once".
// Every delay that comes from outside (a service's Retry-After, a config value) goes through clampTimerMs.

/** 2^31 - 1 ms, about 24.8 days. */
export const MAX_TIMER_MS = 2_147_483_647;

/** `ms` as a safe timer delay: at least 0, at most MAX_TIMER_MS; NaN becomes 0. */
export function clampTimerMs(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}
