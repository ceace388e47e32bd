// How `run` plugs the operations side (src/ops) into its sidecar: the sources readiness and the gauges read,
// taken from whichever sidecar is current, and the second stop signal that ends a drain at once.
// It holds no state of its own and never stops or changes the sidecar.

import { constants } from 'node:os';
import type { Logger } from 'pino';
import type { BridgeConfig } from '../app/config.js';
import type { OperationsSources } from '../ops/operations.js';
import type { Sidecar } from '../sidecar.js';
import type { SignalQueue } from './signalQueue.js';

/** Readiness and gauge sources for the sidecar `current()` returns (undefined before it runs). */
export function sidecarOperationsSources(current: () => { readonly sidecar: Sidecar | undefined; readonly config: BridgeConfig }): OperationsSources {
  return {
    // After a reload the sidecar's config is the one in force.
    servers: () => (current().sidecar?.config ?? current().config).servers.map((server) => server.name),
    // A configured adapter its type skipped (rcon in this version) is not up: it counts, so /readyz says so.
    adapters: () => current().sidecar?.listAdapters().map(({ server, id, adapter }) => ({ server, id, ready: adapter?.ready ?? false })) ?? [],
    // The System API key's refusal counts as the mod API key's does (readiness, notify).
    serviceProblems: () => {
      const sidecar = current().sidecar;
      if (sidecar === undefined) return [];
      const system = sidecar.service.systemKeyProblem;
      return system === undefined ? sidecar.health.problems : [...sidecar.health.problems, system];
    },
    outboxPending: () => current().sidecar?.outbox.pending ?? 0,
    budgetShared: () => current().sidecar?.budgetShared ?? false,
    budgetHoldSeconds: () => current().sidecar?.budgetHoldSeconds ?? 0,
    credentialsRefused: (api) => {
      const sidecar = current().sidecar;
      if (sidecar === undefined) return false;
      return api === 'mod' ? sidecar.health.credentialsRefused : sidecar.service.systemKeyRefused;
    },
    unreachableSince: () => current().sidecar?.health.unreachableSince,
    apiKeys: () => current().sidecar?.service.apiKeys ?? [],
    budgetState: () => current().sidecar?.client.budgetState(),
  };
}

/** 128 + the signal's number, the shell's convention for "ended by this signal": 143 for SIGTERM, 130 for SIGINT. */
export function forcedExitCode(signal: NodeJS.Signals): number {
  return 128 + constants.signals[signal];
}

function isStopSignal(trigger: string): trigger is 'SIGTERM' | 'SIGINT' {
  return trigger === 'SIGTERM' || trigger === 'SIGINT';
}

/**
 * While a drain runs: a second SIGTERM or SIGINT (a person pressing Ctrl-C again, a supervisor that lost patience)
 * exits at once, with 128 + its number. SIGHUP during a drain is ignored, with a warning. The outbox journal is
 * fsynced as records are written, so what was acknowledged survives; sends in flight are sent again after the restart.
 */
export function exitOnSecondStopSignal<Posted extends string>(signals: SignalQueue<Posted>, logger: () => Logger, exit: (code: number) => void = (code) => process.exit(code)): void {
  void (async () => {
    for (;;) {
      const signal = await signals.next();
      // A reload asked for through the control channel was answered "stopping" already (ReloadRequests).
      if (signal === 'SIGHUP') logger().warn({ signal }, 'SIGHUP while stopping: ignored, the config is not reloaded (the sidecar is stopping)');
      if (!isStopSignal(signal)) continue;
      const code = forcedExitCode(signal);
      logger().warn({ signal }, `second ${signal} while stopping: exiting at once (code ${code}) without waiting for the drain`);
      logger().flush();
      exit(code);
      return;
    }
  })();
}
