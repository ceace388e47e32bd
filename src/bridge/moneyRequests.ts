// A mod's shop order or token spend, which moves a player's money: paced per player (orderCooldownMs, so a mod's loop
// cannot order twice), recorded durably before it is sent (MoneyLedger), sent exactly once, and its fate recorded
// after. An answer lost after sending is `unconfirmed`, said to the mod as such, and never sent again by the sidecar;
// a failure that surely happened before GSA saw it (nothing written, a 429 or 503 before processing) is `refused`
// with nothing spent. One info line per request settled.
// It never retries, never sends without a record on disk, and never tells a mod `done` unless GSA said so.

import type { Logger } from 'pino';
import { GsaError, type GsaClient, type OnePlayerId } from '../gsa/index.js';
import { playerLogId } from '../ids/playerIds.js';
import type { Clock } from '../time/clock.js';
import { CooldownRefusal, UnavailableRefusal } from './errors.js';
import type { BridgeEvents } from './events.js';
import { messageForPlayers } from './hostSideErrors.js';
import { MoneyNotRecordedError, type MoneyLedger, type MoneyRequest } from './moneyLedger.js';
import type { ModApiOptions } from './options.js';
import { PlayerCooldowns } from './playerCooldowns.js';
import type { MoneyOutcome, PlayerIdentity } from './port.js';

export interface MoneyRequestsOptions {
  readonly server: string;
  /** Where requests are recorded; undefined: money requests are refused (`unavailable`), nothing sent. */
  readonly ledger: MoneyLedger | undefined;
  readonly settings: () => ModApiOptions;
  readonly logger: Logger;
  readonly events?: BridgeEvents | undefined;
  readonly clock: Clock;
}

/** What to send, once the request is on disk. */
export type MoneySend = (client: GsaClient, asked: OnePlayerId) => Promise<{ readonly ok: boolean; readonly message: string }>;

/** The words a mod is told for an outcome with no message of GSA's. */
const UNCONFIRMED_MESSAGE = 'the request was sent but its answer was lost; it will not be sent again: ask an admin to check it in GSA';

export class MoneyRequests {
  readonly #options: MoneyRequestsOptions;
  /** One money request per player per orderCooldownMs. */
  readonly #cooldowns: PlayerCooldowns;

  constructor(options: MoneyRequestsOptions) {
    this.#options = options;
    this.#cooldowns = new PlayerCooldowns(() => options.clock.now());
  }

  /**
   * Records `request`, sends it once with `send` through `client`, records its fate and resolves with it. Rejects
   * only before anything was recorded or sent: CooldownRefusal, UnavailableRefusal.
   */
  async run(request: MoneyRequest, client: GsaClient, asked: OnePlayerId, send: MoneySend): Promise<MoneyOutcome> {
    const { ledger, logger } = this.#options;
    if (ledger === undefined) throw new UnavailableRefusal('this sidecar keeps no record of money requests, so it sends none');
    const release = this.#reserve(request.player);
    let id: string;
    try {
      ({ id } = await ledger.begin(request));
    } catch (error) {
      release();
      if (!(error instanceof MoneyNotRecordedError)) throw error;
      logger.error({ err: error }, `a ${request.kind === 'order' ? 'shop order' : 'token spend'} could not be recorded, so it was not sent`);
      throw new UnavailableRefusal('the request could not be recorded right now, so nothing was sent; try again later');
    }
    const outcome = await this.#sendOnce(client, asked, send);
    await ledger.settle(id, outcome);
    const what = request.kind === 'order' ? `shop order of pack ${request.item}` : `token spend of ${request.amount}`;
    logger.info(
      { record: id, player: playerLogId(request.player), adapter: request.origin.adapter, state: outcome.state },
      `${what}: ${outcome.state}${outcome.message === undefined ? '' : ` (${outcome.message})`}`,
    );
    this.#options.events?.emit('money', { server: this.#options.server, kind: request.kind, state: outcome.state });
    return outcome;
  }

  async #sendOnce(client: GsaClient, asked: OnePlayerId, send: MoneySend): Promise<MoneyOutcome> {
    try {
      const receipt = await send(client, asked);
      return { ok: receipt.ok, state: receipt.ok ? 'done' : 'refused', ...(receipt.message === '' ? {} : { message: receipt.message }) };
    } catch (error) {
      if (error instanceof GsaError && !error.maybeProcessed) {
        const words = error.serviceMessage !== undefined && error.serviceMessage !== '' ? error.serviceMessage : error.message;
        return { ok: false, state: 'refused', message: messageForPlayers(error.code, words) };
      }
      if (!(error instanceof GsaError)) this.#options.logger.error({ err: error }, 'a money request failed unexpectedly after it was recorded; it is left unconfirmed');
      return { ok: false, state: 'unconfirmed', message: UNCONFIRMED_MESSAGE };
    }
  }

  /** Takes the player's cooldown now (synchronously: a second request arriving meanwhile is refused); returns its release. */
  #reserve(player: PlayerIdentity): () => void {
    const { orderCooldownMs } = this.#options.settings();
    const leftMs = this.#cooldowns.leftMs(player, orderCooldownMs);
    if (leftMs > 0) {
      throw new CooldownRefusal(`one order or token spend per player every ${Math.ceil(orderCooldownMs / 1000)} s: try again in ${Math.ceil(leftMs / 1000)} s`);
    }
    return this.#cooldowns.reserve(player, orderCooldownMs);
  }
}
