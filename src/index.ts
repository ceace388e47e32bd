// The library surface of gsa-bridge: the GameServerApp client, the config loader and the emulator.
export * from './gsa/index.js';
export { ConfigError, loadConfig, parseConfig, maskSecrets, type BridgeConfig, type ConfigProblem, type LoadedConfig } from './app/config.js';
export { GsaEmulator, type EmulatorOptions, type FaultSpec } from './gsaEmulator/index.js';
export { createLogger, type LoggerOptions } from './log/logger.js';
export { VERSION } from './version.js';
export { SidecarReloadError, startSidecar, type ReconfigureOptions, type ReconfigureReport, type RunningAdapter, type Sidecar, type SidecarOptions } from './sidecar.js';
export { ModClient, ModClientError, type ModClientOptions } from '../adapters/websocket/referenceClient.js';
