// `gsa-bridge mute-check --server NAME (--steam-id ID | --eos-id ID)`: one mute check, JSON on stdout.
// Exit 0 whenever the service answered, muted or not; the JSON says which.

import type { CliContext } from './context.js';
import { EXIT_OK } from './exitCodes.js';
import { CONFIG_OPTION, PLAYER_OPTIONS, PRETTY_OPTION, TIMEOUT_OPTION, defineCommand, parseCommandLine, playerOf } from './options.js';
import { withServiceSession } from './serviceSession.js';

export const MUTE_CHECK_COMMAND = defineCommand({
  name: 'mute-check',
  synopsis: '--server NAME (--steam-id ID | --eos-id ID) [--timeout SECONDS] [--config FILE] [--pretty]',
  summary: 'one mute check, JSON on stdout',
  details: ['Exit 0 when the service answered (muted or not), 1 when it refused or could not be reached, 2 on a usage or config error.'],
  options: {
    server: { type: 'string', value: 'NAME', required: true, description: 'the GSA container name, as in the config' },
    ...PLAYER_OPTIONS,
    ...TIMEOUT_OPTION,
    ...CONFIG_OPTION,
    ...PRETTY_OPTION,
  },
});

export async function muteCheckCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(MUTE_CHECK_COMMAND, args);
  const server = options.server;
  const player = playerOf(options);
  return withServiceSession(context, { configPath: options.config, pretty: options.pretty, timeoutSeconds: options.timeout }, async ({ client, callOptions }) => {
    const status = await client.checkMuted(server, player, callOptions('mute check'));
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
