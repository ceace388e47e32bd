// Maps the config file's api and reviews sections onto the service client's options, in one place, so the
// one-shot commands and the sidecar build identical clients.
import type { GsaClientOptions } from '../gsa/index.js';
import type { BridgeConfig } from './schema.js';

export function serviceClientOptions(config: BridgeConfig): GsaClientOptions {
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
