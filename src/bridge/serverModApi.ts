// The Mod API v2 side of one server's bridge, built in one place: the access checks with their cache, the door that
// enforces them at joins, the money requests with their pacing, and the requests mods make. The bridge holds one and
// reads the settings and the client in force through the getters it passes, so a reload applies without a rebuild.
// It must never keep a client or settings of its own: everything is read at each call.

import type { Logger } from 'pino';
import type { GsaClient } from '../gsa/index.js';
import type { Clock } from '../time/clock.js';
import { AccessChecks } from './accessChecks.js';
import { AccessDoor } from './accessDoor.js';
import type { BridgeEvents } from './events.js';
import { DEFAULT_LOOKUP_IDS, reviewIdOf } from './lookupIds.js';
import { ModApiRequests } from './modApiRequests.js';
import type { MoneyLedger } from './moneyLedger.js';
import { MoneyRequests } from './moneyRequests.js';
import { MOD_API_DEFAULTS, accessOptionsOf, type ModApiOptions, type ServerOptions } from './options.js';
import type { ReportStore } from './reportStore.js';

export interface ServerModApiOptions {
  readonly server: () => ServerOptions;
  readonly settings: () => ModApiOptions | undefined;
  readonly client: () => GsaClient;
  readonly reports: ReportStore | undefined;
  readonly money: MoneyLedger | undefined;
  readonly closed: () => boolean;
  readonly logger: Logger;
  readonly events: BridgeEvents | undefined;
  /** Cooldowns and the UI cache (wall-clock or fake), and the access cache's TTLs. */
  readonly clock: Clock;
}

export class ServerModApi {
  readonly access: AccessChecks;
  readonly door: AccessDoor;
  readonly requests: ModApiRequests;

  constructor(options: ServerModApiOptions) {
    const { server, client, logger, events, clock } = options;
    const accessSettings = () => accessOptionsOf(server().access);
    const settings = () => options.settings() ?? MOD_API_DEFAULTS;
    this.access = new AccessChecks({
      server: server().name,
      // Asked by the one id servers[].lookupIds picks first (AccessChecks only asks for players with one).
      ask: (player, request) => {
        const asked = reviewIdOf(player, server().lookupIds ?? DEFAULT_LOOKUP_IDS);
        if (asked === undefined) return Promise.reject(new Error('no steam_id or eos_id to ask by'));
        return client().checkAccess(server().name, asked, { kind: request.lowPriority === true ? 'refresh' : 'first', source: request.source });
      },
      settings: accessSettings,
      logger,
      events,
      clock,
    });
    this.door = new AccessDoor({ checks: this.access, settings: accessSettings, logger });
    const moneyRequests = new MoneyRequests({ server: server().name, ledger: options.money, settings, logger, events, clock });
    this.requests = new ModApiRequests({
      server,
      settings,
      client,
      access: this.access,
      reports: options.reports,
      closed: options.closed,
      logger,
      moneyRequests,
      clock,
    });
  }

  /** A reload brought other API credentials: what GSA said under the old ones is forgotten. */
  clear(): void {
    this.access.clear();
    this.requests.clear();
  }
}
