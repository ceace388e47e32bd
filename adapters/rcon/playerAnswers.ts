// What the game is made to do for one player: tell them something privately, silence them in game while the service
// says they are muted (Rust's own mute, GameServerApp's ASA mod, or the host's muteCommand), lift it when the mute is
// over, and kick a repeat offender when the host asked for it. Commands come from the profile's builders or the
// host's templates (commandTemplate.ts); this file only decides which, for whom, and how often.
// It must never act on a verdict the service did not give (the caller passes only "muted"), never answer one player
// more than once per alertCooldownMs, never build a command by hand, and never throw out of a push.

import type { Logger } from 'pino';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import { playerKeyOf } from '../../src/ids/playerIds.js';
import { compileCommandTemplate, templateValuesOf, type CommandTemplate } from './commandTemplate.js';
import { checkPlayerId, commandPlayerId } from './commandText.js';
import type { RconOptions } from './options.js';
import type { PlayerKick } from './playerKick.js';
import type { PlayerRoster } from './playerRoster.js';
import type { RconProfile } from './profiles/profile.js';

export interface PlayerAnswersOptions {
  readonly adapterId: string;
  readonly profile: RconProfile;
  readonly options: RconOptions;
  readonly roster: PlayerRoster;
  /** The adapter's one kick (kickCommand or the profile's), for kickAfterAlerts. */
  readonly kick: PlayerKick;
  /** Sends a command; a failure is logged there, never thrown. `what` names it in the log (never the text). */
  readonly send: (command: string, what: string) => Promise<void>;
  /** Sends a command and rejects when it failed (a private message the caller must know about). */
  readonly sendOrThrow: (command: string) => Promise<void>;
  /** Logs a command that failed, by its code (never its text). */
  readonly logFailure: (error: unknown, what: string) => void;
  readonly logger: Logger;
  readonly now: () => number;
}

/** One muted player's answers so far: when they were last answered, how many alerts since the last kick. */
interface OffenderState {
  lastActionAt: number;
  alerts: number;
}

/** How the game silences a player itself, when it can: the command for one player, or undefined (no usable id). */
interface InGameMute {
  mute(player: PlayerIdentity, alert: string): string | undefined;
  unmute(player: PlayerIdentity): string | undefined;
}

/** Most players remembered per map; past it the stalest go (a cooldown long over carries nothing). */
const MAX_REMEMBERED = 10_000;

export class PlayerAnswers {
  readonly #config: PlayerAnswersOptions;
  readonly #notify: CommandTemplate | undefined;
  readonly #inGameMute: InGameMute | undefined;
  readonly #offenders = new Map<string, OffenderState>();
  /** Players this adapter muted in game, and when: not muted again within the cooldown. */
  readonly #mutedInGameAt = new Map<string, number>();
  /** Players whose mute ended while they were away: unmuted in game when they are listed again. */
  readonly #pendingUnmutes = new Map<string, PlayerIdentity>();

  constructor(config: PlayerAnswersOptions) {
    this.#config = config;
    const { options, profile } = config;
    // Validated by the schema already; compiled once here with this game's text rules.
    this.#notify = options.notifyCommand === undefined ? undefined : compileCommandTemplate(options.notifyCommand, 'notifyCommand', profile.textRules, true);
    this.#inGameMute = this.#chooseInGameMute();
  }

  /** The game can be made to tell a player something privately (its own command, or the host's notifyCommand). */
  get canTell(): boolean {
    const { tell, tellByName } = this.#config.profile.commands;
    return tell !== undefined || tellByName !== undefined || this.#notify !== undefined;
  }

  /** Silences muted players in game (the game then drops their chat itself). */
  get mutesInGame(): boolean {
    return this.#inGameMute !== undefined;
  }

  /** @throws when the player cannot be addressed or the command failed. */
  async tell(player: PlayerIdentity, text: string): Promise<void> {
    const command = this.#tellCommand(player, text);
    if (command === undefined) throw new Error(`rcon adapter ${this.#config.adapterId} cannot address this player (no usable id)`);
    await this.#config.sendOrThrow(command);
  }

  /** Tells a player something when the game can; a failure is logged, never thrown (a chat line must go on). */
  async tellQuietly(player: PlayerIdentity, text: string): Promise<void> {
    if (!this.canTell) {
      this.#config.logger.debug('cannot tell the player (no private message on this game; set notifyCommand)');
      return;
    }
    try {
      await this.tell(player, text);
    } catch (error) {
      this.#config.logFailure(error, 'tell');
    }
  }

  /**
   * The answer to a muted speaker, at most once per player per alertCooldownMs: the in-game mute (when there is
   * one), the alert as a private message, and after `kickAfterAlerts` alerts the kick. The cooldown is taken before
   * any await, so two lines read together get one answer.
   */
  async mutedSpeaker(player: PlayerIdentity, alert: string): Promise<void> {
    const key = keyOf(player);
    const now = this.#config.now();
    const state = this.#offenders.get(key);
    if (state !== undefined && now - state.lastActionAt < this.#config.options.alertCooldownMs) return;
    const offender = state ?? { lastActionAt: now, alerts: 0 };
    offender.lastActionAt = now;
    offender.alerts += 1;
    remember(this.#offenders, key, offender);

    this.#muteInGame(player, alert);
    await this.tellQuietly(player, alert);
    const kickAfter = this.#config.options.kickAfterAlerts;
    const kick = this.#config.kick;
    if (kickAfter > 0 && offender.alerts >= kickAfter && kick.source !== undefined) {
      offender.alerts = 0;
      let command: string | undefined;
      try {
        command = kick.build(player, alert).command;
      } catch (error) {
        this.#config.logger.debug({ err: error }, 'a repeat offender cannot be kicked');
      }
      if (command !== undefined) await this.#config.send(command, 'kick');
    }
  }

  /** The service's news about a player: a mute is applied in game to a listed player, a mute over is lifted. */
  muteChanged(player: PlayerIdentity, muted: boolean, alert: string | undefined): void {
    const key = keyOf(player);
    if (!muted) this.#offenders.delete(key);
    if (this.#inGameMute === undefined) return;
    // Only players who are (or were just) on this server: games mute online players only.
    if (muted) {
      if (this.#config.roster.isListed(player)) this.#muteInGame(player, alert ?? '');
      return;
    }
    this.#mutedInGameAt.delete(key);
    // The game unmutes online players only: one who is away is unmuted when the player list sees them again.
    if (this.#config.roster.isListed(player)) this.#unmuteInGame(player);
    else remember(this.#pendingUnmutes, key, player);
  }

  /** A player the list shows for the first time: a mute that ended while they were away is lifted now. */
  joined(player: PlayerIdentity): void {
    if (this.#pendingUnmutes.delete(keyOf(player))) this.#unmuteInGame(player);
  }

  left(player: PlayerIdentity): void {
    const key = keyOf(player);
    this.#offenders.delete(key);
    this.#mutedInGameAt.delete(key);
  }

  /** Whether this adapter muted the player in game (their chat never reaches a gate again, so the caller asks). */
  mutedInGame(player: PlayerIdentity): boolean {
    return this.#mutedInGameAt.has(keyOf(player));
  }

  /** Mutes in game unless this adapter did within the cooldown (a muted player's lines may keep coming). */
  muteInGameNow(player: PlayerIdentity, alert: string): void {
    this.#muteInGame(player, alert);
  }

  #muteInGame(player: PlayerIdentity, alert: string): void {
    const inGame = this.#inGameMute;
    if (inGame === undefined) return;
    const key = keyOf(player);
    const last = this.#mutedInGameAt.get(key);
    const now = this.#config.now();
    if (last !== undefined && now - last < this.#config.options.alertCooldownMs) return;
    const command = inGame.mute(player, alert);
    if (command === undefined) return;
    remember(this.#mutedInGameAt, key, now);
    void this.#config.send(command, 'mute');
  }

  #unmuteInGame(player: PlayerIdentity): void {
    const command = this.#inGameMute?.unmute(player);
    if (command !== undefined) void this.#config.send(command, 'unmute');
  }

  /** The host's muteCommand first, then GameServerApp's ASA mod when installed, then the game's own (Rust). */
  #chooseInGameMute(): InGameMute | undefined {
    const { options, profile } = this.#config;
    if (options.muteCommand !== undefined) {
      const mute = compileCommandTemplate(options.muteCommand, 'muteCommand', profile.textRules, false);
      const unmute = options.unmuteCommand === undefined ? undefined : compileCommandTemplate(options.unmuteCommand, 'unmuteCommand', profile.textRules, false);
      return {
        mute: (player, alert) => this.#expand(mute, player, alert),
        unmute: (player) => (unmute === undefined ? undefined : this.#expand(unmute, player, '')),
      };
    }
    const gsaModMute = profile.commands.gsaModMute;
    if (options.gsaMod === true && gsaModMute !== undefined) {
      return {
        mute: (player, alert) => this.#withCommandId(player, (id) => gsaModMute(id, true, alert)),
        unmute: (player) => this.#withCommandId(player, (id) => gsaModMute(id, false, '')),
      };
    }
    const { mute, unmute } = profile.commands;
    if (options.enforceMute !== false && mute !== undefined) {
      const steamIdOf = (player: PlayerIdentity): string | undefined =>
        player.steamId !== undefined && checkPlayerId(player.steamId, ['steam']) !== undefined ? player.steamId : undefined;
      return {
        mute: (player) => {
          const steamId = steamIdOf(player);
          return steamId === undefined ? undefined : mute(steamId);
        },
        unmute: (player) => {
          const steamId = steamIdOf(player);
          return steamId === undefined || unmute === undefined ? undefined : unmute(steamId);
        },
      };
    }
    return undefined;
  }

  #tellCommand(player: PlayerIdentity, text: string): string | undefined {
    const { tell, tellByName } = this.#config.profile.commands;
    // The host's notifyCommand replaces a by-name message (a plugin's own), never an id-addressed one.
    if (tell !== undefined) return this.#withCommandId(player, (id) => tell(id, text));
    if (this.#notify !== undefined) return this.#expand(this.#notify, player, text);
    if (tellByName === undefined) return undefined;
    const name = this.#config.roster.find(player)?.name ?? player.name;
    if (name === undefined) return undefined;
    try {
      return tellByName(name, text);
    } catch (error) {
      // A name the game's rule refuses (it could hold a selector or a second argument): no command at all.
      this.#config.logger.debug({ err: error }, 'a player name cannot be addressed safely');
      return undefined;
    }
  }

  /** A template filled for one player; undefined when a value it needs is missing or invalid (logged at debug). */
  #expand(template: CommandTemplate, player: PlayerIdentity, message: string): string | undefined {
    try {
      return template.expand(templateValuesOf(player, this.#config.roster.find(player), message));
    } catch (error) {
      this.#config.logger.debug({ err: error }, 'a command template could not address this player');
      return undefined;
    }
  }

  #withCommandId(player: PlayerIdentity, build: (id: string) => string): string | undefined {
    const id = this.#commandId(player);
    return id === undefined ? undefined : build(id);
  }

  #commandId(player: PlayerIdentity): string | undefined {
    try {
      return commandPlayerId(player, this.#config.profile.commandIds).id;
    } catch {
      return undefined;
    }
  }
}

/** The key a player is remembered by: the project's one player key (playerKeyOf); '' for a player with no id. */
export function keyOf(player: PlayerIdentity): string {
  return playerKeyOf(player) ?? '';
}

function remember<Value>(map: Map<string, Value>, key: string, value: Value): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_REMEMBERED) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
