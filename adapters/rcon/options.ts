// The rcon adapter's options (`"type": "rcon"`: the game's own console, whatever its transport), owned here so the
// adapter type brings its own schema to the registry. Strict: an unknown key is a config error with a "did you
// mean", and a key that only other games read (ARK's `gsaMod` on a Rust adapter) is refused, naming the games that
// read it. What differs by game (a default port, which keys it reads, whether a log file is required) is asked of the
// profile table (each profile's `options` and `defaultPort`), never listed here.
// Must never read files or the environment, and never put an input value into a message (the password is a secret;
// a command template is not, and its problems are named).
import { z } from 'zod';
import { MAX_TIMER_MS, adapterId, countOrZero, host, integer, milliseconds, nonEmpty, port } from '../../src/validation/optionFields.js';
import { RUST_TEXT_RULES } from './commandText.js';
import { compileCommandTemplate } from './commandTemplate.js';
import { RconError } from './errors.js';
import { chatPatternProblem } from './reading/chatPattern.js';
import { RCON_PROFILES, RCON_PROFILE_TABLE, type RconProfileName } from './profiles/index.js';
import type { ProfileOptionKey } from './profiles/profile.js';

export { RCON_PROFILES, type RconProfileName };

/** A command template is checked once, here, so a bad one is a config error with its JSON path. */
const commandTemplate = (key: string, requireMessage: boolean) =>
  z.string().superRefine((template, ctx) => {
    try {
      compileCommandTemplate(template, key, RUST_TEXT_RULES, requireMessage);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: error instanceof RconError ? error.message : `is not a usable ${key} template` });
    }
  });

const rconFields = z.strictObject({
  type: z.literal('rcon'),
  /** Stable identity in logs, metrics, readiness and the review journal. @default `<server>-rcon-<port>` */
  id: adapterId().optional(),
  profile: z.enum(RCON_PROFILES),
  /** @default '127.0.0.1' */
  host: host().default('127.0.0.1'),
  /** The console's port. @default the profile's (7dtd: 8081); required for the others */
  port: port().optional(),
  password: nonEmpty(),
  /**
   * The game's log to read chat from (ark/atlas with `-servergamelog`; required for conan). A `*` in the last path
   * segment follows the newest matching file. Only lines written after the start are read. @default unset
   */
  logFile: z.string().min(1, 'must not be empty').refine((path) => !path.split(/[\\/]/).slice(0, -1).some((part) => part.includes('*')), 'may hold a * in its last path segment only').optional(),
  /**
   * A chat plugin's line (EssentialsX Chat, LuckPerms prefixes, VentureChat): a regular expression (RE2 syntax) with
   * named groups `name` and `message` (optional `channel`), tried on log lines the profile's own reader did not read
   * as chat. Profiles that read log lines only. Compiled at load; linear time per line. @default unset
   */
  chatPattern: z
    .string()
    .superRefine((source, ctx) => {
      const problem = chatPatternProblem(source);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    })
    .optional(),
  /** ark/atlas: GameServerApp's ASA mod is installed; a muted speaker is muted in game by the mod. @default false */
  gsaMod: z.boolean().optional(),
  /**
   * ark/atlas without logFile: how often GetChat is polled (the other games push chat or write a log). No schema
   * default: the transform below sets it for the profiles that read it. @default 1000
   */
  pollChatMs: milliseconds().optional(),
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
   * A mod's or plugin's private-message command, as a template with {steamId}, {eosId}, {playerId}, {name},
   * {entityId} and {message} ({message} required), e.g. `pm {steamId} "{message}"`. Used where the game has no
   * private message of its own (rust, conan, 7dtd). @default unset
   */
  notifyCommand: commandTemplate('notifyCommand', true).optional(),
  /** A template that makes the game itself silence a muted player (same placeholders; {message} optional). @default unset */
  muteCommand: commandTemplate('muteCommand', false).optional(),
  /** A template that lifts it when the service says the mute is over. @default unset */
  unmuteCommand: commandTemplate('unmuteCommand', false).optional(),
  /**
   * How a player is removed (access at the door, kickAfterAlerts): a template with the same placeholders ({message},
   * GSA's reason, optional), e.g. `kickplayer platformid {steamId} {message}`. Replaces the profile's kick; the only
   * kick on conan. A {name} must reach the game unchanged (else that player is not kicked): quote it in the
   * template when names may hold spaces. @default unset (the profile's kick)
   */
  kickCommand: commandTemplate('kickCommand', false).optional(),
  /**
   * Repeat offenders: after this many alerts to one muted player (each at most one per alertCooldownMs), the
   * adapter's kick runs with the alert as the reason (kickCommand, else ark `KickPlayer`, squad `AdminKick`, rust
   * `kick`, 7dtd `kick`, minecraft `kick`), and the count starts again. 0: never. @default 0
   */
  kickAfterAlerts: countOrZero().default(0),
});

/** What each game-specific key is for, said when a profile that does not read it finds it. */
const KEY_PURPOSE: Readonly<Record<ProfileOptionKey, string>> = {
  logFile: 'the game log that chat is read from',
  chatPattern: "a chat plugin's line format in a game's log",
  gsaMod: "GameServerApp's ASA mod",
  pollChatMs: "the pace of ARK's GetChat",
  enforceMute: "Rust's own mute",
};

/** The profiles that read `key`, for the message that refuses it elsewhere. */
function profilesReading(key: ProfileOptionKey): string {
  const names = RCON_PROFILES.filter((name) => RCON_PROFILE_TABLE[name].options[key] !== undefined);
  return `${names.length === 1 ? 'profile' : 'profiles'} ${names.join(', ')}`;
}

/** What the profile says about the options: which game-specific keys it reads, and which it requires. */
function checkAgainstProfile(options: z.output<typeof rconFields>, ctx: z.RefinementCtx): void {
  const profile = RCON_PROFILE_TABLE[options.profile];
  for (const key of Object.keys(KEY_PURPOSE) as ProfileOptionKey[]) {
    const reads = profile.options[key];
    if (options[key] !== undefined && reads === undefined) {
      const why = key === 'logFile' ? `: its chat comes from its console; remove logFile` : ` (it is ${KEY_PURPOSE[key]}, read by ${profilesReading(key)})`;
      ctx.addIssue({ code: 'custom', path: [key], message: `is not read by profile ${options.profile}${why}` });
    }
    if (options[key] === undefined && reads === 'required') {
      // Only a log file is ever required: the game writes its chat nowhere else.
      const where = `its log file (${profile.chat.logFile?.example ?? 'the game log'})`;
      ctx.addIssue({ code: 'custom', path: [key], message: `is required for profile ${options.profile}: its chat is only written to ${where}` });
    }
  }
  // A pattern reads log lines: ARK's chat comes as lines only from its game log, not from GetChat's answers.
  if (options.chatPattern !== undefined && profile.options.chatPattern !== undefined && options.logFile === undefined && profile.chat.console?.kind !== 'stream') {
    ctx.addIssue({ code: 'custom', path: ['chatPattern'], message: `is tried on the lines of the game log only: set logFile too (${profile.chat.logFile?.example ?? 'the game log'})` });
  }
}

/** A known profile with no default port needs one; said beside the other fields' problems, not after them. */
function portMissing(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const { profile, port } = value as { profile?: unknown; port?: unknown };
  return typeof profile === 'string' && profile in RCON_PROFILE_TABLE && port === undefined && RCON_PROFILE_TABLE[profile as RconProfileName].defaultPort === undefined;
}

export const rconOptionsSchema = rconFields
  .refine((options) => !portMissing(options), { path: ['port'], message: "required (the game's console port)", when: (payload) => portMissing(payload.value) })
  .superRefine(checkAgainstProfile)
  .transform((options) => ({
    ...options,
    // Checked above: a profile without a default port has one from the file.
    port: options.port ?? RCON_PROFILE_TABLE[options.profile].defaultPort ?? 0,
    // Shown in the effective config of the games that read it only.
    ...(RCON_PROFILE_TABLE[options.profile].options.pollChatMs === undefined ? {} : { pollChatMs: options.pollChatMs ?? 1_000 }),
  }));
export type RconOptions = z.output<typeof rconOptionsSchema>;
