// Runs a server action (webhook) on behalf of a mod, only when the server's config allows that action.
// It never lets a mod trigger an action the host did not list in servers[].allowActions, and never shows a mod
// the service's words for the host's own setup problem (hostSideErrors.ts).

import type { ServerConfig } from '../config/index.js';
import { GsaError, type GsaClient } from '../gsa/index.js';
import { messageForPlayers } from './hostSideErrors.js';
import { BridgeRefusal, type ServerActionName, type ServerActionOutcome } from './port.js';

export class ServerActions {
  readonly #server: ServerConfig;
  readonly #configPath: string;
  readonly #client: GsaClient;

  constructor(server: ServerConfig, configPath: string, client: GsaClient) {
    this.#server = server;
    this.#configPath = configPath;
    this.#client = client;
  }

  /** Rejects with BridgeRefusal when the action is not allowed; otherwise resolves with the service's answer. */
  async run(action: ServerActionName, countdownMinutes?: number): Promise<ServerActionOutcome> {
    if (!this.#server.allowActions.includes(action)) {
      throw new BridgeRefusal('forbidden', `the host does not allow mods to ${action} this server (${this.#configPath}.allowActions)`, 'action');
    }
    const serverId = this.#server.id;
    if (serverId === undefined) {
      throw new BridgeRefusal('unavailable', `this server has no GAMESERVER_ID configured (${this.#configPath}.id); server actions need it`);
    }
    try {
      const result = await this.#client.serverAction(serverId, action, action === 'update' ? countdownMinutes : undefined);
      return { ok: true, status: result.status, message: result.message };
    } catch (error) {
      if (!(error instanceof GsaError)) throw error;
      return { ok: false, error: { code: error.code, message: messageForPlayers(error.code, error.serviceMessage ?? error.message) } };
    }
  }
}
