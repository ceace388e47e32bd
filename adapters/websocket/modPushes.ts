// What the websocket adapter tells its mods unasked: mute changes (to every connection), review and report results
// (to the connection that sent the request, or the adapter's newest one after a reconnect, or kept for the next one),
// and access refusals at the door (to the connections that said the player joined, else to every one).
// Must never throw into the bridge (its pushes return at once and never throw), never let the results kept for a
// mod that is away grow without bound, and never send a mod anything but GSA's data.
import type { Logger } from 'pino';
import { WebSocket } from 'ws';
import type { PlayerIdentity, RemovalReason, ReportOutcome, ReviewOrigin, ReviewOutcome } from '../../src/bridge/port.js';
import type { PlayerAccessResultMessage, ReportResultMessage } from './modApiMessages.js';
import type { ModConnection } from './modConnection.js';
import type { MuteChangedMessage, ReviewResultMessage } from './protocol.js';
import { resultWireCode } from './wireCodes.js';
import { toModPlayer } from './wireFields.js';

/** Review and report results kept while no mod is connected; beyond that the oldest are dropped (the requests themselves were handled). */
export const MAX_UNDELIVERED_RESULTS = 10_000;

/** removePlayer found no open mod connection to tell: the player stays until a mod hears of it. */
export class NoModConnectionError extends Error {
  readonly code = 'no_mod_connection';

  constructor(adapterId: string) {
    super(`no mod is connected to websocket adapter ${adapterId}, so none could be told to remove the player; the mod's next player.join is checked again`);
    this.name = 'NoModConnectionError';
  }
}

export interface ModPushesOptions {
  readonly adapterId: string;
  /** The adapter's open connections, in connection order (the last is the newest). */
  readonly connections: ReadonlyMap<string, ModConnection>;
  /** Sends one frame with the adapter's backpressure; false when the connection cannot take it. */
  readonly send: (connection: ModConnection, frame: string) => boolean;
  readonly logger: Logger;
}

export class ModPushes {
  readonly #options: ModPushesOptions;
  /** Serialized result frames waiting for a connection, oldest first. */
  readonly #undelivered: string[] = [];

  constructor(options: ModPushesOptions) {
    this.#options = options;
  }

  /** Results waiting for a mod to connect (tests, metrics). */
  get undeliveredCount(): number {
    return this.#undelivered.length;
  }

  muteChanged(player: PlayerIdentity, muted: boolean, alert: string | undefined): void {
    try {
      const { connections, send } = this.#options;
      if (connections.size === 0) return;
      const message: MuteChangedMessage = { type: 'mute.changed', player: toModPlayer(player), muted, alert: muted ? alert : undefined };
      const frame = JSON.stringify(message);
      for (const connection of connections.values()) send(connection, frame);
    } catch (error) {
      this.#options.logger.error({ err: error }, 'could not push mute.changed');
    }
  }

  reviewResult(origin: ReviewOrigin, outcome: ReviewOutcome): void {
    try {
      const message: ReviewResultMessage = outcome.ok
        ? { type: 'review.result', id: origin.requestId, ok: true }
        : { type: 'review.result', id: origin.requestId, ok: false, error: { code: resultWireCode(outcome.error.code), message: outcome.error.message } };
      this.#deliverResult(origin, JSON.stringify(message));
    } catch (error) {
      this.#options.logger.error({ err: error }, 'could not deliver review.result');
    }
  }

  reportResult(origin: ReviewOrigin, outcome: ReportOutcome): void {
    try {
      const message: ReportResultMessage = outcome.ok
        ? { type: 'report.result', id: origin.requestId, ok: true, message: outcome.message }
        : { type: 'report.result', id: origin.requestId, ok: false, error: { code: resultWireCode(outcome.error.code), message: outcome.error.message } };
      this.#deliverResult(origin, JSON.stringify(message));
    } catch (error) {
      this.#options.logger.error({ err: error }, 'could not deliver report.result');
    }
  }

  /**
   * An unasked `player.access.result` with `allowed: false`: to the connections that said the player joined, else (none
   * did, or none of them is open any more) to every open connection. Resolves once handed to at least one connection;
   * rejects with NoModConnectionError when none is open.
   */
  removePlayer(player: PlayerIdentity, reason: RemovalReason): Promise<void> {
    try {
      const message: PlayerAccessResultMessage = {
        type: 'player.access.result',
        player: toModPlayer(player),
        allowed: false,
        message: reason.message,
        roles: reason.verdict.roles,
        source: reason.verdict.source,
      };
      const frame = JSON.stringify(message);
      const open = [...this.#options.connections.values()].filter((connection) => connection.socket.readyState === WebSocket.OPEN);
      const joined = open.filter((connection) => connection.joined.has(player));
      if (this.#sendToEach(joined, frame) > 0 || this.#sendToEach(open, frame) > 0) return Promise.resolve();
      return Promise.reject(new NoModConnectionError(this.#options.adapterId));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** A new connection gets the results that waited for one, oldest first, right after its welcome. */
  flushTo(connection: ModConnection): void {
    while (this.#undelivered.length > 0) {
      const frame = this.#undelivered[0];
      if (frame === undefined || !this.#options.send(connection, frame)) return;
      this.#undelivered.shift();
    }
  }

  /** The request's own connection if it is still open; the mod reconnected (or restarted): its newest one; else kept. */
  #deliverResult(origin: ReviewOrigin, frame: string): void {
    const original = this.#options.connections.get(origin.ref);
    if (original !== undefined && this.#options.send(original, frame)) return;
    const newest = this.#newestConnection();
    if (newest !== undefined && this.#options.send(newest, frame)) return;
    this.#keep(frame);
  }

  #sendToEach(connections: readonly ModConnection[], frame: string): number {
    let sent = 0;
    for (const connection of connections) if (this.#options.send(connection, frame)) sent++;
    return sent;
  }

  #newestConnection(): ModConnection | undefined {
    let newest: ModConnection | undefined;
    for (const connection of this.#options.connections.values()) if (connection.socket.readyState === WebSocket.OPEN) newest = connection;
    return newest;
  }

  #keep(frame: string): void {
    if (this.#undelivered.length >= MAX_UNDELIVERED_RESULTS) {
      this.#undelivered.shift();
      this.#options.logger.warn({ kept: MAX_UNDELIVERED_RESULTS }, 'too many review and report results waiting for a mod to connect; dropped the oldest');
    }
    this.#undelivered.push(frame);
  }
}
