// Mod protocol v1, the wire format between a game mod and the sidecar: zod schemas for every message a mod
// sends, TypeScript types for every message the sidecar sends, and parseModMessage, which turns one text frame
// into a typed message or exactly one protocol error. GSA's Mod API requests have their own file (modApiMessages.ts),
// the fields messages share theirs (wireFields.ts); this one parses them all. The names here (steam_id, stars,
// chat.verdict) are a public contract: add fields, never rename or remove one.
// Must never do I/O or know about the bridge's configuration: range checks that depend on the config (stars,
// comment length, allowed actions) belong to the bridge.
import { z } from 'zod';
import type { ServerActionName } from '../../src/bridge/port.js';
import { EOS_ID_PATTERN, STEAM_ID_PATTERN } from '../../src/ids/playerIds.js';
import { MOD_API_MESSAGE_SCHEMAS, type ModApiMessage, type ModApiReplyMessage } from './modApiMessages.js';
import { idSchema, MAX_ID_LENGTH, MAX_NAME_LENGTH, playerSchema, requiredOr, type ModPlayer } from './wireFields.js';

export const PROTOCOL_VERSION = 1;

// A record, not a list, so that the compiler refuses this file when the bridge learns an action the protocol lacks.
const SERVER_ACTION_SET: Readonly<Record<ServerActionName, true>> = {
  start: true,
  stop: true,
  restart: true,
  update: true,
  wipe: true,
  'cancel-scheduled': true,
  broadcast: true,
};
/** Server actions a mod may ask for; whether one is allowed is the bridge's decision (servers[].allowActions). */
export const MOD_SERVER_ACTIONS = Object.keys(SERVER_ACTION_SET) as [ServerActionName, ...ServerActionName[]];

const chatSchema = z.object({
  type: z.literal('chat'),
  id: idSchema.optional(),
  player: playerSchema,
  // Any string is taken as sent; only names of the vocabulary (global, local, team, …) can be gated (chatChannels.ts).
  channel: z.string({ error: requiredOr('a string, like "global" or "local"') }),
  text: z.string({ error: requiredOr('a string') }),
});

const muteCheckSchema = z.object({
  type: z.literal('mute.check'),
  id: idSchema.optional(),
  player: playerSchema,
});

const reviewSchema = z.object({
  type: z.literal('review'),
  id: idSchema.optional(),
  player: playerSchema,
  stars: z.int({ error: requiredOr('a whole number') }),
  comment: z.string({ error: requiredOr('a string (may be empty)') }),
});

const playerJoinSchema = z.object({
  type: z.literal('player.join'),
  id: idSchema.optional(),
  player: playerSchema,
});

const playerLeaveSchema = z.object({
  type: z.literal('player.leave'),
  id: idSchema.optional(),
  player: playerSchema,
});

const serverActionSchema = z
  .object({
    type: z.literal('server.action'),
    id: idSchema.optional(),
    action: z.enum(MOD_SERVER_ACTIONS, { error: requiredOr(`one of ${MOD_SERVER_ACTIONS.join(', ')}`) }),
    countdown: z.int({ error: 'must be a whole number of minutes, 0 or more' }).min(0, 'must be a whole number of minutes, 0 or more').optional(),
    // The broadcast's text (required for broadcast); for update, restart and stop the in-game message GSA's System API shows.
    message: z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(500, 'must be at most 500 characters').optional(),
  })
  .refine((message) => message.countdown === undefined || message.action === 'update', {
    message: 'applies to the update action only',
    path: ['countdown'],
  })
  .refine((message) => message.action !== 'broadcast' || message.message !== undefined, {
    message: 'required for broadcast: the text to show in game',
    path: ['message'],
  })
  .refine((message) => message.message === undefined || ['broadcast', 'update', 'restart', 'stop'].includes(message.action), {
    message: 'applies to broadcast, update, restart and stop only',
    path: ['message'],
  });

const pingSchema = z.object({
  type: z.literal('ping'),
  id: idSchema.optional(),
});

const MESSAGE_SCHEMAS = {
  chat: chatSchema,
  'mute.check': muteCheckSchema,
  review: reviewSchema,
  'player.join': playerJoinSchema,
  'player.leave': playerLeaveSchema,
  'server.action': serverActionSchema,
  ping: pingSchema,
  // GSA's Mod API v2 features (modApiMessages.ts), asked for on a player's behalf.
  ...MOD_API_MESSAGE_SCHEMAS,
} as const;

// A Map, not the object above, so that "constructor" or "__proto__" as a type is just an unknown type.
const SCHEMA_BY_TYPE: ReadonlyMap<string, z.ZodType<ModMessage>> = new Map(Object.entries(MESSAGE_SCHEMAS));

/** The message types a mod may send, in the order the docs list them. */
export const MOD_MESSAGE_TYPES = Object.keys(MESSAGE_SCHEMAS) as readonly ModMessageType[];

// ---- Mod → sidecar ----------------------------------------------------------------------------------------------

export { MAX_ID_LENGTH, MAX_NAME_LENGTH, type ModPlayer } from './wireFields.js';
export type ChatMessage = z.output<typeof chatSchema>;
export type MuteCheckMessage = z.output<typeof muteCheckSchema>;
export type ReviewMessage = z.output<typeof reviewSchema>;
export type PlayerJoinMessage = z.output<typeof playerJoinSchema>;
export type PlayerLeaveMessage = z.output<typeof playerLeaveSchema>;
export type ServerActionMessage = z.output<typeof serverActionSchema>;
export type PingMessage = z.output<typeof pingSchema>;
/** Every message a mod may send. Unknown extra fields are accepted and dropped (forward compatibility). */
export type ModMessage =
  | ChatMessage
  | MuteCheckMessage
  | ReviewMessage
  | PlayerJoinMessage
  | PlayerLeaveMessage
  | ServerActionMessage
  | PingMessage
  | ModApiMessage;
export type ModMessageType = ModMessage['type'];

// ---- Sidecar → mod ----------------------------------------------------------------------------------------------
// Optional fields are typed `?: T | undefined` because the sidecar builds replies with JSON.stringify, which
// drops undefined members: an absent `id` in a request means no `id` in its reply.

export type ProtocolErrorCode =
  | 'bad_json'
  | 'bad_message'
  | 'unknown_type'
  | 'rate_limited'
  | 'forbidden'
  | 'too_large'
  | 'unavailable'
  | 'internal';

export interface WelcomeMessage {
  readonly type: 'welcome';
  readonly protocol: typeof PROTOCOL_VERSION;
  /** The GSA container name of the game server this listener belongs to. */
  readonly server: string;
  /** '<name>/<version>' of the sidecar. */
  readonly sidecar: string;
}

/**
 * `alert` is present exactly when `allow` is false: the text to show the player. `not_gated`: the line's channel
 * is not in `mute.gatedChannels` (GSA's mute covers global and local chat), so it was allowed with no lookup.
 * `filtered`: the host's chat filter blocked the line; `alert` says why (a warning's text, passed unchanged). A mod
 * treats a reason it does not know like `ok` or `muted` according to `allow`.
 */
export type ChatVerdictMessage =
  | { readonly type: 'chat.verdict'; readonly id?: string | undefined; readonly allow: true; readonly reason: 'ok' | 'unknown' | 'not_gated' }
  | {
      readonly type: 'chat.verdict';
      readonly id?: string | undefined;
      readonly allow: false;
      readonly reason: 'muted' | 'unknown' | 'filtered';
      readonly alert: string;
    };

export interface MuteStatusMessage {
  readonly type: 'mute.status';
  readonly id?: string | undefined;
  readonly player: ModPlayer;
  readonly muted: boolean;
  readonly alert?: string | undefined;
  /** cache: from the sidecar's cache; service: asked just now; policy: the service could not answer in time. */
  readonly source: 'cache' | 'service' | 'policy';
}

/** The review is stored durably: it will reach the service even if the sidecar restarts. */
export interface ReviewQueuedMessage {
  readonly type: 'review.queued';
  readonly id?: string | undefined;
}

export type ReviewResultMessage =
  | { readonly type: 'review.result'; readonly id?: string | undefined; readonly ok: true }
  | {
      readonly type: 'review.result';
      readonly id?: string | undefined;
      readonly ok: false;
      readonly error: { readonly code: string; readonly message: string };
    };

export interface MuteChangedMessage {
  readonly type: 'mute.changed';
  readonly player: ModPlayer;
  readonly muted: boolean;
  readonly alert?: string | undefined;
}

export type ServerActionResultMessage =
  | { readonly type: 'server.action.result'; readonly id?: string | undefined; readonly ok: true; readonly status: number; readonly message: string }
  | {
      readonly type: 'server.action.result';
      readonly id?: string | undefined;
      readonly ok: false;
      readonly error: { readonly code: string; readonly message: string };
    };

export interface PongMessage {
  readonly type: 'pong';
  readonly id?: string | undefined;
}

export interface ErrorMessage {
  readonly type: 'error';
  /** The request's id when it had a valid one. */
  readonly id?: string | undefined;
  readonly code: ProtocolErrorCode;
  readonly message: string;
  /** For bad_message: the offending field, in the protocol's names (`player.steam_id`, `stars`). */
  readonly path?: string | undefined;
}

/** Every message the sidecar sends. */
export type SidecarMessage =
  | WelcomeMessage
  | ChatVerdictMessage
  | MuteStatusMessage
  | ReviewQueuedMessage
  | ReviewResultMessage
  | MuteChangedMessage
  | ServerActionResultMessage
  | PongMessage
  | ErrorMessage
  | ModApiReplyMessage;

// ---- Parsing ----------------------------------------------------------------------------------------------------

/** Why a frame was refused before it reached the bridge. */
export interface ModMessageError {
  readonly code: 'bad_json' | 'bad_message' | 'unknown_type';
  readonly message: string;
  /** For bad_message: the offending field. */
  readonly path?: string;
  /** The frame's id, when it had a valid one, so the mod can match the error to its request. */
  readonly id?: string;
}

export type ParseModMessageResult =
  | { readonly ok: true; readonly message: ModMessage }
  | {
      readonly ok: false;
      readonly error: ModMessageError;
      /**
       * The frame's type when it named a known one and its own fields were refused (bad_message): a chat frame refused
       * for its player is still a chat line the mod read, which nobody can tie to a player. Not part of the wire reply.
       */
      readonly type?: ModMessageType;
    };

// Long enough to recognise a misspelt type, short enough that a hostile frame cannot bloat the reply.
const MAX_ECHOED_TYPE_LENGTH = 40;

/**
 * Turns one text frame into a message, or into exactly one error: `bad_json` (not JSON, or not a JSON object),
 * `bad_message` with the offending field in `path` (missing or non-string `type` is path "type"), or
 * `unknown_type`. Never throws.
 */
export function parseModMessage(text: string): ParseModMessageResult {
  return parseFrame(text, true);
}

/**
 * parseModMessage with the zod schemas only, never the hand-written fast path: the reference the fast path is
 * tested against (both must give the same result for every frame).
 */
export function parseModMessageBySchema(text: string): ParseModMessageResult {
  return parseFrame(text, false);
}

function parseFrame(text: string, fast: boolean): ParseModMessageResult {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch (error) {
    return failure('bad_json', `not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
    return failure('bad_json', `must be a JSON object like {"type":"chat",…}, got ${describeJsonValue(frame)}`);
  }
  const fields = frame as Record<string, unknown>;
  if (fast) {
    const message = fastParse(fields);
    if (message !== undefined) return { ok: true, message };
  }
  const id = validIdOf(fields);
  const type = fields['type'];
  if (type === undefined) return failure('bad_message', 'required (the message type, like "chat")', 'type', id);
  if (typeof type !== 'string') return failure('bad_message', 'must be a string (the message type, like "chat")', 'type', id);
  const schema = SCHEMA_BY_TYPE.get(type);
  if (schema === undefined) {
    const shown = type.length > MAX_ECHOED_TYPE_LENGTH ? `${type.slice(0, MAX_ECHOED_TYPE_LENGTH)}…` : type;
    return failure('unknown_type', `unknown message type ${JSON.stringify(shown)}; known types: ${MOD_MESSAGE_TYPES.join(', ')}`, undefined, id);
  }
  const parsed = schema.safeParse(fields);
  if (parsed.success) return { ok: true, message: parsed.data };
  // One error per frame: the first problem, in field order (id, player, then the message's own fields).
  const issue = parsed.error.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? 'type' : issue.path.map(String).join('.');
  return failure('bad_message', issue?.message ?? 'invalid message', path, id, type as ModMessageType);
}

// ---- The fast path ----------------------------------------------------------------------------------------------
// Chat lines and mute checks are nearly every frame a busy server sends. A valid one is checked here by hand, with
// no per-field parser objects or issue lists, and gives the same message the schema would (same fields, in the
// schema's order, unknown fields dropped). Anything this path does not accept goes to the schema, which alone
// words the errors: the fast path never refuses a frame.

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function fastParse(fields: Readonly<Record<string, unknown>>): ChatMessage | MuteCheckMessage | undefined {
  const type = fields['type'];
  if (type !== 'chat' && type !== 'mute.check') return undefined;
  const id = fields['id'];
  if (id !== undefined && validIdOf(fields) === undefined) return undefined;
  const player = fastPlayer(fields['player']);
  if (player === undefined) return undefined;
  if (type === 'mute.check') {
    const message: Mutable<Partial<MuteCheckMessage>> = { type };
    if (id !== undefined) message.id = id as string;
    message.player = player;
    return message as MuteCheckMessage;
  }
  const channel = fields['channel'];
  const text = fields['text'];
  if (typeof channel !== 'string' || typeof text !== 'string') return undefined;
  const message: Mutable<Partial<ChatMessage>> = { type };
  if (id !== undefined) message.id = id as string;
  message.player = player;
  message.channel = channel;
  message.text = text;
  return message as ChatMessage;
}

function fastPlayer(value: unknown): ModPlayer | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const fields = value as Readonly<Record<string, unknown>>;
  const steamId = fields['steam_id'];
  const eosId = fields['eos_id'];
  const name = fields['name'];
  if (steamId === undefined && eosId === undefined) return undefined;
  if (steamId !== undefined && (typeof steamId !== 'string' || !STEAM_ID_PATTERN.test(steamId))) return undefined;
  if (eosId !== undefined && (typeof eosId !== 'string' || !EOS_ID_PATTERN.test(eosId))) return undefined;
  if (name !== undefined && (typeof name !== 'string' || name.length > MAX_NAME_LENGTH)) return undefined;
  const player: Mutable<ModPlayer> = {};
  if (steamId !== undefined) player.steam_id = steamId;
  if (eosId !== undefined) player.eos_id = eosId;
  if (name !== undefined) player.name = name;
  return player;
}

/** The frame's id if it is a valid one; an invalid id is not echoed (it could be anything, of any size). */
export function validIdOf(fields: Readonly<Record<string, unknown>>): string | undefined {
  const id = fields['id'];
  return typeof id === 'string' && id.length >= 1 && id.length <= MAX_ID_LENGTH ? id : undefined;
}

function failure(code: ModMessageError['code'], message: string, path?: string, id?: string, type?: ModMessageType): ParseModMessageResult {
  const error: { code: ModMessageError['code']; message: string; path?: string; id?: string } = { code, message };
  if (path !== undefined) error.path = path;
  if (id !== undefined) error.id = id;
  return type === undefined ? { ok: false, error } : { ok: false, error, type };
}

function describeJsonValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
