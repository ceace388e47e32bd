// Who is on one game server, as its player list says: the last list the game gave, joins and leaves between two
// lists, and the one way a chat line's speaker becomes a player with ids (the ids on the line; else the game's own
// platform id; else the name), for every profile alike.
// It must never guess: a name listed twice is not a player, and a list the game answered but that could not be read
// ("unrecognised", "no-response") never makes anyone leave. It sends nothing itself: `readList` is the adapter's.

import type { Logger } from 'pino';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import { diffPlayerLists, type ListedPlayer, type PlayerListParse } from './profiles/parsedLines.js';
import type { RconChatLine, RosterPresence, SpeakerReading } from './profiles/profile.js';

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
/** Players who left, kept for a leave line read after the list already dropped them; the oldest go first. */
const MAX_RECENTLY_LEFT = 64;

/** A speaker as a chat line named them. */
export type Speaker = Extract<RconChatLine, { kind: 'player' }>;

/**
 * How a speaker was found: the player, and the text of the reading that named them (a line with several readings
 * leaves a different text for each); else why not (the adapter counts it as unattributed chat):
 * - `not-listed`: no reading names a listed player, even after a fresh read;
 * - `ambiguous`: several listed players fit the longest reading that fits any;
 * - `unconfirmed-id`: the line printed an id the list does not show for that name (Conan), and the name alone
 *   does not settle it.
 */
export type SpeakerLookup =
  | { readonly kind: 'found'; readonly player: PlayerIdentity; readonly text: string; readonly listed?: ListedPlayer | undefined }
  | { readonly kind: 'not-listed' }
  | { readonly kind: 'ambiguous'; readonly matches: number }
  | { readonly kind: 'unconfirmed-id' }
  /** The line was the game's own join or leave line of a listed player, read like chat by a crafted name. */
  | { readonly kind: 'presence' };

/** One reading weighed against the list: the listed players it names. */
type ReadingMatch = { readonly reading: SpeakerReading; readonly matches: readonly ListedPlayer[] };

export class PlayerRoster {
  readonly #options: PlayerRosterOptions;
  readonly #extraReadGapMs: number;
  /** The last recognised list; undefined until the first one. */
  #players: readonly ListedPlayer[] | undefined;
  #reading: Promise<void> | undefined;
  /** When the list was last asked for (performance.now), for the extra reads of unknown speakers. */
  #readAt = Number.NEGATIVE_INFINITY;
  /** The read that follows the one in flight, for lines that came after it began. */
  #followUp: Promise<void> | undefined;
  #closed = false;
  /** Name → Mojang id, as the log said at login: used for a speaker the list does not show yet. */
  readonly #learned = new Map<string, string>();
  /** The last players the list stopped showing: a leave line of theirs may still be on its way. */
  #recentlyLeft: ListedPlayer[] = [];

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

  /**
   * A read begun at or after `since` (a `performance.now()` time): the read in flight when it began since then, none
   * when one began and ended since, else a new one. A read in flight that began earlier may have been answered before
   * the line that asks came (a join): one more read follows it, shared by everyone who asks meanwhile.
   */
  readSince(since: number): Promise<void> {
    if (this.#readAt >= since) return this.#reading ?? Promise.resolve();
    const earlier = this.#reading;
    if (earlier === undefined) return this.refresh();
    this.#followUp ??= earlier.then(() => {
      this.#followUp = undefined;
      return this.#readAt >= since ? this.#reading : this.refresh();
    });
    return this.#followUp;
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
    if (left.length > 0) this.#recentlyLeft = [...this.#recentlyLeft, ...left].slice(-MAX_RECENTLY_LEFT);
    for (const player of left) this.#options.onLeft(player);
    for (const player of joined) this.#options.onJoined(player);
    this.#options.onList?.(list.players);
  }

  /**
   * The speaker with their ids.
   * - A line whose ids the game wrote before anything a player chooses (squad, rust) needs no list.
   * - Otherwise the line's readings (one, or several when the name could end at more than one place) are weighed
   *   against the list, the longest name first; the first reading that names listed players decides: one player is
   *   the speaker, several are ambiguous. By the game's platform id (7dtd Xbox players: the EOS id is the list's
   *   `crossid`), by entity id, or by name; where the ids on the line come from a player-chosen name (conan), a
   *   reading with an id counts only when the list shows that id for that name, else by the name alone.
   * - The list is read once more before deciding, when the speaker is not listed yet or a longer reading is not: a
   *   player who just joined must not lose their line, nor lend it, by a crafted name, to a listed namesake. At most
   *   one extra read per `extraReadGapMs` (a name the list never shows must not turn every line into a list command
   *   against the game's rate cap), and none when the list was read since the line came.
   */
  async speaker(line: Speaker, sleep: (ms: number) => Promise<void>, stopped: () => boolean): Promise<SpeakerLookup> {
    const idsOnLine = line.steamId !== undefined || line.eosId !== undefined;
    const trustIds = line.idsFrom !== 'list';
    // A line with ids and no platform id of the game's own (squad, rust) needs no list: it says who spoke.
    if (idsOnLine && trustIds && line.platformId === undefined && line.readings === undefined) {
      const listed = this.find({ steamId: line.steamId, eosId: line.eosId });
      return { kind: 'found', player: { steamId: line.steamId ?? listed?.steamId, eosId: line.eosId ?? listed?.eosId, name: line.name }, text: line.text, listed };
    }
    const arrivedAt = performance.now();
    // The game's join or leave line of a player the list shows (or showed until now): nobody's chat.
    if (line.presence !== undefined && this.#shows(line.presence)) return { kind: 'presence' };
    const learned = line.readings === undefined ? this.#learned.get(line.name) : undefined;
    let weighed = this.#weigh(line);
    // Learned from the log's login line: no list read needed for a player who just joined.
    if (weighed === undefined && learned !== undefined) return { kind: 'found', player: { mojangId: learned, name: line.name }, text: line.text };
    // A line that may be a join line is settled by a fresh list: the joining player is on it by now.
    if (weighed === undefined || weighed.longerUnlisted || line.presence !== undefined) {
      if (this.#readAt < arrivedAt) {
        const waitMs = this.#readAt + this.#extraReadGapMs - performance.now();
        if (waitMs > 0) await sleep(waitMs);
      }
      // A read begun since the line came (a poll, another line's) is awaited, never taken as already answered; one
      // begun before it is followed by one more. No second look at the clock: a timer may fire a fraction early.
      if (!stopped()) await this.readSince(arrivedAt);
      if (line.presence !== undefined && this.#shows(line.presence)) return { kind: 'presence' };
      weighed = this.#weigh(line);
    }
    if (weighed !== undefined) return this.#decided(line, weighed.match);
    if (idsOnLine && trustIds) return { kind: 'found', player: { steamId: line.steamId, eosId: line.eosId, name: line.name }, text: line.text };
    return idsOnLine ? { kind: 'unconfirmed-id' } : { kind: 'not-listed' };
  }

  /**
   * Whether the list shows the player a join or leave line names, by name and by the id when the line has one; a
   * leave line also counts a player the list stopped showing lately (the list may have been read before the line).
   */
  #shows(presence: RosterPresence): boolean {
    const eosId = presence.eosId?.toLowerCase();
    const candidates = presence.kind === 'leave' ? [...this.players, ...this.#recentlyLeft] : this.players;
    return candidates.some(
      (player) =>
        player.name === presence.name &&
        (presence.steamId === undefined || player.steamId === presence.steamId) &&
        (eosId === undefined || player.eosId?.toLowerCase() === eosId),
    );
  }

  /** The longest reading that names listed players, and whether a longer one names nobody listed (yet). */
  #weigh(line: Speaker): { readonly match: ReadingMatch; readonly longerUnlisted: boolean } | undefined {
    const readings = line.readings ?? [line];
    for (const [index, reading] of readings.entries()) {
      const matches = this.#matching(line, reading);
      if (matches.length > 0) return { match: { reading, matches }, longerUnlisted: index > 0 };
    }
    return undefined;
  }

  #decided(line: Speaker, { reading, matches }: ReadingMatch): SpeakerLookup {
    const [only, ...others] = matches;
    if (only === undefined || others.length > 0) return { kind: 'ambiguous', matches: matches.length };
    // 7 Days to Die: the list adds the EOS id (crossid) GSA knows the player by; the line keeps its own name.
    const name = reading.name === '' ? only.name : reading.name;
    // Ids the line printed count only when trusted; a player-chosen name's ids never reach the identity.
    const lineIds = line.idsFrom === 'list' ? {} : { steamId: line.steamId, eosId: line.eosId };
    const player = withMojangId({ steamId: only.steamId ?? lineIds.steamId, eosId: only.eosId ?? lineIds.eosId, name }, only.mojangId);
    return { kind: 'found', player, text: reading.text, listed: only };
  }

  #matching(line: Speaker, reading: SpeakerReading): ListedPlayer[] {
    if (line.platformId !== undefined) {
      const byPlatform = this.players.filter((player) => player.platformId === line.platformId);
      if (byPlatform.length > 0) return byPlatform;
    }
    if (line.entityId !== undefined) {
      const byEntity = this.players.filter((player) => player.entityId === line.entityId);
      if (byEntity.length > 0) return byEntity;
    }
    // The game named the speaker by its own id (7 Days to Die): a name, which anyone can share, must not stand in for
    // it while the list does not show that id yet (a newcomer named like a listed player would be taken for them).
    if (line.platformId !== undefined || line.entityId !== undefined) return [];
    const byName = this.players.filter((player) => player.name === reading.name);
    if (line.idsFrom !== 'list' || (reading.steamId === undefined && reading.eosId === undefined)) return byName;
    // The id a player-chosen name printed: believed only where the list shows it for that very name.
    const confirmed = byName.filter((player) => (reading.steamId !== undefined && player.steamId === reading.steamId) || (reading.eosId !== undefined && player.eosId?.toLowerCase() === reading.eosId.toLowerCase()));
    return confirmed.length > 0 ? confirmed : byName;
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
