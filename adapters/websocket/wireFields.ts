// The fields many mod protocol messages share (the request id, the player) and the wording of their errors, so the
// core messages (protocol.ts) and GSA's Mod API requests (modApiMessages.ts) check them alike. The names are a public
// contract: add fields, never rename or remove one.
// Must never do I/O, and never import protocol.ts or modApiMessages.ts (both import this).
import { z } from 'zod';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import { EOS_ID_PATTERN, STEAM_ID_PATTERN } from '../../src/ids/playerIds.js';

export const MAX_ID_LENGTH = 64;
export const MAX_NAME_LENGTH = 64;

// Error texts are built only when a frame is bad, so they cost nothing on the hot path.
export function requiredOr(expected: string) {
  return (issue: { readonly input?: unknown }) => (issue.input === undefined ? `required (${expected})` : `must be ${expected}`);
}

export const idSchema = z
  .string({ error: `must be a string of 1–${MAX_ID_LENGTH} characters` })
  .min(1, `must be a string of 1–${MAX_ID_LENGTH} characters`)
  .max(MAX_ID_LENGTH, `must be a string of 1–${MAX_ID_LENGTH} characters`);

export const playerSchema = z
  .object(
    {
      steam_id: z.string({ error: 'must be a string of 17 digits (a Steam64 id)' }).regex(STEAM_ID_PATTERN, 'must be 17 digits (a Steam64 id)').optional(),
      eos_id: z.string({ error: 'must be a string of 32 hexadecimal characters (an EOS id)' }).regex(EOS_ID_PATTERN, 'must be 32 hexadecimal characters (an EOS id)').optional(),
      name: z.string({ error: 'must be a string' }).max(MAX_NAME_LENGTH, `must be at most ${MAX_NAME_LENGTH} characters`).optional(),
    },
    { error: requiredOr('an object with steam_id and/or eos_id') },
  )
  .refine((player) => player.steam_id !== undefined || player.eos_id !== undefined, 'needs a steam_id or an eos_id');

/** A player on the wire: at least one of steam_id / eos_id; the name is for logs. */
export type ModPlayer = z.output<typeof playerSchema>;

/** The bridge's player for a player on the wire. */
export function toPlayerIdentity(player: ModPlayer): PlayerIdentity {
  return { steamId: player.steam_id, eosId: player.eos_id, name: player.name };
}

/** A player on the wire for the bridge's: a Mojang id has no wire field (mods send Steam or EOS ids). */
export function toModPlayer(player: PlayerIdentity): ModPlayer {
  return { steam_id: player.steamId, eos_id: player.eosId, name: player.name };
}
