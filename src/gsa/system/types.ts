// What the rest of the sidecar may ask of GSA's System API v2 (reference/gsa-system-api-v2.md): the interface the
// System API client implements, and the plain values it answers with. Callers (the bridge's mute lookups for
// Mojang ids, the chat filter's mutes, the CLI's mute/unmute/broadcast/server commands) code against this, never
// against the client class. Plain types only; nothing here talks to the network.

import type { CallOptions, CheckMutedOptions } from '../client/client.js';
import type { MuteStatus } from '../types.js';
import type { MuteDuration } from './periods.js';

/** A GSA player as players/find answers: the uuid every /player/{uuid} path takes. */
export interface SystemPlayerRef {
  readonly uuid: string;
  /** The first linked account's username, when GSA gave one (for log lines; may be absent). */
  readonly name?: string | undefined;
  /**
   * The game ids of the player's linked accounts GSA listed (`service_users` of type steam, eos, mojang), each in
   * its normalised form; absent when none was listed or well-formed. A game server's chat names players by these.
   */
  readonly gameIds?: LinkedGameIds | undefined;
}

/** The first well-formed id of each kind among a player's linked accounts. */
export interface LinkedGameIds {
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  readonly mojangId?: string | undefined;
}

/** GET /player/{uuid}: what the sidecar reads of a player. */
export interface SystemPlayerState extends SystemPlayerRef {
  readonly muted: boolean;
  /** When the mute ends, ISO date-time; null when permanent or not muted. */
  readonly mutedUntil: string | null;
}

/** A game-server action on the System API (`stop` is its `shutdown`, `cancel-scheduled` its `cancel`). No `wipe`: that has no System API path. */
export const SYSTEM_SERVER_ACTIONS = ['start', 'stop', 'restart', 'update', 'cancel-scheduled', 'backup'] as const;
export type SystemServerAction = (typeof SYSTEM_SERVER_ACTIONS)[number];

export const BROADCAST_TYPES = ['broadcast', 'success', 'warning', 'error'] as const;
export type BroadcastType = (typeof BROADCAST_TYPES)[number];

/** What a System API action answered: its `data` text ("Player will be muted shortly."). */
export interface SystemReceipt {
  readonly status: number;
  /** The service's words, scrubbed, one line. */
  readonly message: string;
}

export interface SystemActionOptions {
  /** update/restart/stop: 0–90 (GSA's unit is not stated; its dashboard shows minutes). */
  readonly countdown?: number | undefined;
  /** update/restart/stop: the text shown in game. */
  readonly message?: string | undefined;
  /** backup: its name (required there). */
  readonly name?: string | undefined;
}

/**
 * GSA's System API, one key. Every call counts in the key's own budget (100 a minute, shared on Redis when set), and
 * the documented cooldowns are kept before sending: 120 s per player for mute/unmute, 60 s per game server for its
 * actions and broadcast. A call that would have to wait past its `signal` fails with a `cooldown` error saying when
 * it could go, and sends nothing. GSA's own 429 "You cannot do this yet" is a `cooldown` error with the wait it
 * names, never retried and never a hold on the key.
 */
export interface SystemApi {
  /** players/find by a game id (Steam64, EOS, Mojang uuid…); cached for the process's life. 404 → `not_found`, "GSA does not know this player". */
  findPlayer(serviceId: string, options?: CallOptions): Promise<SystemPlayerRef>;
  /** GET /player/{uuid}. */
  player(uuid: string, options?: CallOptions): Promise<SystemPlayerState>;
  /** A mute lookup for an id the mod API cannot take: findPlayer, then player(); `alert` is null (the caller's default applies). */
  checkMuted(serviceId: string, options?: CheckMutedOptions): Promise<MuteStatus>;
  mute(uuid: string, duration: MuteDuration, note?: string, options?: CallOptions): Promise<SystemReceipt>;
  unmute(uuid: string, note?: string, options?: CallOptions): Promise<SystemReceipt>;
  serverAction(gameServerId: number, action: SystemServerAction, details?: SystemActionOptions, options?: CallOptions): Promise<SystemReceipt>;
  broadcast(gameServerId: number, message: string, type?: BroadcastType, options?: CallOptions): Promise<SystemReceipt>;
  /** When a call on `gameServerId` may next go by the sidecar's own spacing (epoch ms); undefined when now. */
  serverFreeAt(gameServerId: number): Promise<number | undefined>;
  close(): Promise<void>;
}
