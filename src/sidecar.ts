// Assembles the running sidecar from a validated config: the service connection (client, shared key, health),
// one durable review outbox, the process's chat filter, one bridge per game server, and the adapter slots (built
// through the adapter registry); reloads it by difference (reconfigure: plan, then apply), and takes it all down.
// This is the composition root: the only place where the config file, the bridge and the adapters meet, so the
// only place that maps config keys onto the core's options, and the one place the core's ports are built
// (src/app/corePorts.ts). Every part registers its close on one DisposalStack as it starts, so a failed start and
// stop() unwind the same way, in reverse. It never switches on an adapter type, never closes a part by hand, and
// holds no logic of a reload's own: what changed is src/app/reloadPlan.ts, starting and rolling back
// src/app/adapterSlots.ts, the client and its budget src/app/serviceConnection.ts.

import type { Logger } from 'pino';
import type { Clock } from './time/clock.js';
import type { AdapterOptions, ChatShopCommand } from '../adapters/index.js';
import { changedSettings, type BridgeConfig, type ServerConfig } from './app/config.js';
import type { GsaClient } from './gsa/index.js';
import type { ReviewOptions, MuteOptions, ServerOptions } from './bridge/options.js';
import type { Adapter } from './bridge/port.js';
import type { ReviewOutbox } from './reviews/reviewOutbox.js';
import { BridgeEvents } from './bridge/events.js';
import { ServerBridge, type ServerBridgeSettings } from './bridge/serverBridge.js';
import { setLoggerLevel } from './log/logger.js';
import type { ServiceHealth } from './ops/serviceHealth.js';
import { PRODUCT_NAME, VERSION } from './version.js';
import { AdapterSlots } from './app/adapterSlots.js';
import { ChatFilterSlot } from './app/chatFilterSlot.js';
import { corePorts, type CorePorts } from './app/corePorts.js';
import { DisposalStack, type DisposalLogger } from './app/disposalStack.js';
import { planReload, plannedAdapters } from './app/reloadPlan.js';
import { ServiceConnection } from './app/serviceConnection.js';
import { openSidecarOutbox } from './app/sidecarOutbox.js';
import { openSidecarLedger, type SidecarLedger } from './app/sidecarLedger.js';

export interface SidecarOptions {
  readonly logger: Logger;
  /** Replaces listener ports by adapter id (e.g. 'ovddykvbs-websocket-8787' → 0 for any free port): demo and tests. */
  readonly portOverrides?: ReadonlyMap<string, number> | undefined;
  /**
   * Where the client and the bridges publish what happens (requests, verdicts, cache hits, outbox changes). The
   * long-lived `run` passes its own, so metrics keep their subscription when a reload rebuilds the sidecar;
   * default a new emitter nobody listens to.
   */
  readonly events?: BridgeEvents | undefined;
  /**
   * Where the API credentials came from (describeCredentialSources), for the lines a refusal logs: `run` knows the
   * file and the environment. @default both keys and both variables named
   */
  readonly credentialSources?: string | undefined;
  /** The clock game consoles are paced on (AdapterContext.paceClock): tests only. @default performance.now() */
  readonly paceClock?: Clock | undefined;
}

/** One configured adapter as the running sidecar has it: for /readyz, metrics and the startup line. */
export interface RunningAdapter {
  /** The GSA container name of its server. */
  readonly server: string;
  /** Its stable id (configured, or derived from its endpoint, e.g. `<server>-<type>-<port>`). */
  readonly id: string;
  readonly type: string;
  /** The options it runs with (defaults applied; a port override applied). */
  readonly options: AdapterOptions;
  /** Undefined when its type skipped it (rcon in this version): it is configured but does not run. */
  readonly adapter: Adapter | undefined;
}

/** What a successful reconfigure changed, adapters named `<server>/<id>`. */
export interface ReconfigureReport {
  readonly result: 'success';
  readonly started: readonly string[];
  readonly stopped: readonly string[];
  readonly restarted: readonly string[];
  readonly unchanged: readonly string[];
  /**
   * Settings outside the adapters that this reload changed and applied in place, by path (`mute.defaultAlert`,
   * `servers[0].allowActions`, `log.level`, `api.timeoutMs`); empty when none did.
   */
  readonly settingsChanged: readonly string[];
  /** A new service client (the api section changed): its rate-limit budget starts afresh. */
  readonly clientReplaced: boolean;
  /** The mute caches were emptied (the API key or the service changed). */
  readonly muteCacheCleared: boolean;
}

export interface ReconfigureOptions {
  /**
   * The logger for what this reload creates (new adapters, a new client): runCommand passes one that scrubs the
   * new config's secrets. Running parts keep theirs; the level of every logger the sidecar has used is set to the
   * new `log.level`. @default the sidecar's current logger
   */
  readonly logger?: Logger | undefined;
}

/** Codes of SidecarReloadError; stable, never reused. */
export type SidecarReloadErrorCode = 'reload_failed' | 'reload_rollback_failed' | 'sidecar_stopped';

/**
 * A reload could not be applied. `reload_failed`: the old config is running again (the message says what failed);
 * `reload_rollback_failed`: going back failed too, and some adapters of the old config are down (named);
 * `sidecar_stopped`: the sidecar was stopping.
 */
export class SidecarReloadError extends Error {
  readonly code: SidecarReloadErrorCode;
  constructor(code: SidecarReloadErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SidecarReloadError';
    this.code = code;
  }
}

export interface Sidecar {
  /** The current service client; a reload that changes the api section replaces it. */
  readonly client: GsaClient;
  /** What is wrong with the service connection right now (wrong keys, unknown server, outage): for /readyz. */
  readonly health: ServiceHealth;
  /** The clients and what is known of their keys (refused, identity, budget state), for the operations side to read. */
  readonly service: ServiceConnection;
  readonly outbox: ReviewOutbox;
  /** Current bridges by server name. */
  readonly bridges: ReadonlyMap<string, ServerBridge>;
  /** The adapters running now (skipped ones left out). */
  readonly adapters: readonly Adapter[];
  /** Every configured adapter, in config order, with its server, id and (when it runs) the adapter and its `ready`. */
  listAdapters(): readonly RunningAdapter[];
  /** The config in force (after reloads). */
  readonly config: BridgeConfig;
  /**
   * Applies `next` by difference, keyed by server name and adapter id: starts new adapters, stops removed ones,
   * restarts changed ones, leaves unchanged ones running (their connections stay open). Keeps the service client
   * unless the api section changed, the mute caches unless the API key changed, and the cooldowns. Server, mute and
   * review settings apply in place. `reviews.dataDir` cannot change here (runCommand keeps the old one).
   * Rejects with SidecarReloadError after rolling back; calls are serialized.
   */
  reconfigure(next: BridgeConfig, options?: ReconfigureOptions): Promise<ReconfigureReport>;
  /** What the client and the bridges publish; src/ops subscribes. */
  readonly events: BridgeEvents;
  /**
   * Whether the API budget is shared with other sidecars right now: true while api.rateLimit.shared's Redis decides,
   * false on the local fallback and without `shared` (gsa_bridge_budget_shared).
   */
  readonly budgetShared: boolean;
  /** Seconds the Retry-After hold in force on the key still runs, this sidecar's or shared (gsa_bridge_budget_hold_seconds); 0 when none. */
  readonly budgetHoldSeconds: number;
  /** Stops taking events, answers what is in flight, persists the outbox, closes everything. Idempotent. */
  stop(): Promise<void>;
}

// ---- Mapping the config onto the core's options -------------------------------------------------------------------

function serverOptionsOf(config: BridgeConfig, server: ServerConfig): ServerOptions {
  return {
    name: server.name,
    id: server.id,
    allowActions: server.allowActions,
    lookupIds: server.lookupIds,
    allowRequests: server.allowRequests,
    // The top level's access, each key the server gives overriding it.
    access: {
      enforce: server.access?.enforce ?? config.access.enforce,
      onUnknown: server.access?.onUnknown ?? config.access.onUnknown,
      cacheMs: server.access?.cacheMs ?? config.access.cacheMs,
    },
  };
}

function muteOptionsOf(config: BridgeConfig): MuteOptions {
  const { mutedTtlMs, unmutedTtlMs, decisionTimeoutMs, onUnknown, defaultAlert, gatedChannels } = config.mute;
  return { mutedTtlMs, unmutedTtlMs, decisionTimeoutMs, onUnknown, defaultAlert, gatedChannels };
}

function reviewOptionsOf(config: BridgeConfig): ReviewOptions {
  const { minStars, maxStars, maxCommentLength, cooldownMs } = config.reviews;
  return { minStars, maxStars, maxCommentLength, cooldownMs };
}

function bridgeSettingsOf(config: BridgeConfig, server: ServerConfig): ServerBridgeSettings {
  return { server: serverOptionsOf(config, server), mute: muteOptionsOf(config), reviews: reviewOptionsOf(config), modApi: { orderCooldownMs: config.shop.orderCooldownMs } };
}

/** The shop chat commands of a server: undefined unless its allowRequests names `shop`. */
function shopCommandOf(config: BridgeConfig, serverName: string): ChatShopCommand | undefined {
  const server = config.servers.find((candidate) => candidate.name === serverName);
  if (server?.allowRequests.includes('shop') !== true) return undefined;
  return { list: config.shop.chatCommand, buy: config.shop.buyCommand, maxListed: config.shop.maxListed };
}

// ---- The assembly -------------------------------------------------------------------------------------------------

/**
 * What the sidecar runs with now: the config and the logger of the last reload that held (the first ones until
 * then). The one thing here that changes over time; every part below is built once and reads it where it must.
 */
class InForce {
  #config: BridgeConfig;
  #logger: Logger;
  /** Every root logger the sidecar has used: a level change reaches the children of each. */
  readonly #loggers: Set<Logger>;

  constructor(config: BridgeConfig, logger: Logger) {
    this.#config = config;
    this.#logger = logger;
    this.#loggers = new Set([logger]);
  }

  get config(): BridgeConfig {
    return this.#config;
  }

  get logger(): Logger {
    return this.#logger;
  }

  /** A reload held: its config and logger are in force, and every logger used so far takes its level. */
  commit(config: BridgeConfig, logger: Logger): void {
    this.#loggers.add(logger);
    this.#logger = logger;
    for (const root of this.#loggers) setLoggerLevel(root, config.log.level);
    this.#config = config;
  }
}

/** The parts startSidecar builds once; a reload applies its plan to them, by difference. */
interface SidecarParts {
  readonly events: BridgeEvents;
  readonly service: ServiceConnection;
  readonly outbox: ReviewOutbox;
  /** Reports waiting for GSA, and the record of shop orders and token spends (GSA's Mod API v2). */
  readonly ledger: SidecarLedger;
  /** The running bridges by server name: a reload adds and removes servers here. */
  readonly bridges: Map<string, ServerBridge>;
  readonly slots: AdapterSlots;
  readonly filter: ChatFilterSlot;
  readonly ports: CorePorts;
  readonly portOverrides: ReadonlyMap<string, number> | undefined;
}

function newBridge(parts: SidecarParts, config: BridgeConfig, server: ServerConfig, logger: Logger): ServerBridge {
  const { service, outbox, ledger, events, filter, ports } = parts;
  return new ServerBridge({
    ...bridgeSettingsOf(config, server),
    client: service.client,
    outbox,
    reports: ledger.reports,
    money: ledger.money,
    logger,
    events,
    filter: filter.active,
    mojangLookup: ports.mojangMuteCheck,
    systemApi: ports.systemApi,
  });
}

/**
 * The assembly. Each part registers its close on `closes` the moment it has started, so a start that fails part way
 * closes what had started, and stop() closes everything, both in reverse: read bottom-up, the registrations below
 * are the order of a shutdown.
 */
export async function startSidecar(config: BridgeConfig, options: SidecarOptions): Promise<Sidecar> {
  const { logger, portOverrides } = options;
  const events = options.events ?? new BridgeEvents();
  const inForce = new InForce(config, logger);
  const closeFailures: DisposalLogger = {
    error: (object, message) => {
      inForce.logger.error(object, message);
    },
  };
  const closes = new DisposalStack({ logger: closeFailures });
  return closes.unwindOnFailure(async () => {
    const service = new ServiceConnection(config, { logger, events, credentialSources: options.credentialSources });
    const bridges = new Map<string, ServerBridge>();
    // What the core reaches the app through, built here and nowhere else (src/app/corePorts.ts).
    const ports = corePorts(service, bridges);
    // One chat filter for the process (strikes count across servers). Closed after the client: the mute steps the
    // closed client refused are recorded by then.
    const filter = new ChatFilterSlot({ events, muting: ports.playerMuting, muteApplier: ports.muteApplier });
    closes.defer('chat filter', () => filter.close());
    // The client closes first: it refuses what still waits for the budget at once (reviews stay pending on disk), so
    // what sends through it drains while it closes, waiting only for what is really on the wire.
    const senders = new DisposalStack({ logger: closeFailures });
    closes.defer('service connection', () => service.close(() => senders.close()));
    const credentialSources = options.credentialSources ?? 'api.clientId / api.clientSecret';
    const outbox = await openSidecarOutbox(config, { logger, events, credentialSources, service, bridges });
    senders.defer('review outbox', () => outbox.close());
    const ledger = await openSidecarLedger(config, { logger, service, bridges });
    senders.defer('report outbox', () => ledger.reports.close());
    senders.defer('money ledger', () => ledger.money.close());
    await filter.follow(config, logger);
    const slots = new AdapterSlots({
      bridgeOf: (server) => bridges.get(server),
      context: {
        sidecar: `${PRODUCT_NAME}/${VERSION}`,
        // Read at each chat line: a reload's new command word or star range applies without restarting the adapter.
        reviewCommand: () => ({ command: inForce.config.reviews.chatCommand, minStars: inForce.config.reviews.minStars, maxStars: inForce.config.reviews.maxStars }),
        gatedChannels: () => inForce.config.mute.gatedChannels,
        paceClock: options.paceClock,
      },
      // Read at each chat line: a reload that allows or forbids `shop`, or renames the words, applies at once.
      shopCommandOf: (name) => shopCommandOf(inForce.config, name),
    });
    closes.defer('adapters', () => slots.stopAll());
    // The bridges stop taking events before the adapters go.
    closes.defer('bridges', () => {
      for (const bridge of bridges.values()) bridge.close();
    });
    const parts: SidecarParts = { events, service, outbox, ledger, bridges, slots, filter, ports, portOverrides };
    for (const server of config.servers) bridges.set(server.name, newBridge(parts, config, server, logger));
    await slots.build(plannedAdapters(config, portOverrides), logger);
    await slots.start();
    outbox.start();
    ledger.reports.start();
    return new RunningSidecar(parts, inForce, closes);
  });
}

// ---- The running sidecar: reloads and the public view -------------------------------------------------------------

class RunningSidecar implements Sidecar {
  readonly events: BridgeEvents;
  readonly service: ServiceConnection;
  readonly health: ServiceHealth;
  readonly outbox: ReviewOutbox;
  readonly bridges: ReadonlyMap<string, ServerBridge>;
  readonly #parts: SidecarParts;
  readonly #inForce: InForce;
  readonly #closes: DisposalStack;
  /**
   * The tail of the reloads: one at a time, so a second SIGHUP waits for the first to finish, then compares against
   * its result. It changes with every reload asked for.
   */
  #reloading: Promise<unknown> = Promise.resolve();

  constructor(parts: SidecarParts, inForce: InForce, closes: DisposalStack) {
    this.#parts = parts;
    this.#inForce = inForce;
    this.#closes = closes;
    this.events = parts.events;
    this.service = parts.service;
    this.health = parts.service.health;
    this.outbox = parts.outbox;
    this.bridges = parts.bridges;
    // Closed first: a reload under way finishes (it is quick: binds and closes), so nothing it starts is left running.
    closes.defer('reload under way', () => this.#reloading);
  }

  get client(): GsaClient {
    return this.#parts.service.client;
  }

  get adapters(): readonly Adapter[] {
    return this.#parts.slots.adapters;
  }

  get config(): BridgeConfig {
    return this.#inForce.config;
  }

  get budgetShared(): boolean {
    return this.#parts.service.budgetShared;
  }

  get budgetHoldSeconds(): number {
    return this.#parts.service.client.heldForMs / 1000;
  }

  listAdapters(): readonly RunningAdapter[] {
    return this.#parts.slots.slots.map(({ server, id, type, options, adapter }) => ({ server, id, type, options, adapter }));
  }

  reconfigure(next: BridgeConfig, options: ReconfigureOptions = {}): Promise<ReconfigureReport> {
    const run = this.#reloading.then(() => this.#apply(next, options));
    this.#reloading = run.catch(() => undefined);
    return run;
  }

  stop(): Promise<void> {
    return this.#closes.close();
  }

  async #apply(next: BridgeConfig, options: ReconfigureOptions): Promise<ReconfigureReport> {
    if (this.#closes.closing) throw new SidecarReloadError('sidecar_stopped', 'the sidecar is stopping; the new config was not applied');
    const { config: current, logger } = this.#inForce;
    const { slots, filter, bridges, service } = this.#parts;
    const nextLogger = options.logger ?? logger;
    const plan = planReload({ config: current, adapters: slots.slots }, { config: next, adapters: plannedAdapters(next, this.#parts.portOverrides) });

    // The filter first, so new bridges start with it (its settings apply to every bridge at once).
    await filter.follow(next, nextLogger);
    // New servers get their bridge first (adapters start against it); it joins `bridges` once the reload holds.
    const newBridges = new Map<string, ServerBridge>();
    for (const server of next.servers) {
      if (plan.serversAdded.includes(server.name)) newBridges.set(server.name, newBridge(this.#parts, next, server, nextLogger));
    }
    const applied = await slots.apply(plan, nextLogger, (server) => newBridges.get(server) ?? bridges.get(server), logger);
    if (!applied.ok) {
      for (const bridge of newBridges.values()) bridge.close();
      // The old config runs again: so do its filter settings.
      await filter.follow(current, logger);
      const { error, down } = applied;
      const reason = error instanceof Error ? error.message : String(error);
      if (down.length > 0) {
        throw new SidecarReloadError('reload_rollback_failed', `the new config could not be applied (${reason}), and going back failed for ${down.join(', ')}`, { cause: error });
      }
      throw new SidecarReloadError('reload_failed', `the new config could not be applied (${reason}); the old config is running again`, { cause: error });
    }

    // The adapters hold: commit the rest.
    for (const name of plan.serversRemoved) {
      bridges.get(name)?.close();
      bridges.delete(name);
    }
    for (const [name, bridge] of newBridges) bridges.set(name, bridge);
    for (const server of next.servers) bridges.get(server.name)?.reconfigure(bridgeSettingsOf(next, server));
    for (const bridge of bridges.values()) bridge.useFilter(filter.active);
    const client = service.reconfigure(next, plan.service, nextLogger);
    // A new System API key alone also empties the caches (a Minecraft player's answer came from it).
    if (client !== undefined || plan.service.clearMuteCache) for (const bridge of bridges.values()) bridge.useClient(service.client, plan.service.clearMuteCache);
    const settingsChanged = changedSettings(current, next);
    this.#inForce.commit(next, nextLogger);

    const names = (list: readonly { key: string }[]): string[] => list.map((slot) => slot.key);
    return {
      result: 'success',
      started: names(plan.added),
      stopped: names(plan.removed),
      restarted: names(plan.changed),
      unchanged: names(plan.unchanged),
      settingsChanged,
      clientReplaced: plan.service.replaceClient,
      muteCacheCleared: plan.service.clearMuteCache,
    };
  }
}
