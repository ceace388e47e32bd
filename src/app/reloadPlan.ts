// The plan of a reload, computed before anything is touched: which adapters (by stable `<server>/<id>` key) a new
// config adds, removes, changes or keeps, which servers come and go, and whether the service connection (client,
// shared key) must be replaced and the mute cache emptied. Pure: the same two configs always give the same plan.
// Must never start, stop or build anything (adapterSlots.ts and serviceConnection.ts apply the plan), and never
// compare by array position: ids survive a reordering of the file.
import { adapterIdOf, withListenPort, type AdapterOptions } from '../../adapters/index.js';
import { serviceClientOptions, sharedApiKeyOptions, sharedSystemApiKeyOptions, systemClientOptions, type BridgeConfig } from './config.js';
import type { GsaClientOptions } from '../gsa/index.js';

/** One adapter a config asks for, not built yet. */
export interface PlannedAdapter {
  /** `<server>/<id>`: what a reload matches old and new adapters by. */
  readonly key: string;
  /** The GSA container name of its server. */
  readonly server: string;
  /** Its stable id (configured, or derived from its endpoint). */
  readonly id: string;
  readonly type: string;
  /** The options it runs with (defaults applied; a port override applied). */
  readonly options: AdapterOptions;
  /** A comparable form of `options`: equal fingerprints mean the running adapter can stay. */
  readonly fingerprint: string;
}

/** What the service connection needs: equal settings keep the client (and its budget) running. */
export interface ServiceSettings {
  readonly client: GsaClientOptions;
  /** api.rateLimit.shared with what it shares, or undefined without one. */
  readonly sharedKey: unknown;
  /** The System API client's settings and its shared budget's (api.system), or undefined without a key. */
  readonly system: unknown;
}

export interface ServicePlan {
  /** A new client: the api section (or what the client reads of reviews) changed. */
  readonly replaceClient: boolean;
  /** The shared budget's settings changed too (only looked at when the client is replaced, as before). */
  readonly replaceSharedKey: boolean;
  /** A new System API client (api.system, or what it shares, changed; or it came or went). */
  readonly replaceSystem: boolean;
  /** The API key or the service it is for changed: what the mute caches learned no longer holds. */
  readonly clearMuteCache: boolean;
}

export interface ReloadPlan {
  /** Adapters of the new config that were not running, in config order. */
  readonly added: readonly PlannedAdapter[];
  /** Running adapters the new config no longer has (the running entry). */
  readonly removed: readonly PlannedAdapter[];
  /** Adapters whose settings changed: the new entry (the running one is `running.get(key)`). */
  readonly changed: readonly PlannedAdapter[];
  /** Adapters whose settings did not change: they keep running. */
  readonly unchanged: readonly PlannedAdapter[];
  /** Every adapter of the new config, in config order. */
  readonly next: readonly PlannedAdapter[];
  /** Server names the new config adds and removes. */
  readonly serversAdded: readonly string[];
  readonly serversRemoved: readonly string[];
  readonly service: ServicePlan;
}

/** A comparable form of plain options: keys sorted, so the file's key order does not count as a change. */
export function fingerprint(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

export function adapterKey(server: string, id: string): string {
  return `${server}/${id}`;
}

/** The adapters `config` asks for, in config order; `portOverrides` replaces listener ports by adapter id (demo, tests). */
export function plannedAdapters(config: BridgeConfig, portOverrides?: ReadonlyMap<string, number>): PlannedAdapter[] {
  return config.servers.flatMap((server) =>
    server.adapters.map((configured) => {
      const id = adapterIdOf(server.name, configured);
      const port = portOverrides?.get(id);
      const options = port === undefined ? configured : withListenPort(configured, port);
      return { key: adapterKey(server.name, id), server: server.name, id, type: options.type, options, fingerprint: fingerprint(options) };
    }),
  );
}

export function serviceSettingsOf(config: BridgeConfig): ServiceSettings {
  const system = systemClientOptions(config);
  return { client: serviceClientOptions(config), sharedKey: sharedApiKeyOptions(config), system: system === undefined ? undefined : [system, sharedSystemApiKeyOptions(config)] };
}

/** The API key and the service it is for: when these change, what the cache learned no longer holds. */
function apiKeyOf(options: GsaClientOptions): string {
  return JSON.stringify([options.baseUrl, options.flavor, options.clientId, options.clientSecret]);
}

/** The System API key and the service it is for, from ServiceSettings.system. */
function systemKeyOf(system: unknown): string {
  if (!Array.isArray(system)) return '';
  const options = system[0] as { readonly baseUrl?: unknown; readonly key?: unknown } | undefined;
  return JSON.stringify([options?.baseUrl, options?.key]);
}

export function planService(running: ServiceSettings, next: ServiceSettings): ServicePlan {
  const replaceClient = fingerprint(next.client) !== fingerprint(running.client);
  const replaceSystem = fingerprint(next.system) !== fingerprint(running.system);
  return {
    replaceClient,
    replaceSharedKey: replaceClient && fingerprint(next.sharedKey) !== fingerprint(running.sharedKey),
    replaceSystem,
    // A Minecraft player's answer came from the System API key: another key (or none) may not see the same.
    clearMuteCache: apiKeyOf(next.client) !== apiKeyOf(running.client) || systemKeyOf(next.system) !== systemKeyOf(running.system),
  };
}

/**
 * Compares what runs (`running`, its adapters as planned when they started) with what `next` asks for. Servers are
 * matched by name, adapters by `<server>/<id>`.
 */
export function planReload(
  running: { readonly config: BridgeConfig; readonly adapters: readonly PlannedAdapter[] },
  next: { readonly config: BridgeConfig; readonly adapters: readonly PlannedAdapter[] },
): ReloadPlan {
  const before = new Map(running.adapters.map((adapter) => [adapter.key, adapter]));
  const nextKeys = new Set(next.adapters.map((adapter) => adapter.key));
  const runningServers = new Set(running.config.servers.map((server) => server.name));
  const nextServers = new Set(next.config.servers.map((server) => server.name));
  return {
    added: next.adapters.filter((adapter) => !before.has(adapter.key)),
    removed: running.adapters.filter((adapter) => !nextKeys.has(adapter.key)),
    changed: next.adapters.filter((adapter) => {
      const old = before.get(adapter.key);
      return old !== undefined && old.fingerprint !== adapter.fingerprint;
    }),
    unchanged: next.adapters.filter((adapter) => before.get(adapter.key)?.fingerprint === adapter.fingerprint),
    next: next.adapters,
    serversAdded: [...nextServers].filter((name) => !runningServers.has(name)),
    serversRemoved: [...runningServers].filter((name) => !nextServers.has(name)),
    service: planService(serviceSettingsOf(running.config), serviceSettingsOf(next.config)),
  };
}
