// The chat filter's mute step, done through GSA's System API: the player's GSA uuid found by their game id
// (players/find, cached by the client), then POST /player/{uuid}/mute for the step's period. The client keeps GSA's
// 120 s per-player cooldown and the key's budget. Must never throw for a refusal (it is an outcome the ladder
// records) and never send a player's chat text to GSA.

import { GsaError } from '../gsa/index.js';
import type { PlayerIdentity } from '../bridge/port.js';
import type { SystemApiAccess } from '../bridge/serverActions.js';
import type { PeriodCode } from '../gsa/system/periods.js';
import type { MuteOutcome, PlayerMuting } from '../moderation/chatFilter.js';

/** `systemApi.system` is read at each mute: a reload may bring, replace or drop the System API key. */
export function systemPlayerMuting(systemApi: SystemApiAccess): PlayerMuting {
  return {
    async mute(player: PlayerIdentity, period: PeriodCode, note: string): Promise<MuteOutcome> {
      const client = systemApi.system;
      if (client === undefined) return { ok: false, code: 'no_system_key', message: "GSA's System API key is not set (api.system.key or GSA_SYSTEM_API_KEY): the mute step cannot be taken" };
      // players/find takes any service id; GSA links a player's accounts, so the first id known finds them.
      const serviceId = player.steamId ?? player.eosId ?? player.mojangId;
      if (serviceId === undefined) return { ok: false, code: 'invalid_input', message: 'the player has no id GSA can find them by' };
      try {
        const found = await client.findPlayer(serviceId);
        const receipt = await client.mute(found.uuid, { type: 'period', period }, note);
        return { ok: true, message: receipt.message };
      } catch (error) {
        if (error instanceof GsaError) return { ok: false, code: error.code, message: error.message };
        throw error;
      }
    },
  };
}
