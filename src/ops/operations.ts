// The operations side of a long-lived `run`: metrics fed by the core's events, the host's info lines (and the
// summary of chat decided by mute.onUnknown), readiness, and the endpoints that serve them, started once and kept
// across reloads. It reads the sidecar only through the
// functions it is given (OperationsSources), so whatever a reload rebuilds, it answers for the current one.
// It never changes the sidecar and is closed last, after the sidecar has drained.

import type { Logger } from 'pino';
import type { BridgeEvents } from '../bridge/events.js';
import { systemClock, type Clock } from '../time/clock.js';
import { HostEventLog } from './hostEvents.js';
import { SidecarMetrics, type AdapterState, type MetricsSources, type ReloadResult } from './metrics.js';
import { startOpsServer, type OpsServer } from './opsServer.js';
import { UnknownVerdictSummary } from './unknownVerdictSummary.js';
import { assessReadiness, DEFAULT_READINESS_RULES, type LifecyclePhase, type Readiness, type ReadinessRules } from './readiness.js';
import type { ServiceProblem } from './serviceHealth.js';

/** What readiness and the gauges read, at the time they ask. Each must return at once and never throw. */
export interface OperationsSources {
  /** The configured servers' GSA container names. */
  readonly servers: () => readonly string[];
  readonly adapters: () => readonly AdapterState[];
  /** ServiceHealth.problems of the current service client. */
  readonly serviceProblems: () => readonly ServiceProblem[];
  readonly outboxPending: () => number;
  /** True while the API budget is shared through Redis (gsa_bridge_budget_shared). */
  readonly budgetShared: () => boolean;
  /** Seconds the Retry-After hold in force still runs (gsa_bridge_budget_hold_seconds). */
  readonly budgetHoldSeconds: () => number;
  /** Whether GSA refuses the key of an API right now (gsa_bridge_credentials_refused{api}). */
  readonly credentialsRefused?: MetricsSources['credentialsRefused'];
  /** ServiceHealth.unreachableSince: when the outage in force began, on `clock` (gsa_bridge_gsa_unreachable_seconds). */
  readonly unreachableSince?: (() => number | undefined) | undefined;
  /** The API keys in use, by hash (gsa_bridge_api_key_info). */
  readonly apiKeys?: MetricsSources['apiKeys'];
  /** The mod API key's limiter (gsa_bridge_budget_waiting, gsa_bridge_budget_window_free). */
  readonly budgetState?: MetricsSources['budgetState'];
}

export interface OperationsOptions {
  /** http.host and http.port; port 0 takes any free port (the bound address is logged). */
  readonly host: string;
  readonly port: number;
  /** http.readiness; defaults in DEFAULT_READINESS_RULES. */
  readonly readiness?: Partial<ReadinessRules> | undefined;
  readonly events: BridgeEvents;
  readonly sources: OperationsSources;
  readonly logger: Logger;
  /** Readiness's clock (the same as ServiceHealth's: wall-clock ms). Tests pass fake time. */
  readonly clock?: Clock | undefined;
  /** Process defaults in /metrics; default true. */
  readonly processDefaults?: boolean | undefined;
}

export interface Operations {
  readonly server: OpsServer;
  readonly metrics: SidecarMetrics;
  /** starting until the sidecar runs, stopping once the drain begins: /readyz says so. */
  setPhase(phase: LifecyclePhase): void;
  /** Counts a SIGHUP's outcome in gsa_bridge_config_reloads_total{result}. */
  recordReload(result: ReloadResult): void;
  /** What /readyz answers now. */
  readiness(): Readiness;
  /** Stops the endpoints and the subscriptions. Idempotent. */
  close(): Promise<void>;
}

/** Listens on host:port (rejects with the listen error when it cannot, for the one-line exit 2) and subscribes. */
export async function startOperations(options: OperationsOptions): Promise<Operations> {
  const { sources, events, logger } = options;
  const rules: ReadinessRules = { ...DEFAULT_READINESS_RULES, ...options.readiness };
  const clock = options.clock ?? systemClock;
  let phase: LifecyclePhase = 'starting';
  const readiness = (): Readiness =>
    assessReadiness(
      { phase, servers: sources.servers(), adapters: sources.adapters(), serviceProblems: sources.serviceProblems(), outboxPending: sources.outboxPending() },
      rules,
      clock.now(),
    );
  const unreachableSeconds = (): number => {
    const since = sources.unreachableSince?.();
    return since === undefined ? 0 : Math.max(0, (clock.now() - since) / 1000);
  };
  const metrics = new SidecarMetrics({ events, sources: { ...sources, unreachableSeconds }, processDefaults: options.processDefaults });
  const hostLog = new HostEventLog({ events, logger });
  const unknownSummary = new UnknownVerdictSummary({
    events,
    logger,
    clock,
    causes: {
      credentialsRefused: sources.credentialsRefused,
      reachable: () => sources.unreachableSince?.() === undefined,
      holdSeconds: sources.budgetHoldSeconds,
      budget: sources.budgetState,
    },
  });
  let server: OpsServer;
  try {
    server = await startOpsServer({
      host: options.host,
      port: options.port,
      logger,
      readiness,
      metrics: async () => ({ contentType: metrics.contentType, body: await metrics.text() }),
    });
  } catch (error) {
    metrics.close();
    hostLog.close();
    unknownSummary.close();
    throw error;
  }
  logger.info({ url: server.url }, `operations endpoints on ${server.url} (/healthz, /readyz, /metrics)`);
  let closing: Promise<void> | undefined;
  return {
    server,
    metrics,
    setPhase: (next) => {
      phase = next;
    },
    recordReload: (result) => {
      metrics.recordReload(result);
    },
    readiness,
    close: () =>
      (closing ??= (async () => {
        metrics.close();
        hostLog.close();
        unknownSummary.close();
        await server.close();
      })()),
  };
}
