// The one connection to the Redis that sidecars on one API key share (the API budget, the webhook spacing): a
// node-redis client set up to fail fast while Redis is away, so a caller falls back at once instead of queueing
// behind a dead socket, and to come back by itself with a capped backoff.
// It never logs or throws the URL as given (it may hold a password): only redisLabel(url), host, port and database.
// @redis/client (about 530 modules with its OpenTelemetry API, some 20 MB resident) is loaded only when a client is
// created: a sidecar with no shared budget never pays for it.

import { createRequire } from 'node:module';
import type { RedisClientType, createClient as CreateClient } from '@redis/client';
import { backoffDelayMs } from '../../time/backoff.js';

/** The client both shared parts use (node-redis, default commands, RESP3). */
export type SharedRedis = RedisClientType;

/** The structural logger the shared parts write to (pino's Logger fits). */
export interface SharedRedisLogger {
  debug(bindings: Record<string, unknown>, message: string): void;
  info(bindings: Record<string, unknown>, message: string): void;
  warn(bindings: Record<string, unknown>, message: string): void;
  error(bindings: Record<string, unknown>, message: string): void;
}

export interface SharedRedisOptions {
  /** How long one connection attempt may take. @default 1000 */
  readonly connectTimeoutMs?: number | undefined;
  /** The longest wait between reconnection attempts (exponential from 50 ms, with jitter). @default 2000 */
  readonly maxReconnectDelayMs?: number | undefined;
}

function parsedRedisUrl(url: string): URL {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined || (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')) {
    // Never echo the value: it may hold a password.
    throw new TypeError("the shared budget's Redis URL must start with redis:// or rediss://, like redis://127.0.0.1:6379/0");
  }
  return parsed;
}

/** `redis://host:port/db`: the URL without user or password, for logs and errors. */
export function redisLabel(url: string): string {
  const parsed = parsedRedisUrl(url);
  const database = /^\/(\d+)$/.exec(parsed.pathname)?.[1] ?? '0';
  return `${parsed.protocol}//${parsed.hostname}:${parsed.port === '' ? '6379' : parsed.port}/${database}`;
}

/** The password as written and as decoded, for scrubbing error texts (a driver may quote either). */
export function redisUrlSecrets(url: string): string[] {
  const { password } = parsedRedisUrl(url);
  if (password === '') return [];
  let decoded = password;
  try {
    decoded = decodeURIComponent(password);
  } catch {
    // Kept as written.
  }
  return [...new Set([password, decoded])].sort((a, b) => b.length - a.length);
}

/** An error's text, with every form of the password replaced: safe to log. */
export function redisErrorText(error: unknown, secrets: readonly string[]): string {
  let text = error instanceof Error ? (error.message === '' ? error.name : error.message) : String(error);
  for (const secret of secrets) text = text.split(secret).join('***');
  return text;
}

/**
 * Creates the client and starts connecting in the background (Redis may be down at start: the caller falls back
 * meanwhile). Commands fail at once while it is not connected (`disableOfflineQueue`); it reconnects forever, the
 * wait capped; its 'error' events are logged at debug level (the budget logs the one warning that matters) so they
 * never crash the process. The caller owns the client: `destroy()` it when done.
 */
export function connectSharedRedis(url: string, logger: Pick<SharedRedisLogger, 'debug'>, options: SharedRedisOptions = {}): SharedRedis {
  const label = redisLabel(url);
  const secrets = redisUrlSecrets(url);
  const maxDelayMs = options.maxReconnectDelayMs ?? 2000;
  // @redis/client is CommonJS: require keeps this function synchronous, and loads the driver only on this path.
  const { createClient } = createRequire(import.meta.url)('@redis/client') as { createClient: typeof CreateClient };
  const client: SharedRedis = createClient({
    url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 1000,
      reconnectStrategy: (retries) => backoffDelayMs(retries + 1, { minDelayMs: 50, maxDelayMs }),
    },
  });
  client.on('error', (error: unknown) => {
    logger.debug({ redis: label, reason: redisErrorText(error, secrets) }, 'shared Redis: connection error');
  });
  client.connect().catch((error: unknown) => {
    logger.debug({ redis: label, reason: redisErrorText(error, secrets) }, 'shared Redis: connect gave up');
  });
  return client;
}
