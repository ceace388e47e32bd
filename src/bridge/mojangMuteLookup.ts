// The mute lookup of a player known only by a Mojang id (Minecraft), which GSA's mod API cannot take: through the
// MojangMuteCheck port the app passes in (ServerBridgeOptions.mojangLookup; src/app/corePorts.ts answers it with the
// System API), and when it cannot ask (no System API key right now: a reload may bring one) a rejection the gate's
// policy decides on, with the host told at most once a minute per player. It never sends a Mojang id to the mod API
// and never retries: the cache's lookup does.

import type { Logger } from 'pino';
import type { MuteLookupKind, MuteStatus } from '../gsa/index.js';
import type { Clock } from '../time/clock.js';
import { MojangLookupMissingError } from './errors.js';
import type { AskedAnswer } from './lookupIds.js';
import { PerPlayerPace } from './perPlayerPace.js';

/**
 * The port a Minecraft player's mute status comes through: GSA's mod API cannot take a Mojang id, so the app asks
 * its System API (src/app/corePorts.ts). `kind` and `source` place the call in the API budget, as a mod API lookup's.
 */
export interface MojangMuteCheck {
  /** The player's status, or undefined when nothing can be asked right now (no System API key). */
  checkMuted(mojangId: string, kind: MuteLookupKind, source: string | undefined): Promise<MuteStatus> | undefined;
}

/** The "no System API for Minecraft players" warning: at most once per player a minute, 1,000 players remembered. */
const WARNING_PACE = { everyMs: 60_000, maxPlayers: 1_000 } as const;

export class MojangMuteLookup {
  readonly #check: MojangMuteCheck | undefined;
  readonly #logger: Logger;
  readonly #warnings: PerPlayerPace;

  constructor(check: MojangMuteCheck | undefined, logger: Logger, clock: Clock) {
    this.#check = check;
    this.#logger = logger;
    this.#warnings = new PerPlayerPace({ ...WARNING_PACE, clock });
  }

  /** The player's answer, naming the Mojang id when it says muted; rejects when no System API can be asked. */
  ask(mojangId: string, kind: MuteLookupKind, source: string | undefined): Promise<AskedAnswer> {
    const answer = this.#check?.checkMuted(mojangId, kind, source);
    if (answer !== undefined) return answer.then((status) => (status.muted ? { muted: true, alert: status.alert, mutedBy: { kind: 'mojang', id: mojangId } } : status));
    const error = new MojangLookupMissingError();
    if (this.#warnings.due(mojangId)) this.#logger.warn({ player: mojangId, asked: { mojang_id: mojangId }, code: error.code }, `${error.message} (player mojang_id ${mojangId})`);
    return Promise.reject(error);
  }
}
