// Who the running sidecar has seen muted, for `gsa-bridge mutes`: from the core's verdict events, each player whose
// chat line GSA (or the mute cache) called muted, on which server, since when, with the alert they were shown, and
// how many of their lines were blocked in the last hour, and the id GSA was asked by whose answer said muted. A later 'ok' verdict for the player on that server ends the
// entry (the mute is over). Bounded: beyond maxPlayers the player seen muted longest ago is forgotten.
// It never keeps or shows a chat line's text (events carry none), never changes a verdict, and never asks GSA: it
// only knows the players who spoke.

import type { BridgeEvents, VerdictEvent } from '../bridge/events.js';
import type { AskedId } from '../bridge/lookupIds.js';
import type { PlayerIdentity } from '../bridge/port.js';
import { playerKeyOf } from '../ids/playerIds.js';
import { systemClock, type Clock } from '../time/clock.js';
import { printableText } from '../text/printableText.js';

/** "Recently": blocked lines are counted over this window. */
export const RECENT_BLOCKS_WINDOW_MS = 3_600_000;
/** The window is counted in this many steps (5 minutes each for the hour): memory per player stays fixed. */
const RECENT_STEPS = 12;
/** Players remembered at most; the one seen muted longest ago goes first. */
export const DEFAULT_MAX_MUTED_PLAYERS = 10_000;
/** GSA's alert is its text: cut to this many characters. */
const MAX_ALERT = 300;
/** A name is the game's text (or the player's): cut to this many characters. */
const MAX_NAME = 100;

export interface MutedPlayersOptions {
  readonly events: BridgeEvents;
  /** Wall-clock ms (`since` is shown as a date). Default the system clock; tests pass fake time. */
  readonly clock?: Clock | undefined;
  /** Default DEFAULT_MAX_MUTED_PLAYERS. */
  readonly maxPlayers?: number | undefined;
}

/** One player seen muted on one server. Text fields are printable: no control or bidi characters, a name at most 100 characters, an alert 300. */
export interface MutedPlayer {
  readonly server: string;
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  readonly mojangId?: string | undefined;
  /** The name the game gave with the last line, when it gave one. */
  readonly name?: string | undefined;
  /** Wall-clock ms of the first line seen muted (since this sidecar started). */
  readonly since: number;
  /** Wall-clock ms of the last line seen muted. */
  readonly lastBlockedAt: number;
  /** What the player was shown: GSA's alert, or mute.defaultAlert when GSA sent none. */
  readonly alert?: string | undefined;
  /**
   * The id GSA was asked by whose answer said muted (servers[].lookupIds chose it), as last seen; undefined for a
   * mute the sidecar made itself (the chat filter's), which asked nobody.
   */
  readonly asked?: AskedId | undefined;
  /**
   * Lines decided muted in the last RECENT_BLOCKS_WINDOW_MS (counted in 5-minute steps): blocked, or for RCON, whose
   * chat the game already showed, answered with the alert.
   */
  readonly blockedRecently: number;
}

interface Entry {
  readonly server: string;
  player: PlayerIdentity;
  readonly since: number;
  lastBlockedAt: number;
  alert: string | undefined;
  asked: AskedId | undefined;
  /** Blocked lines per step; `steps[i]` counts step number `stepOf[i]` (a ring over RECENT_STEPS). */
  readonly counts: number[];
  readonly stepOf: number[];
}

export class MutedPlayers {
  readonly #clock: Clock;
  readonly #maxPlayers: number;
  readonly #stepMs = RECENT_BLOCKS_WINDOW_MS / RECENT_STEPS;
  /** By server and player id; a Map keeps insertion order, so the player first seen muted longest ago is dropped first. */
  readonly #entries = new Map<string, Entry>();
  /** Entries per player id, any server: most lines are 'ok' from players never seen muted, answered by one lookup. */
  readonly #entriesOf = new Map<string, number>();
  readonly #unsubscribe: () => void;

  constructor(options: MutedPlayersOptions) {
    this.#clock = options.clock ?? systemClock;
    this.#maxPlayers = options.maxPlayers ?? DEFAULT_MAX_MUTED_PLAYERS;
    this.#unsubscribe = options.events.on('verdict', (event) => {
      this.#verdict(event);
    });
  }

  /** How many players are listed now. */
  get size(): number {
    return this.#entries.size;
  }

  /** The players seen muted and not seen unmuted since, the most recently blocked first. */
  list(): MutedPlayer[] {
    const now = this.#clock.now();
    const currentStep = Math.floor(now / this.#stepMs);
    const players: MutedPlayer[] = [];
    for (const entry of this.#entries.values()) {
      let blockedRecently = 0;
      for (let slot = 0; slot < RECENT_STEPS; slot++) {
        if (currentStep - (entry.stepOf[slot] ?? -Infinity) < RECENT_STEPS) blockedRecently += entry.counts[slot] ?? 0;
      }
      const { player } = entry;
      players.push({
        server: entry.server,
        steamId: player.steamId,
        eosId: player.eosId,
        mojangId: player.mojangId,
        name: player.name === undefined ? undefined : printableText(player.name, MAX_NAME),
        since: entry.since,
        lastBlockedAt: entry.lastBlockedAt,
        alert: entry.alert,
        asked: entry.asked,
        blockedRecently,
      });
    }
    return players.sort((a, b) => b.lastBlockedAt - a.lastBlockedAt);
  }

  close(): void {
    this.#unsubscribe();
    this.#entries.clear();
    this.#entriesOf.clear();
  }

  #verdict(event: VerdictEvent): void {
    if (event.reason !== 'muted' && (event.reason !== 'ok' || this.#entries.size === 0)) return;
    const id = playerKeyOf(event.player);
    if (id === undefined) return;
    if (event.reason === 'ok') {
      // Allowed after a mute: it is over (or was lifted) on this server.
      if (this.#entriesOf.has(id)) this.#forget(`${event.server}\u0000${id}`, id);
      return;
    }
    const key = `${event.server}\u0000${id}`;
    const now = this.#clock.now();
    let entry = this.#entries.get(key);
    if (entry === undefined) {
      if (this.#entries.size >= this.#maxPlayers) {
        const oldest = this.#entries.entries().next();
        if (oldest.done !== true) this.#forget(oldest.value[0], playerKeyOf(oldest.value[1].player) ?? '');
      }
      entry = { server: event.server, player: event.player, since: now, lastBlockedAt: now, alert: undefined, asked: undefined, counts: new Array<number>(RECENT_STEPS).fill(0), stepOf: new Array<number>(RECENT_STEPS).fill(-Infinity) };
      this.#entries.set(key, entry);
      this.#entriesOf.set(id, (this.#entriesOf.get(id) ?? 0) + 1);
    }
    // The latest identity: a name the game gave with this line, an EOS id learned since.
    entry.player = event.player;
    entry.lastBlockedAt = now;
    if (event.alert !== undefined) entry.alert = printableText(event.alert, MAX_ALERT);
    if (event.asked !== undefined) entry.asked = event.asked;
    this.#count(entry, now);
  }

  #forget(key: string, id: string): void {
    if (!this.#entries.delete(key)) return;
    const left = (this.#entriesOf.get(id) ?? 1) - 1;
    if (left > 0) this.#entriesOf.set(id, left);
    else this.#entriesOf.delete(id);
  }

  #count(entry: Entry, now: number): void {
    const step = Math.floor(now / this.#stepMs);
    const slot = step % RECENT_STEPS;
    if (entry.stepOf[slot] !== step) {
      entry.stepOf[slot] = step;
      entry.counts[slot] = 0;
    }
    entry.counts[slot] = (entry.counts[slot] ?? 0) + 1;
  }
}
