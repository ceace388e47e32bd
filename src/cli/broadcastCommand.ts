// `gsa-bridge broadcast (--id GAMESERVER_ID | --server NAME) [--type broadcast|success|warning|error] -- TEXT…`: one
// in-game broadcast through GSA's System API. A call that would wait past --timeout for GSA's 60 s per game server
// says when the server can next be called and sends nothing (exit 1). It never takes or prints the key.

import { BROADCAST_TYPES, type BroadcastType } from '../gsa/index.js';
import { GSA_SERVER_COOLDOWN_MS } from '../gsa/dialects/systemApiV2.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK, EXIT_REFUSED } from './exitCodes.js';
import { CONFIG_OPTION, PRETTY_OPTION, TIMEOUT_OPTION, defineCommand, parseCommandLine } from './options.js';
import { resolveTarget } from './serverCommand.js';
import { cooldownPastDeadline, withSystemSession } from './systemSession.js';

export const BROADCAST_COMMAND = defineCommand({
  name: 'broadcast',
  synopsis: `(--id GAMESERVER_ID | --server NAME) [--type ${BROADCAST_TYPES.join('|')}] [--timeout SECONDS] [--config FILE] [--pretty] -- TEXT…`,
  summary: "one in-game broadcast through GSA's System API (needs api.system.key or GSA_SYSTEM_API_KEY)",
  details: [
    'GSA allows one action or broadcast per game server every 60 s: a call that would have to wait past --timeout says',
    'when the server can next be called and sends nothing. Exit 0 accepted, 1 refused by the service or not sent, 2 usage.',
  ],
  maxPositionals: 10_000,
  options: {
    id: { type: 'integer', value: 'GAMESERVER_ID', min: 1, description: 'the GAMESERVER_ID to broadcast on', defaultText: "the config's only server with an id" },
    server: { type: 'string', value: 'NAME', description: 'the configured server (container name) whose "id" to use', defaultText: 'none; or --id' },
    type: { type: 'string', value: 'TYPE', choices: BROADCAST_TYPES, description: 'how the game shows it', defaultText: "GSA's, warning" },
    ...TIMEOUT_OPTION,
    ...CONFIG_OPTION,
    ...PRETTY_OPTION,
  },
});

export async function broadcastCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options, positionals } = parseCommandLine(BROADCAST_COMMAND, args);
  const text = positionals.join(' ').trim();
  if (text === '') throw new UsageError('give the text after --: gsa-bridge broadcast --id 4711 -- Restart in 5 minutes');
  if (options.id !== undefined && options.server !== undefined) throw new UsageError('give --id GAMESERVER_ID or --server NAME, not both');
  const type = options.type as BroadcastType | undefined;
  return withSystemSession(context, 'broadcast', { configPath: options.config, pretty: options.pretty, timeoutSeconds: options.timeout }, async ({ system, config, callOptions }) => {
    const target = resolveTarget(config, options.id, options.server);
    const deadlineAt = Date.now() + options.timeout * 1000;
    const late = cooldownPastDeadline({ kind: 'server', gameServerId: target.id }, GSA_SERVER_COOLDOWN_MS, await system.serverFreeAt(target.id), deadlineAt, options.timeout);
    if (late !== undefined) {
      context.stderr.write(`error (cooldown): ${late}\n`);
      return EXIT_REFUSED;
    }
    const receipt = await system.broadcast(target.id, text, type, callOptions(`broadcast to server ${target.label}`));
    context.stdout.write(`broadcast to server ${target.label}: accepted (${receipt.status}): ${receipt.message}\n`);
    return EXIT_OK;
  });
}
