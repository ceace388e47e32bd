// The sidecar's durable records for GSA's Mod API v2 requests, wired into the running sidecar: the report outbox
// (sending each report through whichever service client is current, by the one id its server asks GSA by, and routing
// each result to the current bridge of its server) and the money ledger (shop orders and token spends, recorded before
// the bridge sends them). Both live in the reviews' data directory, under its lock. It must never keep a client or a
// bridge (both are read at each send and each result) and never start sending by itself: the assembly calls start().

import type { Logger } from 'pino';
import { DEFAULT_LOOKUP_IDS, reviewIdOf } from '../bridge/lookupIds.js';
import type { ServerBridge } from '../bridge/serverBridge.js';
import { InvalidInputError } from '../gsa/index.js';
import { MoneyRecords } from '../ledger/moneyRecords.js';
import { ReportOutbox } from '../ledger/reportOutbox.js';
import type { BridgeConfig } from './config.js';
import type { ServiceConnection } from './serviceConnection.js';

export interface SidecarLedgerParts {
  readonly logger: Logger;
  readonly service: ServiceConnection;
  /** The running bridges by server name, as the last reload left them. */
  readonly bridges: ReadonlyMap<string, ServerBridge>;
}

export interface SidecarLedger {
  readonly reports: ReportOutbox;
  readonly money: MoneyRecords;
}

/** Opens both stores in the data directory (the caller holds its lock); closes the first when the second fails. */
export async function openSidecarLedger(config: BridgeConfig, parts: SidecarLedgerParts): Promise<SidecarLedger> {
  const { logger, service, bridges } = parts;
  const reports = await ReportOutbox.open({
    dataDir: config.reviews.dataDir,
    // Read at each send: a reload may have replaced the client or changed the server's lookupIds.
    send: (report) => {
      const rule = bridges.get(report.server)?.settings.server.lookupIds ?? DEFAULT_LOOKUP_IDS;
      const asked = reviewIdOf(report.player, rule);
      if (asked === undefined) return Promise.reject(new InvalidInputError({ player: ['needs a steam_id or an eos_id'] }));
      const { comment, characterId, coords, type, reportedPlayer } = report;
      return service.client.submitReport(report.server, asked, { comment, characterId, coords, type, reportedPlayer });
    },
    onResult: (report, outcome) => {
      const bridge = bridges.get(report.server);
      if (bridge === undefined) logger.warn({ report: report.id, server: report.server }, 'report result for a server no longer in the config');
      else bridge.deliverReportResult(report.origin, outcome, report.player);
    },
    logger: logger.child({ component: 'reports' }),
  });
  try {
    const money = await MoneyRecords.open({ dataDir: config.reviews.dataDir, logger: logger.child({ component: 'orders' }) });
    return { reports, money };
  } catch (error) {
    await reports.close();
    throw error;
  }
}
