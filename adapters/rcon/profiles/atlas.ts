// Atlas runs ARK's engine and ARK's RCON: the same commands, player list, GetChat and game log, under its own
// name so a host's config says which game it is. Its GetChat and log formats are unconfirmed (no real capture
// found: reference/games.md); lines that do not match are logged at debug level as "not understood".
import { arkProfile } from './ark.js';
import type { RconProfile } from './profile.js';

export const atlasProfile: RconProfile = { ...arkProfile, name: 'atlas' };
