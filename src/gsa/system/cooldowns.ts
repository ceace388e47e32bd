// The System API's documented cooldowns as the sidecar keeps them before sending: one mute or unmute per player per
// 120 s (one key for both: GSA does not say they are separate), one action or broadcast per game server per 60 s
// (one key for all of a server's actions: GSA does not say they are separate either). Each is a WebhookSpacing with
// its own `spacingMs` and a margin, as WEBHOOK_SPACING_MS has: GSA measures arrivals, the sidecar departures.
// Names and numbers only; it never sends and never waits itself.

import { GSA_PLAYER_COOLDOWN_MS, GSA_SERVER_COOLDOWN_MS } from '../dialects/systemApiV2.js';
import { LocalWebhookSpacing, type WebhookSpacing } from '../spacing/webhookSpacing.js';
import type { Clock } from '../../time/clock.js';

/** The margin over GSA's own figure: a slower first trip must not make the second arrive early. */
export const COOLDOWN_MARGIN_MS = 1000;
export const PLAYER_COOLDOWN_MS = GSA_PLAYER_COOLDOWN_MS + COOLDOWN_MARGIN_MS;
export const SERVER_COOLDOWN_MS = GSA_SERVER_COOLDOWN_MS + COOLDOWN_MARGIN_MS;

/** The spacings a SystemApiClient keeps: by default local to it; shared on Redis across sidecars when given. */
export interface SystemCooldowns {
  /** Keyed `player:<uuid>`, spacingMs PLAYER_COOLDOWN_MS. */
  readonly players: WebhookSpacing;
  /** Keyed `server:<id>`, spacingMs SERVER_COOLDOWN_MS. */
  readonly servers: WebhookSpacing;
}

export function playerCooldownKey(uuid: string): string {
  return `player:${uuid}`;
}

export function serverCooldownKey(gameServerId: number): string {
  return `server:${String(gameServerId)}`;
}

/** Spacings within this process: the client's default, and what a long-lived sidecar keeps across reloads. */
export function localSystemCooldowns(clock?: Clock): SystemCooldowns {
  return {
    players: new LocalWebhookSpacing({ spacingMs: PLAYER_COOLDOWN_MS, ...(clock === undefined ? {} : { clock }) }),
    servers: new LocalWebhookSpacing({ spacingMs: SERVER_COOLDOWN_MS, ...(clock === undefined ? {} : { clock }) }),
  };
}
