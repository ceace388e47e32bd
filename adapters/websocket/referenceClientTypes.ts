// The words of the reference client (referenceClient.ts, ModClient): what its methods take and give, its one error
// class and its options. Split from the client so that file stays short to read; mod authors copy both. Compiled, it
// needs nothing at run time but itself: the protocol types below are imported as types only and vanish.
// Must never hold behaviour beyond the error class: the client's logic is referenceClient.ts's.
import type {
  ChatVerdictMessage,
  ModPlayer,
  MuteChangedMessage,
  MuteStatusMessage,
  ReviewResultMessage,
  ServerActionResultMessage,
  WelcomeMessage,
} from './protocol.js';
import type {
  MoneyResultMessage,
  PlayerAccessResultMessage,
  ReportMessage,
  ReportResultMessage,
  ReportSettingsResultMessage,
} from './modApiMessages.js';

/** A player as the protocol names them: at least one of steam_id (17 digits) / eos_id (32 hex). */
export type Player = ModPlayer;
export type ServerAction = 'start' | 'stop' | 'restart' | 'update' | 'wipe' | 'cancel-scheduled' | 'broadcast';

// Omit that keeps each member of a union apart (plain Omit would merge `{ok: true}` and `{ok: false, error}`).
export type Without<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export type ChatVerdict = Without<ChatVerdictMessage, 'type' | 'id'>;
export type MuteStatus = Without<MuteStatusMessage, 'type' | 'id'>;
export type ReviewResult = Without<ReviewResultMessage, 'type'>;
export type ServerActionResult = Without<ServerActionResultMessage, 'type' | 'id'>;
export type MuteChange = Without<MuteChangedMessage, 'type'>;
/** GSA's access check: `allowed`, GSA's `message` when it refuses, the player's custom `roles` (id → ISO expiry). */
export type AccessResult = Without<PlayerAccessResultMessage, 'type' | 'id'>;
export type ReportSettings = Without<ReportSettingsResultMessage, 'type' | 'id'>;
/** A report as the protocol names its fields: `report_type` is one of the settings' type ids. */
export type ReportFields = Without<ReportMessage, 'type' | 'id'>;
export type ReportResult = Without<ReportResultMessage, 'type'>;
/**
 * A shop order's or a token spend's fate. `unconfirmed`: it was sent and its answer was lost; it may or may not have
 * been spent, and the sidecar never sends it again: do not send it again yourself, tell the player to check.
 */
export type MoneyResult = Without<MoneyResultMessage, 'type' | 'id'>;

export interface ReviewReceipt {
  /** The sidecar stored the review durably: it will reach GSA even if the sidecar restarts. */
  readonly queued: true;
  /** Resolves when GSA answered (ok or not); survives reconnects. Rejects only when the client is closed first. */
  readonly result: Promise<ReviewResult>;
}

/**
 * `code` is the sidecar's wire code (bad_message, forbidden, rate_limited, not_eligible, …), or one of the client's own:
 * `timeout` (no reply in time), `not_connected` (sent while disconnected), `disconnected` (the connection
 * dropped before the reply), `closed` (close() was called).
 */
export class ModClientError extends Error {
  readonly code: string;
  /** For bad_message: the offending field, like `stars` or `player.steam_id`. */
  readonly path: string | undefined;

  constructor(code: string, message: string, path?: string) {
    super(path === undefined ? `${code}: ${message}` : `${code} at ${path}: ${message}`);
    this.name = 'ModClientError';
    this.code = code;
    this.path = path;
  }
}

export interface ReportReceipt {
  /** The sidecar stored the report durably: it will reach GSA even if the sidecar restarts. */
  readonly queued: true;
  /** Resolves when GSA answered (ok or not); survives reconnects. Rejects only when the client is closed first. */
  readonly result: Promise<ReportResult>;
}

/** A shop search, as GSA's shop index takes it. */
export interface ShopQuery {
  readonly search?: string | undefined;
  readonly filter?: string | undefined;
}

export interface ModClientOptions {
  /** The sidecar's mod WebSocket, e.g. 'ws://127.0.0.1:8787/'. */
  readonly url: string;
  /** Sent as `Authorization: Bearer <token>`. Leave it out when the sidecar has no token (loopback only). */
  readonly token?: string | undefined;
  /** How long a request waits for its reply. Default 5000 ms. */
  readonly requestTimeoutMs?: number | undefined;
  /** First reconnect delay; it doubles on each failed attempt. Default 250 ms. */
  readonly reconnectMinDelayMs?: number | undefined;
  /** Longest reconnect delay. Default 10000 ms. */
  readonly reconnectMaxDelayMs?: number | undefined;
  /** A refresh found a player's mute status changed: block or unblock their chat at once. */
  readonly onMuteChanged?: ((change: MuteChange) => void) | undefined;
  /** Every review.result, including those for reviews this process did not send (it restarted meanwhile). */
  readonly onReviewResult?: ((result: ReviewResult) => void) | undefined;
  /** Every report.result, including those for reports this process did not send (it restarted meanwhile). */
  readonly onReportResult?: ((result: ReportResult) => void) | undefined;
  /**
   * The host enforces GSA's access check and a player this mod said joined is not allowed: remove the player, showing
   * `message`. Unasked (after your `player.join`), `allowed` is always false here.
   */
  readonly onAccessRefused?: ((refusal: AccessResult) => void) | undefined;
  /** Each (re)connection, after the sidecar's welcome. */
  readonly onConnected?: ((welcome: WelcomeMessage) => void) | undefined;
  /** Connection problems (refused, 401, dropped); the client keeps reconnecting. */
  readonly onConnectionError?: ((error: Error) => void) | undefined;
  /** `error` frames that answer no pending request, e.g. a join with a bad player (join and leave have no reply). */
  readonly onUnmatchedError?: ((error: ModClientError) => void) | undefined;
}
