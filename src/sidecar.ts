// Assembles the running sidecar from a validated config: one service client for the API key, one durable
// review outbox, one bridge per game server, and that server's adapters; and takes it all down in order.
// This is the composition root: the only place where the bridge and the adapters meet.

import type { Logger } from 'pino';
import { WebSocketAdapter } from '../adapters/websocket/websocketAdapter.js';
import { serviceClientOptions, type AdapterConfig, type BridgeConfig } from './config/index.js';
import { GsaClient, reviewConcurrency } from './gsa/index.js';
import type { Adapter } from './bridge/port.js';
import { ReviewOutbox } from './bridge/reviewOutbox.js';
import { BridgeEvents } from './bridge/events.js';
import { ServerBridge } from './bridge/serverBridge.js';
import { QuietCollector } from './ops/quietCollector.js';
import { ServiceHealth } from './ops/serviceHealth.js';
import { PRODUCT_NAME, VERSION } from './version.js';

export interface SidecarOptions {
  readonly logger: Logger;
  /** Replaces listener ports by config path (e.g. 'servers[0].adapters[0]' → 0 for an ephemeral port): demo and tests. */
  readonly portOverrides?: ReadonlyMap<string, number> | undefined;
  /**
   * Where the client and the bridges publish what happens (requests, verdicts, cache hits, outbox changes). The
   * long-lived `run` passes its own, so metrics keep their subscription when a reload rebuilds the sidecar;
   * default a new emitter nobody listens to.
   */
  readonly events?: BridgeEvents | undefined;
}

export interface Sidecar {
  readonly client: GsaClient;
  /** What is wrong with the service connection right now (wrong keys, unknown server, outage): for /readyz. */
  readonly health: ServiceHealth;
  readonly outbox: ReviewOutbox;
  readonly bridges: ReadonlyMap<string, ServerBridge>;
  readonly adapters: readonly Adapter[];
  /** Each adapter with the server it serves: for readiness and the adapter gauge. */
  readonly servedAdapters: readonly { readonly server: string; readonly adapter: Adapter }[];
  /** What the client and the bridges publish; src/ops subscribes. */
  readonly events: BridgeEvents;
  /** Stops taking events, answers what is in flight, persists the outbox, closes everything. Idempotent. */
  stop(): Promise<void>;
}

function createAdapter(adapter: AdapterConfig, configPath: string, serverName: string, options: SidecarOptions): Adapter | undefined {
  switch (adapter.type) {
    case 'websocket': {
      const port = options.portOverrides?.get(configPath) ?? adapter.port;
      return new WebSocketAdapter({
        config: { ...adapter, port },
        serverName,
        configPath,
        sidecar: `${PRODUCT_NAME}/${VERSION}`,
        logger: options.logger.child({ adapter: configPath }),
      });
    }
    case 'rcon':
      options.logger.warn({ adapter: configPath }, `${configPath}: rcon adapters are not available in this version yet; skipped`);
      return undefined;
  }
}

export async function startSidecar(config: BridgeConfig, options: SidecarOptions): Promise<Sidecar> {
  const { logger } = options;
  const events = options.events ?? new BridgeEvents();
  const health = new ServiceHealth({
    logger: logger.child({ component: 'gsa' }),
    servers: config.servers.map((server, index) => ({ name: server.name, id: server.id, configPath: `servers[${index}]` })),
  });
  // Gives a burst's garbage back once requests stop (see quietCollector.ts); it counts the client's requests.
  const quiet = new QuietCollector();
  const client = new GsaClient({
    ...serviceClientOptions(config),
    logger: logger.child({ component: 'gsa' }),
    onRequest: (event) => {
      health.observe(event);
      quiet.noteRequest();
      events.emit('request', event);
    },
  });
  const bridges = new Map<string, ServerBridge>();
  const outbox = await ReviewOutbox.open({
    dataDir: config.reviews.dataDir,
    send: async (review) => {
      await client.submitReview(review.server, review.player, review.stars, review.comment);
    },
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
      else bridge.deliverReviewResult(review.origin, outcome);
    },
    logger: logger.child({ component: 'outbox' }),
    // Enough reviews waiting in the client to use the review share of every window under full chat load (api-budget.md).
    concurrency: reviewConcurrency(config.api.rateLimit.requests),
    // Finished reviews stay in the journal while they count for their player's cooldown, so it survives a restart.
    retainAcceptedMs: config.reviews.cooldownMs,
  });

  const attached: { adapter: Adapter; bridge: ServerBridge }[] = [];
  config.servers.forEach((server, index) => {
    const configPath = `servers[${index}]`;
    const bridge = new ServerBridge({ server, configPath, mute: config.mute, reviews: config.reviews, client, outbox, logger, events });
    bridges.set(server.name, bridge);
    server.adapters.forEach((adapterConfig, adapterIndex) => {
      const adapter = createAdapter(adapterConfig, `${configPath}.adapters[${adapterIndex}]`, server.name, options);
      if (adapter === undefined) return;
      bridge.attach(adapter);
      attached.push({ adapter, bridge });
    });
  });

  const adapters = attached.map(({ adapter }) => adapter);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      quiet.close();
      for (const bridge of bridges.values()) bridge.close();
      await Promise.allSettled(adapters.map((adapter) => adapter.stop()));
      // The client first: it refuses the reviews still waiting for the budget at once (they stay pending on disk),
      // so the outbox waits only for sends really on the wire instead of its whole grace period.
      const clientClosed = client.close();
      await outbox.close();
      await clientClosed;
      health.close();
    })());

  try {
    for (const { adapter, bridge } of attached) await adapter.start(bridge);
  } catch (error) {
    await stop();
    throw error;
  }
  outbox.start();
  const servedAdapters = attached.map(({ adapter, bridge }) => ({ server: bridge.serverName, adapter }));
  return { client, health, outbox, bridges, adapters, servedAdapters, events, stop };
}
