// The port's words for GSA's in-game features beyond the mute check and the review (GSA's Mod API v2: the access
// check, player reports, the shop, tokens and the dashboard's UI settings), as adapters ask for them on a mod's or a
// player's behalf. Types only, re-exported by port.ts: adapters import them from there.
// It speaks in capabilities, never in GSA's field names or a mod's wire names, and holds no credential: the host's
// secret stays behind the bridge.

import type { PlayerIdentity, ReviewOrigin } from './port.js';

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
