// The rcon adapter type as the registry sees it: its schema, a factory that composes the game-neutral RconAdapter
// with the profile the config names, and the login check of `config check --connect` (rconProbe.ts).
// Must never connect anywhere in create() (start() does); the probe's one-shot session always closes.
import type { AdapterType } from '../registryTypes.js';
import { rconOptionsSchema, type RconOptions } from './options.js';
import { RCON_PROFILE_TABLE } from './profiles/index.js';
import { RconAdapter } from './rconAdapter.js';
import { probeRcon } from './rconProbe.js';

export const rconAdapterType: AdapterType<RconOptions> = {
  type: 'rcon',
  title: 'rcon adapter',
  endpointOf: (options) => ({ kind: 'target', host: options.host, port: options.port }),
  endpointKeys: { host: 'host', port: 'port' },
  schema: rconOptionsSchema,
  create(options, context) {
    return new RconAdapter({
      id: context.id,
      options,
      profile: RCON_PROFILE_TABLE[options.profile],
      logger: context.logger,
      reviewCommand: context.reviewCommand,
    });
  },
  needsSystemApi: (options) => RCON_PROFILE_TABLE[options.profile].needsSystemApi,
  probe: probeRcon,
};
