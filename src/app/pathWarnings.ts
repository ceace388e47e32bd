// The warnings a host gets when a path in the config holds a backslash on a platform where it is not a separator
// (a config copied from Windows to Linux: `.\data` would be one directory named `.\data` beside the config file):
// `config check` prints them and `run` logs them at start. A warning, not a config error: a backslash is a legal
// file-name character there, and a host may mean it. Never prints a secret (paths are not secrets).

import { adapterIdOf } from '../../adapters/index.js';
import { backslashIsLiteral, type BridgeConfig } from './config.js';

export function backslashPathWarnings(config: BridgeConfig, platform: NodeJS.Platform = process.platform): string[] {
  const advice = `on ${platform} a backslash is part of a file name, not a separator: write the path with / (a config copied from Windows?)`;
  const warnings: string[] = [];
  if (backslashIsLiteral(config.reviews.dataDir, platform)) warnings.push(`reviews.dataDir is ${config.reviews.dataDir}: ${advice}`);
  config.servers.forEach((server, serverIndex) => {
    server.adapters.forEach((adapter, adapterIndex) => {
      if (adapter.type === 'rcon' && adapter.logFile !== undefined && backslashIsLiteral(adapter.logFile, platform)) {
        warnings.push(`servers[${serverIndex}].adapters[${adapterIndex}].logFile (${adapterIdOf(server.name, adapter)}) is ${adapter.logFile}: ${advice}`);
      }
    });
  });
  return warnings;
}
