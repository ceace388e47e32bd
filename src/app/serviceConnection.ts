// The sidecar's connection to the service: the client for the API key, the budget shared with other sidecars on that
// key (api.rateLimit.shared), the System API client when api.system has a key (its own budget, shared the same way),
// and the health that watches what both clients hear. A reload whose API settings changed
// replaces the client (and the shared key when its own settings changed) in one step; the health and the local
// webhook spacing live as long as the sidecar. Must never touch the mute caches or the bridges (the assembly hands
// the new client to them) and never wait for the replaced client to close.
import type { Logger } from 'pino';
import type { BridgeEvents } from '../bridge/events.js';
import type { SystemApiAccess } from '../bridge/serverActions.js';
import { serviceClientOptions, sharedApiKeyOptions, sharedSystemApiKeyOptions, systemClientOptions, type BridgeConfig } from './config.js';
import { GsaClient, LocalWebhookSpacing, SharedApiKey, SharedSystemApiKey, SystemApiClient, apiKeyDigest, systemKeyName } from '../gsa/index.js';
import { localSystemCooldowns, type SystemCooldowns } from '../gsa/system/cooldowns.js';
import { ServiceHealth, type ServiceProblem, type WatchedServer } from '../ops/serviceHealth.js';
import { SystemKeyHealth } from './systemKeyHealth.js';
import type { ServicePlan } from './reloadPlan.js';

export interface ServiceConnectionOptions {
  readonly logger: Logger;
  /** Where every request the client makes is published. */
  readonly events: BridgeEvents;
  /** Where the API credentials came from, for the lines a refusal logs. */
  readonly credentialSources?: string | undefined;
}

/** Where each server sits in the file: only for ServiceHealth's messages, which name the key a host must fix. */
function watchedServersOf(config: BridgeConfig): WatchedServer[] {
  return config.servers.map((server, index) => ({ name: server.name, id: server.id, configPath: `servers[${index}]` }));
}

function openSharedKey(config: BridgeConfig, logger: Logger): SharedApiKey | undefined {
  const settings = sharedApiKeyOptions(config);
  return settings === undefined ? undefined : new SharedApiKey({ ...settings, logger: logger.child({ component: 'budget' }) });
}

function openSharedSystemKey(config: BridgeConfig, logger: Logger): SharedSystemApiKey | undefined {
  const settings = sharedSystemApiKeyOptions(config);
  return settings === undefined ? undefined : new SharedSystemApiKey({ ...settings, logger: logger.child({ component: 'system-budget' }) });
}

/** The System API client with what it shares, or none without a key. */
interface SystemConnection {
  readonly client: SystemApiClient;
  readonly shared: SharedSystemApiKey | undefined;
  readonly keyHealth: SystemKeyHealth;
  /** apiKeyDigest of the key's systemKeyName: its name in Redis and in /metrics, never the key. */
  readonly keyDigest: string;
}

/** Which API a key is for, and a non-secret name of it (gsa_bridge_api_key_info{api,key}). */
export interface ApiKeyIdentity {
  readonly api: 'mod' | 'system';
  readonly key: string;
}

export class ServiceConnection implements SystemApiAccess {
  /** What is wrong with the service connection right now, for /readyz: kept across replacements. */
  readonly health: ServiceHealth;
  readonly #events: BridgeEvents;
  readonly #logger: Logger;
  // One for the life of the sidecar: a client a reload replaces must not forget when a webhook last left.
  readonly #webhookSpacing = new LocalWebhookSpacing();
  #sharedKey: SharedApiKey | undefined;
  #client: GsaClient;
  /** apiKeyDigest of the current client id. */
  #modKeyDigest: string;
  // One for the life of the sidecar, like the webhook spacing: a reload must not forget GSA's per-player and
  // per-server cooldowns.
  readonly #systemCooldowns: SystemCooldowns = localSystemCooldowns();
  #system: SystemConnection | undefined;

  constructor(config: BridgeConfig, options: ServiceConnectionOptions) {
    this.#events = options.events;
    this.#logger = options.logger;
    this.health = new ServiceHealth({
      logger: options.logger.child({ component: 'gsa' }),
      servers: watchedServersOf(config),
      credentialSources: options.credentialSources,
      // Read at each look: a reload may replace the client (whose pause goes with it).
      credentialsPause: () => this.#client.credentialsPause,
    });
    this.#sharedKey = openSharedKey(config, options.logger);
    this.#client = this.#newClient(config, options.logger);
    this.#modKeyDigest = apiKeyDigest(config.api.clientId);
    this.#system = this.#newSystem(config, options.logger);
  }

  get client(): GsaClient {
    return this.#client;
  }

  /** GSA's System API client; undefined without api.system.key. A reload may replace it: read it at each use. */
  get system(): SystemApiClient | undefined {
    return this.#system?.client;
  }

  /** True while GSA refuses the System API key (a 401 until its next 2xx); false without one. */
  get systemKeyRefused(): boolean {
    return this.#system?.keyHealth.refused ?? false;
  }

  /** The System API key's refusal as a service problem (for /readyz and notify); undefined while taken or without one. */
  get systemKeyProblem(): ServiceProblem | undefined {
    return this.#system?.keyHealth.problem;
  }

  /** The keys in use, each by a hash that names it in Redis too (never the key or the secret). */
  get apiKeys(): readonly ApiKeyIdentity[] {
    const mod: ApiKeyIdentity = { api: 'mod', key: this.#modKeyDigest };
    return this.#system === undefined ? [mod] : [mod, { api: 'system', key: this.#system.keyDigest }];
  }

  /** Whether Redis decides the budget right now (false on the local fallback and without `shared`). */
  get budgetShared(): boolean {
    return this.#sharedKey?.shared ?? false;
  }

  /**
   * Applies a reload's service plan: a new client (and a new shared key when its settings changed) when the plan
   * says so, with the old ones closed in the background; the servers health names follow `next` either way.
   * Returns the new client, or undefined when the client stays.
   */
  reconfigure(next: BridgeConfig, plan: ServicePlan, logger: Logger): GsaClient | undefined {
    let replaced: GsaClient | undefined;
    if (plan.replaceClient) {
      const oldClient = this.#client;
      // The shared budget goes with the settings it shares (the key, the window, the Redis): kept unless they changed.
      const oldSharedKey = plan.replaceSharedKey ? this.#sharedKey : undefined;
      if (plan.replaceSharedKey) this.#sharedKey = openSharedKey(next, logger);
      this.#client = this.#newClient(next, logger);
      this.#modKeyDigest = apiKeyDigest(next.api.clientId);
      replaced = this.#client;
      this.health.forgetProblems();
      // Reviews the old client still held for its budget are refused by close() and stay pending on disk.
      oldClient
        .close()
        .then(() => oldSharedKey?.close())
        .catch((error: unknown) => {
          this.#logger.warn({ err: error }, 'the replaced service client did not close cleanly');
        });
    }
    if (plan.replaceSystem) {
      const old = this.#system;
      this.#system = this.#newSystem(next, logger);
      this.#closeSystem(old);
    } else {
      // A kept System API client whose key was refused tries again with its next call: the host may have fixed it.
      this.#system?.client.probeCredentialsNow();
    }
    this.health.setServers(watchedServersOf(next));
    return replaced;
  }

  /**
   * Closes the client first (it refuses what still waits for the budget at once), then waits for `drain` (the
   * outbox's sends really on the wire), then for the client, the shared key and the health. Call once.
   */
  async close(drain: () => Promise<void>): Promise<void> {
    const clientClosed = this.#client.close();
    const systemClosed = this.#system?.client.close();
    await drain();
    await clientClosed;
    await systemClosed;
    await this.#system?.shared?.close();
    await this.#sharedKey?.close();
    this.health.close();
  }

  #newSystem(config: BridgeConfig, logger: Logger): SystemConnection | undefined {
    const options = systemClientOptions(config);
    if (options === undefined) return undefined;
    const shared = openSharedSystemKey(config, logger);
    const keyHealth = new SystemKeyHealth(logger.child({ component: 'gsa-system' }));
    const client = new SystemApiClient({
      ...options,
      budget: shared?.budget,
      cooldowns: shared?.cooldowns ?? this.#systemCooldowns,
      logger: logger.child({ component: 'gsa-system' }),
      onRequest: (event) => {
        keyHealth.observe(event);
        this.#events.emit('request', event);
      },
    });
    return { client, shared, keyHealth, keyDigest: apiKeyDigest(systemKeyName(options.key)) };
  }

  /** Closes a replaced System API client in the background (what waits for its budget is refused). */
  #closeSystem(old: SystemConnection | undefined): void {
    if (old === undefined) return;
    old.client
      .close()
      .then(() => old.shared?.close())
      .catch((error: unknown) => {
        this.#logger.warn({ err: error }, 'the replaced System API client did not close cleanly');
      });
  }

  #newClient(config: BridgeConfig, logger: Logger): GsaClient {
    return new GsaClient({
      ...serviceClientOptions(config),
      budget: this.#sharedKey?.budget,
      webhookSpacing: this.#sharedKey?.webhookSpacing ?? this.#webhookSpacing,
      logger: logger.child({ component: 'gsa' }),
      onRequest: (event) => {
        this.health.observe(event);
        this.#events.emit('request', event);
      },
    });
  }
}
