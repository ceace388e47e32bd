// What sidecars on one API key share through one Redis connection: the API budget (redisBudget.ts) and the webhook
// spacing (redisWebhookSpacing.ts). One object, so a sidecar opens one connection for both, keeps them across the
// clients a reload replaces, and closes them together. It decides nothing itself.
import { RedisBudget, type RedisBudgetOptions } from './redisBudget.js';
import { RedisWebhookSpacing } from './redisWebhookSpacing.js';
import type { WebhookSpacing } from './webhookSpacing.js';

export type SharedApiKeyOptions = RedisBudgetOptions;

export class SharedApiKey {
  readonly budget: RedisBudget;
  readonly webhookSpacing: WebhookSpacing;

  constructor(options: SharedApiKeyOptions) {
    this.budget = new RedisBudget(options);
    this.webhookSpacing = new RedisWebhookSpacing({ redis: this.budget.redis, prefix: options.prefix, clientId: options.clientId, logger: options.logger, clock: options.clock });
  }

  /** True while the budget is decided in Redis; false on this sidecar's local fallback. */
  get shared(): boolean {
    return this.budget.shared;
  }

  /** Closes the Redis connection (the budget owns it). Idempotent. */
  close(): Promise<void> {
    return this.budget.close();
  }
}
