// The one interface between adapters and the bridge. An adapter turns what the game says into calls on a
// BridgeSink and gets verdicts back; the bridge pushes unsolicited news (mute changes, review results)
// through the adapter's AdapterPushes. Data flows adapter → bridge → service client → verdict → adapter.
// It speaks in capabilities, not in any game's or mod's messages: a review's origin is an adapter id plus that
// adapter's own reference, and telling a player something is a capability an adapter may lack.
// This file holds types only (and re-exports the refusals): the bridge imports no adapter, and adapters import nothing else of the bridge.

import type { UnattributedReason } from './chatAttribution.js';

/** A player as the game knows them: at least one of the ids; the display name is for logs and commands. */
export interface PlayerIdentity {
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  /**
   * A Mojang (Minecraft Java) UUID, dashed lowercase. GSA's mod API takes no Mojang id: a player known by this id
   * alone is looked up through the System API (ServerBridgeOptions.mojangLookup), never through the mod API.
   */
  readonly mojangId?: string | undefined;
  readonly name?: string | undefined;
}

/**
 * May this chat line be shown? `alert` is set whenever `allow` is false: the text to show the player. `not_gated`:
 * the line's channel is not in `mute.gatedChannels`, so it was allowed with no lookup. `filtered`: the host's chat
 * filter (moderation.filter) blocked the line itself.
 */
export type ChatVerdict =
  | { readonly allow: true; readonly reason: 'ok' | 'unknown' | 'not_gated' }
  | { readonly allow: false; readonly reason: 'muted' | 'unknown' | 'filtered'; readonly alert: string };

export interface MuteVerdict {
  readonly muted: boolean;
  /** Present when muted: the service's alert, or the configured default. */
  readonly alert?: string | undefined;
  /** cache: answered from the mute cache; service: asked just now; policy: the service could not answer in time. */
  readonly source: 'cache' | 'service' | 'policy';
}

/** Where a review came from, so its result can be routed back: stored with the review, it survives restarts. */
export interface ReviewOrigin {
  /** The stable id of the adapter that received it (configured, or `<server>-<type>-<port>`). */
  readonly adapter: string;
  /**
   * The adapter's own reference, opaque to the bridge: the mod connection for websocket (after a reconnect it no
   * longer exists, and the adapter picks the current one), the chat session for rcon.
   */
  readonly ref: string;
  /** The requester's own request id, echoed in the result. */
  readonly requestId?: string | undefined;
}

export interface ReviewRequest {
  readonly player: PlayerIdentity;
  readonly stars: number;
  readonly comment: string;
  readonly origin: ReviewOrigin;
}

export type ReviewOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/** What a mod may ask a server for: the webhook actions, and `broadcast` (GSA's System API only). */
export type ServerActionName = 'start' | 'stop' | 'restart' | 'update' | 'wipe' | 'cancel-scheduled' | 'broadcast';

/** The text that goes with an action: the broadcast itself, or the in-game message of update/restart/stop (System API). */
export interface ServerActionDetails {
  readonly countdownMinutes?: number | undefined;
  readonly message?: string | undefined;
}

export type ServerActionOutcome =
  | { readonly ok: true; readonly status: number; readonly message: string }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

// The channel vocabulary (a value list, so it lives in its own file); adapters name a line's channel with it.
export { CHAT_CHANNELS, isChatChannel, type ChatChannel } from './chatChannels.js';

// Why a chat-like line could not be tied to a player (a value list too); adapters name it in chatLineRead().
export { UNATTRIBUTED_REASONS, isUnattributedReason, type UnattributedReason } from './chatAttribution.js';

// The one word for each service error code, as reasons are stored and as the mod protocol names them.
export { reviewReasonCode as serviceCodeWord } from './reviewReasons.js';

// The refusals a BridgeSink rejects with live in errors.ts (one class per code); re-exported for adapters.
export { BridgeRefusal, type BridgeRefusalCode } from './errors.js';

export interface PlayerJoinOptions {
  /**
   * Warm the cache at the lowest budget priority (the refresh class, behind every first lookup), even for a player
   * nothing is known of: for joins seen in bulk, like an RCON player list that lists a full server at start.
   * @default false (an unknown player's warm-up is a first lookup)
   */
  readonly lowPriority?: boolean | undefined;
}

/** What an adapter calls: the bridge for the one game server the adapter belongs to. */
export interface BridgeSink {
  /** The GSA container name of this game server. */
  readonly serverName: string;
  /**
   * Never slower than mute.decisionTimeoutMs; never rejects. `channel`: a name of the vocabulary (CHAT_CHANNELS), or
   * a mod's string as sent; a channel outside `mute.gatedChannels` is allowed at once with reason `not_gated`.
   */
  chat(player: PlayerIdentity, channel: string, text: string): Promise<ChatVerdict>;
  /**
   * The verdict chat() would give, when it is known at once (the player is cached); undefined means "call
   * chat()". Synchronous and never throws, so an adapter can answer the common case in the same tick.
   */
  chatNow?(player: PlayerIdentity, channel: string, text: string): ChatVerdict | undefined;
  /** Never slower than mute.decisionTimeoutMs; never rejects. */
  checkMute(player: PlayerIdentity): Promise<MuteVerdict>;
  /**
   * Validates and stores the review durably. Resolves once it is on disk (then `review.queued` may be sent);
   * the outcome comes later through AdapterPushes.reviewResult. Rejects with a BridgeRefusal.
   */
  submitReview(review: ReviewRequest): Promise<void>;
  /** Warms the player's mute cache entry. */
  playerJoined(player: PlayerIdentity, options?: PlayerJoinOptions): void;
  playerLeft(player: PlayerIdentity): void;
  /** Rejects with ActionNotAllowedRefusal unless the server's allowActions lists the action. */
  serverAction(action: ServerActionName, countdownMinutes?: number, message?: string): Promise<ServerActionOutcome>;
  /**
   * A line that looks like chat was read; `unattributed`: why it could not be tied to a player (undefined: it was).
   * Never throws. Called once per line, attributed or not, so the share of chat nobody could attribute is known
   * (gsa_bridge_chat_lines_total, gsa_bridge_chat_unattributed_total); optional, so a sink without it is fine.
   */
  chatLineRead?(unattributed?: UnattributedReason): void;
  /**
   * GSA's Mod API v2 features (access, reports, shop, tokens, UI) for this server, each checked against the
   * server's `allowRequests`. Absent on a sink that offers none (a test's own sink).
   */
  readonly modApi?: ModApiSink | undefined;
}

/** What the bridge calls on an adapter. Both must return at once and never throw. */
export interface AdapterPushes {
  muteChanged(player: PlayerIdentity, muted: boolean, alert: string | undefined): void;
  /** `player` is the reviewer: an adapter that talks to players itself (rcon) tells them the outcome. */
  reviewResult(origin: ReviewOrigin, outcome: ReviewOutcome, player: PlayerIdentity): void;
  /** A report's fate, routed like a review's. Optional: an adapter that takes no reports (rcon) lacks it. */
  reportResult?(origin: ReviewOrigin, outcome: ReportOutcome, player: PlayerIdentity): void;
}

/** A way the game talks to the sidecar: the mod WebSocket, RCON. */
export interface Adapter extends AdapterPushes {
  /** 'websocket' | 'rcon' */
  readonly type: string;
  /** Stable and unique in the sidecar: configured, or derived as `<server>-<type>-<port>` (never an array position). */
  readonly id: string;
  /** Starts listening or connecting; rejects when it cannot (port in use, …) with a message naming the adapter id. */
  start(sink: BridgeSink): Promise<void>;
  /** Stops taking events, answers what is in flight, closes. */
  stop(): Promise<void>;
  /** For readiness: listening (websocket) or connected (rcon). */
  readonly ready: boolean;
  /**
   * True when the adapter reads chat the game has already shown to everyone (RCON): a block verdict cannot withhold
   * the line, only answer the speaker. Absent or false: the line waits for its verdict (the mod asks before showing).
   */
  readonly chatAlreadyShown?: boolean | undefined;
  /**
   * The "tell this player" capability: a private message to one player (an alert to a muted speaker, a review's
   * confirmation). Absent when the adapter cannot (the websocket mod gets verdicts and shows them itself); the
   * bridge asks with ServerBridge.canTellPlayers(). Resolves once sent; rejects when the game refused it.
   */
  tellPlayer?(player: PlayerIdentity, text: string): Promise<void>;
  /**
   * The "accepts connections" capability: where a listening adapter (the mod WebSocket) can be reached, with the
   * port really bound once it listens (a configured port 0 asks for any free one) and the configured one before.
   * Absent on adapters that listen on nothing; the startup line, the demo and tests read it.
   */
  listeningAddress?(): ListeningAddress;
  /**
   * The "remove this player" capability, for access.enforce: a player GSA does not allow is removed with GSA's
   * message, through the game's kick command (rcon) or by telling the mod unasked (websocket: `player.access.result`
   * with `allowed: false`, and the mod removes the player). Resolves once done; rejects when the game refused it.
   * Absent when the adapter cannot.
   */
  removePlayer?(player: PlayerIdentity, reason: RemovalReason): Promise<void>;
}

/** Where a listening adapter can be reached. */
export interface ListeningAddress {
  readonly host: string;
  readonly port: number;
  /** For a client to connect to, e.g. `ws://127.0.0.1:8787/`. */
  readonly url: string;
}

// ---- GSA's Mod API v2 features beyond the mute check and the review: access, reports, the shop, tokens, UI ----
// In the port's words, never GSA's field names or a mod's wire names; no credential ever crosses this port.

/** What a server's `allowRequests` may name: each a group of requests a mod may make. */
export type ModRequestGroup = 'access' | 'reports' | 'shop' | 'tokens' | 'ui';

export const MOD_REQUEST_GROUPS: readonly ModRequestGroup[] = ['access', 'reports', 'shop', 'tokens', 'ui'];

/** `allowRequests` when a server's config names none: shop orders and token spends move money, so they are opt-in. */
export const DEFAULT_ALLOWED_REQUESTS: readonly ModRequestGroup[] = ['access', 'reports', 'ui'];

/**
 * GSA's access check for one player: whitelist, bans, custom roles. `source`: `cache` (asked within access.cacheMs),
 * `service` (asked just now), `policy` (GSA could not be asked and access.onUnknown decided).
 */
export interface AccessVerdict {
  readonly allowed: boolean;
  /** GSA's words for a refusal ("You are not on the whitelist"); absent when GSA sent none. */
  readonly message?: string | undefined;
  /** GSA's custom roles: role id → ISO expiry. Empty when the player has none. */
  readonly roles: Readonly<Record<string, string>>;
  readonly source: 'cache' | 'service' | 'policy';
}

/** What a report form offers, as GSA configured it for the server. */
export interface ReportSettingsView {
  readonly title: string;
  readonly description: string;
  /** Players that may be reported: GSA's `user_id` (never 0: GSA's " - Select player - " placeholder is left out). */
  readonly players: readonly { readonly user_id: number; readonly name: string }[];
  readonly types: readonly { readonly id: number | string; readonly name: string }[];
}

/** A player's report of another player, as a mod sent it; validated by the adapter, admitted by the bridge. */
export interface ReportRequest {
  /** The reporter. */
  readonly player: PlayerIdentity;
  /** The reporter's in-game character id. */
  readonly characterId: number;
  /** Where it happened, in GSA's form `X_<n> Y_<n> Z_<n>`. */
  readonly coords: string;
  /** One of the report settings' type ids. */
  readonly type: number | string;
  /** A GSA `user_id` from the report settings' players. */
  readonly reportedPlayer?: number | undefined;
  readonly comment: string;
  /** Where the result goes back to: the same routing as a review's. */
  readonly origin: ReviewOrigin;
}

export type ReportOutcome =
  | { readonly ok: true; readonly message?: string | undefined }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/**
 * A shop order's or a token spend's fate. `done`: GSA did it; `refused`: GSA (or the sidecar, before sending) said no
 * and nothing was spent; `unconfirmed`: it was sent and its answer was lost, so it may or may not have been spent. It
 * is never sent again by the sidecar (money moves at most once): `gsa-bridge orders list` shows it for the host.
 */
export interface MoneyOutcome {
  readonly ok: boolean;
  readonly state: 'done' | 'refused' | 'unconfirmed';
  /** GSA's message ("Thank you for your order!"), or why it was refused. */
  readonly message?: string | undefined;
}

/** A shop search, as GSA's shop index takes it. */
export interface ShopQuery {
  readonly search?: string | undefined;
  readonly filter?: string | undefined;
}

/** Who asked for a money request and through which adapter: recorded with it, for `orders list`. */
export interface MoneyOrigin {
  readonly adapter: string;
  /** The requester's own request id, when the mod gave one. */
  readonly requestId?: string | undefined;
}

/**
 * GSA's Mod API v2 features for one game server, reached through the bridge so no mod holds the host's secret. Every
 * method first checks the server's `allowRequests` (rejecting with RequestNotAllowedRefusal, code
 * `request_not_allowed`, naming the group); other refusals are BridgeRefusals as for reviews (`bad_input` with the
 * field, `cooldown`, `unavailable`: GSA could not be asked or the sidecar is shutting down).
 */
export interface ModApiSink {
  /** Group `access`. Never kicks by itself: enforcement at joins is the bridge's, with `access.enforce`. */
  access(player: PlayerIdentity): Promise<AccessVerdict>;
  /** Group `reports`. */
  reportSettings(player: PlayerIdentity): Promise<ReportSettingsView>;
  /**
   * Group `reports`. Resolves once the report is durably stored (then `report.queued` may be sent); the outcome
   * comes later through AdapterPushes.reportResult. Never sent twice when a first send may have landed.
   */
  submitReport(report: ReportRequest): Promise<void>;
  /** Group `shop`: GSA's shop index as GSA sent it (parsed JSON). */
  shopList(player: PlayerIdentity, query: ShopQuery): Promise<unknown>;
  /** Group `shop`: one pack, as GSA sent it. */
  shopItem(player: PlayerIdentity, item: number): Promise<unknown>;
  /** Group `shop`: recorded durably, sent once, never again (MoneyOutcome). Resolves with the fate; rejects only with a refusal before anything was recorded. */
  shopOrder(player: PlayerIdentity, item: number, origin: MoneyOrigin): Promise<MoneyOutcome>;
  /** Group `tokens`: as shopOrder. */
  consumeTokens(player: PlayerIdentity, amount: number, origin: MoneyOrigin): Promise<MoneyOutcome>;
  /** Group `ui`: the dashboard's key bindings and radial menu settings, as GSA sent them (cached 60 s). */
  uiSettings(): Promise<unknown>;
  /** Group `ui`: the vote screen, as GSA sent it (cached 60 s). */
  uiModal(): Promise<unknown>;
}

/** The "remove this player" capability's reason: GSA's access message, or access's own words when GSA sent none. */
export interface RemovalReason {
  readonly message: string;
  /** The access verdict the removal follows from (a mod is told it unasked). */
  readonly verdict: AccessVerdict;
}
