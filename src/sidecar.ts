// Assembles the running sidecar from a validated config: the service connection (client, shared key, health),
// one durable review outbox, one bridge per game server, and the adapter slots (built through the adapter
// registry); reloads it by difference (reconfigure: plan, then apply), and takes it all down in order.
// This is the composition root: the only place where the config file, the bridge and the adapters meet, so the
// only place that maps config keys onto the core's options. It never switches on an adapter type, and it holds no
// logic of a reload's own: what changed is src/app/reloadPlan.ts, starting and rolling back src/app/adapterSlots.ts,
// the client and its budget src/app/serviceConnection.ts.

import type { Logger } from 'pino';
import type { Clock } from './time/clock.js';
import type { AdapterOptions } from '../adapters/index.js';
import { changedSettings, type BridgeConfig, type ServerConfig } from './app/config.js';
import { reviewConcurrency, type GsaClient } from './gsa/index.js';
import type { ReviewOptions, MuteOptions, ServerOptions } from './bridge/options.js';
import type { Adapter } from './bridge/port.js';
import { ReviewOutbox } from './reviews/reviewOutbox.js';
import { BridgeEvents } from './bridge/events.js';
import { ServerBridge, type ServerBridgeSettings } from './bridge/serverBridge.js';
import { DEFAULT_LOOKUP_IDS, reviewIdOf } from './bridge/lookupIds.js';
import { setLoggerLevel } from './log/logger.js';
import type { ServiceHealth } from './ops/serviceHealth.js';
import { PRODUCT_NAME, VERSION } from './version.js';
import { AdapterSlots } from './app/adapterSlots.js';
import { planReload, plannedAdapters } from './app/reloadPlan.js';
import { ServiceConnection } from './app/serviceConnection.js';
import { corePorts } from './app/corePorts.js';
import type { ChatFilter } from './moderation/chatFilter.js';
import { ladderSteps, openChatFilter } from './moderation/openChatFilter.js';

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

function serverOptionsOf(server: ServerConfig): ServerOptions {
  return { name: server.name, id: server.id, allowActions: server.allowActions, lookupIds: server.lookupIds };
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
  return { server: serverOptionsOf(server), mute: muteOptionsOf(config), reviews: reviewOptionsOf(config) };
}

// ---- The sidecar --------------------------------------------------------------------------------------------------

export async function startSidecar(config: BridgeConfig, options: SidecarOptions): Promise<Sidecar> {
  let logger = options.logger;
  let current = config;
  const events = options.events ?? new BridgeEvents();
  /** Every root logger the sidecar has used: a level change reaches the children of each. */
  const loggers = new Set<Logger>([logger]);
  const credentialSources = options.credentialSources ?? 'api.clientId / api.clientSecret';
  const service = new ServiceConnection(config, { logger, events, credentialSources: options.credentialSources });
  const bridges = new Map<string, ServerBridge>();
  // What the core reaches the app through, built here and nowhere else (src/app/corePorts.ts).
  const ports = corePorts(service, bridges);
  const outbox = await openOutbox(config, { logger, events, credentialSources, service, bridges });
  // One chat filter for the process (strikes count across servers); opened on the first config that has words.
  let filter: ChatFilter | undefined;
  /** The filter the config asks for now: the open one reconfigured, or a new one; undefined when the config has none. */
  const filterFor = async (next: BridgeConfig, filterLogger: Logger): Promise<ChatFilter | undefined> => {
    const settings = next.moderation.filter;
    if (settings === undefined || settings.words.length === 0) return undefined;
    if (filter !== undefined) {
      filter.reconfigure({ words: settings.words, ladder: ladderSteps(settings.ladder), dryRun: settings.dryRun, strikeMemoryMs: settings.strikeMemoryMs });
      return filter;
    }
    filter = await openChatFilter({
      dataDir: next.reviews.dataDir,
      words: settings.words,
      ladder: settings.ladder,
      strikeMemoryMs: settings.strikeMemoryMs,
      dryRun: settings.dryRun,
      logger: filterLogger.child({ component: 'moderation' }),
      events,
      muting: ports.playerMuting,
      // GSA took the mute: every server this sidecar gates blocks the player's next line at once.
      muteApplier: ports.muteApplier,
    });
    return filter;
  };
  let activeFilter = await filterFor(config, logger);
  const newBridge = (next: BridgeConfig, server: ServerConfig, bridgeLogger: Logger): ServerBridge =>
    new ServerBridge({
      ...bridgeSettingsOf(next, server),
      client: service.client,
      outbox,
      logger: bridgeLogger,
      events,
      filter: activeFilter,
      mojangLookup: ports.mojangMuteCheck,
      systemApi: ports.systemApi,
    });

  const slots = new AdapterSlots({
    bridgeOf: (server) => bridges.get(server),
    context: {
      sidecar: `${PRODUCT_NAME}/${VERSION}`,
      // Read at each chat line: a reload's new command word or star range applies without restarting the adapter.
      reviewCommand: () => ({ command: current.reviews.chatCommand, minStars: current.reviews.minStars, maxStars: current.reviews.maxStars }),
      gatedChannels: () => current.mute.gatedChannels,
      paceClock: options.paceClock,
    },
  });
  for (const server of config.servers) bridges.set(server.name, newBridge(config, server, logger));
  await slots.build(plannedAdapters(config, options.portOverrides), logger);

  // One reload at a time: a second SIGHUP waits for the first to finish, then compares against its result.
  let reloading: Promise<unknown> = Promise.resolve();
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      // A reload under way finishes first (it is quick: binds and closes), so nothing it starts is left running.
      await reloading;
      for (const bridge of bridges.values()) bridge.close();
      await slots.stopAll();
      // The client first: it refuses the reviews still waiting for the budget at once (they stay pending on disk),
      // so the outbox waits only for sends really on the wire instead of its whole grace period.
      await service.close(() => outbox.close());
      // The filter's strikes and records are on disk (its mutes were refused by the closed client, and recorded).
      await filter?.settled();
      filter?.flushLogSummaries();
    })());

  try {
    await slots.start();
  } catch (error) {
    await stop();
    throw error;
  }
  outbox.start();

  const apply = async (next: BridgeConfig, reloadOptions: ReconfigureOptions): Promise<ReconfigureReport> => {
    if (stopping !== undefined) throw new SidecarReloadError('sidecar_stopped', 'the sidecar is stopping; the new config was not applied');
    const nextLogger = reloadOptions.logger ?? logger;
    const plan = planReload({ config: current, adapters: slots.slots }, { config: next, adapters: plannedAdapters(next, options.portOverrides) });

    // The filter first, so new bridges start with it (its settings apply to every bridge at once).
    activeFilter = await filterFor(next, nextLogger);
    // New servers get their bridge first (adapters start against it); it joins `bridges` once the reload holds.
    const newBridges = new Map<string, ServerBridge>();
    for (const server of next.servers) {
      if (plan.serversAdded.includes(server.name)) newBridges.set(server.name, newBridge(next, server, nextLogger));
    }
    const applied = await slots.apply(plan, nextLogger, (server) => newBridges.get(server) ?? bridges.get(server), logger);
    if (!applied.ok) {
      for (const bridge of newBridges.values()) bridge.close();
      // The old config runs again: so do its filter settings.
      activeFilter = await filterFor(current, logger);
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
    for (const bridge of bridges.values()) bridge.useFilter(activeFilter);
    const client = service.reconfigure(next, plan.service, nextLogger);
    // A new System API key alone also empties the caches (a Minecraft player's answer came from it).
    if (client !== undefined || plan.service.clearMuteCache) for (const bridge of bridges.values()) bridge.useClient(service.client, plan.service.clearMuteCache);
    loggers.add(nextLogger);
    logger = nextLogger;
    for (const root of loggers) setLoggerLevel(root, next.log.level);
    const settingsChanged = changedSettings(current, next);
    current = next;

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
  };

  const reconfigure = (next: BridgeConfig, reloadOptions: ReconfigureOptions = {}): Promise<ReconfigureReport> => {
    const run = reloading.then(() => apply(next, reloadOptions));
    reloading = run.catch(() => undefined);
    return run;
  };

  return {
    get client() {
      return service.client;
    },
    health: service.health,
    service,
    outbox,
    bridges,
    get adapters() {
      return slots.adapters;
    },
    get config() {
      return current;
    },
    get budgetShared() {
      return service.budgetShared;
    },
    get budgetHoldSeconds() {
      return service.client.heldForMs / 1000;
    },
    events,
    listAdapters: () => slots.slots.map(({ server, id, type, options: adapterOptions, adapter }) => ({ server, id, type, options: adapterOptions, adapter })),
    reconfigure,
    stop,
  };
}

/** The durable review outbox, sending through whichever client is current and routing results to the current bridges. */
async function openOutbox(
  config: BridgeConfig,
  parts: { readonly logger: Logger; readonly events: BridgeEvents; readonly credentialSources: string; readonly service: ServiceConnection; readonly bridges: ReadonlyMap<string, ServerBridge> },
): Promise<ReviewOutbox> {
  const { logger, events, credentialSources, service, bridges } = parts;
  // Results arrive only once it is open (start() comes later), so `opened.outbox` is set by then.
  const opened: { outbox?: ReviewOutbox } = {};
  opened.outbox = await ReviewOutbox.open({
    dataDir: config.reviews.dataDir,
    // Read at each send: a reload may have replaced the client. GSA's receipt goes into the delivered history.
    // GSA takes one id: the first its server's lookupIds asks by, so a review reaches the record the mute lookups
    // read (the journal keeps every id the player had).
    send: (review) => {
      const rule = bridges.get(review.server)?.settings.server.lookupIds ?? DEFAULT_LOOKUP_IDS;
      return service.client.submitReview(review.server, reviewIdOf(review.player, rule) ?? review.player, review.stars, review.comment);
    },
    onResult: (review, outcome) => {
      // Published before routing, so a listener sees the fate even when no bridge takes the result any more.
      events.emit('review', {
        server: review.server,
        review: review.id,
        ...(outcome.ok ? { result: 'delivered' } : { result: outcome.error.code === 'unconfirmed' ? 'unconfirmed' : 'refused', code: outcome.error.code }),
      });
      events.emit('outbox', { pending: opened.outbox?.pending ?? 0 });
      const bridge = bridges.get(review.server);
      if (bridge === undefined) logger.warn({ review: review.id, server: review.server }, 'review result for a server no longer in the config');
      else bridge.deliverReviewResult(review.origin, outcome, review.player);
    },
    onResend: (review) => {
      events.emit('reviewResent', { server: review.server, review: review.id });
    },
    onDamaged: (lines) => {
      events.emit('reviewsDamaged', { lines });
    },
    logger: logger.child({ component: 'outbox' }),
    // Enough reviews waiting in the client to use the review share of every window under full chat load (api-budget.md).
    concurrency: reviewConcurrency(config.api.rateLimit.requests),
    // Finished reviews stay in the journal while they count for their player's cooldown, so it survives a restart.
    retainAcceptedMs: config.reviews.cooldownMs,
    // The host fixes these in the config file, so the log names its keys.
    describeHostFix: (error, server) =>
      error.code === 'unauthorized' || error.code === 'credentials_refused'
        ? `GSA refused the API credentials: check ${credentialSources} (and that the server is bound to these keys)`
        : `GSA does not know server ${server}: check servers[].name (the GSA container name) and api.baseUrl`,
  });
  return opened.outbox;
}
