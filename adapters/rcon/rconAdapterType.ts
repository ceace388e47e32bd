// The rcon adapter type as the registry sees it: its schema, a factory that composes the game-neutral RconAdapter
// with the profile the config names, and the login check of `config check --connect` (rconProbe.ts).
// The adapter and the probe, with the RCON clients, sessions and log tail under them, are imported only when an
// rcon adapter is built or probed: a mod-only host never loads them. The schema and the profiles stay eager (the
// config file is validated against them).
// Must never connect anywhere in create() (start() does); the probe's one-shot session always closes.
import type { AdapterType } from '../base/registryTypes.js';
import { rconOptionsSchema, type RconOptions } from './options.js';
import { RCON_PROFILE_TABLE } from './profiles/index.js';

export const rconAdapterType: AdapterType<RconOptions> = {
  type: 'rcon',
  title: 'rcon adapter',
  endpointOf: (options) => ({ kind: 'target', host: options.host, port: options.port }),
  endpointKeys: { host: 'host', port: 'port' },
  schema: rconOptionsSchema,
  async create(options, context) {
    const { RconAdapter } = await import('./rconAdapter.js');
    return new RconAdapter({
      id: context.id,
      options,
      profile: RCON_PROFILE_TABLE[options.profile],
      logger: context.logger,
      reviewCommand: context.reviewCommand,
      shopCommand: context.shopCommand,
      paceClock: context.paceClock,
    });
  },
  needsSystemApi: (options) => RCON_PROFILE_TABLE[options.profile].needsSystemApi,
  probe: async (options, context) => (await import('./rconProbe.js')).probeRcon(options, context),
};
