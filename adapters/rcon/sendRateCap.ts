// The send-rate cap of one console session: at most `commands` sends in any window of `perMs`, so a burst of
// commands cannot trip a server's own flood guard. When the window is full it schedules one retry for the moment
// the oldest send leaves it.
// It must never: count a send that it refused, or keep more than one retry timer.
import type { Clock } from '../../src/time/clock.js';
import { clampTimerMs } from '../../src/time/timerLimit.js';

export class SendRateCap {
  readonly #commands: number;
  readonly #perMs: number;
  readonly #clock: Clock;
  readonly #retry: () => void;
  readonly #sendTimes: number[] = [];
  #timer: NodeJS.Timeout | undefined;

  /** `commands` 0 means no cap; `retry` is called once the window has room again after a refusal. */
  constructor(commands: number, perMs: number, clock: Clock, retry: () => void) {
    this.#commands = commands;
    this.#perMs = perMs;
    this.#clock = clock;
    this.#retry = retry;
  }

  /** True when one more send fits the window now (and counts it); false with a retry scheduled when it does not. */
  take(): boolean {
    if (this.#commands <= 0) return true;
    const now = this.#clock.now();
    while (this.#sendTimes.length > 0 && now - (this.#sendTimes[0] ?? 0) >= this.#perMs) this.#sendTimes.shift();
    if (this.#sendTimes.length >= this.#commands) {
      if (this.#timer === undefined) {
        const waitMs = clampTimerMs(Math.max(1, (this.#sendTimes[0] ?? now) + this.#perMs - now));
        this.#timer = setTimeout(() => {
          this.#timer = undefined;
          this.#retry();
        }, waitMs);
      }
      return false;
    }
    this.#sendTimes.push(now);
    return true;
  }

  /** Drops the scheduled retry (the session ended); the sends already counted stay in the window. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
