// The shapes every game's line parsers return, so a profile handles ARK, Squad and Rust answers alike.
// Types and one pure diff only: must never parse a game's text (that is each game's own file) or do I/O.

/** A line the parser could not read, kept with why, so a profile can log it (rate-limited) instead of failing. */
export interface UnparsedLine {
  readonly line: string;
  readonly reason: string;
}

/** A player as a player-list answer names them: at least one id (validated), and the name as the game prints it. */
export interface ListedPlayer {
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  /** A Mojang UUID, dashed lowercase (Minecraft's `list uuids`). */
  readonly mojangId?: string | undefined;
  readonly name: string;
  /** The game's own id as its list prints it, when it has one besides the above (7 Days to Die `Steam_…`, `XBL_…`). */
  readonly platformId?: string | undefined;
  /** An engine's entity number (7 Days to Die `id=171`), for a host's template `{entityId}`. */
  readonly entityId?: number | undefined;
}

/**
 * What a player-list answer said:
 * - `players`: a list was recognised (it may be empty only when the game's "nobody" form was seen);
 * - `none`: the game said nobody is online (`No Players Connected`, Squad's headers with no rows, Rust's `[]`);
 * - `no-response`: the game answered but said nothing (`Server received, But no response!!`): not proof that the
 *   server is empty, so a profile must not turn it into "everybody left";
 * - `unrecognised`: nothing in the answer looked like a player list (a truncated or foreign reply).
 * Only `players` and `none` should feed diffPlayerLists.
 */
export type PlayerListStatus = 'players' | 'none' | 'no-response' | 'unrecognised';

export interface PlayerListParse {
  readonly status: PlayerListStatus;
  readonly players: readonly ListedPlayer[];
  readonly unparsed: readonly UnparsedLine[];
}

/** The key a player is tracked by across two lists: the EOS id when known (ASA, Squad), else the Steam64, else the Mojang id. */
export function listedPlayerKey(player: ListedPlayer): string {
  if (player.eosId !== undefined) return `eos:${player.eosId.toLowerCase()}`;
  if (player.steamId !== undefined) return `steam:${player.steamId}`;
  if (player.mojangId !== undefined) return `mojang:${player.mojangId}`;
  return `platform:${player.platformId ?? ''}`;
}

export interface PlayerListDiff {
  readonly joined: readonly ListedPlayer[];
  readonly left: readonly ListedPlayer[];
}

/**
 * Joins and leaves between two player lists, by id (a renamed player neither joins nor leaves). A player listed
 * twice counts once. Pure: the caller keeps the previous list, and must skip the diff for an answer whose status
 * is `no-response` or `unrecognised`.
 */
export function diffPlayerLists(before: readonly ListedPlayer[], after: readonly ListedPlayer[]): PlayerListDiff {
  const beforeByKey = new Map(before.map((player) => [listedPlayerKey(player), player] as const));
  const afterByKey = new Map<string, ListedPlayer>();
  for (const player of after) {
    const key = listedPlayerKey(player);
    if (!afterByKey.has(key)) afterByKey.set(key, player);
  }
  const joined = [...afterByKey].filter(([key]) => !beforeByKey.has(key)).map(([, player]) => player);
  const left = [...beforeByKey].filter(([key]) => !afterByKey.has(key)).map(([, player]) => player);
  return { joined, left };
}
