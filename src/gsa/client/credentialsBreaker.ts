// Stops spending an API key's budget on credentials the service has refused: after a 401 on a call whose 401 can only
// mean the credentials (a mute lookup, a review; never a webhook, whose 401 may mean a server id not bound to the
// key), calls fail at once with `credentials_refused` and send nothing. One real call a minute goes through as the
// probe (the first that comes after the wait: no call is made only to probe, so an idle sidecar spends nothing), and
// the first answer that passed the service's credential check closes the breaker. A reload asks for a probe at once.
// It never sends, waits or logs: the call pipeline asks it before a call takes a place in the budget and tells it
// what the service answered.

import { systemClock, type Clock } from '../../time/clock.js';
import { CredentialsRefusedError } from '../errors.js';

/** How long calls are refused after a 401 before one goes through as a probe, in ms. */
export const DEFAULT_PROBE_INTERVAL_MS = 60_000;

export interface CredentialsBreakerOptions {
  /** Time source for the probe's wait; default the system clock. Tests pass fake time. */
  readonly clock?: Clock | undefined;
  /** @default 60 000 (one probe a minute: about 1 % of the default budget while the key is refused) */
  readonly probeIntervalMs?: number | undefined;
}

/** What the breaker lets a call do: go (closed, or it is the probe), or fail with this error, nothing sent. */
export type BreakerAdmission = { readonly pass: true; readonly probe: boolean } | { readonly pass: false; readonly error: CredentialsRefusedError };

/** Statuses that show the credentials passed the service's check: a 2xx, or a refusal of the request itself. */
function passedCredentialCheck(status: number): boolean {
  return (status >= 200 && status < 300) || status === 403 || status === 404 || status === 422;
}

export class CredentialsBreaker {
  readonly #clock: Clock;
  readonly #probeIntervalMs: number;
  /** Clock time of the 401 that opened the breaker; undefined while closed. */
  #openedAt: number | undefined;
  /** Clock time from which the next call may go as the probe. */
  #probeAt = 0;
  #probing = false;

  constructor(options: CredentialsBreakerOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#probeIntervalMs = Math.max(1, options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS);
  }

  /** True after a 401 until an answer shows the credentials pass again. */
  get open(): boolean {
    return this.#openedAt !== undefined;
  }

  /** Ms until the next call may go as the probe: 0 while closed, or when the probe is due (or on its way). */
  get nextProbeInMs(): number {
    if (this.#openedAt === undefined || this.#probing) return 0;
    return Math.max(0, this.#probeAt - this.#clock.now());
  }

  /**
   * Asked before a call takes a place in the budget. A probe admitted must be answered by `observe` or `probeEnded`.
   * `mayProbe` false (a shop order, a token spend) never makes the call the probe: while open it is refused, so
   * money never rides on a check of the credentials and a refusal of it always means nothing was sent.
   */
  admit(mayProbe = true): BreakerAdmission {
    if (this.#openedAt === undefined) return { pass: true, probe: false };
    if (mayProbe && !this.#probing && this.#clock.now() >= this.#probeAt) {
      this.#probing = true;
      return { pass: true, probe: true };
    }
    const inMs = this.#probing ? 0 : Math.max(0, this.#probeAt - this.#clock.now());
    const since = new Date(this.#openedAt).toISOString();
    const next = this.#probing
      ? 'a probe is on its way'
      : mayProbe
        ? `the next call goes through as a probe in ${Math.ceil(inMs / 1000)} s`
        : `a lookup or a review goes through as the probe ${inMs === 0 ? 'now' : `in ${Math.ceil(inMs / 1000)} s`}; a shop order or a token spend is never the probe`;
    return {
      pass: false,
      error: new CredentialsRefusedError(`not sent: GSA refused these API credentials (401) at ${since}, so calls with them are paused; ${next} (or at once after a reload)`),
    };
  }

  /** The service answered a call this breaker covers with `status`. */
  observe(status: number, probe: boolean): void {
    if (status === 401) {
      this.#openedAt ??= this.#clock.now();
      this.#probeAt = this.#clock.now() + this.#probeIntervalMs;
      if (probe) this.#probing = false;
      return;
    }
    if (passedCredentialCheck(status)) {
      this.#openedAt = undefined;
      this.#probing = false;
      return;
    }
    // Another answer (a 429, a 5xx) says nothing about the credentials: the probe is spent, the next in a minute.
    if (probe) this.probeEnded();
  }

  /** The probe ended without an answer about the credentials (no answer, never sent): the next one in a full interval. */
  probeEnded(): void {
    if (!this.#probing) return;
    this.#probing = false;
    this.#probeAt = this.#clock.now() + this.#probeIntervalMs;
  }

  /** Lets the next call go as the probe at once (a reload: the host may have fixed the key's binding). True when open. */
  probeNow(): boolean {
    if (this.#openedAt === undefined) return false;
    this.#probeAt = this.#clock.now();
    return true;
  }
}
