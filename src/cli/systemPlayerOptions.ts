// The flags `mute` and `unmute` share: who the player is (a game id that players/find resolves, or GSA's uuid), and
// how the command resolves it. Parsing and one call; it prints nothing itself.

import type { CallOptions, SystemApiClient, SystemPlayerRef } from '../gsa/index.js';
import { UsageError } from './errors.js';
import type { OptionTable } from './options.js';

export const SYSTEM_PLAYER_OPTIONS = {
  'steam-id': { type: 'string', value: 'ID', description: "the player's SteamID64, found through GSA's players/find", defaultText: 'none; give one of --steam-id, --eos-id, --player' },
  'eos-id': { type: 'string', value: 'ID', description: "the player's Epic Online Services id, found through players/find", defaultText: 'none' },
  player: { type: 'string', value: 'UUID', description: "GSA's player uuid (no lookup)", defaultText: 'none' },
} as const satisfies OptionTable;

const UUID_LIKE = /^[A-Za-z0-9-]{1,64}$/;

export type PlayerChoice = { readonly uuid: string } | { readonly serviceId: string };

/** Exactly one of the three. */
export function playerChoice(options: { readonly 'steam-id': string | undefined; readonly 'eos-id': string | undefined; readonly player: string | undefined }): PlayerChoice {
  const given = [options['steam-id'], options['eos-id'], options.player].filter((value) => value !== undefined);
  if (given.length !== 1) throw new UsageError('give exactly one of --steam-id ID, --eos-id ID or --player UUID');
  if (options.player !== undefined) {
    if (!UUID_LIKE.test(options.player)) throw new UsageError(`--player must be GSA's player uuid (letters, digits and dashes), got "${options.player}"`);
    return { uuid: options.player };
  }
  const serviceId = (options['steam-id'] ?? options['eos-id'] ?? '').trim();
  if (serviceId === '') throw new UsageError('the player id must not be empty');
  return { serviceId };
}

/** The player's uuid (and name when players/find gave one): `--player` as given, else one players/find. */
export async function resolvePlayer(system: SystemApiClient, choice: PlayerChoice, options: CallOptions): Promise<SystemPlayerRef> {
  return 'uuid' in choice ? { uuid: choice.uuid } : system.findPlayer(choice.serviceId, options);
}

/** "player f47a… (Rex)". */
export function describePlayerRef(player: SystemPlayerRef): string {
  return player.name === undefined ? `player ${player.uuid}` : `player ${player.uuid} (${player.name})`;
}
