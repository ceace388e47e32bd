// What sidecars on one API key share through one Redis connection: the API budget (redisBudget.ts) and the webhook
// spacing (redisWebhookSpacing.ts). One object, so a sidecar opens one connection for both, keeps them across the
// clients a reload replaces, and closes them together. It decides nothing itself.
import { DEMAND_GRACE_MS, LATE_GRANT_MS, RedisBudget, type RedisBudgetOptions } from './budget/shared/redisBudget.js';
import { RedisWebhookSpacing } from './spacing/redisWebhookSpacing.js';
import { guardedIntervalMs } from './budget/slidingWindow.js';
import { WEBHOOK_SPACING_MS } from './spacing/webhookSpacing.js';
import { redisUrlSecrets } from './redis/sharedRedis.js';
import type { WebhookSpacing } from './spacing/webhookSpacing.js';

export interface SharedApiKeyOptions extends RedisBudgetOptions {
  /**
   * Told, instead of the webhook spacing's warning line, when webhook calls start being spaced within this process
   * only (Redis cannot be reached), with the reason, password scrubbed: a one-shot command writes its own line.
   */
  readonly onWebhookSpacingLocal?: ((reason: string) => void) | undefined;
}

export class SharedApiKey {
  readonly budget: RedisBudget;
  readonly webhookSpacing: WebhookSpacing;
  readonly #webhookSpacing: RedisWebhookSpacing;

  constructor(options: SharedApiKeyOptions) {
    this.budget = new RedisBudget(options);
    this.#webhookSpacing = new RedisWebhookSpacing({
      redis: this.budget.redis,
      prefix: options.prefix,
      clientId: options.clientId,
      logger: options.logger,
      clock: options.clock,
      commandTimeoutMs: options.answerTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
      redisLabel: this.budget.redisLabel,
      secrets: redisUrlSecrets(options.url),
      reportLocalOnly: options.onWebhookSpacingLocal,
      // A holder waits for the budget after taking its lease: an action's place comes within one shared window and a
      // claim's grace (docs/api-budget.md), after a Retry-After hold of at most the cap. So long it is waited for.
      longestTurnMs: WEBHOOK_SPACING_MS + guardedIntervalMs(options.intervalMs) + (options.lateGrantMs ?? LATE_GRANT_MS) + DEMAND_GRACE_MS + this.budget.maxHoldMs,
    });
    this.webhookSpacing = this.#webhookSpacing;
  }

  /** True while the budget is decided in Redis; false on this sidecar's local fallback. */
  get shared(): boolean {
    return this.budget.shared;
  }

  /**
   * Sends what the webhook spacing still has on its way (a call's departure: the next process must see it; at most
   * one answer timeout), then closes the Redis connection (the budget owns it). Idempotent.
   */
  async close(): Promise<void> {
    await this.#webhookSpacing.close();
    await this.budget.close();
  }
}
