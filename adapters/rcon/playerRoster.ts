// Who is on one game server, as its player list says: the last list the game gave, joins and leaves between two
// lists, and the one way a chat line's speaker becomes a player with ids (the ids on the line; else the game's own
// platform id; else the name), for every profile alike.
// It must never guess: a name listed twice is not a player, and a list the game answered but that could not be read
// ("unrecognised", "no-response") never makes anyone leave. It sends nothing itself: `readList` is the adapter's.

import type { Logger } from 'pino';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import { diffPlayerLists, type ListedPlayer, type PlayerListParse } from './profiles/parsedLines.js';
import type { RconChatLine } from './profiles/profile.js';

export interface PlayerRosterOptions {
  /** Asks the game for its list; undefined when the command failed (already logged). */
  readonly readList: () => Promise<PlayerListParse | undefined>;
  readonly logger: Logger;
  /** A player the new list shows and the last did not. */
  readonly onJoined: (player: ListedPlayer) => void;
  readonly onLeft: (player: ListedPlayer) => void;
  /** Every recognised list, after joins and leaves were told. */
  readonly onList?: ((players: readonly ListedPlayer[]) => void) | undefined;
  /** The shortest gap between two reads made for a speaker the list did not show yet. @default 1000 */
  readonly extraReadGapMs?: number | undefined;
}

/** Most names remembered from the log's login lines (Minecraft's `UUID of player`); the oldest go first. */
const MAX_LEARNED = 1_000;

/** A speaker as a chat line named them. */
export type Speaker = Extract<RconChatLine, { kind: 'player' }>;

/** How a speaker was found, for the adapter's log line when they were not. */
export type SpeakerLookup =
  | { readonly kind: 'found'; readonly player: PlayerIdentity; readonly listed?: ListedPlayer | undefined }
  | { readonly kind: 'not-listed' }
  | { readonly kind: 'ambiguous'; readonly matches: number };

export class PlayerRoster {
  readonly #options: PlayerRosterOptions;
  readonly #extraReadGapMs: number;
  /** The last recognised list; undefined until the first one. */
  #players: readonly ListedPlayer[] | undefined;
  #reading: Promise<void> | undefined;
  /** When the list was last asked for (performance.now), for the extra reads of unknown speakers. */
  #readAt = Number.NEGATIVE_INFINITY;
  #closed = false;
  /** Name → Mojang id, as the log said at login: used for a speaker the list does not show yet. */
  readonly #learned = new Map<string, string>();

  constructor(options: PlayerRosterOptions) {
    this.#options = options;
    this.#extraReadGapMs = options.extraReadGapMs ?? 1_000;
  }

  get players(): readonly ListedPlayer[] {
    return this.#players ?? [];
  }

  knownNames(): string[] {
    return this.players.map((player) => player.name);
  }

  /**
   * The game's log named a player's id as they logged in (Minecraft's `UUID of player <name> is <uuid>`, written by
   * the game itself before the player can say anything). The player list wins over it whenever it shows the name.
   */
  learn(name: string, mojangId: string): void {
    this.#learned.delete(name);
    this.#learned.set(name, mojangId);
    if (this.#learned.size > MAX_LEARNED) {
      const oldest = this.#learned.keys().next().value;
      if (oldest !== undefined) this.#learned.delete(oldest);
    }
  }

  /** Stops reacting to answers still in flight. */
  close(): void {
    this.#closed = true;
  }

  /** Reads the list and tells joins and leaves; concurrent callers share one read. */
  refresh(): Promise<void> {
    this.#reading ??= this.#read().finally(() => {
      this.#reading = undefined;
    });
    return this.#reading;
  }

  async #read(): Promise<void> {
    this.#readAt = performance.now();
    const list = await this.#options.readList();
    if (list === undefined || this.#closed) return;
    for (const odd of list.unparsed.slice(0, 3)) this.#options.logger.debug({ reason: odd.reason }, 'player list line not understood');
    // Only a recognised list says who is online: an empty or foreign answer must not make everyone leave.
    if (list.status === 'unrecognised') this.#options.logger.debug('a player list answer was not recognised; the last list is kept');
    if (list.status !== 'players' && list.status !== 'none') return;
    const { joined, left } = diffPlayerLists(this.#players ?? [], list.players);
    this.#players = list.players;
    for (const player of left) this.#options.onLeft(player);
    for (const player of joined) this.#options.onJoined(player);
    this.#options.onList?.(list.players);
  }

  /**
   * The speaker with their ids: as the line says (squad, rust, 7dtd Steam players, conan), else through the list by
   * the game's platform id (7dtd Xbox players: the EOS id is the list's `crossid`) or by name (ark, old conan lines).
   * A speaker the list does not show yet gets one fresh read, at most one per `extraReadGapMs` (a name the list never
   * shows must not turn every line into a list command against the game's rate cap).
   */
  async speaker(line: Speaker, sleep: (ms: number) => Promise<void>, stopped: () => boolean): Promise<SpeakerLookup> {
    const idsOnLine = line.steamId !== undefined || line.eosId !== undefined;
    // A line with ids and no platform id of the game's own (squad, rust, conan) needs no list: it says who spoke.
    if (idsOnLine && line.platformId === undefined) {
      const listed = this.find({ steamId: line.steamId, eosId: line.eosId });
      return { kind: 'found', player: { steamId: line.steamId ?? listed?.steamId, eosId: line.eosId ?? listed?.eosId, name: line.name }, listed };
    }
    let matches = this.#matching(line);
    const learned = matches.length === 0 ? this.#learned.get(line.name) : undefined;
    // Learned from the log's login line: no list read needed for a player who just joined.
    if (learned !== undefined) return { kind: 'found', player: { mojangId: learned, name: line.name } };
    if (matches.length === 0) {
      const waitMs = this.#readAt + this.#extraReadGapMs - performance.now();
      if (waitMs > 0) await sleep(waitMs);
      matches = this.#matching(line);
      // No second look at the clock: a timer may fire a fraction of a millisecond "early" by performance.now().
      if (matches.length === 0 && !stopped()) {
        await this.refresh();
        matches = this.#matching(line);
      }
    }
    const [only, ...others] = matches;
    if (others.length > 0) return { kind: 'ambiguous', matches: matches.length };
    if (only !== undefined) {
      // 7 Days to Die: the list adds the EOS id (crossid) GSA knows the player by; the line keeps its own name.
      const name = line.name === '' ? only.name : line.name;
      return { kind: 'found', player: withMojangId({ steamId: only.steamId ?? line.steamId, eosId: only.eosId ?? line.eosId, name }, only.mojangId), listed: only };
    }
    if (idsOnLine) return { kind: 'found', player: { steamId: line.steamId, eosId: line.eosId, name: line.name } };
    return { kind: 'not-listed' };
  }

  #matching(line: Speaker): ListedPlayer[] {
    if (line.platformId !== undefined) {
      const byPlatform = this.players.filter((player) => player.platformId === line.platformId);
      if (byPlatform.length > 0) return byPlatform;
    }
    if (line.entityId !== undefined) {
      const byEntity = this.players.filter((player) => player.entityId === line.entityId);
      if (byEntity.length > 0) return byEntity;
    }
    return this.players.filter((player) => player.name === line.name);
  }

  /** The listed player with one of these ids. */
  find(player: PlayerIdentity): ListedPlayer | undefined {
    const eosId = player.eosId?.toLowerCase();
    return this.players.find(
      (listed) =>
        (player.steamId !== undefined && listed.steamId === player.steamId) ||
        (eosId !== undefined && listed.eosId?.toLowerCase() === eosId) ||
        (player.mojangId !== undefined && listed.mojangId === player.mojangId),
    );
  }

  /** The listed name for an id (Squad's pushes may print a stale one). */
  nameOf(id: string): string | undefined {
    const lower = id.toLowerCase();
    return this.players.find((player) => player.steamId === id || player.eosId?.toLowerCase() === lower)?.name;
  }

  isListed(player: PlayerIdentity): boolean {
    return this.find(player) !== undefined;
  }
}

export function identityOf(listed: ListedPlayer): PlayerIdentity {
  return withMojangId({ steamId: listed.steamId, eosId: listed.eosId, name: listed.name }, listed.mojangId);
}

/** The identity with a Mojang id when there is one (the key stays absent otherwise, as every other game's). */
function withMojangId(player: PlayerIdentity, mojangId: string | undefined): PlayerIdentity {
  return mojangId === undefined ? player : { ...player, mojangId };
}
