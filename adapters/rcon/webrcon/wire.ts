// Rust WebRCON messages on the wire, both ways, as the Rust server sends them (checked against the decompiled
// server: Facepunch.RCon.Response {Message, Identifier, Type, Stacktrace}, ConVar.Chat.ChatEntry {Channel, Message,
// UserId, Username, Color, Time}; JSON written by Newtonsoft with indentation). Pure functions, no I/O.
// Must never throw on what a server sends: every malformed input becomes a result the caller logs and drops.

/** What the client sends: `{"Identifier":n,"Message":"cmd","Name":"WebRcon"}`. */
export function encodeWebRconCommand(identifier: number, command: string, name = 'WebRcon'): string {
  return JSON.stringify({ Identifier: identifier, Message: command, Name: name });
}

/** Rust's RCon.LogType names; other strings are passed through as they come. */
export type WebRconMessageType = 'Generic' | 'Error' | 'Warning' | 'Chat' | 'Report' | 'ClientPerf' | 'Subscription' | (string & {});

/** One message from the server, outer envelope only. */
export interface WebRconInbound {
  /** The command's Identifier for a reply; 0 for console output outside a command; -1 for broadcasts (chat …). */
  readonly identifier: number;
  readonly message: string;
  readonly type: WebRconMessageType;
  readonly stacktrace: string | undefined;
}

export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses the outer envelope. A missing Identifier counts as 0 (console output), a missing Type as Generic. */
export function parseWebRconMessage(text: string): ParseResult<WebRconInbound> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'not JSON' };
  }
  if (!isRecord(parsed)) return { ok: false, reason: 'not a JSON object' };
  const identifier = parsed['Identifier'] ?? 0;
  if (typeof identifier !== 'number' || !Number.isInteger(identifier)) return { ok: false, reason: 'Identifier is not an integer' };
  const message = parsed['Message'] ?? '';
  if (typeof message !== 'string') return { ok: false, reason: 'Message is not a string' };
  const type = parsed['Type'] ?? 'Generic';
  if (typeof type !== 'string') return { ok: false, reason: 'Type is not a string' };
  const stacktrace = parsed['Stacktrace'];
  return { ok: true, value: { identifier, message, type, stacktrace: typeof stacktrace === 'string' ? stacktrace : undefined } };
}

/** Rust's ConVar.Chat.ChatChannel, by number. */
export const RUST_CHAT_CHANNELS = ['global', 'team', 'server', 'cards', 'local', 'clan', 'external_dm'] as const;
export type RustChatChannelName = (typeof RUST_CHAT_CHANNELS)[number] | 'unknown';

/** A chat line as the Rust server broadcasts it over WebRCON. */
export interface RustChatMessage {
  /** ChatChannel number: 0 global, 1 team, 2 server, 3 cards, 4 local, 5 clan, 6 external DM. */
  readonly channel: number;
  readonly channelName: RustChatChannelName;
  readonly text: string;
  /** The speaker's Steam64 id as a decimal string; "0" for lines the server itself says. */
  readonly steamId: string;
  readonly username: string;
  readonly color: string | undefined;
  /** Unix seconds, when the server sent it. */
  readonly time: number | undefined;
}

// Old servers and plugins (Oxide's Chat.ChatEntry with `UserId = player.userID`) write UserId as a JSON number. A
// Steam64 id is above 2^53, so JSON.parse would round it: read the digits from the text instead.
const NUMERIC_USER_ID = /"UserId"\s*:\s*(\d+)/;

/** Parses the inner JSON of a `Type:"Chat"` message. */
export function parseRustChat(inner: string): ParseResult<RustChatMessage> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(inner);
  } catch {
    return { ok: false, reason: 'the chat message is not JSON' };
  }
  if (!isRecord(parsed)) return { ok: false, reason: 'the chat message is not a JSON object' };
  const channel = parsed['Channel'] ?? 0;
  const text = parsed['Message'];
  const username = parsed['Username'];
  const userId = parsed['UserId'];
  if (typeof channel !== 'number' || !Number.isInteger(channel)) return { ok: false, reason: 'Channel is not an integer' };
  if (typeof text !== 'string') return { ok: false, reason: 'Message is not a string' };
  if (typeof username !== 'string') return { ok: false, reason: 'Username is not a string' };
  let steamId: string;
  if (typeof userId === 'string' && /^\d+$/.test(userId)) steamId = userId;
  else if (typeof userId === 'number') {
    const digits = NUMERIC_USER_ID.exec(inner)?.[1];
    if (digits === undefined) return { ok: false, reason: 'UserId is not a whole number' };
    steamId = digits;
  } else return { ok: false, reason: 'UserId is not a decimal id' };
  const color = parsed['Color'];
  const time = parsed['Time'];
  return {
    ok: true,
    value: {
      channel,
      channelName: RUST_CHAT_CHANNELS[channel] ?? 'unknown',
      text,
      steamId,
      username,
      color: typeof color === 'string' ? color : undefined,
      time: typeof time === 'number' ? time : undefined,
    },
  };
}
