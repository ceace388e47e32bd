// `gsa-bridge mute-check --server NAME (--steam-id ID | --eos-id ID)`: one mute check, JSON on stdout.
// Exit 0 whenever the service answered, muted or not; the JSON says which.

import { CONFIG_OPTION, PLAYER_OPTIONS, parseCommandArguments, playerFlags, requiredFlag, stringFlag } from './arguments.js';
import type { CliContext } from './context.js';
import { EXIT_OK } from './exitCodes.js';
import { withServiceSession } from './serviceSession.js';

export const MUTE_CHECK_USAGE = 'gsa-bridge mute-check --server NAME (--steam-id ID | --eos-id ID) [--config FILE]';

export async function muteCheckCommand(args: readonly string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArguments(args, { ...CONFIG_OPTION, ...PLAYER_OPTIONS, server: { type: 'string' } });
  const server = requiredFlag(parsed, 'server');
  const player = playerFlags(parsed);
  return withServiceSession(context, stringFlag(parsed, 'config'), async ({ client }) => {
    const status = await client.checkMuted(server, player);
    const output = {
      server,
      steam_id: player.steamId ?? status.steamId,
      eos_id: player.eosId ?? status.eosId,
      muted: status.muted,
      alert: status.alert,
    };
    context.stdout.write(`${JSON.stringify(output)}\n`);
    return EXIT_OK;
  });
}
