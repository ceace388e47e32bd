// What sidecars on one System API key share through Redis: the key's own budget (a RedisBudget, 100 calls a minute)
// and the per-player and per-game-server cooldowns (two RedisWebhookSpacings), on one connection, closed together.
// The sibling of SharedApiKey for the mod API. Everything is named after a hash of the System API key under its own
// label, so it never shares a window, a hold or a spacing with the mod API key, and the key itself never reaches
// Redis. It decides nothing itself.

import { createHash } from 'node:crypto';
import { DEMAND_GRACE_MS, LATE_GRANT_MS, RedisBudget, type RedisBudgetOptions } from '../budget/shared/redisBudget.js';
import { RedisWebhookSpacing } from '../spacing/redisWebhookSpacing.js';
import { redisUrlSecrets } from '../redis/sharedRedis.js';
import { guardedIntervalMs } from '../budget/slidingWindow.js';
import { PLAYER_COOLDOWN_MS, SERVER_COOLDOWN_MS, type SystemCooldowns } from './cooldowns.js';

export interface SharedSystemApiKeyOptions extends Omit<RedisBudgetOptions, 'clientId'> {
  /** The System API key: hashed here (systemKeyName), never stored, logged or sent to Redis. */
  readonly key: string;
  /** Told, instead of a warning line, when the cooldowns start being kept within this process only. */
  readonly onCooldownsLocal?: ((reason: string) => void) | undefined;
}

/**
 * The name the key's shared state goes under, in place of a mod API client id: a label no client id has, then 32 hex
 * digits of the key's SHA-256. sharedKeyName hashes it once more.
 */
export function systemKeyName(key: string): string {
  return `system-api:${createHash('sha256').update(`gsa-bridge system api key\0${key}`).digest('hex').slice(0, 32)}`;
}

export class SharedSystemApiKey {
  readonly budget: RedisBudget;
  readonly cooldowns: SystemCooldowns;
  readonly #spacings: readonly RedisWebhookSpacing[];

  constructor(options: SharedSystemApiKeyOptions) {
    const { key, onCooldownsLocal, ...budgetOptions } = options;
    const clientId = systemKeyName(key);
    this.budget = new RedisBudget({ ...budgetOptions, clientId });
    const spacing = (spacingMs: number): RedisWebhookSpacing =>
      new RedisWebhookSpacing({
        redis: this.budget.redis,
        prefix: options.prefix,
        clientId,
        spacingMs,
        logger: options.logger,
        clock: options.clock,
        commandTimeoutMs: options.answerTimeoutMs,
        connectTimeoutMs: options.connectTimeoutMs,
        redisLabel: this.budget.redisLabel,
        secrets: redisUrlSecrets(options.url),
        reportLocalOnly: onCooldownsLocal,
        // As SharedApiKey: a holder waits for the budget after taking its lease, for at most a shared window, a
        // claim's grace and a hold.
        longestTurnMs: spacingMs + guardedIntervalMs(options.intervalMs) + (options.lateGrantMs ?? LATE_GRANT_MS) + DEMAND_GRACE_MS + this.budget.maxHoldMs,
      });
    const players = spacing(PLAYER_COOLDOWN_MS);
    const servers = spacing(SERVER_COOLDOWN_MS);
    this.cooldowns = { players, servers };
    this.#spacings = [players, servers];
  }

  /** True while the budget is decided in Redis. */
  get shared(): boolean {
    return this.budget.shared;
  }

  /** Sends the departures still on their way, then closes the connection. Idempotent. */
  async close(): Promise<void> {
    await Promise.all(this.#spacings.map((spacing) => spacing.close()));
    await this.budget.close();
  }
}
