// The rcon adapter's options (`"type": "rcon"`), owned here so the adapter type brings its own schema to the
// registry. Loose on purpose: profiles add their own keys (a Rust reply template, Squad's warn command).
// Must never read files or the environment, and never put an input value into a message (the password is a secret).
import { z } from 'zod';
import { adapterId, host, milliseconds, nonEmpty, port } from '../../src/validation/optionFields.js';

/** Games with an RCON profile. A new game is one entry here plus its profile file under adapters/rcon/profiles/. */
export const RCON_PROFILES = ['ark', 'squad', 'rust'] as const;
export type RconProfileName = (typeof RCON_PROFILES)[number];

export const rconOptionsSchema = z.looseObject({
  type: z.literal('rcon'),
  /** Stable identity in logs, metrics, readiness and the review journal. @default `<server>-rcon-<port>` */
  id: adapterId().optional(),
  profile: z.enum(RCON_PROFILES),
  /** @default '127.0.0.1' */
  host: host().default('127.0.0.1'),
  port: port(),
  password: nonEmpty(),
  /** @default 1000 */
  pollChatMs: milliseconds().default(1_000),
  /** @default 5000 */
  pollPlayersMs: milliseconds().default(5_000),
});

export type RconOptions = z.output<typeof rconOptionsSchema>;
