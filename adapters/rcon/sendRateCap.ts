// The send-rate cap of one console session: at most `commands` commands sent in any sliding window of `perMs`, so a
// burst cannot trip a game's own flood guard (Conan locks RCON out after ~10–20 requests in 30 s). When the window is
// full it sets one timer for the moment the oldest send leaves it, and then asks the owner to send again.
// It must never: count a send it refused, hold more than one timer, or send anything itself (the owner does).
import type { Clock } from '../../src/time/clock.js';
import { clampTimerMs } from '../../src/time/timerLimit.js';

export class SendRateCap {
  readonly #commands: number;
  readonly #perMs: number;
  readonly #clock: Clock;
  readonly #retry: () => void;
  readonly #sendTimes: number[] = [];
  #timer: NodeJS.Timeout | undefined;

  /**
   * `commands` 0 means no cap. `retry` is called once the window has room again after a refusal; it is given once,
   * so the window's timer is the only thing made per refusal.
   */
  constructor(commands: number, perMs: number, clock: Clock, retry: () => void) {
    this.#commands = commands;
    this.#perMs = perMs;
    this.#clock = clock;
    this.#retry = retry;
  }

  /** True when one more send fits the window now (and counts it); false, with the retry timer set, when it does not. */
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

  /** Drops the retry timer (the session ended, or the client closed); the sends already counted stay in the window. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
