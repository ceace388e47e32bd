// The one gate between hostile text and a game command line. Every string an RCON profile places into a command
// (the service's alert, a player's name, a review confirmation, an id) passes through here first; the command
// builders of the three games live here too, so no profile concatenates a command by hand.
// What the game's console does with the line is the threat: Unreal (ARK, Squad) splits commands on `|` outside
// quotes, starts a comment at `//` and ends the line at CR/LF; Source splits on `;` outside quotes; `"` toggles
// quoting in both (reference/game-rcon.md "Injection"). So ids are validated, never cleaned, and free text is
// reduced to characters that cannot start a second command, end the line, close a quote or hide the rest.
// Must never produce an empty argument, a control character, an unbalanced quote, or a command for an invalid id;
// never throws for hostile text (only for an invalid id or an invalid template, with a specific error).
import { checkPlayerId as checkAnyPlayerId } from '../../src/ids/playerIds.js';
import { InvalidPlayerIdError, UnaddressableNameError } from './errors.js';

/** How one game wants its free text. Which characters are dangerous is the same union for every game (see cleanCommandText). */
export interface CommandTextRules {
  /**
   * Longest text after cleaning, in code points (what a chat box counts). Longer text is cut; the cut never
   * splits a surrogate pair. Bounds: at least 1.
   */
  readonly maxLength: number;
  /**
   * Reduce the text to printable ASCII: accents are removed (é → e), a few letters and punctuation are
   * transliterated (ß → ss, “ → '), anything else is dropped. ARK's RCON has no Unicode: other characters reach
   * the chat box as `?`.
   */
  readonly asciiOnly: boolean;
  /** What a text that cleans to nothing becomes, so no command ever has an empty argument. Cleaned itself. */
  readonly fallback: string;
  /**
   * Drop `§` (Minecraft's formatting-code sign: `§k` obfuscates, colours could disguise an alert as a player's
   * words). In a host's template and in tellraw alike. @default false
   */
  readonly stripSectionSigns?: boolean | undefined;
  /**
   * Replace `@` with the fullwidth `＠`: Minecraft expands target selectors (`@a`, `@e[…]`) inside a command's
   * message argument sent from the console (`msg`, `say`, a plugin's), so an alert holding `@e` would list every
   * entity. tellraw's JSON text is not expanded, but one rule keeps every path alike. @default false
   */
  readonly breakSelectors?: boolean | undefined;
}

/**
 * ARK (ASE and ASA): no Unicode over RCON. ServerChatTo lines longer than a chat box are unreadable; 200 keeps a
 * line or two.
 */
export const ARK_TEXT_RULES: CommandTextRules = { maxLength: 200, asciiOnly: true, fallback: 'You are muted.' };
/** Squad: AdminWarn shows a centred box; Unicode works. */
export const SQUAD_TEXT_RULES: CommandTextRules = { maxLength: 240, asciiOnly: false, fallback: 'You are muted.' };
/** Rust: text only reaches a plugin's private-message command (notifyCommand); Unicode works. */
export const RUST_TEXT_RULES: CommandTextRules = { maxLength: 240, asciiOnly: false, fallback: 'You are muted.' };

/** 7 Days to Die: the console takes Unicode; a chat box shows about two lines. */
export const SEVEN_DAYS_TEXT_RULES: CommandTextRules = { maxLength: 200, asciiOnly: false, fallback: 'You are muted.' };

/**
 * Minecraft: `tellraw` shows a chat line to one player; Unicode works. The command line is one RCON packet, and the
 * vanilla server reads at most 1460 bytes of one: 200 code points of at most 4 UTF-8 bytes, JSON-escaped, fit.
 */
export const MINECRAFT_TEXT_RULES: CommandTextRules = { maxLength: 200, asciiOnly: false, fallback: 'You are muted.', stripSectionSigns: true, breakSelectors: true };
/**
 * A name a Minecraft command may carry: Java names (letters, digits, `_`, at most 16), and the `.` Floodgate puts
 * before Bedrock players' names. Nothing that starts a selector (`@`), quotes, spaces or a second argument.
 */
export const MINECRAFT_NAME_PATTERN = /^[A-Za-z0-9_.]{1,16}$/;

/** What a name becomes when nothing printable is left of it. */
const NAME_FALLBACK = 'player';

// ---------------------------------------------------------------------------------------------------------------
// Ids

export type PlayerIdKind = 'steam' | 'eos';

/** A player id checked against the one pattern each platform has; EOS ids are lowercased (ASA prints them so). */
export interface ValidPlayerId {
  readonly kind: PlayerIdKind;
  readonly id: string;
}

/** The id's kind, or undefined when it is neither; never throws. Whitespace around the id is not tolerated. */
export function checkPlayerId(id: string, accept: readonly PlayerIdKind[] = ['steam', 'eos']): ValidPlayerId | undefined {
  // The two kinds cannot both match one id, so the order of `accept` does not change the answer.
  return checkAnyPlayerId(id, accept);
}

/** checkPlayerId, or InvalidPlayerIdError. */
export function requirePlayerId(id: string, accept: readonly PlayerIdKind[] = ['steam', 'eos']): ValidPlayerId {
  const valid = checkPlayerId(id, accept);
  if (valid === undefined) throw new InvalidPlayerIdError(accept, id.length);
  return valid;
}

/**
 * The id a command should address for a player known by one or both ids: the first valid one in `prefer` order.
 * ASA's ServerChatTo takes the EOS id, ASE's the Steam64; Squad's AdminWarn takes either; Rust's mute a Steam64.
 */
export function commandPlayerId(
  player: { readonly steamId?: string | undefined; readonly eosId?: string | undefined },
  prefer: readonly PlayerIdKind[] = ['eos', 'steam'],
): ValidPlayerId {
  for (const kind of prefer) {
    const id = kind === 'steam' ? player.steamId : player.eosId;
    if (id !== undefined) {
      const valid = checkPlayerId(id, [kind]);
      if (valid !== undefined) return valid;
    }
  }
  const given = player.steamId ?? player.eosId ?? '';
  throw new InvalidPlayerIdError(prefer, given.length);
}

// ---------------------------------------------------------------------------------------------------------------
// Free text

/** Tabs and every line or paragraph break: a run of them becomes one space (the line must not end early). */
const BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;
/**
 * Controls (C0, DEL, C1), format characters (bidi overrides and isolates, zero-width joiners and spaces, BOM, soft
 * hyphen) and lone surrogates: invisible or reordering text, and NUL ends a C string inside the game.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}]/gu;
/** Spaces of every width, after the breaks became spaces. */
const SPACE_RUNS = /[\s\p{Zs}]+/gu;
const COMBINING_MARKS = /\p{M}/gu;
const NON_ASCII = /[^\x20-\x7e]/g;

/** Letters and punctuation that a plain NFKD + mark strip cannot bring to ASCII but a reader expects to survive. */
const ASCII_SPELLINGS: Readonly<Record<string, string>> = {
  ß: 'ss', ẞ: 'SS', æ: 'ae', Æ: 'AE', œ: 'oe', Œ: 'OE', ø: 'o', Ø: 'O', đ: 'd', Đ: 'D', ł: 'l', Ł: 'L', þ: 'th', Þ: 'Th',
  ð: 'd', Ð: 'D', ı: 'i', '‘': "'", '’': "'", '‚': "'", '‹': "'", '›': "'", '“': "'", '”': "'", '„': "'", '«': "'",
  '»': "'", '–': '-', '—': '-', '−': '-', '…': '...', '€': 'EUR', '£': 'GBP', '•': '*', '×': 'x',
};

/**
 * Free text made safe to place as the last argument of a game command, or inside quotes. Steps, in order (each
 * later step relies on the earlier ones):
 * 1. NFKC, so look-alikes become the characters the next steps catch (fullwidth `｜` `；` `＂` → `|` `;` `"`).
 * 2. Tabs and line/paragraph breaks (CR, LF, VT, FF, NEL, U+2028, U+2029) become a space; other controls (NUL,
 *    C0, DEL, C1), format characters (bidi overrides, zero-width) and lone surrogates disappear.
 * 3. With `asciiOnly`: accents stripped, a few letters spelled out, every other non-ASCII character dropped.
 * 4. `"` becomes `'` (a quote would toggle quoting); `\` becomes `/` (some console parsers escape with it, which
 *    could swallow a closing quote).
 * 5. `|` is dropped (Unreal's command separator); `;` becomes `,` (Source's command separator: defence in depth
 *    on every game, it costs a reader nothing).
 * 6. `//` is broken to `/ /` (a comment would hide the rest; after step 4 this also covers `\\`).
 * 7. Runs of spaces become one; the ends are trimmed.
 * 8. Cut to `maxLength` code points, trimmed again.
 * 9. Nothing left → `fallback` (itself cleaned the same way; a fallback that cleans to nothing becomes `-`).
 * Idempotent: cleaning cleaned text changes nothing.
 */
export function cleanCommandText(text: string, rules: CommandTextRules): string {
  const cleaned = cleanWithoutFallback(text, rules);
  if (cleaned.length > 0) return cleaned;
  const fallback = cleanWithoutFallback(rules.fallback, rules);
  return fallback.length > 0 ? fallback : '-';
}

function cleanWithoutFallback(text: string, rules: CommandTextRules): string {
  // Lone surrogates go before NFKC: normalize() keeps them, but the regexes below must see well-formed text.
  let out = text.replace(/\p{Cs}/gu, '').normalize('NFKC');
  out = out.replace(BREAKS, ' ').replace(INVISIBLE, '');
  if (rules.stripSectionSigns === true) out = out.replace(/\u00a7/g, '');
  // After NFKC (which would fold ＠ back to @), so cleaning cleaned text changes nothing.
  if (rules.breakSelectors === true) out = out.replace(/@/g, '\uff20');
  if (rules.asciiOnly) out = toAscii(out);
  out = out.replace(/"/g, "'").replace(/\\/g, '/');
  out = out.replace(/\|/g, '').replace(/;/g, ',');
  out = out.replace(/\/(?=\/)/g, '/ ');
  out = out.replace(SPACE_RUNS, ' ').trim();
  return cutToCodePoints(out, Math.max(1, Math.floor(rules.maxLength))).trim();
}

function toAscii(text: string): string {
  let out = '';
  for (const char of text.normalize('NFKD').replace(COMBINING_MARKS, '')) {
    out += ASCII_SPELLINGS[char] ?? char;
  }
  return out.replace(NON_ASCII, '');
}

/** The text cut to at most `max` code points, never inside a surrogate pair. */
export function cutToCodePoints(text: string, max: number): string {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    // The low half of a pair does not start a character; cutting before a high half keeps the pair whole.
    if (unit < 0xdc00 || unit > 0xdfff) {
      if (count === max) return text.slice(0, index);
      count++;
    }
  }
  return text;
}

/** A player name cleaned like free text (fallback `player`) and wrapped in double quotes, as one argument. */
export function quotedName(name: string, rules: CommandTextRules): string {
  return `"${cleanCommandText(name, { ...rules, fallback: NAME_FALLBACK })}"`;
}

// ---------------------------------------------------------------------------------------------------------------
// Command builders: one per game command the profiles send. Each validates the id first (InvalidPlayerIdError,
// and then no command exists) and cleans the text with the game's rules.

/** ARK (ASE Steam64, ASA EOS): a private chat line to one player. `ServerChatTo "<id>" <text>`. */
export function arkServerChatTo(id: string, text: string, rules: CommandTextRules = ARK_TEXT_RULES): string {
  const valid = requirePlayerId(id);
  return `ServerChatTo "${valid.id}" ${cleanCommandText(text, rules)}`;
}

/**
 * ARK: a private chat line to a player known only by name (a speaker not yet in the polled player list).
 * `ServerChatToPlayer "<name>" <text>`. The game matches the name as written, so a name the cleaning would change
 * (quotes, pipes, control characters, or any non-ASCII on ARK) cannot be addressed safely: the message would reach
 * nobody, or another player whose name is the cleaned form. Then UnaddressableNameError and no command.
 */
export function arkServerChatToPlayer(name: string, text: string, rules: CommandTextRules = ARK_TEXT_RULES): string {
  const cleaned = cleanCommandText(name, { ...rules, maxLength: Math.max(rules.maxLength, name.length), fallback: NAME_FALLBACK });
  if (cleaned !== name) throw new UnaddressableNameError(name.length);
  return `ServerChatToPlayer "${cleaned}" ${cleanCommandText(text, rules)}`;
}

/**
 * ASA with GameServerApp's official mod installed: sets the mod's mute flag, so the game itself drops the player's
 * chat (vanilla ARK has no chat mute). `scriptcommand gsamute <id> true|false <text>` (reference/game-rcon.md).
 * The id goes bare, as the mod documents it; it is validated, so it holds no space or separator.
 */
export function arkGsaMute(id: string, muted: boolean, text: string, rules: CommandTextRules = ARK_TEXT_RULES): string {
  const valid = requirePlayerId(id);
  // Lifting a mute shows nothing: the mod documents the message for a mute only (interfaces.md, "Game adapters").
  if (!muted) return `scriptcommand gsamute ${valid.id} false`;
  return `scriptcommand gsamute ${valid.id} true ${cleanCommandText(text, rules)}`;
}

/** Squad: a warning box on one player's screen. `AdminWarn "<id>" <text>` (EOS or Steam64, as SquadJS sends it). */
export function squadAdminWarn(id: string, text: string, rules: CommandTextRules = SQUAD_TEXT_RULES): string {
  const valid = requirePlayerId(id);
  return `AdminWarn "${valid.id}" ${cleanCommandText(text, rules)}`;
}

/** Rust: the server's own chat mute (the player must be online). `mute <steamid>`; Steam64 only. */
export function rustMute(steamId: string): string {
  return `mute ${requirePlayerId(steamId, ['steam']).id}`;
}

/** Rust: lifts the server's own chat mute. `unmute <steamid>`; Steam64 only. */
export function rustUnmute(steamId: string): string {
  return `unmute ${requirePlayerId(steamId, ['steam']).id}`;
}

/**
 * Minecraft: a red chat line to one player. `tellraw <name> {"text":"<alert>","color":"red"}`. The name must match
 * MINECRAFT_NAME_PATTERN as written (else UnaddressableNameError and no command: a name is never cleaned into another
 * player's). The text is cleaned with the game's rules (no line breaks, controls or quotes; MINECRAFT_TEXT_RULES also
 * drops `§` formatting codes), and the JSON is made by JSON.stringify, never by hand.
 */
export function minecraftTellraw(name: string, text: string, rules: CommandTextRules = MINECRAFT_TEXT_RULES): string {
  if (!MINECRAFT_NAME_PATTERN.test(name)) throw new UnaddressableNameError(name.length);
  const cleaned = cleanCommandText(text, rules);
  return `tellraw ${name} ${JSON.stringify({ text: cleaned, color: 'red' })}`;
}

// ---------------------------------------------------------------------------------------------------------------
// Kicks: for access at the door (the adapter's removePlayer) and the optional escalation (`kickAfterAlerts`).

/** ARK (ASE Steam64, ASA EOS): `KickPlayer <id>`. ARK takes no reason; the id goes bare, as the game documents it. */
export function arkKickPlayer(id: string): string {
  return `KickPlayer ${requirePlayerId(id).id}`;
}

/** Squad: `AdminKick "<id>" <reason>` (EOS or Steam64). */
export function squadAdminKick(id: string, reason: string, rules: CommandTextRules = SQUAD_TEXT_RULES): string {
  return `AdminKick "${requirePlayerId(id).id}" ${cleanCommandText(reason, rules)}`;
}

/** Rust: `kick <steamid> "<reason>"`; Steam64 only. The cleaned reason holds no `"`, so the quotes stay balanced. */
export function rustKick(steamId: string, reason: string, rules: CommandTextRules = RUST_TEXT_RULES): string {
  return `kick ${requirePlayerId(steamId, ['steam']).id} "${cleanCommandText(reason, rules)}"`;
}

/**
 * 7 Days to Die: `kick "<platform>_<id>" "<reason>"`. The console takes a cross-platform id (`EOS_<32 hex>`) or a
 * platform id (`Steam_<17 digits>`): a player without an EOS id (no `crossid` listed yet) is kicked by Steam64. The
 * prefix follows the id's kind, so an id is never given another platform's prefix.
 */
export function sevenDaysKick(id: string, reason: string, rules: CommandTextRules = SEVEN_DAYS_TEXT_RULES): string {
  const valid = requirePlayerId(id);
  const prefix = valid.kind === 'eos' ? 'EOS' : 'Steam';
  return `kick "${prefix}_${valid.id}" "${cleanCommandText(reason, rules)}"`;
}

/**
 * Minecraft: `kick <name> <reason>`. Commands address names, so the name must match MINECRAFT_NAME_PATTERN as written
 * (else UnaddressableNameError and no command: a name is never cleaned into another player's, nor into a selector).
 * The reason is cleaned with the game's rules (`@` broken, so it expands no selector; `§` dropped).
 */
export function minecraftKick(name: string, reason: string, rules: CommandTextRules = MINECRAFT_TEXT_RULES): string {
  if (!MINECRAFT_NAME_PATTERN.test(name)) throw new UnaddressableNameError(name.length);
  return `kick ${name} ${cleanCommandText(reason, rules)}`;
}
