// Tells the host, once, that GSA refused the System API key (401), and once when it is taken again: while it is
// refused, Minecraft players' lines are decided by mute.onUnknown, the chat filter's mutes fail, and mods' actions
// and broadcasts are refused. Without this a wrong key would only show at debug level. It reads the System API
// client's request events; it never sees the key and never decides anything.

import type { Logger } from 'pino';
import type { RequestEvent } from '../gsa/index.js';

export class SystemKeyHealth {
  readonly #logger: Logger;
  #refused = false;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** True from a 401 of the System API until its next 2xx (gsa_bridge_credentials_refused{api="system"}). */
  get refused(): boolean {
    return this.#refused;
  }

  observe(event: RequestEvent): void {
    if (event.code === 'unauthorized') {
      if (this.#refused) return;
      this.#refused = true;
      this.#logger.error(
        { status: event.status, endpoint: event.endpoint },
        "GSA refused the System API key (401): check api.system.key or GSA_SYSTEM_API_KEY. Until then Minecraft players' lines are decided by mute.onUnknown, the chat filter's mutes fail, and mods' actions through the System API are refused",
      );
      return;
    }
    if (this.#refused && event.status !== undefined && event.status >= 200 && event.status < 300) {
      this.#refused = false;
      this.#logger.info({ endpoint: event.endpoint }, 'GSA takes the System API key again');
    }
  }
}
