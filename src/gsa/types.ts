// Value types shared by the service client's callers: who a player is, what the service answered.
// Plain data only; nothing here talks to the network.

/**
 * A player as GSA knows them: a Steam64 id, an Epic Online Services id, or both; or a Mojang UUID (Minecraft), which
 * only GSA's System API knows (the mod API's mute check and review refuse a player with no Steam64 or EOS id).
 */
export interface PlayerIds {
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  readonly mojangId?: string | undefined;
}

/**
 * A player named by exactly one id, as a mod API call sends them: GSA takes steam_id or eos_id, never both. Which
 * one is the caller's choice (in the sidecar: servers[].lookupIds, made in the bridge), never the dialect's.
 */
export type OnePlayerId = { readonly steamId: string; readonly eosId?: undefined } | { readonly eosId: string; readonly steamId?: undefined };

export interface MuteStatus {
  readonly muted: boolean;
  /** The service's alert text for a muted player; null when it sent none (callers then use their default). */
  readonly alert: string | null;
  readonly steamId: string | null;
  readonly eosId: string | null;
}

export interface ReviewReceipt {
  /** The service's confirmation text, e.g. "Done!". */
  readonly message: string;
}

export const SERVER_ACTIONS = ['start', 'stop', 'restart', 'update', 'wipe', 'cancel-scheduled'] as const;
export type ServerAction = (typeof SERVER_ACTIONS)[number];

export interface ServerActionResult {
  readonly action: ServerAction;
  readonly status: number;
  /** The service's body text (webhook bodies are undocumented: kept as-is, empty when none). */
  readonly body: string;
  /** The body for people: its `message` or `error` when it is JSON, else the text. */
  readonly message: string;
}

/**
 * Why a mute check is made: `first` when nobody has an answer for the player yet, `refresh` to renew one already
 * cached. A refresh waits behind first lookups for the API budget.
 */
export type MuteLookupKind = 'first' | 'refresh';

/**
 * Which call a request is: decides its retry rule (and labels metrics). `system-read` is a System API read
 * (players/find, player/{uuid}: retried like a mute check), `system-write` a System API action (mute, unmute, a game
 * server's action or broadcast: like a webhook, re-sent only when surely not sent). The Mod API v2 features:
 * `access` (integration-mod), `report-settings` (the report form), `shop` (index and pack) and `ui` (settings,
 * button modal) are reads, retried like a mute check; `report` is not idempotent, retried like a review;
 * `shop-order` and `tokens` spend money and are never retried.
 */
export type Endpoint =
  | 'mute'
  | 'review'
  | 'webhook'
  | 'system-read'
  | 'system-write'
  | 'access'
  | 'report-settings'
  | 'report'
  | 'shop'
  | 'shop-order'
  | 'tokens'
  | 'ui';

export type ApiFlavor = 'v1' | 'v2';

/** GSA's access check (`integration-mod`): whether the player may play on the server, and their custom roles. */
export interface AccessAnswer {
  readonly allowed: boolean;
  /** GSA's `username_accepted`. */
  readonly usernameAccepted: boolean;
  /** GSA's words ("You are not on the whitelist"); null when it sent none or an empty one. */
  readonly message: string | null;
  /** `custom_roles`: role id → ISO expiry; `{}` when GSA sent `[]` or none. */
  readonly roles: Readonly<Record<string, string>>;
}

/** GSA's report form for a server (`GET …/report`), its placeholder player (user_id 0) left out. */
export interface ReportSettingsAnswer {
  readonly title: string;
  readonly description: string;
  readonly players: readonly { readonly user_id: number; readonly name: string }[];
  readonly types: readonly { readonly id: number | string; readonly name: string }[];
}

/** A report's fields as GSA's `POST …/report` takes them. */
export interface ReportFields {
  readonly comment: string;
  /** The reporter's in-game character id (an integer). */
  readonly characterId: number;
  /** `X_<n> Y_<n> Z_<n>`. */
  readonly coords: string;
  readonly type: number | string;
  /** A GSA `user_id` from the settings' players. */
  readonly reportedPlayer?: number | undefined;
}

export interface ReportReceipt {
  /** GSA's `message`, or its `data` text; '' when it sent none. */
  readonly message: string;
}

/** GSA's answer to a shop order: `success` false is GSA's refusal (no credit, out of stock), with its message. */
export interface OrderReceipt {
  readonly success: boolean;
  readonly message: string;
}

export interface TokenReceipt {
  /** GSA's `data` ("Done!"). */
  readonly message: string;
}

/** A shop index query. */
export interface ShopSearch {
  readonly search?: string | undefined;
  readonly filter?: string | undefined;
}
