// The only place a player id's shape is written: Steam64, EOS, 7 Days to Die platform ids and Mojang UUIDs, how
// each is normalised, and the one cache key of a player. Every id that reaches a game command line, the service or
// a cache is checked here first, so a sixth copy of a pattern cannot drift from the others (test/unit/player-ids
// greps for one). Ids are validated, never cleaned: a near-miss is refused, not repaired.
// Must never import anything of the project (every layer, adapters included, may import it), never throw for
// hostile input, and never accept a character that could end a game command or close a quote (see
// adapters/rcon/commandText.ts).

/** A Steam64 id: 17 decimal digits. */
export const STEAM_ID_PATTERN = /^\d{17}$/;
/** An Epic Online Services product user id: 32 hexadecimal characters, either case (normalised to lowercase). */
export const EOS_ID_PATTERN = /^[0-9a-fA-F]{32}$/;
/**
 * A 7 Days to Die platform id, as the game's console prints it: `Steam_` and a Steam64, `EOS_` and an EOS id, or
 * `XBL_` / `PSN_` and the platform's own account id. The platforms publish no format for the last two, so they get
 * a bounded charset instead (letters, digits, `_`, `-`: nothing a console splits or quotes on), at most 40 long.
 */
export const SDTD_PLATFORM_ID_PATTERN = /^(?:Steam_\d{17}|EOS_[0-9a-fA-F]{32}|(?:XBL|PSN)_[A-Za-z0-9_-]{1,40})$/;
/** A Mojang (Minecraft Java) UUID, dashed 8-4-4-4-12 or undashed, either case (normalised to dashed lowercase). */
export const MOJANG_UUID_PATTERN = /^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9a-fA-F]{32})$/;
/** GSA's own player uuid (System API v2 `Player.uuid`, the {uuid} of /player/{uuid}): dashed, lowercase as GSA writes it. Not a game id. */
export const GSA_PLAYER_UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** `7dtd`: a 7 Days to Die platform id (prefix included). */
export type PlayerIdKind = 'steam' | 'eos' | '7dtd' | 'mojang';

/** An id that passed checkPlayerId, in its normalised form. */
export interface PlayerId<K extends PlayerIdKind = PlayerIdKind> {
  readonly kind: K;
  readonly id: string;
}

const PATTERNS: Readonly<Record<PlayerIdKind, RegExp>> = {
  steam: STEAM_ID_PATTERN,
  eos: EOS_ID_PATTERN,
  '7dtd': SDTD_PLATFORM_ID_PATTERN,
  mojang: MOJANG_UUID_PATTERN,
};

/** The one spelling of an id that already matched its kind's pattern. */
function normalise(kind: PlayerIdKind, id: string): string {
  switch (kind) {
    case 'steam':
      return id;
    case 'eos':
      // ASA prints EOS ids in lowercase; a mod may send either case.
      return id.toLowerCase();
    case '7dtd':
      // The hex of an EOS_ id is one id in either case; the other platforms' ids are kept as printed.
      return id.startsWith('EOS_') ? `EOS_${id.slice(4).toLowerCase()}` : id;
    case 'mojang': {
      const hex = id.replaceAll('-', '').toLowerCase();
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }
  }
}

/**
 * The id as the first kind of `accept` (in its order) whose pattern it matches, normalised; undefined when none
 * does. Never throws. Whitespace around the id is not tolerated. Order matters only for an undashed Mojang UUID,
 * which has the shape of an EOS id: a caller that accepts both says which reading comes first.
 */
export function checkPlayerId<K extends PlayerIdKind>(id: string, accept: readonly K[]): PlayerId<K> | undefined {
  for (const kind of accept) {
    if (PATTERNS[kind].test(id)) return { kind, id: normalise(kind, id) };
  }
  return undefined;
}

/**
 * The key a cache keeps a player under, distinct for every (kind, id) pair. Steam64 and EOS ids are their own keys,
 * as the mute cache always kept them: 17 digits and 32 hex digits cannot meet, and the hot path then reuses the
 * string the frame carries instead of keeping a concatenation for every cached player. The later kinds carry a
 * prefix (`7dtd:`, `mojang:`) holding a `:` that no Steam64 or EOS id contains, so an undashed Mojang UUID and the
 * EOS id with the same hex digits are two keys. `identity.id` must be the normalised id (checkPlayerId's), except
 * that an EOS id in upper case is lowered here, as the mute cache always did.
 */
export function playerKey(identity: PlayerId): string {
  return idKey(identity.kind, identity.id);
}

/** playerKey's one format, by kind and id: callers on the chat path build no PlayerId to ask it. */
function idKey(kind: PlayerIdKind, id: string): string {
  switch (kind) {
    case 'steam':
      return id;
    case 'eos':
      return id.toLowerCase();
    case '7dtd':
      return `7dtd:${id}`;
    case 'mojang':
      return `mojang:${id}`;
  }
}

/** The ids a player may be known by at once (the bridge's PlayerIdentity has this shape). */
export interface KnownPlayerIds {
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  readonly mojangId?: string | undefined;
}

/**
 * The one key of a player known by several ids, for every map, strike book and cooldown that remembers players:
 * playerKey of the first id it has of Steam64, EOS, Mojang (a Minecraft player has the Mojang id alone: without it
 * every such player would share one key). Undefined when it has none.
 */
/** The id a log line names a player by: the first of the Steam64, the EOS id and the Mojang id; `?` when none. */
export function playerLogId(player: KnownPlayerIds): string {
  return player.steamId ?? player.eosId ?? player.mojangId ?? '?';
}

export function playerKeyOf(player: KnownPlayerIds): string | undefined {
  // Read on every verdict once someone is muted (the muted-players list): no PlayerId is made per call.
  if (player.steamId !== undefined) return idKey('steam', player.steamId);
  if (player.eosId !== undefined) return idKey('eos', player.eosId);
  if (player.mojangId !== undefined) return idKey('mojang', player.mojangId);
  return undefined;
}
