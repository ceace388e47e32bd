// How one rcon adapter removes a player: the host's `kickCommand` when set, else the profile's kick builder (by id, or
// by name where the game's commands take names), else none (Conan: the adapter then has no removePlayer). It builds
// the command and judges the game's answer; the adapter sends it. Used at the door (access.enforce, through the
// adapter's removePlayer) and by the optional escalation (`kickAfterAlerts`).
// It must never build a command for an id of the wrong kind or a name the game's rule refuses (it throws, and nothing
// is sent), never clean a name into another player's, and never put GSA's words into a command uncleaned.

import type { PlayerIdentity } from '../../src/bridge/port.js';
import { compileCommandTemplate, templateValuesOf, type CommandTemplate } from './commandTemplate.js';
import { commandPlayerId } from './commandText.js';
import { KickNotDeliveredError, KickRefusedError, UnkickablePlayerError, isRconError } from './errors.js';
import type { RconOptions } from './options.js';
import type { ListedPlayer } from './profiles/parsedLines.js';
import type { RconProfile } from './profiles/profile.js';

/** Where the kick comes from, for the start-up line and the docs. */
export type KickSource = 'kickCommand' | 'profile';

export interface PlayerKickOptions {
  readonly adapterId: string;
  readonly profile: RconProfile;
  readonly options: RconOptions;
  /** The player as the game's list shows them now (their name, platform id and entity id come from there). */
  readonly listed: (player: PlayerIdentity) => ListedPlayer | undefined;
  /** Sends a command on the adapter's session: the game's answer, or a rejection with an RconError. */
  readonly command: (text: string) => Promise<string>;
  /** Tells the player something privately where the game can; never rejects (a kick must go on without it). */
  readonly tell: (player: PlayerIdentity, text: string) => Promise<void>;
}

/** A kick for one player: the command, and whether it shows them the reason (else tell them first). */
export interface BuiltKick {
  readonly command: string;
  readonly carriesReason: boolean;
}

export class PlayerKick {
  readonly #config: PlayerKickOptions;
  readonly #template: CommandTemplate | undefined;

  constructor(config: PlayerKickOptions) {
    this.#config = config;
    const { kickCommand } = config.options;
    // Validated by the schema already; compiled here with this game's text rules. A kick must reach exactly the
    // player named: a {name} the cleaning would change (or split) addresses nobody rather than a namesake.
    this.#template = kickCommand === undefined ? undefined : compileCommandTemplate(kickCommand, 'kickCommand', config.profile.textRules, false, { exactName: true });
  }

  /** Where this adapter's kick comes from; undefined when it has none (Conan without kickCommand). */
  get source(): KickSource | undefined {
    if (this.#template !== undefined) return 'kickCommand';
    const { kick, kickByName } = this.#config.profile.commands;
    return kick !== undefined || kickByName !== undefined ? 'profile' : undefined;
  }

  /** The game's words for "not kicked" in the answer, when the profile knows them. */
  refused(answer: string): boolean {
    return this.#config.profile.commands.kickRefused?.test(answer) ?? false;
  }

  /**
   * Removes the player with `reason` (GSA's words): told first where the kick shows no reason (ARK), then kicked.
   * Resolves once the game took the kick; rejects with UnkickablePlayerError (nothing sent), KickRefusedError (the game
   * said it did not kick) or KickNotDeliveredError (the session is down, or the answer did not come).
   */
  async remove(player: PlayerIdentity, reason: string): Promise<void> {
    const id = this.#config.adapterId;
    const kick = this.build(player, reason);
    if (!kick.carriesReason) await this.#config.tell(player, reason);
    let answer: string;
    try {
      answer = await this.#config.command(kick.command);
    } catch (error) {
      const code = isRconError(error) ? error.code : undefined;
      throw new KickNotDeliveredError(`rcon adapter ${id}: the kick did not reach the game or got no answer${isRconError(error) ? ` (${error.message})` : ''}`, code, error);
    }
    // The answer is the game's text (it may hold a name): judged, never repeated in the error.
    if (this.refused(answer)) throw new KickRefusedError(`rcon adapter ${id}: the game did not kick the player (it answered that nobody online matches, or that it does not know the command)`);
  }

  /**
   * The kick command for this player with `reason` (GSA's words, cleaned by the builder or the template).
   * @throws UnkickablePlayerError (naming the adapter and why) when no command can address them, or none exists.
   */
  build(player: PlayerIdentity, reason: string): BuiltKick {
    const listed = this.#config.listed(player);
    try {
      if (this.#template !== undefined) {
        return { command: this.#template.expand(templateValuesOf(player, listed, reason)), carriesReason: this.#template.placeholders.has('message') };
      }
      const { profile } = this.#config;
      const { kick, kickByName, kickWithoutReason } = profile.commands;
      if (kick !== undefined) {
        // The list may know an id the caller's identity lacks (7 Days to Die's crossid).
        const ids = { steamId: player.steamId ?? listed?.steamId, eosId: player.eosId ?? listed?.eosId };
        return { command: kick(commandPlayerId(ids, profile.commandIds).id, reason), carriesReason: kickWithoutReason !== true };
      }
      if (kickByName !== undefined) {
        const name = listed?.name ?? player.name;
        if (name === undefined) throw new UnkickablePlayerError(`rcon adapter ${this.#config.adapterId} cannot kick this player: the game's kick takes a name and none is known`);
        return { command: kickByName(name, reason), carriesReason: true };
      }
    } catch (error) {
      if (error instanceof UnkickablePlayerError) throw error;
      const why = error instanceof Error ? error.message : String(error);
      throw new UnkickablePlayerError(`rcon adapter ${this.#config.adapterId} cannot kick this player: ${why}`, error);
    }
    throw new UnkickablePlayerError(`rcon adapter ${this.#config.adapterId} has no kick: profile ${this.#config.profile.name} has none; set kickCommand`);
  }
}
