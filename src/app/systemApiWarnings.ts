// The warnings a host gets when an adapter's players can only be checked through GSA's System API and the config has
// no System API key (Minecraft: Mojang ids): `config check` prints them and `run` logs them at start. A warning, not a
// config error: the sidecar still runs, and mute.onUnknown decides those players' lines. Never prints a secret.

import { adapterIdOf, adapterNeedsSystemApi } from '../../adapters/index.js';
import { systemClientOptions, type BridgeConfig } from './config.js';

export function systemApiWarnings(config: BridgeConfig): string[] {
  if (systemClientOptions(config) !== undefined) return [];
  return config.servers.flatMap((server, serverIndex) =>
    server.adapters.flatMap((adapter, adapterIndex) => {
      const reason = adapterNeedsSystemApi(adapter);
      if (reason === undefined) return [];
      return [
        `servers[${serverIndex}].adapters[${adapterIndex}] (${adapterIdOf(server.name, adapter)}): its players cannot be checked for a mute: ${reason}. ` +
          `Set api.system.key (or GSA_SYSTEM_API_KEY); until then mute.onUnknown ("${config.mute.onUnknown}") decides their lines`,
      ];
    }),
  );
}
