// The configuration module's public surface: schema and types, loading, the environment overlay, masking.
// Must never hold logic of its own, and never import adapters/: the parse and load here take the schema the app
// layer builds with its adapter types (src/app/config.ts binds them: parseConfig, loadConfig, BridgeConfig).
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
  shadowedFileKeys,
  type OverlaidConfig,
  type ShadowedKey,
} from './environment.js';
export { formatPath } from './format.js';
export { loadConfigWith, type LoadConfigOptions, type LoadedConfigOf } from './load.js';
export { isLoopbackHost } from '../net/loopback.js';
export { collectSecrets, maskSecrets, SECRET_MASK } from './mask.js';
export { parseConfigWith, type ParseConfigOptions } from './parse.js';
export { absoluteDataDir, backslashIsLiteral } from './platformPaths.js';
export { configSchema } from './configSchema.js';
export {
  API_FLAVORS,
  DEFAULT_LOG_FILE_MAX_BYTES,
  DEFAULT_LOG_FILE_MAX_FILES,
  LOG_LEVELS,
  MUTE_POLICIES,
  NOTIFY_FORMATS,
  SERVER_ACTIONS,
  type AdapterCatalog,
  type AnyBridgeConfig,
  type ApiConfig,
  type ApiFlavor,
  type BridgeConfigInput,
  type BridgeConfigOf,
  type ConfigSchema,
  type ConfiguredAdapter,
  type HttpConfig,
  type LogConfig,
  type LogLevel,
  type MuteConfig,
  type MutePolicy,
  type NotifyConfig,
  type NotifyFormat,
  type ReviewsConfig,
  type ServerAction,
  type ServerConfigOf,
} from './schema.js';
export { serviceClientOptions, sharedApiKeyOptions, sharedSystemApiKeyOptions, systemClientOptions } from './serviceClientOptions.js';
export { changedSettings } from './settingsChanges.js';
