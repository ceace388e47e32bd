// The configuration module's public surface: schema and types, loading, the environment overlay, masking.
// Must never hold logic of its own.
export { ConfigError, formatProblem, type ConfigErrorOptions, type ConfigProblem } from './errors.js';
export {
  applyEnvironment,
  CONFIG_PATH_VARIABLE,
  DEFAULT_CONFIG_PATH,
  describeCredentialSources,
  ENVIRONMENT_OVERRIDES,
  environmentValue,
  type Environment,
  type EnvironmentOverride,
  type OverlaidConfig,
} from './environment.js';
export { formatPath } from './format.js';
export { loadConfig, type LoadConfigOptions, type LoadedConfig } from './load.js';
export { isLoopbackHost } from '../net/loopback.js';
export { collectSecrets, maskSecrets, SECRET_MASK } from './mask.js';
export { parseConfig, type ParseConfigOptions } from './parse.js';
export {
  API_FLAVORS,
  bridgeConfigSchema,
  LOG_LEVELS,
  MUTE_POLICIES,
  RCON_PROFILES,
  SERVER_ACTIONS,
  type AdapterConfig,
  type ApiConfig,
  type ApiFlavor,
  type BridgeConfig,
  type BridgeConfigInput,
  type HttpConfig,
  type LogConfig,
  type LogLevel,
  type MuteConfig,
  type MutePolicy,
  type RconAdapterConfig,
  type RconProfileName,
  type ReviewsConfig,
  type ServerAction,
  type ServerConfig,
  type WebsocketAdapterConfig,
} from './schema.js';
export { serviceClientOptions, sharedApiKeyOptions } from './serviceClientOptions.js';
export { changedSettings } from './settingsChanges.js';
