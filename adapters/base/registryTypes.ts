// What an adapter type registers: the schema of its options in the config file, where an adapter of it meets the
// outside world (its endpoint), and a factory that builds one adapter from them. Types only: the registry itself is
// adapters/index.ts. Must never assume an adapter has a host and a port: each type says what its endpoint is.
import type { z } from 'zod';
import type { Adapter } from '../../src/bridge/port.js';
import type { AdapterEndpoint, EndpointKeys } from '../../src/net/endpoint.js';
import type { Logger } from 'pino';
import type { Clock } from '../../src/time/clock.js';

export type { AdapterEndpoint, EndpointKeys } from '../../src/net/endpoint.js';

/** Everything an adapter gets from the composition root besides its own options. */
export interface AdapterContext {
  /** The GSA container name of the game server this adapter belongs to. */
  readonly serverName: string;
  /** The adapter's stable id (configured, or derived from its endpoint, e.g. `<server>-<type>-<port>`). */
  readonly id: string;
  /** Already carries `server` and `adapter` fields. */
  readonly logger: Logger;
  /** '<name>/<version>' of the sidecar, e.g. for a welcome message. */
  readonly sidecar: string;
  /**
   * The review chat command (`reviews.chatCommand` and the star range), read at each chat line so a reload's new
   * values apply to running adapters. For adapters that read chat themselves (rcon). Absent: no chat reviews.
   */
  readonly reviewCommand?: (() => ChatReviewCommand) | undefined;
  /**
   * `mute.gatedChannels`, read when an adapter explains to the host why a line was not gated (a reload may change
   * it). The bridge decides which lines are gated; an adapter only names the list. Absent: not named.
   */
  readonly gatedChannels?: (() => readonly string[]) | undefined;
  /**
   * The shop chat commands (`shop.chatCommand`, `shop.buyCommand`), read at each chat line so a reload applies; undefined
   * while the server's `allowRequests` does not name `shop` (the words are then ordinary chat). For adapters that read
   * chat themselves and can whisper to a player (rcon). Absent: no shop in chat.
   */
  readonly shopCommand?: (() => ChatShopCommand | undefined) | undefined;
  /**
   * The clock game consoles are paced on (Conan's one command per 3 s), in milliseconds. Tests of what a sidecar does
   * with the answers give one that is always a pace ahead, so they need not wait it out. @default performance.now()
   */
  readonly paceClock?: Clock | undefined;
}

/** A review typed in game chat: `<command> <stars> <comment>`. */
export interface ChatReviewCommand {
  /** One word, matched case-insensitively, e.g. `!review`. */
  readonly command: string;
  readonly minStars: number;
  readonly maxStars: number;
}

/** The shop typed in game chat: `<list> [search]` whispers the first items numbered, `<buy> <n>` orders one. */
export interface ChatShopCommand {
  /** One word, matched case-insensitively, e.g. `!shop`. */
  readonly list: string;
  /** One word, e.g. `!buy`. */
  readonly buy: string;
  /** Most items one `!shop` whispers. */
  readonly maxListed: number;
}

/** The options every adapter type has, whatever else its schema adds (where it connects is its type's business: endpointOf). */
export interface CommonAdapterOptions {
  readonly type: string;
  readonly id?: string | undefined;
}

/** One line of `config check --connect`: whether the adapter's game endpoint is usable, and why not. */
export interface AdapterProbeResult {
  readonly ok: boolean;
  /** For a person: "port 8787 on 127.0.0.1 is free", "RCON login failed: check the password of adapter ark-main". */
  readonly message: string;
}

export interface AdapterType<Options extends CommonAdapterOptions> {
  /** The `type` value in the config file. */
  readonly type: Options['type'];
  /** How the startup line names a running adapter of this type, e.g. `mod WebSocket`, `rcon adapter`. */
  readonly title: string;
  /**
   * Where an adapter with these options listens, connects or reads: derived ids, the config's clash and token rules
   * (a `listener` beyond loopback needs a strong `token`), `config check --connect` and the startup line read it.
   */
  endpointOf(options: Options): AdapterEndpoint;
  /** The option key each endpoint field is read from, so the config's rules skip a field whose key has a problem. */
  readonly endpointKeys: EndpointKeys;
  /** The options with a listener's port replaced (demo and tests ask for port 0). Absent: the type listens on nothing. */
  withListenPort?(options: Options, port: number): Options;
  /** Validates one entry of `servers[].adapters[]` of this type, applying its defaults. */
  readonly schema: z.ZodType<Options>;
  /**
   * Builds the adapter (not started yet); undefined when this type cannot run here, after saying why in the log.
   * Asynchronous so that a type imports its adapter's code here, when one is configured, and not with the registry.
   */
  create(options: Options, context: AdapterContext): Promise<Adapter | undefined>;
  /**
   * Why an adapter with these options needs GSA's System API to gate its players (their ids are of a kind the mod
   * API cannot check); undefined when it does not. Absent: never.
   */
  needsSystemApi?(options: Options): string | undefined;
  /**
   * Checks, without starting the adapter, that it could run (`config check --connect`): a listener's port is free,
   * an RCON endpoint accepts the password. Never leaves anything open; never rejects. Absent: nothing to check.
   */
  probe?(options: Options, context: Pick<AdapterContext, 'serverName' | 'id'>): Promise<AdapterProbeResult>;
}
