// Tells the host, once, that GSA refused the System API key (401), and once when it is taken again: while it is
// refused, Minecraft players' lines are decided by mute.onUnknown, the chat filter's mutes fail, and mods' actions
// and broadcasts are refused. Without this a wrong key would only show at debug level. While refused it is a
// service problem of kind `credentials`, as the mod API key's is: /readyz says not ready and notify tells
// `credentials_refused`. It reads the System API client's request events; it never sees the key and never decides
// anything.

import type { Logger } from 'pino';
import type { RequestEvent } from '../gsa/index.js';
import { SYSTEM_CREDENTIALS_PROBLEM, type ServiceProblem } from '../ops/serviceHealth.js';
import { systemClock, type Clock } from '../time/clock.js';

const REFUSED_MESSAGE =
  "GSA refused the System API key (401): check api.system.key or GSA_SYSTEM_API_KEY. Until then Minecraft players' lines are decided by mute.onUnknown, the chat filter's mutes fail, and mods' actions through the System API are refused";

export class SystemKeyHealth {
  readonly #logger: Logger;
  readonly #clock: Clock;
  /** Since the first 401 of this refusal, with the 401s counted; undefined while the key is taken. */
  #refusal: { readonly since: number; failures: number } | undefined;

  /** `clock`: wall-clock ms, as ServiceHealth's (a problem's `since` is on it). Tests pass fake time. */
  constructor(logger: Logger, clock: Clock = systemClock) {
    this.#logger = logger;
    this.#clock = clock;
  }

  /** True from a 401 of the System API until its next 2xx (gsa_bridge_credentials_refused{api="system"}). */
  get refused(): boolean {
    return this.#refusal !== undefined;
  }

  /** The refusal as a service problem (for /readyz and notify), or undefined while the key is taken. */
  get problem(): ServiceProblem | undefined {
    const refusal = this.#refusal;
    if (refusal === undefined) return undefined;
    return { key: SYSTEM_CREDENTIALS_PROBLEM, kind: 'credentials', message: REFUSED_MESSAGE, since: refusal.since, failures: refusal.failures };
  }

  observe(event: RequestEvent): void {
    if (event.code === 'unauthorized') {
      if (this.#refusal !== undefined) {
        this.#refusal.failures += 1;
        return;
      }
      this.#refusal = { since: this.#clock.now(), failures: 1 };
      this.#logger.error({ status: event.status, endpoint: event.endpoint }, REFUSED_MESSAGE);
      return;
    }
    if (this.#refusal !== undefined && event.status !== undefined && event.status >= 200 && event.status < 300) {
      this.#refusal = undefined;
      this.#logger.info({ endpoint: event.endpoint }, 'GSA takes the System API key again');
    }
  }
}
