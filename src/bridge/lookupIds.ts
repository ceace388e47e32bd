// Which id GSA is asked by about a player who has a Steam64 and an EOS id (7 Days to Die, Squad, a mod that sends
// both): the rule of servers[].lookupIds, written once here. GSA's mod API takes one id per call; its community logins
// and the Steam games key players by Steam, so the default asks by the Steam64 wherever there is one and by the EOS
// id otherwise (ASA, crossplay). `both` asks by each id and calls the player muted when either is.
// Also how an asked id is named in JSON, logs and `mutes` (`steam_id …`), so every place says the same.
// Pure: it never sends (the caller's `ask` does, through the client and its budget), never waits, never logs.
// A Minecraft player (Mojang id only) is not its business: the bridge asks the System API for them.

import type { MuteStatus, OnePlayerId, PlayerIds } from '../gsa/index.js';
import type { PlayerId } from '../ids/playerIds.js';

/** The values of servers[].lookupIds. */
export const LOOKUP_ID_RULES = ['steam-first', 'eos-first', 'both'] as const;
export type LookupIdRule = (typeof LOOKUP_ID_RULES)[number];
/** servers[].lookupIds's default. */
export const DEFAULT_LOOKUP_IDS: LookupIdRule = 'steam-first';

/** An id the mod API can be asked by. */
export type ModApiId = PlayerId<'steam' | 'eos'>;
/** An id GSA was asked by: a Steam64 or an EOS id through the mod API, a Mojang UUID through the System API. */
export type AskedId = PlayerId<'steam' | 'eos' | 'mojang'>;

/** How JSON output, log fields and `mutes` name an id's kind: GSA's own field names. */
export const ASKED_ID_FIELDS = { steam: 'steam_id', eos: 'eos_id', mojang: 'mojang_id' } as const satisfies Record<AskedId['kind'], string>;

/**
 * The ids to ask GSA by, in order: the one the rule picks when the player has both (`both`: the Steam64, then the
 * EOS id), else the one the player has; none for a player with neither.
 */
export function idsToAsk(player: PlayerIds, rule: LookupIdRule): ModApiId[] {
  const { steamId, eosId } = player;
  if (steamId === undefined) return eosId === undefined ? [] : [{ kind: 'eos', id: eosId }];
  if (eosId === undefined) return [{ kind: 'steam', id: steamId }];
  switch (rule) {
    case 'steam-first':
      return [{ kind: 'steam', id: steamId }];
    case 'eos-first':
      return [{ kind: 'eos', id: eosId }];
    case 'both':
      return [
        { kind: 'steam', id: steamId },
        { kind: 'eos', id: eosId },
      ];
  }
}

/**
 * The one id a review is sent by (GSA's review call takes one, and a review cannot be sent twice): the first the
 * rule asks by, so a review goes to the player record the mute lookups read. Undefined for a player with neither.
 */
export function reviewIdOf(player: PlayerIds, rule: LookupIdRule): OnePlayerId | undefined {
  const [first] = idsToAsk(player, rule);
  return first === undefined ? undefined : onePlayerIdOf(first);
}

/** The id as the service client takes it. */
export function onePlayerIdOf(id: ModApiId): OnePlayerId {
  return id.kind === 'steam' ? { steamId: id.id } : { eosId: id.id };
}

/** `steam_id 76561198000000001`, `steam_id … and eos_id …`: how a log line names what was asked. */
export function describeAsked(ids: readonly AskedId[]): string {
  return ids.map((asked) => `${ASKED_ID_FIELDS[asked.kind]} ${asked.id}`).join(' and ');
}

/** `{"steam_id": "…"}` (one key per id asked): how JSON output and structured log fields name what was asked. */
export function askedFields(ids: readonly AskedId[]): Partial<Record<(typeof ASKED_ID_FIELDS)[AskedId['kind']], string>> {
  const fields: Partial<Record<(typeof ASKED_ID_FIELDS)[AskedId['kind']], string>> = {};
  for (const asked of ids) fields[ASKED_ID_FIELDS[asked.kind]] = asked.id;
  return fields;
}

/** What asking by one or more ids comes to. */
export interface AskedAnswer {
  readonly muted: boolean;
  /** The alert of the answer that said muted; null when not muted or GSA sent none. */
  readonly alert: string | null;
  /** The id whose answer said muted; undefined when not muted. */
  readonly mutedBy?: AskedId | undefined;
}

/**
 * Asks GSA by each id (through `ask`, so every call takes its place in the API budget like any lookup) and combines
 * the answers. One id: its answer. Several (`both`): asked side by side, so the wait is the slower answer, not the
 * sum; muted when any answer says so (the first muted in `ids` order gives the alert and `mutedBy`); not muted only
 * when every id answered; else it rejects with the first failure in order (a known mute needs only its own answer).
 * Rejects when `ids` is empty.
 */
export function askByEach(ids: readonly ModApiId[], ask: (player: OnePlayerId) => Promise<MuteStatus>): Promise<AskedAnswer> {
  const [only, second] = ids;
  if (only === undefined) return Promise.reject(new Error('a player needs a steam_id or an eos_id'));
  if (second === undefined) return ask(onePlayerIdOf(only)).then((status) => answerOf(status, only));
  return Promise.allSettled(ids.map((id) => ask(onePlayerIdOf(id)))).then((settled) => {
    let failure: unknown;
    let failed = false;
    for (const [index, result] of settled.entries()) {
      const id = ids[index];
      if (result.status === 'fulfilled' && result.value.muted && id !== undefined) return answerOf(result.value, id);
      if (result.status === 'rejected' && !failed) {
        failed = true;
        failure = result.reason;
      }
    }
    if (failed) throw failure instanceof Error ? failure : new Error(String(failure));
    return NOT_MUTED;
  });
}

const NOT_MUTED: AskedAnswer = Object.freeze({ muted: false, alert: null });

function answerOf(status: MuteStatus, asked: ModApiId): AskedAnswer {
  return status.muted ? { muted: true, alert: status.alert, mutedBy: asked } : NOT_MUTED;
}
