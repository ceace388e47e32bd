// GSA's dashboard settings for a server's mod UI (key bindings and radial menu, the vote screen), kept for 60 s: they
// change when the host edits the dashboard, not per player, so one call a minute at most serves every mod that asks.
// One call in flight per kind however many ask; a failure is never cached.
// It never asks GSA itself (its `fetch` does) and never reads the answers: they go to mods as GSA sent them.

import type { Clock } from '../time/clock.js';

export const DASHBOARD_SETTINGS_TTL_MS = 60_000;

export type DashboardSettingsKind = 'settings' | 'modal';

export class DashboardSettingsCache {
  readonly #clock: Clock;
  readonly #fetch: (kind: DashboardSettingsKind) => Promise<unknown>;
  readonly #kept = new Map<DashboardSettingsKind, { readonly at: number; readonly data: unknown }>();
  readonly #inFlight = new Map<DashboardSettingsKind, Promise<unknown>>();

  constructor(fetch: (kind: DashboardSettingsKind) => Promise<unknown>, clock: Clock) {
    this.#fetch = fetch;
    this.#clock = clock;
  }

  get(kind: DashboardSettingsKind): Promise<unknown> {
    const kept = this.#kept.get(kind);
    if (kept !== undefined && this.#clock.now() - kept.at < DASHBOARD_SETTINGS_TTL_MS) return Promise.resolve(kept.data);
    const running = this.#inFlight.get(kind);
    if (running !== undefined) return running;
    const asked = this.#fetch(kind)
      .then((data) => {
        this.#kept.set(kind, { at: this.#clock.now(), data });
        return data;
      })
      .finally(() => this.#inFlight.delete(kind));
    this.#inFlight.set(kind, asked);
    return asked;
  }

  /** Other credentials (a reload): the old answers were another dashboard's. */
  clear(): void {
    this.#kept.clear();
  }
}
