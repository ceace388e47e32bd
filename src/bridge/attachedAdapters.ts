// The adapters attached to one server's bridge, and how the bridge reaches one of them: by the "tell this player"
// capability (a private message through the named adapter, else the first that can), or by the stable id a review's
// or a report's origin names (else the server's first adapter, so a mod reconnecting there still gets its result).
// A result's refusal caused by the host's setup (401, 404) reaches players as the generic line, never GSA's words.
// It never decides what is said or to whom: the bridge does.

import { playerLogId } from '../ids/playerIds.js';
import type { Logger } from 'pino';
import { HOST_SIDE_MESSAGE, isHostSideCode } from './hostSideErrors.js';
import type { Adapter, PlayerIdentity, ReportOutcome, ReviewOrigin, ReviewOutcome } from './port.js';

/** An adapter that has the "tell this player" capability. */
export type PlayerTeller = Adapter & Required<Pick<Adapter, 'tellPlayer'>>;

/** Whether an adapter can send a player a private message (the "tell this player" capability). */
export function canTellPlayers(adapter: Adapter): adapter is PlayerTeller {
  return typeof adapter.tellPlayer === 'function';
}

/** The outcome as players may see it: a host-side refusal's text replaced by the generic line. */
export function shownToPlayers<Outcome extends ReviewOutcome | ReportOutcome>(outcome: Outcome): Outcome {
  return outcome.ok || !isHostSideCode(outcome.error.code) ? outcome : { ...outcome, error: { code: outcome.error.code, message: HOST_SIDE_MESSAGE } };
}

export class AttachedAdapters {
  readonly list: Adapter[] = [];
  readonly #logger: Logger;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  attach(adapter: Adapter): void {
    this.list.push(adapter);
  }

  detach(adapter: Adapter): void {
    const index = this.list.indexOf(adapter);
    if (index >= 0) this.list.splice(index, 1);
  }

  /** Tells one player something privately; false when no adapter can (or the game refused it). Never rejects. */
  async tell(player: PlayerIdentity, text: string, adapterId: string | undefined): Promise<boolean> {
    const tellers = this.list.filter(canTellPlayers);
    const teller = tellers.find((adapter) => adapter.id === adapterId) ?? tellers[0];
    if (teller === undefined) return false;
    try {
      await teller.tellPlayer(player, text);
      return true;
    } catch (error) {
      this.#logger.warn({ adapter: teller.id, player: playerLogId(player), err: error }, 'could not tell a player');
      return false;
    }
  }

  /** The adapter a result goes to: the one that received the request, by its stable id, else the server's first. */
  forResult(origin: ReviewOrigin, what: 'review' | 'report'): Adapter | undefined {
    const adapter = this.list.find((candidate) => candidate.id === origin.adapter) ?? this.list[0];
    if (adapter === undefined) this.#logger.warn({ adapter: origin.adapter }, `${what} result has no adapter to go to; the ${what} itself was handled`);
    return adapter;
  }
}
