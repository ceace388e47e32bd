// `gsa-bridge server <action> (--id GAMESERVER_ID | --server NAME) [--countdown N] [--message TEXT] [--yes]`: one
// call. With GSA's System API key (api.system.key or GSA_SYSTEM_API_KEY) start/stop/restart/update/cancel-scheduled
// go through the System API (its 60 s per game server kept: a call that would wait past --timeout says when and sends
// nothing); `wipe`, and everything without a System API key, is the seed's webhook as before.
// On a terminal a wipe asks first (--yes skips it); without one it never asks, so scheduled wipes keep working.
// An answer that never came means the action may still have run: it says so rather than inviting a blind retry.

import { SERVER_ACTIONS, type ServerAction } from '../gsa/index.js';
import type { BridgeConfig } from '../app/config.js';
import { confirmAtTerminal } from './confirmation.js';
import { atTerminal, type CliContext } from './context.js';
import { NotConfirmedError, ServerWithoutIdError, UnknownServerError, UsageError } from './errors.js';
import { EXIT_OK } from './exitCodes.js';
import { CONFIG_OPTION, PRETTY_OPTION, TIMEOUT_OPTION, defineCommand, parseCommandLine } from './options.js';
import { withServiceSession } from './serviceSession.js';
import { GsaError, type CallOptions, type SystemActionOptions, type SystemApiClient, type SystemServerAction } from '../gsa/index.js';
import { GSA_SERVER_COOLDOWN_MS } from '../gsa/dialects/systemApiV2.js';
import { EXIT_REFUSED } from './exitCodes.js';
import { cooldownPastDeadline, hasSystemKey, withSystemClient } from './systemSession.js';

export const SERVER_COMMAND = defineCommand({
  name: 'server',
  synopsis: `<${SERVER_ACTIONS.join('|')}> (--id GAMESERVER_ID | --server NAME) [--countdown N] [--message TEXT] [--yes] [--timeout SECONDS] [--config FILE] [--pretty]`,
  summary: 'one call to GSA: start, stop, restart, update, wipe or cancel-scheduled',
  details: [
    "With GSA's System API key (api.system.key or GSA_SYSTEM_API_KEY), every action but wipe goes through the System API:",
    '--countdown 0–90 and --message apply to update, restart and stop, and GSA allows one call per game server every 60 s',
    '(a call that would wait past --timeout says when the server can next be called, and sends nothing).',
    "wipe always uses the webhook (the System API has none), as does every action without a System API key.",
    'Exit 0 accepted, 1 refused by the service (status and message printed), not answered in time, or a wipe not confirmed;',
    '2 on a usage or config error. A wipe on a terminal asks first; without a terminal (cron, scripts) it never asks.',
  ],
  maxPositionals: 1,
  options: {
    id: { type: 'integer', value: 'GAMESERVER_ID', min: 1, description: 'the GAMESERVER_ID to act on', defaultText: "the config's only server with an id" },
    server: { type: 'string', value: 'NAME', description: 'the configured server (container name) whose "id" to act on', defaultText: 'none; or --id' },
    countdown: {
      type: 'integer',
      value: 'N',
      min: 0,
      description: 'warning before an update (webhook: minutes, update only; System API: 0–90 for update, restart, stop)',
      defaultText: "the service's",
    },
    message: { type: 'string', value: 'TEXT', description: 'the text shown in game (System API only: update, restart, stop)', defaultText: 'none' },
    yes: { type: 'boolean', description: 'wipe without asking', defaultText: 'off: a wipe on a terminal asks first' },
    ...TIMEOUT_OPTION,
    ...CONFIG_OPTION,
    ...PRETTY_OPTION,
  },
});

function isServerAction(value: string): value is ServerAction {
  return (SERVER_ACTIONS as readonly string[]).includes(value);
}

export interface Target {
  readonly id: number;
  /** How messages name it: "ovddykvbs (id 4711)" or "4711". */
  readonly label: string;
}

export function resolveTarget(config: BridgeConfig, id: number | undefined, name: string | undefined): Target {
  if (name !== undefined) {
    const server = config.servers.find((candidate) => candidate.name === name);
    if (server === undefined) throw new UnknownServerError(name, config.servers.map((candidate) => candidate.name));
    if (server.id === undefined) throw new ServerWithoutIdError(name);
    return { id: server.id, label: `${name} (id ${server.id})` };
  }
  if (id !== undefined) return { id, label: String(id) };
  // Without --id or --server, a config with exactly one server that has an id is unambiguous.
  const withIds = config.servers.filter((server) => server.id !== undefined);
  const [only] = withIds;
  if (withIds.length !== 1 || only?.id === undefined) throw new UsageError('--id GAMESERVER_ID or --server NAME is required');
  return { id: only.id, label: `${only.name} (id ${only.id})` };
}

const COUNTDOWN_ACTIONS: ReadonlySet<ServerAction> = new Set(['update', 'restart', 'stop']);

/** --countdown and --message as the chosen path takes them. */
function checkDetails(action: ServerAction, countdown: number | undefined, message: string | undefined, viaSystemApi: boolean): void {
  if (!viaSystemApi) {
    if (countdown !== undefined && action !== 'update') {
      throw new UsageError("--countdown applies to update only (with GSA's System API key: update, restart and stop, 0–90)");
    }
    if (message !== undefined) throw new UsageError(`--message needs GSA's System API key (api.system.key or GSA_SYSTEM_API_KEY)${action === 'wipe' ? '; wipe always uses the webhook' : ''}`);
    return;
  }
  if ((countdown !== undefined || message !== undefined) && !COUNTDOWN_ACTIONS.has(action)) throw new UsageError('--countdown and --message apply to update, restart and stop');
  if (countdown !== undefined && countdown > 90) throw new UsageError(`--countdown must be from 0 to 90 on GSA's System API, got ${countdown}`);
}

async function systemServerAction(
  context: CliContext,
  system: SystemApiClient,
  target: Target,
  action: Exclude<ServerAction, 'wipe'>,
  details: SystemActionOptions,
  timeoutSeconds: number,
  callOptions: (what: string) => CallOptions,
): Promise<number> {
  const deadlineAt = Date.now() + timeoutSeconds * 1000;
  const late = cooldownPastDeadline({ kind: 'server', gameServerId: target.id }, GSA_SERVER_COOLDOWN_MS, await system.serverFreeAt(target.id), deadlineAt, timeoutSeconds);
  if (late !== undefined) {
    context.stderr.write(`error (cooldown): ${late}\n`);
    return EXIT_REFUSED;
  }
  try {
    const receipt = await system.serverAction(target.id, action satisfies SystemServerAction, details, callOptions(`${action} of server ${target.label}`));
    context.stdout.write(`${action} server ${target.label}: accepted (${receipt.status}): ${receipt.message}\n`);
    return EXIT_OK;
  } catch (error) {
    if (error instanceof GsaError && error.maybeProcessed) {
      context.stderr.write(`note: no clear answer came, so the ${action} of server ${target.label} may have run anyway; check the server or the dashboard before sending it again\n`);
    }
    throw error;
  }
}

export async function serverCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options, positionals } = parseCommandLine(SERVER_COMMAND, args);
  const action = positionals[0];
  if (action === undefined) throw new UsageError(`name an action: ${SERVER_ACTIONS.join(', ')}`);
  if (!isServerAction(action)) throw new UsageError(`unknown action "${action}"; use one of: ${SERVER_ACTIONS.join(', ')}`);
  if (options.id !== undefined && options.server !== undefined) throw new UsageError('give --id GAMESERVER_ID or --server NAME, not both');

  const session = { configPath: options.config, pretty: options.pretty, timeoutSeconds: options.timeout, requireCredentials: action === 'wipe' ? true : ('unlessSystemKey' as const) };
  return withServiceSession(context, session, async ({ client, config, logger, callOptions }) => {
    const viaSystemApi = action !== 'wipe' && hasSystemKey(config);
    checkDetails(action, options.countdown, options.message, viaSystemApi);
    const target = resolveTarget(config, options.id, options.server);
    if (viaSystemApi) {
      return withSystemClient(context, 'server', config, logger, (system) =>
        systemServerAction(context, system, target, action, { countdown: options.countdown, message: options.message }, options.timeout, callOptions),
      );
    }
    const stdin = context.stdin;
    if (action === 'wipe' && !options.yes && stdin !== undefined && atTerminal(context)) {
      const agreed = await confirmAtTerminal({ ...context, stdin }, `Wipe server ${target.label}? This cannot be undone.`);
      if (!agreed) throw new NotConfirmedError(`wipe of server ${target.label} not confirmed; nothing was sent (--yes skips the question)`);
    }
    try {
      const result = await client.serverAction(target.id, action, options.countdown, callOptions(`${action} of server ${target.label}`));
      const message = result.message.length > 0 ? `: ${result.message}` : '';
      context.stdout.write(`${action} server ${target.label}: accepted (${result.status})${message}\n`);
      return EXIT_OK;
    } catch (error) {
      if (error instanceof GsaError && error.maybeProcessed) {
        context.stderr.write(
          `note: no clear answer came, so the ${action} of server ${target.label} may have run anyway; check the server or the dashboard before sending it again\n`,
        );
      }
      if (error instanceof GsaError && error.code === 'unauthorized') {
        // The client's words name both causes; here they can name the flag and the key to check as well.
        const said = error.serviceMessage === undefined || error.serviceMessage === '' ? '' : ` (GSA said: ${error.serviceMessage})`;
        context.stderr.write(
          `error (unauthorized): GSA refused the server action for server id ${target.id} (401): either this server is not bound to these API keys in the GSA dashboard (check --id / servers[].id), or the client id and secret are wrong${said}\n`,
        );
        return EXIT_REFUSED;
      }
      throw error;
    }
  });
}
