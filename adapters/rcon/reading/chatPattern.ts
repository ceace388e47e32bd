// The host's `chatPattern`: a regular expression for a chat plugin's line (EssentialsX Chat's `[Member] Steve: hi`,
// a LuckPerms prefix's `[Admin] Steve » hi`, VentureChat's `[G] Steve: hi`), with named groups `name` and `message`
// and an optional `channel`, applied to a line's message part (after the game's own timestamp/thread prefix).
// Checked once at load, matched per line.
//
// It runs on re2js (a JavaScript port of RE2), never on the built-in RegExp: a host's pattern such as
// `(?<name>(a|aa)+)+b` backtracks on a line of a's for longer than the universe lasts, and one log line must never
// stall the sidecar. RE2 has no backtracking: a line costs time linear in its length times the pattern's program
// size, and both are bounded here: a program at most MAX_CHAT_PATTERN_PROGRAM_SIZE instructions, and a line at most
// CHAT_PATTERN_WORK_BUDGET ÷ that size characters (all of a 16 KiB line for the plugins' formats, which compile to
// 20–50), so no pattern's worst line costs more than about a million NFA steps. The engine's lazy DFA caps its own
// cache at 8 MiB a pattern.
// The engine is required (its CommonJS build, synchronously, so the zod schema can check a pattern at load) on the
// first pattern: a sidecar whose config has none never loads it.
//
// Semantics (docs/configuration.md, `chatPattern`):
// - RE2 syntax. Named groups as `(?<name>…)` or `(?P<name>…)`; flags inline at the start, e.g. `(?i)` for case-
//   insensitive. No lookaround, no backreferences (they are what makes backtracking necessary). `\w`, `\d`, `\b` are
//   ASCII; `\p{L}` is any letter. `.` is one code point (an emoji too).
// - Search: the pattern may match anywhere in the message part unless the host anchors it with `^` and `$`.
// - A match whose `name` group is empty or did not take part is no match; `message` may be empty; an empty or
//   absent `channel` is undefined. Other named groups are allowed and ignored.
// - Colour codes (Minecraft's `§a`) are the caller's to strip before matching, not this module's.
//
// It must never run a pattern on the built-in RegExp, never load the engine before a pattern is given, never throw
// from match() (a bad pattern is refused at load), and never echo more of a pattern than the few characters a
// syntax error points at (a longer piece is named by its position).
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { ChatPatternError, type ChatPatternProblem } from '../errors.js';

/** Longest pattern accepted, in characters. */
export const MAX_CHAT_PATTERN_LENGTH = 1_000;
/** Largest compiled program accepted, in instructions; the plugins' real formats compile to 20–50. */
export const MAX_CHAT_PATTERN_PROGRAM_SIZE = 400;
/** Longest message part ever matched: the log decoder's line cut (sources/logLineDecoder.ts). */
export const MAX_CHAT_PATTERN_INPUT_LENGTH = 16_384;
/**
 * Characters × instructions one line may cost: a line's worst case is one NFA step per character per instruction
 * (100–300 ns each, bench/chat-pattern.ts), so a pattern of up to 64 instructions reads all of a 16 KiB line and
 * one of 400 reads lines up to 2,621 characters. Longer lines are no match: no game's chat line comes near that
 * (Minecraft caps a message at 256 characters), while a stack trace or a mod list may.
 */
export const CHAT_PATTERN_WORK_BUDGET = 64 * MAX_CHAT_PATTERN_INPUT_LENGTH;
/** The longest part of a pattern a syntax error quotes (`(?=`, `\1`, `{1000}`); a longer one is named by position. */
const QUOTED_FRAGMENT_LENGTH = 12;

export interface ChatPatternMatch {
  readonly name: string;
  readonly message: string;
  readonly channel?: string | undefined;
}

export interface ChatPattern {
  /** The host's pattern as given. */
  readonly source: string;
  /** The linear-time engine that runs it (RE2 semantics). */
  readonly engine: 're2js';
  /** Instructions of the compiled program (at most MAX_CHAT_PATTERN_PROGRAM_SIZE): what a character of a line costs. */
  readonly programSize: number;
  /** The longest message part it reads (CHAT_PATTERN_WORK_BUDGET ÷ programSize, at most 16,384); longer: no match. */
  readonly maxInputLength: number;
  /** The player's name, text and channel on a chat plugin's line, or undefined when the line is not one. Never throws. */
  match(messagePart: string): ChatPatternMatch | undefined;
}

type Re2jsModule = typeof import('re2js');
let engineModule: Re2jsModule | undefined;

class Refusal {
  constructor(
    readonly problem: ChatPatternProblem,
    /** Worded to follow the key's name: `chatPattern <text>`. */
    readonly text: string,
    readonly cause?: unknown,
  ) {}
}

function re2js(): Re2jsModule | Refusal {
  try {
    engineModule ??= createRequire(import.meta.url)('re2js') as Re2jsModule;
    return engineModule;
  } catch (error) {
    return new Refusal('engine_unavailable', 'cannot be checked: its regular expression engine (the re2js package) did not load; reinstall gsa-bridge', error);
  }
}

/** Where a syntax error is: the few characters the engine points at, or where they start when they are more. */
function place(source: string, fragment: string | null): string {
  if (fragment === null || fragment === '') return '';
  if (fragment.length <= QUOTED_FRAGMENT_LENGTH) return ` at \`${fragment}\``;
  // RE2 names the whole pattern for an unclosed group: a position would say nothing.
  const at = fragment === source ? -1 : source.indexOf(fragment);
  return at === -1 ? '' : ` at character ${at + 1}`;
}

/** A syntax error in words, pointing at the part of the pattern the engine names (cut short). */
function syntaxRefusal(error: unknown, engine: Re2jsModule, source: string): Refusal {
  if (error instanceof engine.RE2JSSyntaxException) {
    const description = error.getDescription();
    if (description === 'expression too large') return tooLarge(`is too large for the engine (${description})`);
    const hint = /unsupported Perl syntax|invalid escape sequence/.test(description) ? ' (RE2 syntax: no lookaround, no backreferences, \\x{00BB} rather than \\u00BB)' : '';
    return new Refusal('syntax', `does not compile: ${description}${place(source, error.getPattern())}${hint}`);
  }
  if (error instanceof engine.RE2JSException) return new Refusal('syntax', 'does not compile (RE2 syntax)');
  throw error;
}

function tooLarge(text: string): Refusal {
  return new Refusal('too_large', `${text}: use fewer or shorter counted repetitions such as {1,32}, or fewer alternatives`);
}

function compileOrRefuse(source: string): RE2JS | Refusal {
  if (source.length === 0) return new Refusal('empty', 'must not be empty');
  if (source.length > MAX_CHAT_PATTERN_LENGTH) return new Refusal('too_long', `is ${source.length} characters long; at most ${MAX_CHAT_PATTERN_LENGTH}`);
  const engine = re2js();
  if (engine instanceof Refusal) return engine;
  let compiled: RE2JS;
  try {
    // No flags: the source says its own ((?i) at its start), and the engine's lookbehind extension stays off.
    compiled = engine.RE2JS.compile(source, 0);
  } catch (error) {
    return syntaxRefusal(error, engine, source);
  }
  const groups = compiled.namedGroups();
  const missing = (['name', 'message'] as const).filter((group) => groups[group] === undefined);
  if (missing.length > 0) {
    const around = { name: "(?<name>…) around the player's name", message: '(?<message>…) around the chat text' };
    const names = missing.map((group) => `\`${group}\``).join(' and ');
    return new Refusal('missing_group', `has no named group${missing.length > 1 ? 's' : ''} ${names}: put ${missing.map((group) => around[group]).join(' and ')}`);
  }
  const size = compiled.programSize();
  if (size > MAX_CHAT_PATTERN_PROGRAM_SIZE) return tooLarge(`compiles to ${size} instructions; at most ${MAX_CHAT_PATTERN_PROGRAM_SIZE}`);
  return compiled;
}

function matcherOf(compiled: RE2JS, source: string): ChatPattern {
  const hasChannel = compiled.namedGroups()['channel'] !== undefined;
  const programSize = compiled.programSize();
  const maxInputLength = Math.min(MAX_CHAT_PATTERN_INPUT_LENGTH, Math.floor(CHAT_PATTERN_WORK_BUDGET / programSize));
  return {
    source,
    engine: 're2js',
    programSize,
    maxInputLength,
    match(messagePart) {
      if (messagePart.length > maxInputLength) return undefined;
      // The lazy DFA answers "does it match at all" without the groups, far cheaper; only a line that matches pays
      // for them (the NFA, one-pass or bit-state engine). Most lines tried are the server's own, which do not.
      if (!compiled.test(messagePart)) return undefined;
      const matcher = compiled.matcher(messagePart);
      if (!matcher.find()) return undefined;
      const name = matcher.group('name');
      if (name === null || name === '') return undefined;
      const channel = hasChannel ? matcher.group('channel') : null;
      return { name, message: matcher.group('message') ?? '', channel: channel === null || channel === '' ? undefined : channel };
    },
  };
}

/**
 * The host's pattern, compiled once (at load).
 * @throws ChatPatternError (code `invalid_chat_pattern`, `problem` says which) with a message naming chatPattern.
 */
export function compileChatPattern(source: string): ChatPattern {
  const compiled = compileOrRefuse(source);
  if (compiled instanceof Refusal) throw new ChatPatternError(compiled.problem, `chatPattern ${compiled.text}`, compiled.cause);
  return matcherOf(compiled, source);
}

/** For config validation: what is wrong with the pattern (worded to follow the key's path), or undefined. */
export function chatPatternProblem(source: string): string | undefined {
  const compiled = compileOrRefuse(source);
  return compiled instanceof Refusal ? compiled.text : undefined;
}
