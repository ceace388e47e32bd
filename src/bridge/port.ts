// The one interface between adapters and the bridge. An adapter turns what the game says into calls on a
// BridgeSink and gets verdicts back; the bridge pushes unsolicited news (mute changes, review results)
// through the adapter's AdapterPushes. Data flows adapter → bridge → service client → verdict → adapter.
// This file holds types only: the bridge imports no adapter, and adapters import nothing else of the bridge.

/** A player as the game knows them: at least one of the ids; the display name is for logs and commands. */
export interface PlayerIdentity {
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  readonly name?: string | undefined;
}

/** May this chat line be shown? `alert` is set whenever `allow` is false: the text to show the player. */
export type ChatVerdict =
  | { readonly allow: true; readonly reason: 'ok' | 'unknown' }
  | { readonly allow: false; readonly reason: 'muted' | 'unknown'; readonly alert: string };

export interface MuteVerdict {
  readonly muted: boolean;
  /** Present when muted: the service's alert, or the configured default. */
  readonly alert?: string | undefined;
  /** cache: answered from the mute cache; service: asked just now; policy: the service could not answer in time. */
  readonly source: 'cache' | 'service' | 'policy';
}

/** Where a review came from, so its result can be routed back: stored with the review, it survives restarts. */
export interface ReviewOrigin {
  /** The id of the adapter that received it (its config path, e.g. 'servers[0].adapters[0]'). */
  readonly adapter: string;
  /** The adapter's connection that sent it; after a reconnect it no longer exists, and the adapter picks the current one. */
  readonly connectionId: string;
  /** The mod's own request id, echoed in the result. */
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

export type ServerActionName = 'start' | 'stop' | 'restart' | 'update' | 'wipe' | 'cancel-scheduled';

export type ServerActionOutcome =
  | { readonly ok: true; readonly status: number; readonly message: string }
  | { readonly ok: false; readonly error: { readonly code: string; readonly message: string } };

/**
 * Refusals an adapter turns into a protocol `error`: input the bridge will not take (`bad_message`, with the
 * field in `path`), a cooldown or cap (`rate_limited`), an action the config does not allow (`forbidden`),
 * or the sidecar shutting down (`unavailable`).
 */
export class BridgeRefusal extends Error {
  readonly code: 'bad_message' | 'rate_limited' | 'forbidden' | 'unavailable';
  readonly path: string | undefined;

  constructor(code: BridgeRefusal['code'], message: string, path?: string) {
    super(message);
    this.name = 'BridgeRefusal';
    this.code = code;
    this.path = path;
  }
}

/** What an adapter calls: the bridge for the one game server the adapter belongs to. */
export interface BridgeSink {
  /** The GSA container name of this game server. */
  readonly serverName: string;
  /** Never slower than mute.decisionTimeoutMs; never rejects. */
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
  playerJoined(player: PlayerIdentity): void;
  playerLeft(player: PlayerIdentity): void;
  /** Rejects with BridgeRefusal('forbidden') unless servers[].allowActions lists the action. */
  serverAction(action: ServerActionName, countdownMinutes?: number): Promise<ServerActionOutcome>;
}

/** What the bridge calls on an adapter. Both must return at once and never throw. */
export interface AdapterPushes {
  muteChanged(player: PlayerIdentity, muted: boolean, alert: string | undefined): void;
  reviewResult(origin: ReviewOrigin, outcome: ReviewOutcome): void;
}

/** A way the game talks to the sidecar: the mod WebSocket, RCON. */
export interface Adapter extends AdapterPushes {
  /** 'websocket' | 'rcon' */
  readonly type: string;
  /** Unique among the sidecar's adapters: its config path, e.g. 'servers[0].adapters[0]'. */
  readonly id: string;
  /** Starts listening or connecting; rejects when it cannot (port in use, …) with a message naming the config path. */
  start(sink: BridgeSink): Promise<void>;
  /** Stops taking events, answers what is in flight, closes. */
  stop(): Promise<void>;
  /** For readiness: listening (websocket) or connected (rcon). */
  readonly ready: boolean;
}
