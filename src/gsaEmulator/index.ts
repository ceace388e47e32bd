/**
 * Public API of the GSA emulator: the server class, its options, and the shapes it records and reports.
 * Must never export internals (state store, handlers) that callers could use to bypass the server.
 */
export {
  DEFAULT_EMULATOR_CLIENT_ID,
  DEFAULT_EMULATOR_CLIENT_SECRET,
  DEFAULT_EMULATOR_SYSTEM_KEY,
  DEFAULT_EMULATOR_SERVERS,
  GsaEmulator,
  type EmulatorOptions,
} from './server.js';
export { EmulatorInputError } from './errors.js';
export {
  CAPTIVE_PORTAL_PAGE,
  MAX_FAULT_BODY_CHARS,
  MAX_FAULT_LATENCY_MS,
  FAULT_ENDPOINTS,
  type CallEndpoint,
  type Endpoint,
  type FaultSpec,
  type PendingFault,
} from './faults.js';
export type { CallCounters, WindowReport, WindowSpec } from './arrivals.js';
export type { BudgetKeyReport, BudgetReport } from './keyBudget.js';
export type { AlertKey } from './modApi.js';
export { MAX_BODY_BYTES } from './httpIo.js';
export type { AccessInput, CatalogueInput, ReportSettingsInput, UiInput, WalletInput } from './featureControl.js';
export {
  DEFAULT_ACCESS,
  DEFAULT_BUTTON_MODAL,
  DEFAULT_MOD_SETTINGS,
  DEFAULT_REPORT_SETTINGS,
  type AccessRecord,
  type FeatureSnapshot,
  type PlayerRef,
  type ReportPlayer,
  type ReportSettings,
  type ReportType,
  type StoredReport,
} from './featureState.js';
export {
  DEFAULT_CATALOGUE,
  DEFAULT_CREDIT,
  DEFAULT_TOKENS,
  MONEY_RECORD_LIMIT,
  type OrderRecord,
  type ShopItem,
  type TokenSpendRecord,
  type WalletRecord,
} from './shopState.js';
export { REPORT_COMMENT_MAX_CHARS, REPORT_COORDS_PATTERN } from './featureCall.js';
export { CONTROL_PREFIX } from './controlApi.js';
export { SYSTEM_BUDGET_KEY, SYSTEM_PREFIX } from './systemApi.js';
export {
  SERVICE_TYPES,
  SYSTEM_GAMESERVER_ACTIONS,
  type ServiceIdentity,
  type ServiceType,
  type SystemActionRecord,
  type SystemGameServerAction,
  type SystemPlayer,
  type SystemSnapshot,
} from './systemState.js';
export {
  DEFAULT_CALL_LOG_LIMIT,
  WEBHOOK_ACTIONS,
  type ActionRecord,
  type EmulatorSnapshot,
  type IneligibleRecord,
  type MuteRecord,
  type RecordedCall,
  type ServerEntry,
  type StoredReview,
  type WebhookAction,
} from './state.js';
