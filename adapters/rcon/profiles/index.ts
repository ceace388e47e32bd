// The table of game profiles, by the `profile` value of an rcon adapter's config. The compiler insists on one
// entry per name in RCON_PROFILES (options.ts).

import type { RconProfileName } from '../options.js';
import { arkProfile } from './ark.js';
import type { RconProfile } from './profile.js';
import { rustProfile } from './rust.js';
import { squadProfile } from './squad.js';

export type { RconProfile } from './profile.js';

export const RCON_PROFILE_TABLE: { readonly [Name in RconProfileName]: RconProfile } = {
  ark: arkProfile,
  squad: squadProfile,
  rust: rustProfile,
};
