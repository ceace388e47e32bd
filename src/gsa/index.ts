// Public surface of the GameServerApp service client.
export { GsaClient, type CallOptions, type CheckMutedOptions, type CredentialsPause, type GsaClientOptions, type RetryNotice } from './client/client.js';
export { GSA_WEBHOOK_SPACING_MS, LocalWebhookSpacing, WEBHOOK_SPACING_MS, webhookKey, type LocalWebhookSpacingOptions, type WebhookSpacing, type WebhookTurn } from './spacing/webhookSpacing.js';
export * from './errors.js';
export { CredentialsBreaker, DEFAULT_PROBE_INTERVAL_MS, type BreakerAdmission, type CredentialsBreakerOptions } from './client/credentialsBreaker.js';
export type { RequestEvent, RequestObserver } from './client/requestEvent.js';
export type {
  AccessAnswer,
  ApiFlavor,
  Endpoint,
  MuteLookupKind,
  MuteStatus,
  OnePlayerId,
  OrderReceipt,
  PlayerIds,
  ReportFields,
  ReportReceipt,
  ReportSettingsAnswer,
  ReviewReceipt,
  ServerAction,
  ServerActionResult,
  ShopSearch,
  TokenReceipt,
} from './types.js';
export { SERVER_ACTIONS } from './types.js';
export { DEFAULT_RATE_LIMIT, type BudgetState, type RateLimitOptions } from './budget/rateLimiter.js';
export { apiKeyDigest } from './redis/sharedKeyName.js';
export { LocalBudget, type ApiBudget, type BudgetDecision, type LocalBudgetOptions } from './budget/apiBudget.js';
export { RedisBudget, fallbackShare, type RedisBudgetOptions } from './budget/shared/redisBudget.js';
export { RedisWebhookSpacing, type RedisWebhookSpacingOptions } from './spacing/redisWebhookSpacing.js';
export { SharedApiKey, type SharedApiKeyOptions } from './sharedApiKey.js';
export { BUDGET_WEIGHTS, CALL_KINDS, reviewConcurrency, worstCaseWaitMs, type BudgetClass, type CallKind, type WaitingCalls } from './budget/budgetShares.js';
export { DEFAULT_RETRY, type RetryOptions } from './client/retryPolicy.js';
export {
  DEFAULT_REVIEW_LIMITS,
  EOS_ID_PATTERN,
  REPORT_COMMENT_MAX_LENGTH,
  REPORT_COORDS_PATTERN,
  SHOP_QUERY_MAX_LENGTH,
  STEAM_ID_PATTERN,
  characterCount,
  cleanComment,
  type ReviewLimits,
} from './client/validation.js';
export { SystemApiClient, type SystemApiClientOptions } from './system/systemApiClient.js';
export { SharedSystemApiKey, systemKeyName, type SharedSystemApiKeyOptions } from './system/sharedSystemApiKey.js';
export { PLAYER_COOLDOWN_MS, SERVER_COOLDOWN_MS, type SystemCooldowns } from './system/cooldowns.js';
export * from './system/types.js';
export { PERIOD_CODES, PERIOD_CODES_TEXT, isPeriodCode, periodProblem, type MuteDuration, type PeriodCode } from './system/periods.js';
