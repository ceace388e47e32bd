// The fields the report journal and the money ledger share: a player's ids as the mod protocol names them
// (steam_id, eos_id, mojang_id, name, so a person recognises them), and the record's version, id and time.
// Pure: how a field is written and read back, never a file.
// Must never rename or drop a field a file written by an earlier version carries.

import { z } from 'zod';
import type { PlayerIdentity } from '../bridge/port.js';

export const recordVersion = z.literal(1);
export const recordId = z.string().min(1).max(200);
export const recordTime = z.number().int().nonnegative();

export const playerRecord = z
  .object({
    steam_id: z.string().min(1).optional(),
    eos_id: z.string().min(1).optional(),
    mojang_id: z.string().min(1).optional(),
    name: z.string().optional(),
  })
  .refine((player) => player.steam_id !== undefined || player.eos_id !== undefined || player.mojang_id !== undefined, {
    message: 'needs a steam_id, an eos_id or a mojang_id',
  });

export type PlayerRecord = z.infer<typeof playerRecord>;

/** Copied field by field: what is stored is exactly what the caller gave, whatever it does with its object later. */
export function toPlayerRecord(player: PlayerIdentity): PlayerRecord {
  return {
    ...(player.steamId === undefined ? {} : { steam_id: player.steamId }),
    ...(player.eosId === undefined ? {} : { eos_id: player.eosId }),
    ...(player.mojangId === undefined ? {} : { mojang_id: player.mojangId }),
    ...(player.name === undefined ? {} : { name: player.name }),
  };
}

export function toPlayerIdentity(record: PlayerRecord): PlayerIdentity {
  return {
    ...(record.steam_id === undefined ? {} : { steamId: record.steam_id }),
    ...(record.eos_id === undefined ? {} : { eosId: record.eos_id }),
    ...(record.mojang_id === undefined ? {} : { mojangId: record.mojang_id }),
    ...(record.name === undefined ? {} : { name: record.name }),
  };
}

/** The id a person looks a player up by: Steam, else EOS, else Mojang. */
export function playerLabel(player: PlayerIdentity): string {
  return player.steamId ?? player.eosId ?? player.mojangId ?? '?';
}

/** A line ending in a newline. JSON.stringify escapes every control character, so a raw newline only ever ends a record. */
export function jsonLine(record: object): string {
  return `${JSON.stringify(record)}\n`;
}
