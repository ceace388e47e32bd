// Writes what a host wants to see at info level, from the core's events: a blocked chat line (player and server,
// never the message text; for RCON, whose chat the game already showed, what was done instead of a block) and a delivered review (server, review id). A refused or unconfirmed review is already
// a warning of the outbox, with its code and where the letter went; the service going away and coming back is
// ServiceHealth's. A muted player who keeps talking must not flood the log: the first blocked line of a player is
// logged, then at most one line per window saying how many more were blocked.
// It never logs a message text and never changes a verdict.

import type { Logger } from 'pino';
import type { BridgeEvents, ReviewEvent, VerdictEvent } from '../bridge/events.js';
import { askedFields, describeAsked } from '../bridge/lookupIds.js';
import type { PlayerIdentity } from '../bridge/port.js';
import { systemClock, type Clock } from '../time/clock.js';
import { describeDuration } from './serviceHealth.js';

export interface HostEventLogOptions {
  readonly events: BridgeEvents;
  readonly logger: Logger;
  /** A player's blocked lines are logged at most once per this window (the first at once). Default 60 000 ms. */
  readonly blockedWindowMs?: number | undefined;
  /** Players remembered for the window; beyond it the oldest are forgotten (and may be logged again). Default 10 000. */
  readonly maxTrackedPlayers?: number | undefined;
  /** Default the system clock; tests pass fake time. */
  readonly clock?: Clock | undefined;
}

interface BlockedPlayer {
  loggedAt: number;
  /** Lines blocked since the last line logged. */
  suppressed: number;
}

function playerId(player: PlayerIdentity): string {
  return player.steamId ?? player.eosId ?? player.mojangId ?? '?';
}

/** `muted`, and the id GSA was asked by when its answer decided (servers[].lookupIds chose it; not always `player`). */
function mutedWords(event: VerdictEvent): string {
  return event.asked === undefined ? 'muted' : `muted, GSA asked by ${describeAsked([event.asked])}`;
}

function blockCause(event: VerdictEvent): string {
  if (event.reason === 'filtered') return 'the chat filter matched a listed word';
  return event.reason === 'muted' ? mutedWords(event) : 'GSA did not answer in time and mute.onUnknown is "block"';
}

/**
 * What a block did, for the line's head and its parenthesis. A mod withholds the line ("chat blocked"); RCON reads
 * chat the game already showed, so a block there withheld nothing, and saying "blocked" would be false: the line
 * says what happened instead (the speaker told privately, or nothing when the policy guessed).
 */
function blockEffect(event: VerdictEvent): { readonly head: string; readonly cause: string } {
  if (event.alreadyShown !== true) return { head: 'chat blocked', cause: blockCause(event) };
  if (event.reason === 'filtered') {
    const answer = event.tellsSpeaker === true ? ': told the player' : `, and adapter ${event.adapter ?? '?'} cannot message players`;
    return { head: 'filtered chat seen', cause: `the chat filter matched a listed word; RCON cannot un-send chat, so the line was seen${answer}` };
  }
  if (event.reason !== 'muted') {
    return { head: 'chat not checked in time', cause: 'GSA did not answer in time; mute.onUnknown is "block", but RCON cannot un-send chat, so the line was seen' };
  }
  const answer = event.tellsSpeaker === true ? ': told the muted player' : `, and adapter ${event.adapter ?? '?'} cannot message players`;
  return { head: 'muted player spoke', cause: `${mutedWords(event)}; RCON cannot un-send chat, so the line was seen${answer}` };
}

export class HostEventLog {
  readonly #logger: Logger;
  readonly #windowMs: number;
  readonly #maxTracked: number;
  readonly #clock: Clock;
  /** Per server and player; a Map keeps insertion order, so the oldest are dropped first. */
  readonly #blocked = new Map<string, BlockedPlayer>();
  readonly #unsubscribe: (() => void)[];

  constructor(options: HostEventLogOptions) {
    this.#logger = options.logger;
    this.#windowMs = options.blockedWindowMs ?? 60_000;
    this.#maxTracked = options.maxTrackedPlayers ?? 10_000;
    this.#clock = options.clock ?? systemClock;
    this.#unsubscribe = [
      options.events.on('verdict', (event) => {
        if (event.verdict === 'block') this.#blockedChat(event);
      }),
      options.events.on('review', (event) => {
        this.#review(event);
      }),
    ];
  }

  close(): void {
    for (const unsubscribe of this.#unsubscribe.splice(0)) unsubscribe();
    this.#blocked.clear();
  }

  #blockedChat(event: VerdictEvent): void {
    const player = playerId(event.player);
    const key = `${event.server}\u0000${player}`;
    const now = this.#clock.now();
    const known = this.#blocked.get(key);
    const fields = {
      server: event.server,
      ...(event.adapter === undefined ? {} : { adapter: event.adapter }),
      player,
      reason: event.reason,
      ...(event.asked === undefined ? {} : { asked: askedFields([event.asked]) }),
    };
    const { head, cause } = blockEffect(event);
    if (known === undefined) {
      this.#remember(key, { loggedAt: now, suppressed: 0 });
      this.#logger.info(fields, `${head}: player ${player} on ${event.server} (${cause})`);
      return;
    }
    if (now - known.loggedAt < this.#windowMs) {
      known.suppressed += 1;
      return;
    }
    const more = known.suppressed + 1;
    this.#logger.info(
      { ...fields, blocked: more },
      `${head}: player ${player} on ${event.server}, ${more} lines in the last ${describeDuration(now - known.loggedAt)} (${cause})`,
    );
    known.loggedAt = now;
    known.suppressed = 0;
  }

  #remember(key: string, entry: BlockedPlayer): void {
    if (this.#blocked.size >= this.#maxTracked) {
      const oldest = this.#blocked.keys().next();
      if (oldest.done !== true) this.#blocked.delete(oldest.value);
    }
    this.#blocked.set(key, entry);
  }

  #review(event: ReviewEvent): void {
    if (event.result !== 'delivered') return;
    this.#logger.info({ server: event.server, review: event.review }, `review ${event.review} for ${event.server} delivered to GSA`);
  }
}
