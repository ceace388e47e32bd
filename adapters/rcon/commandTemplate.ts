// The host's own command templates (`notifyCommand`, `muteCommand`, `unmuteCommand`): a mod's or plugin's command
// that a game lacks (Rust and Conan have no private message, 7 Days to Die needs a server mod's `pm`), written in
// the config with placeholders the adapter fills for one player. Checked once at load, expanded per message.
// The template is the host's text, yet it is checked like hostile text, so a typo cannot chain a second command;
// every value put into it is hostile (a name, the service's alert) and is validated or cleaned for the game.
// Must never expand a placeholder whose value is missing or invalid (it throws, and then no command exists), and
// never produce a control character, an unbalanced quote or a command separator.
import { RUST_TEXT_RULES, cleanCommandText, requirePlayerId, type CommandTextRules } from './commandText.js';
import { checkPlayerId as checkAnyPlayerId } from '../../src/ids/playerIds.js';
import { InvalidCommandTemplateError, InvalidPlayerIdError, UnaddressableNameError } from './errors.js';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import type { ListedPlayer } from './profiles/parsedLines.js';

/** Every placeholder a template may use (interfaces.md, "Game adapters"). */
export const TEMPLATE_PLACEHOLDERS = ['steamId', 'eosId', 'playerId', 'name', 'entityId', 'message'] as const;
export type TemplatePlaceholder = (typeof TEMPLATE_PLACEHOLDERS)[number];

/** The values one player (and one message) give a template; a placeholder the template uses must have its value. */
export interface TemplateValues {
  readonly steamId?: string | undefined;
  readonly eosId?: string | undefined;
  /** The id the game's own player list shows (7 Days to Die `Steam_…` / `XBL_…`; Minecraft the Mojang UUID; elsewhere the Steam64 or EOS id). */
  readonly playerId?: string | undefined;
  readonly name?: string | undefined;
  /** 7 Days to Die's entity id (`lp`'s `id=`). */
  readonly entityId?: number | undefined;
  readonly message?: string | undefined;
}

export interface CommandTemplate {
  /** The placeholders the template uses, so a caller knows which values it must have. */
  readonly placeholders: ReadonlySet<TemplatePlaceholder>;
  /** The command for these values. @throws InvalidPlayerIdError when an id it uses is missing or invalid. */
  expand(values: TemplateValues): string;
}

const PLACEHOLDER = /\{([^{}]*)\}/g;
/** An engine's entity number (7 Days to Die `id=171`). */
const ENTITY_ID = /^\d{1,10}$/;
const NAME_FALLBACK = 'player';

function idOrThrow(value: string | undefined, pattern: RegExp): string {
  if (value === undefined || !pattern.test(value)) throw new InvalidPlayerIdError(['steam', 'eos'], value?.length ?? 0);
  return value;
}

/**
 * The game's own id: a 7 Days to Die platform id (`Steam_…`, `XBL_…`), a Steam64, an EOS id or a Mojang UUID
 * (Minecraft; last, so 32 bare hex digits stay an EOS id; dashed, as the adapter holds it, it cannot be one).
 */
function playerIdOrThrow(value: string | undefined): string {
  const valid = checkAnyPlayerId(value ?? '', ['7dtd', 'steam', 'eos', 'mojang']);
  if (valid === undefined) throw new InvalidPlayerIdError(['steam', 'eos'], value?.length ?? 0);
  return valid.id;
}

/** How a template's values are placed, beyond the checks every template gets. */
export interface TemplateCompileOptions {
  /**
   * `{name}` must address exactly the player (a kick must never reach a namesake): a name the cleaning would change is
   * refused, and so is a name holding a space where the template puts `{name}` outside quotes (the game would take
   * the rest as another argument). UnaddressableNameError, and no command. @default false (a message may go astray)
   */
  readonly exactName?: boolean | undefined;
}

/**
 * Checks a template once (at config load) and returns its expander:
 * - only the placeholders in TEMPLATE_PLACEHOLDERS (each may appear more than once); `{message}` when `requireMessage`;
 * - no control characters, `|`, `;`, `//` or a lone brace outside the placeholders, and balanced `"`;
 * - at least one placeholder that addresses a player (an id or the name).
 * On expansion ids are validated (never cleaned); `{name}` and `{message}` are cleaned with the game's rules, so
 * they hold no `"` and can sit inside the template's own quotes or bare.
 * @param key the config key, named in every message (the template is config, not a secret).
 * @throws InvalidCommandTemplateError naming what is wrong.
 */
export function compileCommandTemplate(template: string, key: string, rules: CommandTextRules, requireMessage: boolean, options: TemplateCompileOptions = {}): CommandTemplate {
  const used = [...template.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
  const unknown = used.filter((name) => !(TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name));
  const known = TEMPLATE_PLACEHOLDERS.map((name) => `{${name}}`).join(', ');
  if (unknown.length > 0) {
    throw new InvalidCommandTemplateError(`${key} has unknown placeholder(s) ${unknown.map((name) => `{${name}}`).join(', ')}; use ${known}`);
  }
  const placeholders = new Set(used as TemplatePlaceholder[]);
  if (requireMessage && !placeholders.has('message')) throw new InvalidCommandTemplateError(`${key} must contain {message}`);
  const literal = template.replace(PLACEHOLDER, '');
  if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(literal)) throw new InvalidCommandTemplateError(`${key} must be one line without control characters`);
  if (/[|;{}]|\/\//.test(literal)) throw new InvalidCommandTemplateError(`${key} must not contain |, ;, // or a lone brace (one command only)`);
  if ((literal.match(/"/g)?.length ?? 0) % 2 !== 0) throw new InvalidCommandTemplateError(`${key} has an unbalanced "`);
  if (literal.trim().length === 0) throw new InvalidCommandTemplateError(`${key} must start with a command word`);
  if (![...placeholders].some((name) => name !== 'message')) {
    throw new InvalidCommandTemplateError(`${key} must address the player: use {steamId}, {eosId}, {playerId}, {entityId} or {name}`);
  }

  const exactName = options.exactName === true && placeholders.has('name');
  const bareName = exactName && nameOutsideQuotes(template);

  return {
    placeholders,
    expand(values) {
      if (exactName) checkExactName(values.name ?? '', rules, bareName);
      // Every value is computed (and validated) before any is placed, so a bad id builds no partial command.
      const filled: Record<TemplatePlaceholder, string> = {
        steamId: placeholders.has('steamId') ? requirePlayerId(values.steamId ?? '', ['steam']).id : '',
        eosId: placeholders.has('eosId') ? requirePlayerId(values.eosId ?? '', ['eos']).id : '',
        playerId: placeholders.has('playerId') ? playerIdOrThrow(values.playerId) : '',
        entityId: placeholders.has('entityId') ? idOrThrow(values.entityId === undefined ? undefined : String(values.entityId), ENTITY_ID) : '',
        name: cleanCommandText(values.name ?? '', { ...rules, fallback: NAME_FALLBACK }),
        message: cleanCommandText(values.message ?? '', rules),
      };
      const command = template.replace(PLACEHOLDER, (_whole, name: TemplatePlaceholder) => filled[name]);
      // A cleaned value may start or end with `/`, and the template may put a `/` beside it: break the pair here.
      return command.replace(/\/(?=\/)/g, '/ ');
    },
  };
}

/** Whether some `{name}` of the template stands outside a pair of the template's own quotes. */
function nameOutsideQuotes(template: string): boolean {
  let quoted = false;
  for (let index = 0; index < template.length; index++) {
    if (template[index] === '"') quoted = !quoted;
    else if (!quoted && template.startsWith('{name}', index)) return true;
  }
  return false;
}

/** A name that reaches the game exactly as the player list printed it, as one argument; else UnaddressableNameError. */
function checkExactName(name: string, rules: CommandTextRules, bare: boolean): void {
  const cleaned = cleanCommandText(name, { ...rules, maxLength: Math.max(rules.maxLength, name.length), fallback: NAME_FALLBACK });
  if (name.length === 0 || cleaned !== name || (bare && /\s/.test(name))) throw new UnaddressableNameError(name.length);
}

/**
 * The values a template takes for one player: the ids and name the caller has, completed from the game's player
 * list (`listed`: the game's own platform id and entity id come only from there).
 */
export function templateValuesOf(player: PlayerIdentity, listed: ListedPlayer | undefined, message: string): TemplateValues {
  return {
    steamId: player.steamId ?? listed?.steamId,
    eosId: player.eosId ?? listed?.eosId,
    playerId: listed?.platformId ?? player.steamId ?? player.eosId ?? player.mojangId ?? listed?.mojangId,
    name: player.name ?? listed?.name,
    entityId: listed?.entityId,
    message,
  };
}

/** The values a notifyCommand of the first form (`{steamId}`, `{name}`, `{message}`) takes. */
export interface NotifyValues {
  readonly steamId: string;
  readonly name?: string | undefined;
  readonly message: string;
}
export type NotifyCommand = (values: NotifyValues) => string;

/** A `notifyCommand` (`{message}` required), with Rust's text rules unless told otherwise. */
export function compileNotifyTemplate(template: string, rules: CommandTextRules = RUST_TEXT_RULES): NotifyCommand {
  const compiled = compileCommandTemplate(template, 'notifyCommand', rules, true);
  return (values) => compiled.expand(values);
}
