// The rcon adapter type as the registry sees it: its schema and a factory. This version has no RCON client yet
// (issue 8 brings the profiles), so the factory only says so and skips the adapter; the schema already validates
// the file. Must never connect anywhere.
import type { AdapterType } from '../registryTypes.js';
import { rconOptionsSchema, type RconOptions } from './options.js';
import { probeRcon } from './rconProbe.js';

export const rconAdapterType: AdapterType<RconOptions> = {
  type: 'rcon',
  endpoint: 'target',
  schema: rconOptionsSchema,
  create(options, context) {
    context.logger.warn(`rcon adapter ${context.id} (profile ${options.profile}) is not available in this version yet; skipped`);
    return undefined;
  },
  probe: probeRcon,
};
