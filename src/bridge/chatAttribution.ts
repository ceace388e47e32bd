// Why a chat-like line could not be tied to a listed player: a value list (a metric label, so a closed set), in
// its own file like the channel vocabulary. Adapters name the reason; the bridge counts it; nothing else decides.

/**
 * - `unreadable`: it looked like chat, but no reader (the host's `chatPattern` included) could read a speaker from it;
 * - `not_listed`: the speaker's name is not on the game's player list, even after a fresh read;
 * - `ambiguous`: several listed players fit;
 * - `unconfirmed_id`: an id printed on the line that the player list does not confirm for that name, and the name
 *   alone does not settle it.
 */
export const UNATTRIBUTED_REASONS = ['unreadable', 'not_listed', 'ambiguous', 'unconfirmed_id'] as const;

export type UnattributedReason = (typeof UNATTRIBUTED_REASONS)[number];
