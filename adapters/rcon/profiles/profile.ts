// What a game profile is: data plus small parsers and command builders, in one file per game (ark.ts, squad.ts,
// rust.ts), composed into the game-neutral RCON adapter (never subclassed). This file holds the type only; the
// table of profiles is index.ts. Adding a game is one new profile file and one line in that table.

import type { RconTransport } from '../rconConnection.js';
import type { RconProfileName } from '../options.js';

export interface RconProfile {
  readonly name: RconProfileName;
  /** A read-only command the game always answers: `config check --connect` sends it once after the login. */
  readonly probeCommand: string;
  /** How the game speaks RCON, and the pace its server tolerates. */
  readonly transport: RconTransport;
}
