// The rcon adapter's options (`"type": "rcon"`), owned here so the adapter type brings its own schema to the
// registry. Loose on purpose: profiles add their own keys (a Rust reply template, Squad's warn command).
// Must never read files or the environment, and never put an input value into a message (the password is a secret;
// a notifyCommand template is not, and its problems are named).
import { z } from 'zod';
import { MAX_TIMER_MS, adapterId, countOrZero, host, integer, milliseconds, nonEmpty, port } from '../../src/validation/optionFields.js';
import { compileNotifyTemplate } from './commandText.js';
import { RconError } from './errors.js';

/** Games with an RCON profile. A new game is one entry here plus its profile file under adapters/rcon/profiles/. */
export const RCON_PROFILES = ['ark', 'squad', 'rust'] as const;
export type RconProfileName = (typeof RCON_PROFILES)[number];

/** A notifyCommand template is checked once, here, so a bad one is a config error with its JSON path. */
const notifyTemplate = () =>
  z.string().superRefine((template, ctx) => {
    try {
      compileNotifyTemplate(template);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof RconError ? error.message : 'is not a usable notifyCommand template' });
    }
  });

export const rconOptionsSchema = z.looseObject({
  type: z.literal('rcon'),
  /** Stable identity in logs, metrics, readiness and the review journal. @default `<server>-rcon-<port>` */
  id: adapterId().optional(),
  profile: z.enum(RCON_PROFILES),
  /** @default '127.0.0.1' */
  host: host().default('127.0.0.1'),
  port: port(),
  password: nonEmpty(),
  /** ark: how often GetChat is polled (squad and rust push chat). @default 1000 */
  pollChatMs: milliseconds().default(1_000),
  /** How often the player list is read (joins, leaves, names to ids). @default 5000 */
  pollPlayersMs: milliseconds().default(5_000),
  /** One command's answer. @default 5000 */
  commandTimeoutMs: milliseconds().default(5_000),
  /**
   * A muted player who keeps talking is answered (alert, Rust mute) at most once per this period; 0 answers every
   * line. @default 30000
   */
  alertCooldownMs: integer(0, MAX_TIMER_MS, `must be 0 or a positive integer (milliseconds, at most ${MAX_TIMER_MS})`).default(30_000),
  /**
   * rust: mute a muted speaker with the server's own `mute` (and `unmute` when the mute ends). Ignored by games
   * without a mute of their own. No schema default (the adapter reads unset as true), so other profiles' effective
   * config does not show a key that means nothing to them. @default true
   */
  enforceMute: z.boolean().optional(),
  /**
   * rust: a plugin's private-message command, as a template with {steamId}, {name} and {message} ({message}
   * required), e.g. `pm {steamId} "{message}"`. Unset: the rust adapter cannot tell a player anything. @default unset
   */
  notifyCommand: notifyTemplate().optional(),
  /**
   * Repeat offenders: after this many alerts to one muted player (each at most one per alertCooldownMs), the
   * profile's kick command runs with the alert as the reason (ark `KickPlayer`, squad `AdminKick`, rust `kick`),
   * and the count starts again. 0: never. @default 0
   */
  kickAfterAlerts: countOrZero().default(0),
});
export type RconOptions = z.output<typeof rconOptionsSchema>;
