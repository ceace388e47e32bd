// `gsa-bridge unmute (--steam-id ID | --eos-id ID | --player UUID) [--note TEXT]`: lifts a player's mute through GSA's
// System API. As `mute`: a player GSA does not know, and a call within GSA's 120 s per player, are refusals (exit 1).
// It never takes or prints the key.

import type { CliContext } from './context.js';
import { CONFIG_OPTION, PRETTY_OPTION, TIMEOUT_OPTION, defineCommand, parseCommandLine } from './options.js';
import { runPlayerModeration } from './playerModeration.js';
import { SYSTEM_PLAYER_OPTIONS, playerChoice } from './systemPlayerOptions.js';

export const UNMUTE_COMMAND = defineCommand({
  name: 'unmute',
  synopsis: '(--steam-id ID | --eos-id ID | --player UUID) [--note TEXT] [--timeout SECONDS] [--config FILE] [--pretty]',
  summary: "lifts a player's mute through GSA's System API (needs api.system.key or GSA_SYSTEM_API_KEY)",
  details: [
    'GSA allows one mute or unmute per player every 120 s. Exit 0 accepted, 1 refused by the service (its message printed),',
    '2 on a usage or config error.',
  ],
  options: {
    ...SYSTEM_PLAYER_OPTIONS,
    note: { type: 'string', value: 'TEXT', description: "a note kept with the unmute on GSA's side", defaultText: 'none' },
    ...TIMEOUT_OPTION,
    ...CONFIG_OPTION,
    ...PRETTY_OPTION,
  },
});

export async function unmuteCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(UNMUTE_COMMAND, args);
  return runPlayerModeration(context, {
    action: 'unmute',
    choice: playerChoice(options),
    period: null,
    options,
    send: (system, uuid, call) => system.unmute(uuid, options.note, call),
  });
}
