// `gsa-bridge server <action> --id GAMESERVER_ID [--countdown MIN]`: one webhook call.

import { SERVER_ACTIONS, type ServerAction } from '../gsa/index.js';
import { CONFIG_OPTION, integerFlag, parseCommandArguments, stringFlag } from './arguments.js';
import type { CliContext } from './context.js';
import { EXIT_OK } from './exitCodes.js';
import { withServiceSession } from './serviceSession.js';
import { UsageError } from './usageError.js';

export const SERVER_USAGE = `gsa-bridge server <${SERVER_ACTIONS.join('|')}> --id GAMESERVER_ID [--countdown MIN] [--config FILE]`;

function isServerAction(value: string): value is ServerAction {
  return (SERVER_ACTIONS as readonly string[]).includes(value);
}

export async function serverCommand(args: readonly string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArguments(args, { ...CONFIG_OPTION, id: { type: 'string' }, countdown: { type: 'string' } }, 1);
  const action = parsed.positionals[0];
  if (action === undefined) throw new UsageError(`name an action: ${SERVER_ACTIONS.join(', ')}`);
  if (!isServerAction(action)) throw new UsageError(`unknown action "${action}"; use one of: ${SERVER_ACTIONS.join(', ')}`);
  const countdown = integerFlag(parsed, 'countdown');
  if (countdown !== undefined && action !== 'update') throw new UsageError('--countdown applies to update only');
  const flagId = integerFlag(parsed, 'id');

  return withServiceSession(context, stringFlag(parsed, 'config'), async ({ client, config }) => {
    // Without --id, a config with exactly one server that has an id is unambiguous.
    const configured = config.servers.flatMap((server) => (server.id === undefined ? [] : [server.id]));
    const serverId = flagId ?? (configured.length === 1 ? configured[0] : undefined);
    if (serverId === undefined) throw new UsageError('--id GAMESERVER_ID is required');
    const result = await client.serverAction(serverId, action, countdown);
    const message = result.message.length > 0 ? `: ${result.message}` : '';
    context.stdout.write(`${action} server ${serverId}: accepted (${result.status})${message}\n`);
    return EXIT_OK;
  });
}
