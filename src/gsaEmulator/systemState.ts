/**
 * What the emulated System API v2 remembers: GSA players (uuid, name, linked service ids), dashboard-wide mutes,
 * the documented per-player and per-game-server cooldowns, which game servers are offline, and the game-server
 * actions and broadcasts it accepted (so tests can assert what arrived).
 * Players come two ways: seeded (`addPlayer`, `POST /_emulator/player`), or made on sight: any Steam or EOS id the
 * mod API was asked about, or a control call muted or marked, becomes a player whose uuid is derived from the id
 * (a UUIDv5 of "<type>:<id>"), so the same id always has the same uuid, across resets and runs.
 * Must never do I/O or read a clock (callers pass times), and never grow without bound per request: players made
 * on sight are capped (the oldest forgotten first; being derived, they come back with the same uuid).
 */
import { createHash } from 'node:crypto';
import { EOS_ID_PATTERN, GSA_PLAYER_UUID_PATTERN, STEAM_ID_PATTERN } from '../ids/playerIds.js';
import { EmulatorInputError } from './errors.js';

/** `PlayerServiceUser.type` as the System API documents it. */
export const SERVICE_TYPES = ['steam', 'mojang', 'epic', 'eos', 'discord', 'twitch', 'patreon', 'microsoft', 'google'] as const;
export type ServiceType = (typeof SERVICE_TYPES)[number];

export interface ServiceIdentity {
  readonly type: ServiceType;
  readonly id: string;
}

export interface SystemPlayer {
  readonly uuid: string;
  readonly name: string;
  readonly ids: readonly ServiceIdentity[];
  /** false for a player made on sight of one of its ids. */
  readonly seeded: boolean;
}

export interface SystemMuteRecord {
  readonly uuid: string;
  /** The player's ids when muted, so a mute outlives a forgotten on-sight player. */
  readonly ids: readonly ServiceIdentity[];
  /** Unix ms on the emulator's wall clock; null: never ends. */
  readonly until: number | null;
  readonly note: string;
}

/** The game-server actions of the System API, as their path segments. */
export const SYSTEM_GAMESERVER_ACTIONS = ['start', 'update', 'shutdown', 'restart', 'cancel', 'backup', 'broadcast', 'command'] as const;
export type SystemGameServerAction = (typeof SYSTEM_GAMESERVER_ACTIONS)[number];

/** One accepted game-server action or broadcast; only the fields its request carried are set. */
export interface SystemActionRecord {
  readonly serverId: number;
  readonly action: SystemGameServerAction;
  readonly countdown?: number;
  readonly message?: string;
  /** broadcast: broadcast | success | warning | error. */
  readonly type?: string;
  /** backup: its name. */
  readonly name?: string;
  /** command: the console command. */
  readonly command?: string;
  /** Arrival, on the emulator's `now` clock. */
  readonly at: number;
}

/** The System API part of `GET /_emulator/state`. */
export interface SystemSnapshot {
  readonly players: SystemPlayer[];
  /** Mutes in force now; `until` as an ISO date-time, null when it never ends. */
  readonly mutes: { readonly uuid: string; readonly until: string | null; readonly note: string }[];
  /** Ids of game servers marked offline. */
  readonly offline: number[];
  readonly actions: SystemActionRecord[];
}

/** How many players made on sight are kept; seeded players are not counted. */
export const ON_SIGHT_PLAYER_LIMIT = 10_000;
/** How many accepted actions are kept (a 60 s cooldown per server already slows them). */
const ACTION_LOG_LIMIT = 10_000;

/** The UUIDv5 namespace of emulated players: fixed, so derived uuids are stable across runs. */
const NAMESPACE = Buffer.from('6f1c9a3e2b7d4e5f8a9b0c1d2e3f4a5b', 'hex');

export class SystemState {
  readonly #players = new Map<string, SystemPlayer>();
  /** "<type>:<id>" → player uuid */
  readonly #byIdentity = new Map<string, string>();
  /** uuids of players made on sight, oldest first (Map order). */
  readonly #onSight = new Map<string, true>();
  readonly #mutes = new Map<string, SystemMuteRecord>();
  /** player uuid → arrival of the last accepted mute or unmute */
  readonly #playerCalls = new Map<string, number>();
  /** game server id → arrival of the last accepted action */
  readonly #serverCalls = new Map<number, number>();
  readonly #offline = new Set<number>();
  #actions: SystemActionRecord[] = [];
  readonly #onSightLimit: number;

  constructor(onSightLimit = ON_SIGHT_PLAYER_LIMIT) {
    this.#onSightLimit = onSightLimit;
  }

  /** Makes a player for a Steam or EOS id seen by the mod API or a control call, unless one holds it already. */
  sawPlayerId(id: string, type?: 'steam' | 'eos'): void {
    const kind = type ?? (STEAM_ID_PATTERN.test(id) ? 'steam' : EOS_ID_PATTERN.test(id) ? 'eos' : undefined);
    if (kind === undefined || id === '' || this.#byIdentity.has(identityKey(kind, id))) return;
    const uuid = derivedUuid(`${kind}:${id}`);
    this.#store({ uuid, name: id, ids: [{ type: kind, id }], seeded: false });
    this.#onSight.set(uuid, true);
    if (this.#onSight.size > this.#onSightLimit) {
      const oldest = this.#onSight.keys().next().value;
      if (oldest !== undefined) this.#forget(oldest);
    }
  }

  /**
   * Seeds a player; answers its uuid (default: derived from its first id, the uuid that id had on sight). A player
   * made on sight that held one of the ids is replaced. @throws EmulatorInputError when a seeded player holds one
   * of the ids or the uuid, or an id repeats.
   */
  addPlayer(input: { readonly ids: readonly ServiceIdentity[]; readonly name?: string | undefined; readonly uuid?: string | undefined }): string {
    const first = input.ids[0];
    if (first === undefined) throw new EmulatorInputError('ids: a player needs at least one service id');
    const keys = input.ids.map((identity) => identityKey(identity.type, identity.id));
    if (new Set(keys).size !== keys.length) throw new EmulatorInputError('ids: the same service id is listed twice');
    for (const identity of input.ids) {
      if (identity.id === '') throw new EmulatorInputError('ids: a service id must not be empty');
    }
    const uuid = input.uuid?.toLowerCase() ?? derivedUuid(`${first.type}:${first.id}`);
    if (!GSA_PLAYER_UUID_PATTERN.test(uuid)) throw new EmulatorInputError(`uuid: '${uuid}' is not a uuid`);
    const holders = new Set(keys.flatMap((key) => this.#byIdentity.get(key) ?? []));
    if (this.#players.has(uuid)) holders.add(uuid);
    for (const holder of holders) {
      if (this.#players.get(holder)?.seeded === true) {
        throw new EmulatorInputError(`ids: player ${holder} already holds ${holder === uuid ? 'this uuid' : 'one of these ids'}`);
      }
    }
    for (const holder of holders) this.#forget(holder);
    this.#store({ uuid, name: input.name ?? first.id, ids: [...input.ids], seeded: true });
    return uuid;
  }

  player(uuid: string): SystemPlayer | undefined {
    return this.#players.get(uuid.toLowerCase());
  }

  /** Every player with a linked account whose service id is `serviceId`, whatever its type (the API takes no type). */
  findByServiceId(serviceId: string): SystemPlayer[] {
    return [...this.#players.values()].filter((player) => player.ids.some((identity) => identity.id === serviceId));
  }

  /** Mutes a player dashboard-wide until `until` (Unix ms; null: for good), replacing any mute it had. */
  mute(uuid: string, until: number | null, note = ''): void {
    const player = this.player(uuid);
    if (player === undefined) throw new EmulatorInputError(`uuid: ${uuid} is not a known player`);
    this.#mutes.set(player.uuid, { uuid: player.uuid, ids: player.ids, until, note });
  }

  unmute(uuid: string): void {
    this.#mutes.delete(uuid.toLowerCase());
  }

  /** The player's mute in force at `wallNow`; an ended one is forgotten. */
  muteOf(uuid: string, wallNow: number): SystemMuteRecord | undefined {
    const mute = this.#mutes.get(uuid);
    if (mute === undefined) return undefined;
    if (mute.until !== null && mute.until <= wallNow) {
      this.#mutes.delete(uuid);
      return undefined;
    }
    return mute;
  }

  /** Whether the player holding this Steam or EOS id is muted dashboard-wide at `wallNow` (the mod API asks this). */
  isMuted(type: 'steam' | 'eos', id: string, wallNow: number): boolean {
    const uuid = this.#byIdentity.get(identityKey(type, id));
    if (uuid !== undefined) return this.muteOf(uuid, wallNow) !== undefined;
    for (const mute of [...this.#mutes.values()]) {
      if (mute.ids.some((identity) => identity.type === type && identity.id === id) && this.muteOf(mute.uuid, wallNow) !== undefined) return true;
    }
    return false;
  }

  /** ms left of a `windowMs` cooldown on the player at arrival `at`; 0 when a call may go. */
  playerWait(uuid: string, at: number, windowMs: number): number {
    return remaining(this.#playerCalls.get(uuid), at, windowMs);
  }

  /** Starts the player's cooldown at `at`; cooldowns over by then (older than `windowMs`) are swept now and then. */
  playerCalled(uuid: string, at: number, windowMs: number): void {
    this.#playerCalls.set(uuid, at);
    sweep(this.#playerCalls, at, windowMs);
  }

  serverWait(serverId: number, at: number, windowMs: number): number {
    return remaining(this.#serverCalls.get(serverId), at, windowMs);
  }

  serverCalled(serverId: number, at: number, windowMs: number): void {
    this.#serverCalls.set(serverId, at);
    sweep(this.#serverCalls, at, windowMs);
  }

  setOnline(serverId: number, online: boolean): void {
    if (online) this.#offline.delete(serverId);
    else this.#offline.add(serverId);
  }

  isOnline(serverId: number): boolean {
    return !this.#offline.has(serverId);
  }

  recordAction(record: SystemActionRecord): void {
    this.#actions.push(record);
    if (this.#actions.length >= 2 * ACTION_LOG_LIMIT) this.#actions = this.#actions.slice(-ACTION_LOG_LIMIT);
  }

  get actions(): SystemActionRecord[] {
    return this.#actions.slice(-ACTION_LOG_LIMIT);
  }

  /** Forgets mutes, cooldowns, offline marks and recorded actions; players stay (they are identities, like servers). */
  reset(): void {
    this.#mutes.clear();
    this.#playerCalls.clear();
    this.#serverCalls.clear();
    this.#offline.clear();
    this.#actions = [];
  }

  snapshot(wallNow: number): SystemSnapshot {
    const mutes = [...this.#mutes.keys()].flatMap((uuid) => {
      const mute = this.muteOf(uuid, wallNow);
      return mute === undefined ? [] : [{ uuid, until: mute.until === null ? null : new Date(mute.until).toISOString(), note: mute.note }];
    });
    return {
      players: [...this.#players.values()].map((player) => ({ ...player, ids: [...player.ids] })),
      mutes,
      offline: [...this.#offline].sort((a, b) => a - b),
      actions: this.actions,
    };
  }

  #store(player: SystemPlayer): void {
    this.#players.set(player.uuid, player);
    for (const identity of player.ids) this.#byIdentity.set(identityKey(identity.type, identity.id), player.uuid);
  }

  #forget(uuid: string): void {
    const player = this.#players.get(uuid);
    if (player === undefined) return;
    this.#players.delete(uuid);
    this.#onSight.delete(uuid);
    for (const identity of player.ids) {
      const key = identityKey(identity.type, identity.id);
      if (this.#byIdentity.get(key) === uuid) this.#byIdentity.delete(key);
    }
  }
}

/** The uuid of a linked account (`service_users[].uuid`): derived too, and distinct from the player's. */
export function serviceUserUuid(identity: ServiceIdentity): string {
  return derivedUuid(`service-user:${identity.type}:${identity.id}`);
}

function identityKey(type: ServiceType, id: string): string {
  return `${type}:${id}`;
}

/** Past SWEEP_AT entries, forgets the ones whose cooldown is over, so the maps hold only live cooldowns (plus slack). */
const SWEEP_AT = 1_000;

function sweep<K>(calls: Map<K, number>, at: number, windowMs: number): void {
  if (calls.size < SWEEP_AT) return;
  for (const [key, last] of calls) if (last + windowMs <= at) calls.delete(key);
}

function remaining(last: number | undefined, at: number, windowMs: number): number {
  return last === undefined ? 0 : Math.max(0, last + windowMs - at);
}

/** RFC 4122 UUIDv5 (SHA-1, name-based) of `name` in the emulator's namespace. */
function derivedUuid(name: string): string {
  const bytes = createHash('sha1').update(NAMESPACE).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
