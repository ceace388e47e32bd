// `gsa-bridge mute-check --server NAME (--steam-id ID | --eos-id ID | both) [--lookup-ids RULE]`: one mute check,
// JSON on stdout, naming the id GSA was asked by (`asked`). Given both ids it asks as the running sidecar would for
// that server: by --lookup-ids, else the config's servers[].lookupIds for --server, else steam-first (lookupIds.ts,
// the one rule), so its answer and the sidecar's verdict agree.
// Exit 0 whenever the service answered, muted or not; the JSON says which.

import { DEFAULT_LOOKUP_IDS, LOOKUP_ID_RULES, askByEach, askedFields, idsToAsk, type LookupIdRule } from '../bridge/lookupIds.js';
import type { MuteStatus } from '../gsa/index.js';
import { validateMuteCheck } from '../gsa/client/validation.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK } from './exitCodes.js';
import { CONFIG_OPTION, PLAYER_OPTIONS, PRETTY_OPTION, TIMEOUT_OPTION, defineCommand, parseCommandLine } from './options.js';
import { withServiceSession } from './serviceSession.js';

export const MUTE_CHECK_COMMAND = defineCommand({
  name: 'mute-check',
  synopsis: '--server NAME (--steam-id ID | --eos-id ID | both) [--lookup-ids RULE] [--timeout SECONDS] [--config FILE] [--pretty]',
  summary: 'one mute check, JSON on stdout',
  details: [
    'The JSON names the id GSA was asked by ("asked") and, when muted, the one that said so ("muted_by").',
    'Given both ids, GSA is asked as the sidecar asks for that server: by --lookup-ids, else servers[].lookupIds, else steam-first.',
    'Exit 0 when the service answered (muted or not), 1 when it refused or could not be reached, 2 on a usage or config error.',
  ],
  options: {
    server: { type: 'string', value: 'NAME', required: true, description: 'the GSA container name, as in the config' },
    ...PLAYER_OPTIONS,
    'lookup-ids': {
      type: 'string',
      value: 'RULE',
      choices: LOOKUP_ID_RULES,
      description: 'with both ids: which GSA is asked by (steam-first, eos-first, or both: muted when either is, two calls)',
      defaultText: "the config's servers[].lookupIds for --server, else steam-first",
    },
    ...TIMEOUT_OPTION,
    ...CONFIG_OPTION,
    ...PRETTY_OPTION,
  },
});

export async function muteCheckCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(MUTE_CHECK_COMMAND, args);
  const server = options.server;
  const steamId = options['steam-id'];
  const eosId = options['eos-id'];
  if (steamId === undefined && eosId === undefined) throw new UsageError('give --steam-id ID, --eos-id ID, or both');
  return withServiceSession(context, { configPath: options.config, pretty: options.pretty, timeoutSeconds: options.timeout }, async ({ client, config, callOptions }) => {
    // Each id given is checked, also one the rule will not ask by: a typo is an error, not silently ignored.
    if (steamId !== undefined) validateMuteCheck(server, { steamId });
    if (eosId !== undefined) validateMuteCheck(server, { eosId });
    const rule = (options['lookup-ids'] as LookupIdRule | undefined) ?? config.servers.find((entry) => entry.name === server)?.lookupIds ?? DEFAULT_LOOKUP_IDS;
    const asked = idsToAsk({ steamId, eosId }, rule);
    // One call's options for every id asked: they share the command's one deadline.
    const call = callOptions('mute check');
    const answers: MuteStatus[] = [];
    const answer = await askByEach(asked, async (player) => {
      const status = await client.checkMuted(server, player, call);
      answers.push(status);
      return status;
    });
    // An id not given may come back in GSA's answer (it knows the player by both): shown, as before.
    const output = {
      server,
      steam_id: steamId ?? answers.find((status) => status.steamId !== null)?.steamId ?? null,
      eos_id: eosId ?? answers.find((status) => status.eosId !== null)?.eosId ?? null,
      muted: answer.muted,
      alert: answer.alert,
      asked: askedFields(asked),
      muted_by: answer.mutedBy === undefined ? null : askedFields([answer.mutedBy]),
      lookup_ids: rule,
    };
    context.stdout.write(`${JSON.stringify(output)}\n`);
    return EXIT_OK;
  });
}
