// The websocket adapter's options: its part of the config file (`"type": "websocket"`), owned here so the
// adapter type brings its own schema to the registry. Key names and defaults are a public contract.
// Must never read files or the environment, and never put an input value into a message (the token is a secret).
import { z } from 'zod';
import { adapterId, count, countOrZero, host, listenPort, milliseconds } from '../../src/validation/optionFields.js';

export const websocketOptionsSchema = z.strictObject({
  type: z.literal('websocket'),
  /** Stable identity in logs, metrics, readiness and the review journal. @default `<server>-websocket-<port>` */
  id: adapterId().optional(),
  /** @default '127.0.0.1' */
  host: host().default('127.0.0.1'),
  /** 0 = any free port (the bound one is logged and readable from the adapter). @default 8787 */
  port: listenPort().default(8787),
  /** Bearer token mods must present; required beyond loopback. */
  token: z.string().optional(),
  /** @default 16384 */
  maxFrameBytes: count().default(16_384),
  /** 0 = no per-connection cap: a local mod is trusted and the API budget has its own rate limiter. @default 0 */
  maxMessagesPerSecond: countOrZero().default(0),
  /** Connections open at once that have not completed an upgrade with the right token; beyond it the oldest is closed. @default 128 */
  maxUnauthenticatedConnections: count().default(128),
  /** Time from connecting to completing the upgrade; after it the connection is closed (408). @default 5000 */
  handshakeTimeoutMs: milliseconds().default(5_000),
});

/** A websocket adapter's effective options (every default applied). */
export type WebsocketOptions = z.output<typeof websocketOptionsSchema>;
