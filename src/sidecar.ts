// Assembles the running sidecar from a validated config: one service client for the API key, one durable
// review outbox, one bridge per game server, and that server's adapters (built through the adapter registry);
// reloads it by difference (reconfigure), and takes it all down in order.
// This is the composition root: the only place where the config file, the bridge and the adapters meet, so the
// only place that maps config keys onto the core's options. It never switches on an adapter type.

import type { Logger } from 'pino';
import { adapterIdOf, createAdapter, type AdapterOptions } from '../adapters/index.js';
import { changedSettings, serviceClientOptions, sharedApiKeyOptions, type BridgeConfig, type ServerConfig } from './config/index.js';
import { GsaClient, LocalWebhookSpacing, reviewConcurrency, SharedApiKey, type GsaClientOptions } from './gsa/index.js';
import type { ReviewOptions, MuteOptions, ServerOptions } from './bridge/options.js';
import type { Adapter } from './bridge/port.js';
import { ReviewOutbox } from './reviews/reviewOutbox.js';
import { BridgeEvents } from './bridge/events.js';
import { ServerBridge, type ServerBridgeSettings } from './bridge/serverBridge.js';
import { setLoggerLevel } from './log/logger.js';
import { ServiceHealth, type WatchedServer } from './ops/serviceHealth.js';
import { PRODUCT_NAME, VERSION } from './version.js';

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
}

/** One configured adapter as the running sidecar has it: for /readyz, metrics and the startup line. */
export interface RunningAdapter {
  /** The GSA container name of its server. */
  readonly server: string;
  /** Its stable id (configured, or `<server>-<type>-<port>`). */
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
  return { name: server.name, id: server.id, allowActions: server.allowActions };
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

/** Where each server sits in the file: only for ServiceHealth's messages, which name the key a host must fix. */
function watchedServersOf(config: BridgeConfig): WatchedServer[] {
  return config.servers.map((server, index) => ({ name: server.name, id: server.id, configPath: `servers[${index}]` }));
}

/** The API key and the service it is for: when these change, what the cache learned no longer holds. */
function apiKeyOf(options: GsaClientOptions): string {
  return JSON.stringify([options.baseUrl, options.flavor, options.clientId, options.clientSecret]);
}

/** A comparable form of plain options: keys sorted, so the file's key order does not count as a change. */
function fingerprint(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

interface AdapterSlot extends RunningAdapter {
  readonly key: string;
  readonly fingerprint: string;
}

function slotKey(server: string, id: string): string {
  return `${server}/${id}`;
}

// ---- The sidecar --------------------------------------------------------------------------------------------------

export async function startSidecar(config: BridgeConfig, options: SidecarOptions): Promise<Sidecar> {
  let logger = options.logger;
  const events = options.events ?? new BridgeEvents();
  /** Every root logger the sidecar has used: a level change reaches the children of each. */
  const loggers = new Set<Logger>([logger]);
  const credentialSources = options.credentialSources ?? 'api.clientId / api.clientSecret';
  const health = new ServiceHealth({ logger: logger.child({ component: 'gsa' }), servers: watchedServersOf(config), credentialSources: options.credentialSources });
  // One for the life of the sidecar: a client a reload replaces must not forget when a webhook last left.
  const webhookSpacing = new LocalWebhookSpacing();
  /** The budget and webhook spacing shared with other sidecars on the key (api.rateLimit.shared), kept across reloads that keep its settings. */
  const openSharedKey = (next: BridgeConfig, keyLogger: Logger): SharedApiKey | undefined => {
    const settings = sharedApiKeyOptions(next);
    return settings === undefined ? undefined : new SharedApiKey({ ...settings, logger: keyLogger.child({ component: 'budget' }) });
  };
  let sharedKey = openSharedKey(config, logger);
  let sharedKeySettings = fingerprint(sharedApiKeyOptions(config));
  const newClient = (clientOptions: GsaClientOptions, clientLogger: Logger): GsaClient =>
    new GsaClient({
      ...clientOptions,
      budget: sharedKey?.budget,
      webhookSpacing: sharedKey?.webhookSpacing ?? webhookSpacing,
      logger: clientLogger.child({ component: 'gsa' }),
      onRequest: (event) => {
        health.observe(event);
        events.emit('request', event);
      },
    });
  let clientOptions = serviceClientOptions(config);
  let client = newClient(clientOptions, logger);
  const bridges = new Map<string, ServerBridge>();
  const outbox = await ReviewOutbox.open({
    dataDir: config.reviews.dataDir,
    // Read at each send: a reload may have replaced the client. GSA's receipt goes into the delivered history.
    send: (review) => client.submitReview(review.server, review.player, review.stars, review.comment),
    onResult: (review, outcome) => {
      // Published before routing, so a listener sees the fate even when no bridge takes the result any more.
      events.emit('review', {
        server: review.server,
        review: review.id,
        ...(outcome.ok ? { result: 'delivered' } : { result: outcome.error.code === 'unconfirmed' ? 'unconfirmed' : 'refused', code: outcome.error.code }),
      });
      events.emit('outbox', { pending: outbox.pending });
      const bridge = bridges.get(review.server);
      if (bridge === undefined) logger.warn({ review: review.id, server: review.server }, 'review result for a server no longer in the config');
      else bridge.deliverReviewResult(review.origin, outcome, review.player);
    },
    onResend: (review) => {
      events.emit('reviewResent', { server: review.server, review: review.id });
    },
    logger: logger.child({ component: 'outbox' }),
    // Enough reviews waiting in the client to use the review share of every window under full chat load (api-budget.md).
    concurrency: reviewConcurrency(config.api.rateLimit.requests),
    // Finished reviews stay in the journal while they count for their player's cooldown, so it survives a restart.
    retainAcceptedMs: config.reviews.cooldownMs,
    // The host fixes these in the config file, so the log names its keys.
    describeHostFix: (error, server) =>
      error.code === 'unauthorized'
        ? `GSA refused the API credentials: check ${credentialSources} (and that the server is bound to these keys)`
        : `GSA does not know server ${server}: check servers[].name (the GSA container name) and api.baseUrl`,
  });

  const newBridge = (next: BridgeConfig, server: ServerConfig, bridgeLogger: Logger): ServerBridge =>
    new ServerBridge({ ...bridgeSettingsOf(next, server), client, outbox, logger: bridgeLogger, events });

  /** The slots `next` asks for, in config order, not built yet. */
  const plannedSlots = (next: BridgeConfig): Omit<AdapterSlot, 'adapter'>[] =>
    next.servers.flatMap((server) =>
      server.adapters.map((configured) => {
        const id = adapterIdOf(server.name, configured);
        const port = options.portOverrides?.get(id);
        const adapterOptions: AdapterOptions = port === undefined ? configured : { ...configured, port };
        return { key: slotKey(server.name, id), server: server.name, id, type: adapterOptions.type, options: adapterOptions, fingerprint: fingerprint(adapterOptions) };
      }),
    );

  /** Builds a slot's adapter through the registry; undefined when its type skips it. */
  const build = (slot: Omit<AdapterSlot, 'adapter'>, slotLogger: Logger): AdapterSlot => ({
    ...slot,
    adapter: createAdapter(slot.options, {
      serverName: slot.server,
      id: slot.id,
      sidecar: `${PRODUCT_NAME}/${VERSION}`,
      logger: slotLogger.child({ server: slot.server, adapter: slot.id }),
      // Read at each chat line: a reload's new command word or star range applies without restarting the adapter.
      reviewCommand: () => ({ command: current.reviews.chatCommand, minStars: current.reviews.minStars, maxStars: current.reviews.maxStars }),
      gatedChannels: () => current.mute.gatedChannels,
    }),
  });

  /** Starts a built slot against its bridge; on failure the adapter is stopped and detached again. */
  const startSlot = async (slot: AdapterSlot, bridge: ServerBridge): Promise<void> => {
    if (slot.adapter === undefined) return;
    // The adapter starts with its own view of the bridge, which names it as the source of its lines' mute lookups.
    const sink = bridge.attach(slot.adapter);
    try {
      await slot.adapter.start(sink);
    } catch (error) {
      bridge.detach(slot.adapter);
      await slot.adapter.stop().catch(() => undefined);
      throw error;
    }
  };

  const stopSlot = async (slot: AdapterSlot): Promise<void> => {
    if (slot.adapter === undefined) return;
    bridges.get(slot.server)?.detach(slot.adapter);
    await slot.adapter.stop();
  };

  let current = config;
  let slots: AdapterSlot[] = [];
  for (const server of config.servers) bridges.set(server.name, newBridge(config, server, logger));
  slots = plannedSlots(config).map((slot) => build(slot, logger));

  // One reload at a time: a second SIGHUP waits for the first to finish, then compares against its result.
  let reloading: Promise<unknown> = Promise.resolve();
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      // A reload under way finishes first (it is quick: binds and closes), so nothing it starts is left running.
      await reloading;
      for (const bridge of bridges.values()) bridge.close();
      await Promise.allSettled(slots.map(async (slot) => slot.adapter?.stop()));
      // The client first: it refuses the reviews still waiting for the budget at once (they stay pending on disk),
      // so the outbox waits only for sends really on the wire instead of its whole grace period.
      const clientClosed = client.close();
      await outbox.close();
      await clientClosed;
      await sharedKey?.close();
      health.close();
    })());

  try {
    for (const slot of slots) {
      const bridge = bridges.get(slot.server);
      if (bridge !== undefined) await startSlot(slot, bridge);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  outbox.start();

  const apply = async (next: BridgeConfig, reloadOptions: ReconfigureOptions): Promise<ReconfigureReport> => {
    if (stopping !== undefined) throw new SidecarReloadError('sidecar_stopped', 'the sidecar is stopping; the new config was not applied');
    const nextLogger = reloadOptions.logger ?? logger;
    const planned = plannedSlots(next);
    const before = new Map(slots.map((slot) => [slot.key, slot]));
    const plannedKeys = new Set(planned.map((slot) => slot.key));
    const removed = slots.filter((slot) => !plannedKeys.has(slot.key));
    const changed = planned.filter((slot) => {
      const old = before.get(slot.key);
      return old !== undefined && old.fingerprint !== slot.fingerprint;
    });
    const added = planned.filter((slot) => !before.has(slot.key));
    const toStop = [...removed, ...changed.map((slot) => before.get(slot.key)).filter((slot): slot is AdapterSlot => slot !== undefined)];

    // New servers get their bridge first (adapters start against it); it joins `bridges` once the reload holds.
    const nextNames = new Set(next.servers.map((server) => server.name));
    const newBridges = new Map<string, ServerBridge>();
    for (const server of next.servers) {
      if (!bridges.has(server.name)) newBridges.set(server.name, newBridge(next, server, nextLogger));
    }
    const bridgeFor = (server: string): ServerBridge | undefined => newBridges.get(server) ?? bridges.get(server);

    // Stopped before the new ones start: a changed adapter usually keeps its port.
    await Promise.allSettled(toStop.map(stopSlot));
    const started: AdapterSlot[] = [];
    try {
      for (const slot of [...changed, ...added]) {
        const built = build(slot, nextLogger);
        const bridge = bridgeFor(slot.server);
        if (bridge === undefined) continue;
        await startSlot(built, bridge);
        started.push(built);
      }
    } catch (error) {
      // Back to the old config: stop what this reload started, start again what it stopped (fresh instances).
      await Promise.allSettled(started.map(stopSlot));
      for (const bridge of newBridges.values()) bridge.close();
      const down: string[] = [];
      const restarted = new Map<string, AdapterSlot>();
      for (const old of toStop) {
        const bridge = bridges.get(old.server);
        if (bridge === undefined) continue;
        const rebuilt = build(old, logger);
        // Kept even when it fails to start: it then reads as not ready, which /readyz reports.
        restarted.set(old.key, rebuilt);
        try {
          await startSlot(rebuilt, bridge);
        } catch {
          down.push(old.key);
        }
      }
      slots = slots.map((slot) => restarted.get(slot.key) ?? slot);
      const reason = error instanceof Error ? error.message : String(error);
      if (down.length > 0) {
        throw new SidecarReloadError('reload_rollback_failed', `the new config could not be applied (${reason}), and going back failed for ${down.join(', ')}`, { cause: error });
      }
      throw new SidecarReloadError('reload_failed', `the new config could not be applied (${reason}); the old config is running again`, { cause: error });
    }

    // The adapters hold: commit the rest.
    const startedByKey = new Map(started.map((slot) => [slot.key, slot]));
    slots = planned.map((slot) => startedByKey.get(slot.key) ?? before.get(slot.key) ?? { ...slot, adapter: undefined });
    for (const [name, bridge] of bridges) {
      if (nextNames.has(name)) continue;
      bridge.close();
      bridges.delete(name);
    }
    for (const [name, bridge] of newBridges) bridges.set(name, bridge);
    for (const server of next.servers) bridges.get(server.name)?.reconfigure(bridgeSettingsOf(next, server));

    const nextClientOptions = serviceClientOptions(next);
    const clientReplaced = fingerprint(nextClientOptions) !== fingerprint(clientOptions);
    const muteCacheCleared = apiKeyOf(nextClientOptions) !== apiKeyOf(clientOptions);
    if (clientReplaced) {
      const old = client;
      // The shared budget goes with the settings it shares (the key, the window, the Redis): kept unless they changed.
      const nextSharedKeySettings = fingerprint(sharedApiKeyOptions(next));
      let oldSharedKey: SharedApiKey | undefined;
      if (nextSharedKeySettings !== sharedKeySettings) {
        oldSharedKey = sharedKey;
        sharedKey = openSharedKey(next, nextLogger);
        sharedKeySettings = nextSharedKeySettings;
      }
      client = newClient(nextClientOptions, nextLogger);
      clientOptions = nextClientOptions;
      for (const bridge of bridges.values()) bridge.useClient(client, muteCacheCleared);
      health.forgetProblems();
      // Reviews the old client still held for its budget are refused by close() and stay pending on disk.
      old
        .close()
        .then(() => oldSharedKey?.close())
        .catch((error: unknown) => {
          logger.warn({ err: error }, 'the replaced service client did not close cleanly');
        });
    }
    health.setServers(watchedServersOf(next));
    loggers.add(nextLogger);
    logger = nextLogger;
    for (const root of loggers) setLoggerLevel(root, next.log.level);
    const settingsChanged = changedSettings(current, next);
    current = next;

    const names = (list: readonly { key: string }[]): string[] => list.map((slot) => slot.key);
    const restartedKeys = new Set(changed.map((slot) => slot.key));
    return {
      result: 'success',
      started: names(added),
      stopped: names(removed),
      restarted: names(changed),
      unchanged: names(planned.filter((slot) => before.has(slot.key) && !restartedKeys.has(slot.key))),
      settingsChanged,
      clientReplaced,
      muteCacheCleared,
    };
  };

  const reconfigure = (next: BridgeConfig, reloadOptions: ReconfigureOptions = {}): Promise<ReconfigureReport> => {
    const run = reloading.then(() => apply(next, reloadOptions));
    reloading = run.catch(() => undefined);
    return run;
  };

  return {
    get client() {
      return client;
    },
    health,
    outbox,
    bridges,
    get adapters() {
      return slots.flatMap((slot) => (slot.adapter === undefined ? [] : [slot.adapter]));
    },
    get config() {
      return current;
    },
    get budgetShared() {
      return sharedKey?.shared ?? false;
    },
    get budgetHoldSeconds() {
      return client.heldForMs / 1000;
    },
    events,
    listAdapters: () => slots.map(({ server, id, type, options: adapterOptions, adapter }) => ({ server, id, type, options: adapterOptions, adapter })),
    reconfigure,
    stop,
  };
}
