// The options the bridge core takes: what one game server allows, how chat is gated and how reviews are
// admitted. The composition root (src/sidecar.ts) maps the config file onto these; the core never sees the file.
// Types only; must never import src/config.

import type { LookupIdRule } from './lookupIds.js';
import type { ChatChannel, ModRequestGroup, ServerActionName } from './port.js';

/** One game server as the bridge knows it. */
export interface ServerOptions {
  /** The GSA container name: the `{name}` of /gameserver/{name}/…, and the server's identity in a reload. */
  readonly name: string;
  /** GAMESERVER_ID for webhooks; without it server actions are refused. @default undefined */
  readonly id?: number | undefined;
  /** Server actions a mod may trigger. @default [] */
  readonly allowActions: readonly ServerActionName[];
  /**
   * Which id GSA is asked by about a player who has a Steam64 and an EOS id: `steam-first` the Steam64, `eos-first`
   * the EOS id, `both` each (muted when either is; two calls of the budget for such a player's lookup and refresh).
   * A player with one id is asked by it whatever this says. Read at each lookup: a reload applies it from then on.
   * @default 'steam-first'
   */
  readonly lookupIds?: LookupIdRule | undefined;
  /**
   * Which groups of GSA's Mod API v2 requests this server's mods may make (`access`, `reports`, `shop`, `tokens`,
   * `ui`); a request outside them is refused. @default DEFAULT_ALLOWED_REQUESTS (access, reports, ui)
   */
  readonly allowRequests?: readonly ModRequestGroup[] | undefined;
  /** GSA's access check at the door for this server; a key not given takes ACCESS_DEFAULTS' (not enforced). */
  readonly access?: AccessOverrides | undefined;
}

/** GSA's access check (whitelist, bans) at every join an adapter sees. */
export interface AccessOptions {
  /** Check every join and remove a player GSA does not allow. @default false */
  readonly enforce: boolean;
  /**
   * When GSA cannot be asked: `admit`, or `kick` (only when GSA answered and the answer was unusable: a transport
   * error alone, no answer at all, never removes anyone). @default 'admit'
   */
  readonly onUnknown: 'admit' | 'kick';
  /** How long GSA's answer for a player is reused (a rejoin loop costs nothing). @default 300000 */
  readonly cacheMs: number;
}

/** AccessOptions with any key left out. */
export type AccessOverrides = { readonly [Key in keyof AccessOptions]?: AccessOptions[Key] | undefined };

/** The access settings in force: each key given overrides the default. */
export function accessOptionsOf(overrides: AccessOverrides | undefined): AccessOptions {
  return {
    enforce: overrides?.enforce ?? ACCESS_DEFAULTS.enforce,
    onUnknown: overrides?.onUnknown ?? ACCESS_DEFAULTS.onUnknown,
    cacheMs: overrides?.cacheMs ?? ACCESS_DEFAULTS.cacheMs,
  };
}

export const ACCESS_DEFAULTS: AccessOptions = Object.freeze({ enforce: false, onUnknown: 'admit', cacheMs: 300_000 });

/** How mods' money requests are paced (the shop, tokens). */
export interface ModApiOptions {
  /** One shop order or token spend per player per this period (a mod's loop cannot order twice). @default 10000 */
  readonly orderCooldownMs: number;
}

export const MOD_API_DEFAULTS: ModApiOptions = Object.freeze({ orderCooldownMs: 10_000 });

/** How chat is gated. */
export interface MuteOptions {
  /** How long a "muted" answer is trusted. @default 60000 */
  readonly mutedTtlMs: number;
  /** How long a "not muted" answer is trusted. @default 300000 */
  readonly unmutedTtlMs: number;
  /** The longest a chat verdict or mute check waits for the service. @default 300 */
  readonly decisionTimeoutMs: number;
  /** What the gate answers when the service cannot: allow the line or block it. @default 'allow' */
  readonly onUnknown: 'allow' | 'block';
  /** The alert shown to a muted player when the service sends none. @default 'You are muted on this server.' */
  readonly defaultAlert: string;
  /**
   * The channels whose lines are checked; a line on any other channel is allowed at once (reason `not_gated`),
   * with no cache read and no lookup. @default ['global', 'local'] (GSA's mute covers global and local chat)
   */
  readonly gatedChannels?: readonly ChatChannel[] | undefined;
}

/** How reviews are admitted (the outbox delivers them). */
export interface ReviewOptions {
  /** @default 1 */
  readonly minStars: number;
  /** @default 5 */
  readonly maxStars: number;
  /** Characters, after control characters are stripped. @default 500 */
  readonly maxCommentLength: number;
  /** One review per player per this period; 0 turns it off. @default 600000 */
  readonly cooldownMs: number;
}
