// The one vocabulary for why a chat-like line could not be tied to a listed player (../shared/spec/interfaces.md,
// "Game adapters": unattributed lines). Adapters name the reason with one of these when they report a line
// (BridgeSink.chatLineRead); the metrics label gsa_bridge_chat_unattributed_total{reason} with it, so the set is
// closed: a new reason is added here, and the metrics, the docs and the alert's description follow.
// It holds values only: no reading of lines, no player ids, no text.

/** Why a chat-like line could not be tied to a listed player (a metric label: a closed set). */
export const UNATTRIBUTED_REASONS = [
  /**
   * `unreadable`: it looked like chat, but no reader (the host's `chatPattern` included) could read a speaker from
   * it: a chat plugin's format nothing reads, or a mod's chat frame whose `player` field is refused.
   */
  'unreadable',
  /** `not_listed`: the speaker's name is not on the game's player list, even after a fresh read of the list. */
  'not_listed',
  /** `ambiguous`: several listed players fit the speaker (two players sharing a name, a name split more than one way). */
  'ambiguous',
  /**
   * `unconfirmed_id`: the line prints an id that the player list does not confirm for that name, and the name alone
   * does not settle who spoke (a name can never lend a line another player's id).
   */
  'unconfirmed_id',
] as const;

export type UnattributedReason = (typeof UNATTRIBUTED_REASONS)[number];

const KNOWN: ReadonlySet<string> = new Set(UNATTRIBUTED_REASONS);

/** Whether a string is a reason of the vocabulary (what an adapter passed, checked before it becomes a label). */
export function isUnattributedReason(reason: string): reason is UnattributedReason {
  return KNOWN.has(reason);
}
