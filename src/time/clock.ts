// The clock the core reads, injected wherever time decides an outcome (TTLs, cooldowns, windows, backoff), so
// tests drive it with fake timers or a hand-set value instead of sleeping.
// It never schedules anything: timers stay the platform's (vitest's fake timers replace them in tests).

export interface Clock {
  /** Milliseconds; only differences between readings are meaningful to the callers that use it for TTLs. */
  now(): number;
}

/** Wall-clock milliseconds (Date.now), for what is persisted or compared across restarts. */
export const systemClock: Clock = { now: () => Date.now() };
