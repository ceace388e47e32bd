// Public surface of the GameServerApp service client.
export { GsaClient, type CallOptions, type CheckMutedOptions, type GsaClientOptions, type RetryNotice } from './client.js';
export { GSA_WEBHOOK_SPACING_MS, LocalWebhookSpacing, WEBHOOK_SPACING_MS, webhookKey, type LocalWebhookSpacingOptions, type WebhookSpacing, type WebhookTurn } from './webhookSpacing.js';
export * from './errors.js';
export type { RequestEvent, RequestObserver } from './requestEvent.js';
export type { ApiFlavor, Endpoint, MuteLookupKind, MuteStatus, PlayerIds, ReviewReceipt, ServerAction, ServerActionResult } from './types.js';
export { SERVER_ACTIONS } from './types.js';
export { DEFAULT_RATE_LIMIT, type RateLimitOptions } from './rateLimiter.js';
export { LocalBudget, type ApiBudget, type BudgetDecision, type LocalBudgetOptions } from './apiBudget.js';
export { RedisBudget, fallbackShare, type RedisBudgetOptions } from './redisBudget.js';
export { RedisWebhookSpacing, type RedisWebhookSpacingOptions } from './redisWebhookSpacing.js';
export { SharedApiKey, type SharedApiKeyOptions } from './sharedApiKey.js';
export { BUDGET_WEIGHTS, CALL_KINDS, reviewConcurrency, worstCaseWaitMs, type BudgetClass, type CallKind, type WaitingCalls } from './budgetShares.js';
export { DEFAULT_RETRY, type RetryOptions } from './retryPolicy.js';
export { DEFAULT_REVIEW_LIMITS, EOS_ID_PATTERN, STEAM_ID_PATTERN, characterCount, cleanComment, type ReviewLimits } from './validation.js';
