// The table of game profiles, by the `profile` value of an rcon adapter's config. The profile names (and so the
// config's `profile` enum) come from this table alone: adding a game is its profile file and one line here.

import { arkProfile } from './ark.js';
import { atlasProfile } from './atlas.js';
import { conanProfile } from './conan.js';
import { minecraftProfile } from './minecraft.js';
import type { RconProfile } from './profile.js';
import { rustProfile } from './rust.js';
import { sevenDaysProfile } from './sevenDays.js';
import { squadProfile } from './squad.js';

export type { RconProfile } from './profile.js';

export const RCON_PROFILE_TABLE = {
  ark: arkProfile,
  atlas: atlasProfile,
  squad: squadProfile,
  rust: rustProfile,
  conan: conanProfile,
  '7dtd': sevenDaysProfile,
  minecraft: minecraftProfile,
} as const satisfies Readonly<Record<string, RconProfile>>;

/** Games with a profile. */
export type RconProfileName = keyof typeof RCON_PROFILE_TABLE;
export const RCON_PROFILES = Object.keys(RCON_PROFILE_TABLE) as [RconProfileName, ...RconProfileName[]];
