// Decides /readyz: ready, or not with one reason per thing a host has to look at, each naming the server and the
// adapter id (or the server, with its adapters, for a service problem). Pure: it reads a snapshot and a time and
// never asks the service anything (a probe would spend the API budget; see readinessRules below).

import { describeDuration, SYSTEM_CREDENTIALS_PROBLEM, type ServiceProblem } from './serviceHealth.js';
import type { AdapterState } from './metrics.js';

export interface ReadinessRules {
  /**
   * How long GSA may stay unreachable (no answer, timeouts, 5xx: ServiceHealth's outage) before the sidecar
   * reports not ready. Default 60 000 ms: a restart of the service or a short network blip is ridden out by the
   * mute cache and the outbox, and should not page anyone.
   */
  readonly unreachableForMs: number;
  /** Reviews pending above this make the sidecar not ready (they are not getting out). Default 1000. */
  readonly outboxPendingMax: number;
}

export const DEFAULT_READINESS_RULES: ReadinessRules = { unreachableForMs: 60_000, outboxPendingMax: 1000 };

/** Where the long-lived process is: before its sidecar runs, while it runs, while it drains. */
export type LifecyclePhase = 'starting' | 'running' | 'stopping';

export interface ReadinessSnapshot {
  readonly phase: LifecyclePhase;
  /** The configured servers (GSA container names), in config order. */
  readonly servers: readonly string[];
  readonly adapters: readonly AdapterState[];
  readonly serviceProblems: readonly ServiceProblem[];
  readonly outboxPending: number;
}

export interface Readiness {
  readonly ready: boolean;
  readonly reasons: readonly string[];
}

/** The servers a service problem concerns: the one GSA does not know, or every server for the API key's problems. */
function affectedServers(problem: ServiceProblem, servers: readonly string[]): readonly string[] {
  if (problem.kind === 'unknown_server' && problem.key.startsWith('server:')) return [problem.key.slice('server:'.length)];
  return servers;
}

/**
 * Problems that stop chat gating or reviews: the API credentials (the mod API's, or the System API key, which gates
 * Minecraft players and takes the chat filter's mutes), a server name GSA does not know, GSA
 * unreachable. Server-action problems (webhook keys, GAMESERVER_ID) and a single odd answer do not: chat and
 * reviews go on, and the log says what to fix.
 */
function blocksReadiness(problem: ServiceProblem, now: number, rules: ReadinessRules): boolean {
  // Either API key refused (a server action's 401, `webhook-credentials:<id>`, is a server not bound to the key).
  if (problem.key === 'credentials' || problem.key === SYSTEM_CREDENTIALS_PROBLEM) return true;
  if (problem.kind === 'unknown_server' && problem.key.startsWith('server:')) return true;
  if (problem.kind === 'unreachable') return now - problem.since >= rules.unreachableForMs;
  return false;
}

export function assessReadiness(snapshot: ReadinessSnapshot, rules: ReadinessRules, now: number): Readiness {
  if (snapshot.phase === 'starting') return { ready: false, reasons: ['the sidecar is starting'] };
  if (snapshot.phase === 'stopping') return { ready: false, reasons: ['the sidecar is stopping'] };
  const reasons: string[] = [];
  for (const adapter of snapshot.adapters) {
    if (!adapter.ready) reasons.push(`server ${adapter.server}, adapter ${adapter.id}: not up`);
  }
  const adaptersOf = (server: string): string => {
    const ids = snapshot.adapters.filter((adapter) => adapter.server === server).map((adapter) => adapter.id);
    return ids.length === 0 ? 'no adapters' : `adapters ${ids.join(', ')}`;
  };
  for (const problem of snapshot.serviceProblems) {
    if (!blocksReadiness(problem, now, rules)) continue;
    const lasting = problem.kind === 'unreachable' ? ` (for ${describeDuration(now - problem.since)})` : '';
    for (const server of affectedServers(problem, snapshot.servers)) reasons.push(`server ${server} (${adaptersOf(server)}): ${problem.message}${lasting}`);
  }
  if (snapshot.outboxPending > rules.outboxPendingMax) {
    reasons.push(`review outbox: ${snapshot.outboxPending} reviews pending, above http.readiness.outboxPendingMax (${rules.outboxPendingMax})`);
  }
  return reasons.length === 0 ? { ready: true, reasons: [] } : { ready: false, reasons };
}
