// The adapter registry: each adapter type (and later each game profile) with its option schema and its factory,
// in one place. The config schema composes its `servers[].adapters[]` union from ADAPTER_SCHEMAS and the
// composition root builds adapters through createAdapter(); neither has a list of types of its own, so adding a
// type touches this file and the type's own folder only. Must never start an adapter or read a config file.
import type { Adapter } from '../src/bridge/port.js';
import { endpointIdPart, type AdapterEndpoint } from '../src/net/endpoint.js';
import { rconAdapterType } from './rcon/rconAdapterType.js';
import { rconOptionsSchema } from './rcon/options.js';
import type { AdapterContext, AdapterType } from './base/registryTypes.js';
import { websocketAdapterType } from './websocket/websocketAdapterType.js';
import { websocketOptionsSchema } from './websocket/options.js';

export type { AdapterContext, AdapterEndpoint, AdapterProbeResult, AdapterType, ChatShopCommand, CommonAdapterOptions } from './base/registryTypes.js';
export { RCON_PROFILES, type RconOptions, type RconProfileName } from './rcon/options.js';
export type { WebsocketOptions } from './websocket/options.js';

/** Every adapter type's schema, for the config file's discriminated union on `type`. */
export const ADAPTER_SCHEMAS = [websocketOptionsSchema, rconOptionsSchema] as const;

/** One entry of `servers[].adapters[]`, with its defaults applied: the union of every registered type's options. */
export type AdapterOptions = (typeof ADAPTER_SCHEMAS)[number] extends infer Schema
  ? Schema extends { _zod: { output: infer Output } }
    ? Output
    : never
  : never;

const REGISTRY: { readonly [Type in AdapterOptions['type']]: AdapterType<Extract<AdapterOptions, { type: Type }>> } = {
  websocket: websocketAdapterType,
  rcon: rconAdapterType,
};

/** The registered adapter types, e.g. for `config check --connect` to ask each type for a connection probe. */
export const ADAPTER_TYPES: readonly AdapterType<AdapterOptions>[] = Object.values(REGISTRY);

/** The registry entry for one type. */
export function adapterTypeOf<Options extends AdapterOptions>(options: Options): AdapterType<Options> {
  // The mapped type above ties each key to its own options; TypeScript cannot follow that through an index.
  return REGISTRY[options.type] as unknown as AdapterType<Options>;
}

/** Builds one adapter (not started) through its type's factory, which loads its code; undefined when the type skips it. */
export async function createAdapter(options: AdapterOptions, context: AdapterContext): Promise<Adapter | undefined> {
  return adapterTypeOf(options).create(options, context);
}

/** Where the adapter listens, connects or reads, as its type describes it. */
export function adapterEndpointOf(options: AdapterOptions): AdapterEndpoint {
  return adapterTypeOf(options).endpointOf(options);
}

/**
 * The adapter's stable id: the configured `id`, else derived from its endpoint, which survives a reordering of the
 * file: `<server>-<type>-<port>` for a listener or a target, `<server>-<type>-<file name>` for a file,
 * `<server>-<type>` otherwise (two adapters that derive the same id are a config error asking for an explicit `id`).
 */
export function adapterIdOf(serverName: string, options: AdapterOptions): string {
  if (options.id !== undefined) return options.id;
  const part = endpointIdPart(adapterEndpointOf(options));
  return part === undefined ? `${serverName}-${options.type}` : `${serverName}-${options.type}-${part}`;
}

/** The options with a listener's port replaced (demo and tests ask for port 0); unchanged when the type listens on nothing. */
export function withListenPort(options: AdapterOptions, port: number): AdapterOptions {
  const type = adapterTypeOf(options);
  return type.withListenPort === undefined ? options : type.withListenPort(options, port);
}

/** Why an adapter needs GSA's System API to gate its players (registryTypes.ts); undefined when it does not. */
export function adapterNeedsSystemApi(options: AdapterOptions): string | undefined {
  return adapterTypeOf(options).needsSystemApi?.(options);
}

/** How the startup line names a running adapter of this type (`mod WebSocket`, `rcon adapter`). */
export function adapterTitleOf(options: AdapterOptions): string {
  return adapterTypeOf(options).title;
}
