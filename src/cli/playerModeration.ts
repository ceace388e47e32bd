// One mute or unmute as the `mute` and `unmute` commands run it: the System API session, the player's uuid
// (players/find unless --player), GSA's 120 s per player checked against --timeout before anything is sent, the call,
// its line on stdout, the step written to the moderation log whatever the outcome, and, once GSA accepted, the
// sidecar running on the same data directory told (hostMuteControl.ts). Each command brings only its own call. It
// never takes or prints the key.

import type { PlayerIdentity } from '../bridge/port.js';
import type { CallOptions, SystemApiClient, SystemReceipt } from '../gsa/index.js';
import { GSA_PLAYER_COOLDOWN_MS } from '../gsa/dialects/systemApiV2.js';
import type { ModerationResult } from '../moderation/moderationLog.js';
import { recordCommandStep, recordingFailure } from './commandModerationRecord.js';
import type { CliContext } from './context.js';
import { EXIT_OK, EXIT_REFUSED } from './exitCodes.js';
import { commandPlayerIds, tellRunningSidecar } from './hostMuteControl.js';
import { cooldownPastDeadline, withSystemSession } from './systemSession.js';
import { describePlayerRef, resolvePlayer, type PlayerChoice } from './systemPlayerOptions.js';

export interface PlayerModeration {
  readonly action: 'mute' | 'unmute';
  readonly choice: PlayerChoice;
  /** As the moderation log shows it: the period code, the end date, `permanent`; null for unmute. */
  readonly period: string | null;
  readonly options: { readonly config: string | undefined; readonly pretty: boolean; readonly timeout: number };
  /** The command's own call, for the player's uuid. */
  send(system: SystemApiClient, uuid: string, call: CallOptions): Promise<SystemReceipt>;
}

export function runPlayerModeration(context: CliContext, moderation: PlayerModeration): Promise<number> {
  const { action, choice, options } = moderation;
  return withSystemSession(context, action, { configPath: options.config, pretty: options.pretty, timeoutSeconds: options.timeout }, async ({ system, callOptions, config }) => {
    const step = { action, player: 'uuid' in choice ? choice.uuid : choice.serviceId, period: moderation.period };
    const record = (result: ModerationResult, answer: string): Promise<void> => recordCommandStep(context, config.reviews.dataDir, step, result, answer);
    const deadlineAt = Date.now() + options.timeout * 1000;
    const call = callOptions(action);
    const player = await recordingFailure(record, () => resolvePlayer(system, choice, call));
    const late = cooldownPastDeadline({ kind: 'player', uuid: player.uuid }, GSA_PLAYER_COOLDOWN_MS, await system.playerFreeAt(player.uuid), deadlineAt, options.timeout);
    if (late !== undefined) {
      context.stderr.write(`error (cooldown): ${late}\n`);
      await record('refused', late);
      return EXIT_REFUSED;
    }
    const receipt = await recordingFailure(record, () => moderation.send(system, player.uuid, call));
    await record('ok', receipt.message);
    context.stdout.write(`${action} ${describePlayerRef(player)}: accepted (${receipt.status}): ${receipt.message}\n`);
    // GSA took it: the sidecar on this data directory applies it to the player's next line, not after its cache's TTL.
    // A uuid (--player) names no game id: GSA's player record lists them, read only when a sidecar is there to tell.
    const serviceId = 'serviceId' in choice ? choice.serviceId : undefined;
    const ids = async (): Promise<PlayerIdentity | undefined> => commandPlayerIds(serviceId, serviceId === undefined ? await system.player(player.uuid, call) : player);
    await tellRunningSidecar(context, config.reviews.dataDir, ids, action === 'mute');
    return EXIT_OK;
  });
}
