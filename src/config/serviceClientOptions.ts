// Maps the config file's api and reviews sections onto the service client's options, in one place, so the
// one-shot commands and the sidecar build identical clients.
import type { GsaClientOptions, SharedApiKeyOptions, SharedSystemApiKeyOptions, SystemApiClientOptions } from '../gsa/index.js';
import type { AnyBridgeConfig } from './schema.js';

export function serviceClientOptions(config: AnyBridgeConfig): GsaClientOptions {
  const { api, reviews } = config;
  return {
    baseUrl: api.baseUrl,
    flavor: api.flavor,
    clientId: api.clientId,
    clientSecret: api.clientSecret,
    timeoutMs: api.timeoutMs,
    rateLimit: api.rateLimit,
    // retries, backoff and the Retry-After cap (maxRetryAfterMs), as the config names them.
    retry: api.retry,
    wipePath: api.wipePath,
    reviewLimits: { minStars: reviews.minStars, maxStars: reviews.maxStars, maxCommentLength: reviews.maxCommentLength },
  };
}

/**
 * The shared budget's settings (api.rateLimit.shared with the key and the window it shares), or undefined when this
 * sidecar has the budget to itself. Equal settings mean the same shared budget: a reload that keeps them keeps it.
 */
export function sharedApiKeyOptions(config: AnyBridgeConfig): Omit<SharedApiKeyOptions, 'logger' | 'onSharedChange'> | undefined {
  const { rateLimit, clientId, retry } = config.api;
  if (rateLimit.shared === undefined) return undefined;
  const { redis, prefix, nodes } = rateLimit.shared;
  // The Retry-After cap is this sidecar's own: a hold in Redis beyond it is not believed here.
  return { url: redis, prefix, nodes, clientId, requests: rateLimit.requests, intervalMs: rateLimit.intervalMs, maxHoldMs: retry.maxRetryAfterMs };
}

/** The System API client's options (api.system with the service root, timeout and retry policy), or undefined without a key. */
export function systemClientOptions(config: AnyBridgeConfig): SystemApiClientOptions | undefined {
  const { api } = config;
  if (api.system === undefined || api.system.key === '') return undefined;
  return {
    baseUrl: api.baseUrl,
    key: api.system.key,
    gsaId: api.system.gsaId === '' ? undefined : api.system.gsaId,
    timeoutMs: api.timeoutMs,
    rateLimit: api.system.rateLimit,
    retry: api.retry,
  };
}

/**
 * The System API key's shared budget and cooldowns on the same Redis as the mod API key's (api.rateLimit.shared), with
 * the System API key's own window; undefined without a key or without `shared`.
 */
export function sharedSystemApiKeyOptions(config: AnyBridgeConfig): Omit<SharedSystemApiKeyOptions, 'logger' | 'onSharedChange'> | undefined {
  const { rateLimit, retry, system } = config.api;
  if (rateLimit.shared === undefined || system === undefined || system.key === '') return undefined;
  const { redis, prefix, nodes } = rateLimit.shared;
  return { url: redis, prefix, nodes: Math.min(nodes, system.rateLimit.requests), key: system.key, requests: system.rateLimit.requests, intervalMs: system.rateLimit.intervalMs, maxHoldMs: retry.maxRetryAfterMs };
}
