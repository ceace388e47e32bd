// `gsa-bridge unmute (--steam-id ID | --eos-id ID | --player UUID) [--note TEXT]`: lifts a player's mute through GSA's
// System API. As `mute`: a player GSA does not know, and a call within GSA's 120 s per player, are refusals (exit 1).
// It never takes or prints the key.

import { GSA_PLAYER_COOLDOWN_MS } from '../gsa/dialects/systemApiV2.js';
import type { CliContext } from './context.js';
import { EXIT_OK, EXIT_REFUSED } from './exitCodes.js';
import { CONFIG_OPTION, PRETTY_OPTION, TIMEOUT_OPTION, defineCommand, parseCommandLine } from './options.js';
import { cooldownPastDeadline, withSystemSession } from './systemSession.js';
import { recordCommandStep, recordingFailure, type CommandStep } from './commandModerationRecord.js';
import type { ModerationResult } from '../moderation/moderationLog.js';
import { SYSTEM_PLAYER_OPTIONS, describePlayerRef, playerChoice, resolvePlayer } from './systemPlayerOptions.js';

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
  const choice = playerChoice(options);
  return withSystemSession(context, 'unmute', { configPath: options.config, pretty: options.pretty, timeoutSeconds: options.timeout }, async ({ system, callOptions, config }) => {
    const step: CommandStep = { action: 'unmute', player: 'uuid' in choice ? choice.uuid : choice.serviceId, period: null };
    const record = (result: ModerationResult, answer: string): Promise<void> => recordCommandStep(context, config.reviews.dataDir, step, result, answer);
    const deadlineAt = Date.now() + options.timeout * 1000;
    const call = callOptions('unmute');
    const player = await recordingFailure(record, () => resolvePlayer(system, choice, call));
    const late = cooldownPastDeadline({ kind: 'player', uuid: player.uuid }, GSA_PLAYER_COOLDOWN_MS, await system.playerFreeAt(player.uuid), deadlineAt, options.timeout);
    if (late !== undefined) {
      context.stderr.write(`error (cooldown): ${late}\n`);
      await record('refused', late);
      return EXIT_REFUSED;
    }
    const receipt = await recordingFailure(record, () => system.unmute(player.uuid, options.note, call));
    await record('ok', receipt.message);
    context.stdout.write(`unmute ${describePlayerRef(player)}: accepted (${receipt.status}): ${receipt.message}\n`);
    return EXIT_OK;
  });
}
