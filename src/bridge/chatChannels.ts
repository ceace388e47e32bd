// The one vocabulary for a chat line's channel (../shared/spec/interfaces.md, "Chat channels"). Every adapter names
// a line's channel with one of these: the RCON profiles map the game's own values onto them, and the mod protocol
// passes its `channel` string as sent. `mute.gatedChannels` may list only these names, so a string outside the
// list (a mod that says "all") is never gated; the websocket adapter warns the mod's author once per connection.

/** The channel names every adapter speaks; `mute.gatedChannels` lists some of them. */
export const CHAT_CHANNELS = ['global', 'local', 'team', 'squad', 'tribe', 'clan', 'admin', 'other'] as const;

export type ChatChannel = (typeof CHAT_CHANNELS)[number];

/** GSA's mute covers "global and local chat": the default of `mute.gatedChannels`. */
export const DEFAULT_GATED_CHANNELS: readonly ChatChannel[] = ['global', 'local'];

const KNOWN: ReadonlySet<string> = new Set(CHAT_CHANNELS);

/** Whether a channel string (a mod's, as sent) is a name of the vocabulary. */
export function isChatChannel(channel: string): channel is ChatChannel {
  return KNOWN.has(channel);
}
