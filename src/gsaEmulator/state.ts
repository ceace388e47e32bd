/**
 * Everything the emulator remembers: known servers, mutes, review eligibility, stored reviews, queued
 * server actions, locks, pending faults, the log of the latest calls, counters for all of them, the API
 * budget it enforces per key (when set), the System API's players, mutes and actions (`system`, systemState.ts), and
 * the Mod API v2 features: access, report forms, reports and UI settings (`features`, featureState.ts), the shop and
 * tokens (`shop`, shopState.ts).
 * Must never do I/O or know about HTTP; request handlers read and change it through these methods.
 * Must never grow without bound per request: the call log keeps the latest `callLogLimit` calls, and
 * counters (ArrivalWatch) cover the rest, so an emulator can serve a soak for hours.
 */
import { ArrivalWatch } from './arrivals.js';
import { EmulatorInputError } from './errors.js';
import { FaultQueue, type CallEndpoint, type PendingFault } from './faults.js';
import { KeyBudget } from './keyBudget.js';
import { SystemState, type SystemSnapshot } from './systemState.js';
import { FeatureState, type FeatureSnapshot } from './featureState.js';
import { ShopState, type OrderRecord, type TokenSpendRecord, type WalletRecord } from './shopState.js';
import { SERVER_ACTIONS, type ServerAction } from '../gsa/types.js';

/** The player ids a mod API body names, as sent (both when both came, which validation then refuses): for the call log. */
export interface NamedPlayer {
  readonly steam_id?: string;
  readonly eos_id?: string;
}

/** The webhook actions the service knows: the same list the client sends. */
export type WebhookAction = ServerAction;
export const WEBHOOK_ACTIONS: readonly WebhookAction[] = SERVER_ACTIONS;

/** A game server: `name` is the container name used by the mod API, `id` the number used by webhooks. */
export interface ServerEntry {
  readonly name: string;
  readonly id?: number;
}

export interface MuteRecord {
  readonly server: string;
  readonly player: string;
  /** '' when muted without a text; clients then show their own default. */
  readonly alert: string;
}

export interface IneligibleRecord {
  readonly server: string;
  readonly player: string;
  readonly message: string;
}

export interface StoredReview {
  readonly server: string;
  readonly steamId?: string;
  readonly eosId?: string;
  readonly stars: number;
  /** '' when the review came without a comment. */
  readonly comment: string;
  /** Arrival time of the request that stored it, from the emulator's clock. */
  readonly at: number;
}

export interface ActionRecord {
  readonly action: WebhookAction;
  /** Only for `update`: the countdown asked for, 30 when not given. */
  readonly countdownMinutes?: number;
  readonly at: number;
}

export interface RecordedCall {
  /** Arrival time, taken before any body reading or injected latency. */
  readonly at: number;
  readonly method: string;
  /** The path without the query string. */
  readonly path: string;
  readonly endpoint: CallEndpoint;
  readonly flavor: 'v1' | 'v2' | 'webhook' | 'system' | null;
  /** The container name for the mod API, the id segment (as written) for webhooks and System API game-server
   * routes, null otherwise. */
  readonly server: string | null;
  /** System API calls only: whether a `GSA-ID` header came with it (GSA asks distributed tools for one). */
  readonly gsaId?: boolean;
  /** Status sent; 0 while unanswered, and stays 0 when dropped or the client went away first. */
  readonly status: number;
  /** Mod API calls only: the player ids the body named, as sent (which id a client asked by); absent when none. */
  readonly player?: NamedPlayer | undefined;
}

/** What `GET /_emulator/state` answers. */
export interface EmulatorSnapshot {
  readonly servers: ServerEntry[];
  readonly mutes: MuteRecord[];
  readonly ineligible: IneligibleRecord[];
  readonly reviews: StoredReview[];
  /** Queued actions by numeric server id (as an object key). */
  readonly actions: Record<string, ActionRecord[]>;
  /** Ids of locked servers. */
  readonly locks: number[];
  readonly faults: PendingFault[];
  /** The System API's players, dashboard-wide mutes in force, offline servers and accepted actions. */
  readonly system: SystemSnapshot;
  /** The Mod API v2 features: access set per player, stored reports, orders and token spends as they arrived, and
   * the players whose money was set or spent. */
  readonly features: FeatureSnapshot & { readonly orders: OrderRecord[]; readonly tokenSpends: TokenSpendRecord[]; readonly wallets: WalletRecord[] };
}

/** A call whose status is filled in once the answer goes out. */
export interface CallHandle {
  status: number;
  player?: NamedPlayer | undefined;
}

type MutableCall = { -readonly [K in keyof RecordedCall]: RecordedCall[K] };

/** How many calls the log keeps by default; older ones only count in the counters. */
export const DEFAULT_CALL_LOG_LIMIT = 10_000;

export class EmulatorState {
  readonly faults = new FaultQueue();
  readonly #servers = new Map<string, ServerEntry>();
  /** server name → player id → alert */
  readonly #mutes = new Map<string, Map<string, string>>();
  /** server name → player id → message */
  readonly #ineligible = new Map<string, Map<string, string>>();
  #reviews: StoredReview[] = [];
  readonly #actions = new Map<number, ActionRecord[]>();
  readonly #locks = new Set<number>();
  #calls: MutableCall[] = [];
  readonly #callLogLimit: number;
  readonly arrivals = new ArrivalWatch();
  /** The API budget enforced per key, when one is set (off by default). */
  readonly budget = new KeyBudget();
  /** What the System API v2 models: players, dashboard-wide mutes, cooldowns, online flags, accepted actions. */
  readonly system = new SystemState();
  /** The Mod API v2's access, report forms, reports and UI settings. */
  readonly features = new FeatureState();
  /** The Mod API v2's shop catalogues, credit, tokens, and the orders and spends that arrived. */
  readonly shop = new ShopState();

  /** @throws EmulatorInputError when `callLogLimit` is not a positive integer. */
  constructor(callLogLimit = DEFAULT_CALL_LOG_LIMIT) {
    if (!Number.isSafeInteger(callLogLimit) || callLogLimit < 1) {
      throw new EmulatorInputError(`callLogLimit: ${String(callLogLimit)} is not a positive integer`);
    }
    this.#callLogLimit = callLogLimit;
  }

  /**
   * Adds a server, or gives a known one an id. Names go into URL paths, so they must be non-empty and
   * free of '/', '?', '#' and whitespace; ids must be positive integers bound to at most one server.
   */
  addServer(name: string, id?: number): void {
    if (!/^[^/?#\s]+$/.test(name)) {
      throw new EmulatorInputError(`name: ${JSON.stringify(name)} is not a usable server name (non-empty, no '/', '?', '#' or whitespace)`);
    }
    if (id !== undefined) {
      if (!Number.isSafeInteger(id) || id < 1) throw new EmulatorInputError(`id: ${String(id)} is not a positive integer`);
      const holder = this.serverById(id);
      if (holder !== undefined && holder.name !== name) {
        throw new EmulatorInputError(`id: ${id} already belongs to server '${holder.name}'`);
      }
    }
    const known = this.#servers.get(name);
    this.#servers.set(name, { name, ...(id === undefined ? (known?.id === undefined ? {} : { id: known.id }) : { id }) });
  }

  get servers(): ServerEntry[] {
    return [...this.#servers.values()];
  }

  serverByName(name: string): ServerEntry | undefined {
    return this.#servers.get(name);
  }

  serverById(id: number): ServerEntry | undefined {
    for (const server of this.#servers.values()) if (server.id === id) return server;
    return undefined;
  }

  mute(server: string, player: string, alert = ''): void {
    this.#requireServer(server);
    requirePlayer(player);
    entryMap(this.#mutes, server).set(player, alert);
    this.system.sawPlayerId(player);
  }

  unmute(server: string, player: string): void {
    this.#requireServer(server);
    requirePlayer(player);
    this.#mutes.get(server)?.delete(player);
  }

  /** The alert of a muted player ('' if muted without one), undefined when not muted. */
  muteAlert(server: string, player: string): string | undefined {
    return this.#mutes.get(server)?.get(player);
  }

  /** `message` null makes the player eligible again. */
  setIneligible(server: string, player: string, message: string | null): void {
    this.#requireServer(server);
    requirePlayer(player);
    if (message === null) this.#ineligible.get(server)?.delete(player);
    else entryMap(this.#ineligible, server).set(player, message);
    this.system.sawPlayerId(player);
  }

  /** The refusal message for a player who may not review, undefined when they may. */
  ineligibility(server: string, player: string): string | undefined {
    return this.#ineligible.get(server)?.get(player);
  }

  addReview(review: StoredReview): void {
    this.#reviews.push(review);
  }

  get reviews(): readonly StoredReview[] {
    return [...this.#reviews];
  }

  queueAction(serverId: number, record: ActionRecord): void {
    entryList(this.#actions, serverId).push(record);
  }

  clearActions(serverId: number): void {
    this.#actions.delete(serverId);
  }

  actions(serverId: number): readonly ActionRecord[] {
    return [...(this.#actions.get(serverId) ?? [])];
  }

  lock(serverId: number, locked: boolean): void {
    if (this.serverById(serverId) === undefined) {
      throw new EmulatorInputError(`serverId: ${serverId} is not the id of a known server (known: ${this.#knownIds()})`);
    }
    if (locked) this.#locks.add(serverId);
    else this.#locks.delete(serverId);
  }

  isLocked(serverId: number): boolean {
    return this.#locks.has(serverId);
  }

  /** Logs a call at arrival; the returned handle takes the status once one is sent. */
  recordCall(call: Omit<RecordedCall, 'status'>): CallHandle {
    const recorded: MutableCall = { ...call, status: 0 };
    this.arrivals.arrived(call.endpoint, call.at);
    this.#calls.push(recorded);
    // Trimmed in batches, so each call costs O(1) on average rather than a shift of the whole log.
    if (this.#calls.length >= 2 * this.#callLogLimit) this.#calls = this.#calls.slice(-this.#callLogLimit);
    return recorded;
  }

  /** Records the status sent for a call. */
  answered(call: CallHandle, status: number): void {
    call.status = status;
    this.arrivals.answered(status);
  }

  /** The latest `callLogLimit` calls, oldest first. A snapshot: later status changes do not show in it. */
  get calls(): readonly RecordedCall[] {
    return this.#calls.slice(-this.#callLogLimit).map((call) => ({ ...call }));
  }

  /** Forgets everything but the servers, the System API's players, the watched window's spec and the enforced budget
   * (their counts start over), and, outside this class, the credentials. System mutes, cooldowns, offline marks and
   * recorded System API actions go, and every feature's state is back to its defaults (access, report forms, UI
   * settings, catalogues, credit and tokens), its reports, orders and spends forgotten. */
  reset(): void {
    this.features.reset();
    this.shop.reset();
    this.#mutes.clear();
    this.#ineligible.clear();
    this.#reviews = [];
    this.#actions.clear();
    this.#locks.clear();
    this.#calls = [];
    this.arrivals.reset();
    this.budget.reset();
    this.faults.clear();
    this.system.reset();
  }

  /** `wallNow`: the emulator's wall clock, for which System API mutes are still in force. */
  snapshot(wallNow: number = Date.now()): EmulatorSnapshot {
    return {
      servers: this.servers,
      mutes: flatten(this.#mutes).map(([server, player, alert]) => ({ server, player, alert })),
      ineligible: flatten(this.#ineligible).map(([server, player, message]) => ({ server, player, message })),
      reviews: [...this.#reviews],
      actions: Object.fromEntries([...this.#actions].map(([id, list]) => [String(id), [...list]])),
      locks: [...this.#locks].sort((a, b) => a - b),
      faults: this.faults.list(),
      system: this.system.snapshot(wallNow),
      features: { ...this.features.snapshot(), orders: this.shop.orders, tokenSpends: this.shop.tokenSpends, wallets: this.shop.wallets },
    };
  }

  #requireServer(name: string): void {
    if (!this.#servers.has(name)) {
      const known = [...this.#servers.keys()].join(', ');
      throw new EmulatorInputError(`server: '${name}' is not a known server (known: ${known === '' ? 'none' : known})`);
    }
  }

  #knownIds(): string {
    const ids = [...this.#servers.values()].flatMap((s) => (s.id === undefined ? [] : [String(s.id)]));
    return ids.length === 0 ? 'none' : ids.join(', ');
  }
}

function requirePlayer(player: string): void {
  if (player === '') throw new EmulatorInputError('player: must be a non-empty steam_id or eos_id');
}

function entryMap<V>(outer: Map<string, Map<string, V>>, key: string): Map<string, V> {
  let inner = outer.get(key);
  if (inner === undefined) {
    inner = new Map();
    outer.set(key, inner);
  }
  return inner;
}

function entryList<K, V>(outer: Map<K, V[]>, key: K): V[] {
  let list = outer.get(key);
  if (list === undefined) {
    list = [];
    outer.set(key, list);
  }
  return list;
}

function flatten<V>(outer: Map<string, Map<string, V>>): [string, string, V][] {
  return [...outer].flatMap(([server, inner]) => [...inner].map(([player, value]): [string, string, V] => [server, player, value]));
}
