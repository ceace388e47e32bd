// Access at the door (access.enforce): every join an adapter of the server sees is checked with GSA's access check,
// and a player GSA does not allow is removed through that adapter's "remove this player" capability (the game's
// kick command; a mod is told unasked), with GSA's message. One info line per removal; an adapter that cannot remove
// anyone is named once, with the key that gives it the capability.
// It never decides who is allowed (AccessChecks does) and never builds a game command (the adapter does).

import { playerLogId } from '../ids/playerIds.js';
import type { Logger } from 'pino';
import { DEFAULT_DENIAL, type AccessChecks } from './accessChecks.js';
import type { AccessOptions } from './options.js';
import type { Adapter, PlayerIdentity } from './port.js';

export interface AccessDoorOptions {
  readonly checks: AccessChecks;
  /** The access settings in force, read at each join. */
  readonly settings: () => AccessOptions;
  readonly logger: Logger;
}

export class AccessDoor {
  readonly #options: AccessDoorOptions;
  /** Adapters already named as unable to remove a player: once each, not once a join. */
  readonly #namedUnable = new WeakSet<Adapter>();

  constructor(options: AccessDoorOptions) {
    this.#options = options;
  }

  /** A join `adapter` saw (undefined: the bridge was called directly). Returns at once; never throws. */
  joined(player: PlayerIdentity, adapter: Adapter | undefined, lowPriority: boolean, source: string | undefined): void {
    if (!this.#options.settings().enforce || adapter === undefined) return;
    const remove = adapter.removePlayer?.bind(adapter);
    if (remove === undefined) {
      if (!this.#namedUnable.has(adapter)) {
        this.#namedUnable.add(adapter);
        this.#options.logger.warn(
          { adapter: adapter.id },
          `access.enforce is on, but adapter ${adapter.id} cannot remove a player: give it a kickCommand (or use a mod that handles player.access.result); its joins are not checked`,
        );
      }
      return;
    }
    void this.#check(player, adapter.id, remove, lowPriority, source);
  }

  async #check(
    player: PlayerIdentity,
    adapterId: string,
    remove: NonNullable<Adapter['removePlayer']>,
    lowPriority: boolean,
    source: string | undefined,
  ): Promise<void> {
    const verdict = await this.#options.checks.check(player, { lowPriority, source });
    if (verdict.allowed) return;
    const message = verdict.message !== undefined && verdict.message.trim() !== '' ? verdict.message : DEFAULT_DENIAL;
    try {
      await remove(player, { message, verdict });
      this.#options.logger.info(
        { player: playerLogId(player), name: player.name, adapter: adapterId, source: verdict.source },
        `player removed at the door: ${verdict.source === 'policy' ? 'GSA could not be asked and access.onUnknown is "kick"' : 'GSA does not allow them'} (${message})`,
      );
    } catch (error) {
      this.#options.logger.warn({ player: playerLogId(player), adapter: adapterId, err: error }, 'a player GSA does not allow could not be removed');
    }
  }
}
