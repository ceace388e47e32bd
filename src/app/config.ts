// The configuration as the app reads it: src/config's schema, loader and parser bound to the adapter types of the
// registry (adapters/index.ts). The schema is built once, here; the rest of src/config is re-exported, so the app
// and its commands import their config from this one file. Must never hold validation rules of its own (they live
// in src/config and in each adapter type's schema) and never build or start an adapter.
import {
  ADAPTER_SCHEMAS,
  adapterEndpointOf,
  adapterIdOf,
  adapterNeedsSystemApi,
  adapterTypeOf,
  type AdapterOptions,
  type RconOptions,
  type WebsocketOptions,
} from '../../adapters/index.js';
import { z } from 'zod';
import {
  configSchema,
  loadConfigWith,
  parseConfigWith,
  type AdapterCatalog,
  type BridgeConfigOf,
  type Environment,
  type LoadConfigOptions,
  type LoadedConfigOf,
  type ParseConfigOptions,
  type ServerConfigOf,
} from '../config/index.js';

export * from '../config/index.js';
export { RCON_PROFILES, type RconProfileName } from '../../adapters/index.js';

/** What the config needs of the registry: every type's schema as one union on `type`, endpoints and ids. */
export const ADAPTER_CATALOG: AdapterCatalog<AdapterOptions> = {
  schema: z.discriminatedUnion('type', ADAPTER_SCHEMAS),
  endpointOf: adapterEndpointOf,
  endpointKeysOf: (options) => adapterTypeOf(options).endpointKeys,
  idOf: adapterIdOf,
  needsSystemApiOf: adapterNeedsSystemApi,
};

/** The whole config file's schema with the registered adapter types. */
export const bridgeConfigSchema = configSchema(ADAPTER_CATALOG);

/** The effective configuration: the file with every default applied (and, via the loader, the environment on top). */
export type BridgeConfig = BridgeConfigOf<AdapterOptions>;
export type ServerConfig = ServerConfigOf<AdapterOptions>;
export type AdapterConfig = AdapterOptions;
export type WebsocketAdapterConfig = WebsocketOptions;
export type RconAdapterConfig = RconOptions;
export type LoadedConfig = LoadedConfigOf<AdapterOptions>;

/** Returns the effective configuration, or throws one ConfigError listing every problem. */
export function parseConfig(raw: unknown, env: Environment = {}, options: ParseConfigOptions = {}): BridgeConfig {
  return parseConfigWith(bridgeConfigSchema, raw, env, options);
}

/** Finds, reads and validates the config file (LoadConfigOptions says where and what is required). */
export function loadConfig(options: LoadConfigOptions = {}): Promise<LoadedConfig> {
  return loadConfigWith(bridgeConfigSchema, options);
}
