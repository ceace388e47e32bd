// GSA's Mod API v2 features for one game server, as its adapters offer them to mods and players (ModApiSink): each
// request checked against the server's allowRequests, its player asked by the one id servers[].lookupIds picks, and
// sent with the host's credentials, which never leave the sidecar. Reads (access, the report form, the shop) spend
// mute-class budget under the asking adapter's source key, so they take turns with chat and never starve reports
// (review class) or orders (action class); the dashboard's UI settings are asked at most once a minute; a report is
// stored durably before it is acknowledged (ReportStore); an order or a token spend moves money at most once
// (moneyRequests.ts). It imports no adapter and no storage module: the stores are ports.

import { playerLogId } from '../ids/playerIds.js';
import type { Logger } from 'pino';
import type { GsaClient, OnePlayerId } from '../gsa/index.js';
import { characterCount, cleanComment } from '../gsa/index.js';
import type { Clock } from '../time/clock.js';
import { AccessChecks } from './accessChecks.js';
import { DashboardSettingsCache } from './dashboardSettingsCache.js';
import { BadInputRefusal, RequestNotAllowedRefusal, UnavailableRefusal } from './errors.js';
import { DEFAULT_LOOKUP_IDS, reviewIdOf } from './lookupIds.js';
import { refusalOf } from './modApiRefusals.js';
import { MoneyRequests } from './moneyRequests.js';
import type { ModApiOptions, ServerOptions } from './options.js';
import { DEFAULT_ALLOWED_REQUESTS, type ModApiSink, type ModRequestGroup, type PlayerIdentity, type ReportRequest } from './port.js';
import { ReportNotStoredError, type ReportStore } from './reportStore.js';

/** A report's comment: at least one character after control characters are stripped, at most 1000 (GSA's form). */
export const MAX_REPORT_COMMENT_LENGTH = 1000;

export interface ModApiRequestsOptions {
  /** The server's settings in force (allowRequests, lookupIds), read at each request. */
  readonly server: () => ServerOptions;
  readonly settings: () => ModApiOptions;
  /** The service client in force, read at each request (a reload may replace it). */
  readonly client: () => GsaClient;
  readonly access: AccessChecks;
  /** Where reports wait for GSA; undefined: reports are refused (`unavailable`). */
  readonly reports: ReportStore | undefined;
  /** True once the sidecar shuts down: new reports and money requests are refused. */
  readonly closed: () => boolean;
  readonly logger: Logger;
  readonly moneyRequests: MoneyRequests;
  readonly clock: Clock;
}

export class ModApiRequests {
  readonly #options: ModApiRequestsOptions;
  readonly #dashboard: DashboardSettingsCache;

  constructor(options: ModApiRequestsOptions) {
    this.#options = options;
    const name = (): string => options.server().name;
    this.#dashboard = new DashboardSettingsCache(
      (kind) => (kind === 'settings' ? options.client().modSettings(name()) : options.client().buttonModal(name())),
      options.clock,
    );
  }

  /** Other credentials (a reload): the dashboard's answers were another key's. */
  clear(): void {
    this.#dashboard.clear();
  }

  /** The requests of one adapter (`source`: its budget key, so its reads take their turns beside its chat), made once per adapter. */
  sinkFor(source: string | undefined): ModApiSink {
    return {
      access: async (player) => {
        this.#allow('access');
        this.#idOf(player);
        return this.#options.access.check(player, { source });
      },
      reportSettings: async (player) => {
        this.#allow('reports');
        const asked = this.#idOf(player);
        try {
          return await this.#client().reportSettings(this.#name(), asked, { source });
        } catch (error) {
          throw refusalOf(error, 'the report form');
        }
      },
      submitReport: (report) => this.#submitReport(report),
      shopList: async (player, query) => {
        this.#allow('shop');
        const asked = this.#idOf(player);
        try {
          return await this.#client().shopIndex(this.#name(), asked, query, { source });
        } catch (error) {
          throw refusalOf(error, 'the shop');
        }
      },
      shopItem: async (player, item) => {
        this.#allow('shop');
        const asked = this.#idOf(player);
        try {
          return await this.#client().shopPack(this.#name(), asked, item, { source });
        } catch (error) {
          throw refusalOf(error, 'the shop', 'item');
        }
      },
      shopOrder: async (player, item, origin) => {
        this.#allow('shop');
        this.#open();
        const asked = this.#idOf(player);
        return this.#options.moneyRequests.run({ kind: 'order', server: this.#name(), player, item, origin }, this.#client(), asked, async (client, one) => {
          const receipt = await client.orderPack(this.#name(), one, item);
          return { ok: receipt.success, message: receipt.message };
        });
      },
      consumeTokens: async (player, amount, origin) => {
        this.#allow('tokens');
        this.#open();
        const asked = this.#idOf(player);
        return this.#options.moneyRequests.run({ kind: 'tokens', server: this.#name(), player, amount, origin }, this.#client(), asked, async (client, one) => {
          const receipt = await client.consumeTokens(this.#name(), one, amount);
          return { ok: true, message: receipt.message };
        });
      },
      uiSettings: () => this.#ui('settings'),
      uiModal: () => this.#ui('modal'),
    };
  }

  async #ui(kind: 'settings' | 'modal'): Promise<unknown> {
    this.#allow('ui');
    try {
      return await this.#dashboard.get(kind);
    } catch (error) {
      throw refusalOf(error, kind === 'settings' ? 'the UI settings' : 'the vote screen');
    }
  }

  async #submitReport(report: ReportRequest): Promise<void> {
    this.#allow('reports');
    this.#open();
    this.#idOf(report.player);
    const store = this.#options.reports;
    if (store === undefined) throw new UnavailableRefusal('this sidecar keeps no report outbox, so it takes no reports');
    const comment = cleanComment(report.comment);
    if (comment.trim() === '') throw new BadInputRefusal('must hold at least one visible character', 'comment');
    if (characterCount(comment) > MAX_REPORT_COMMENT_LENGTH) throw new BadInputRefusal(`must be at most ${MAX_REPORT_COMMENT_LENGTH} characters`, 'comment');
    let queued: { readonly id: string };
    try {
      queued = await store.enqueue({
        server: this.#name(),
        player: report.player,
        characterId: report.characterId,
        coords: report.coords,
        type: report.type,
        reportedPlayer: report.reportedPlayer,
        comment,
        origin: report.origin,
      });
    } catch (error) {
      if (!(error instanceof ReportNotStoredError)) throw error;
      this.#options.logger.error({ err: error }, 'a report could not be stored');
      throw new UnavailableRefusal('the report could not be stored right now; send it again later');
    }
    this.#options.logger.info({ report: queued.id, player: playerLogId(report.player), adapter: report.origin.adapter }, 'report queued');
  }

  // The one refusal that names a config key: the contract asks for it, and the key is what the host must change.
  #allow(group: ModRequestGroup): void {
    const allowed = this.#options.server().allowRequests ?? DEFAULT_ALLOWED_REQUESTS;
    if (!allowed.includes(group)) {
      throw new RequestNotAllowedRefusal(`the host does not allow mods to use "${group}" on this server (servers[].allowRequests)`);
    }
  }

  #open(): void {
    if (this.#options.closed()) throw new UnavailableRefusal('the sidecar is shutting down; send it again after it restarts');
  }

  /** The one id GSA is asked by, as for reviews; GSA's Mod API takes a Steam64 or an EOS id only. */
  #idOf(player: PlayerIdentity): OnePlayerId {
    const asked = reviewIdOf(player, this.#options.server().lookupIds ?? DEFAULT_LOOKUP_IDS);
    if (asked === undefined) throw new BadInputRefusal("GSA's mod API needs a steam_id or an eos_id for this player", 'player');
    return asked;
  }

  #client(): GsaClient {
    return this.#options.client();
  }

  #name(): string {
    return this.#options.server().name;
  }
}
