// Runs a server action on behalf of a mod, only when the server's options allow that action: through GSA's System
// API when it has a key (every action but wipe, which has no System API path), else through the seed's webhook.
// It never lets a mod trigger an action the host did not allow, and never shows a mod the service's words for the
// host's own setup problem (hostSideErrors.ts). It never names a config key: the host-facing context is added by
// the composition root.

import { GsaError, type GsaClient, type SystemApi, type SystemServerAction } from '../gsa/index.js';
import { messageForPlayers } from './hostSideErrors.js';
import type { ServerOptions } from './options.js';
import { ActionNotAllowedRefusal, NoGameserverIdRefusal } from './errors.js';
import type { ServerActionName, ServerActionOutcome } from './port.js';

/** The actions the System API has a path for (wipe has none; broadcast is its own call). */
function systemActionOf(action: ServerActionName): SystemServerAction | undefined {
  return action === 'wipe' || action === 'broadcast' ? undefined : action;
}

/**
 * The port GSA's System API is reached through, as the sidecar has it now: undefined without a key. Read `system` at
 * each use, never keep it: a reload may bring, replace or drop the key. The app's service connection is it.
 */
export interface SystemApiAccess {
  readonly system: SystemApi | undefined;
}

/** update, restart and stop carry an in-game message on the System API. */
const ACTIONS_WITH_MESSAGE: ReadonlySet<ServerActionName> = new Set(['update', 'restart', 'stop']);

export class ServerActions {
  #server: ServerOptions;
  #client: GsaClient;
  readonly #systemApi: SystemApiAccess | undefined;

  constructor(server: ServerOptions, client: GsaClient, systemApi?: SystemApiAccess) {
    this.#server = server;
    this.#client = client;
    this.#systemApi = systemApi;
  }

  /** A config reload: new allowed actions or GAMESERVER_ID, or a new client (the API key changed). */
  reconfigure(server: ServerOptions, client: GsaClient): void {
    this.#server = server;
    this.#client = client;
  }

  /** Rejects with BridgeRefusal when the action is not allowed; otherwise resolves with the service's answer. */
  async run(action: ServerActionName, countdownMinutes?: number, message?: string): Promise<ServerActionOutcome> {
    if (!this.#server.allowActions.includes(action)) {
      throw new ActionNotAllowedRefusal(`the host does not allow mods to ${action} this server`, 'action');
    }
    const serverId = this.#server.id;
    if (serverId === undefined) {
      throw new NoGameserverIdRefusal('this server has no GAMESERVER_ID configured; server actions need it');
    }
    const countdown = action === 'update' ? countdownMinutes : undefined;
    const system = this.#systemApi?.system;
    try {
      if (action === 'broadcast') {
        if (system === undefined) throw new ActionNotAllowedRefusal("broadcast needs GSA's System API, which the host has not set up", 'action');
        const receipt = await system.broadcast(serverId, message ?? '');
        return { ok: true, status: receipt.status, message: receipt.message };
      }
      const systemAction = systemActionOf(action);
      if (system !== undefined && systemAction !== undefined) {
        const receipt = await system.serverAction(serverId, systemAction, { countdown, message: ACTIONS_WITH_MESSAGE.has(action) ? message : undefined });
        return { ok: true, status: receipt.status, message: receipt.message };
      }
      const result = await this.#client.serverAction(serverId, action, countdown);
      return { ok: true, status: result.status, message: result.message };
    } catch (error) {
      if (!(error instanceof GsaError)) throw error;
      return { ok: false, error: { code: error.code, message: messageForPlayers(error.code, error.serviceMessage ?? error.message) } };
    }
  }
}
