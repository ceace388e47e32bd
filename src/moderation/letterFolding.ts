// What one character of a chat line is to the chat filter: a set of letters it may stand for (a bit set), a
// separator, nothing (invisible), or a blocker (a letter of no listed word's alphabet). ASCII is a fixed table; any
// other character is folded the slow way once and kept for the process's life.
// The slow fold, in order: Unicode's default-ignorable code points (Hangul fillers, joiners, variation selectors,
// tags) and combining marks are nothing; then the hand table of digits, symbols, Cyrillic and Greek look-alikes;
// then NFKD with the marks dropped (accents, full-width, mathematical, circled letters); then Unicode's confusables
// (the `unhomoglyph` package's table of confusables.txt, Unicode 13.0.0, MIT; read when a matcher with words is
// built); last the few look-alikes confusables.txt leaves out (small capitals, regional indicators).
// Must never fold an ASCII letter to another letter, never allocate for an ASCII character, never throw on hostile
// text.

import { createRequire } from 'node:module';

/** Bits 0–25: the letters a unit may be. */
export const LETTER_BITS = (1 << 26) - 1;
/** The unit is a separator (whitespace, punctuation). */
export const SEPARATOR = 1 << 26;
/** The unit is a look-alike symbol that may also be punctuation (`!`, `@`, `$`): the walk may skip it. */
export const OPTIONAL = 1 << 27;
/** Nothing: the character is invisible (zero-width, filler, combining mark) and is dropped. */
export const IGNORED = -1;
/** A character that is neither a letter nor a separator (an unmapped digit, an unknown script): it matches nothing. */
export const BLOCKER = 0;
/** Not a single letter (the hand table's and the ASCII fold's "no answer"). */
const NONE = -2;

const bit = (letter: string): number => 1 << (letter.charCodeAt(0) - 97);

/** Look-alike characters beyond what NFKD and lower-casing reach: digits, symbols, Cyrillic and Greek. */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  '0': 'o', '1': 'il', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g',
  '!': 'il', '|': 'il', '@': 'a', '$': 's', '+': 't', '€': 'e', '£': 'l',
  // Cyrillic (lower case; upper case is lowered first).
  'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c', 'т': 't',
  'у': 'y', 'х': 'x', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'ɡ': 'g', 'һ': 'h', 'ԛ': 'q', 'ԝ': 'w',
  // Greek.
  'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'τ': 't', 'υ': 'u',
  'χ': 'x', 'ω': 'w', 'ς': 's', 'σ': 's',
};

/**
 * Look-alikes that confusables.txt does not list: the small capitals it leaves out (`ᴀ ʙ ᴅ ᴇ ꜰ ɢ ʜ ᴊ ʟ ɴ ᴘ ʀ ᴛ`; it
 * has `ɪ ᴏ ᴄ ᴜ ᴠ ᴡ ᴢ ꜱ`), and `ᴋ ᴍ`, which it maps to letters that are not ASCII.
 */
const SMALL_CAPITALS: Readonly<Record<string, string>> = {
  'ᴀ': 'a', 'ʙ': 'b', 'ᴅ': 'd', 'ᴇ': 'e', 'ꜰ': 'f', 'ɢ': 'g', 'ʜ': 'h', 'ᴊ': 'j', 'ᴋ': 'k', 'ʟ': 'l', 'ᴍ': 'm',
  'ɴ': 'n', 'ᴘ': 'p', 'ʀ': 'r', 'ᴛ': 't',
};

/** Symbols that are letters inside a word and punctuation at its edge. */
const OPTIONAL_SYMBOLS = new Set(['!', '@', '$', '|', '+', '€', '£']);

/** The unit of a lower-case character from the hand table or ASCII, or NONE. */
function unitOfFolded(char: string): number {
  const alike = LOOK_ALIKES[char];
  if (alike !== undefined) {
    let mask = 0;
    for (const letter of alike) mask |= bit(letter);
    return OPTIONAL_SYMBOLS.has(char) ? mask | OPTIONAL : mask;
  }
  if (char.length === 1 && char >= 'a' && char <= 'z') return bit(char);
  const small = SMALL_CAPITALS[char];
  return small === undefined ? NONE : bit(small);
}

/** ASCII: a unit per code, so the common line is one table read per character. */
export const ASCII_UNITS = new Int32Array(128);
for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code).toLowerCase();
  const unit = unitOfFolded(char);
  if (unit !== NONE) ASCII_UNITS[code] = unit;
  else if (code >= 48 && code <= 57) ASCII_UNITS[code] = BLOCKER;
  else ASCII_UNITS[code] = SEPARATOR;
}

let confusables: Readonly<Record<string, string>> | undefined;

/**
 * Unicode's confusables (character → its prototype): 6,311 entries, about 0.6 MiB of heap and 5–20 ms to read, so a
 * matcher reads them when it is built (loadConfusables), never a chat line.
 */
function confusableTable(): Readonly<Record<string, string>> {
  confusables ??= createRequire(import.meta.url)('unhomoglyph/data.json') as Readonly<Record<string, string>>;
  return confusables;
}

/** Reads Unicode's confusables now, if they are not read yet: at load, so the first chat line never waits for them. */
export function loadConfusables(): void {
  confusableTable();
}

/** `text` with compatibility forms decomposed, marks dropped and lower-cased. */
function stripped(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

/**
 * The single letter a character's confusables prototype folds to, or NONE. The character, then its lower and upper
 * case are looked up (Cherokee's capitals are listed, its small letters not), and a prototype that is itself not
 * ASCII is looked up again (`ь` → `ƅ` → `b`). An ASCII character is never looked up: confusables.txt maps `I` to `l`
 * and `m` to `rn`, which would join real letters.
 */
function confusableUnit(char: string, depth: number): number {
  const table = confusableTable();
  for (const candidate of [char, char.toLowerCase(), char.toUpperCase()]) {
    if (candidate.length === 0 || candidate.charCodeAt(0) < 128) continue;
    const prototype = table[candidate];
    if (prototype === undefined) continue;
    const folded = stripped(prototype);
    // One code point: a prototype of several letters (`æ` → `ae`) stands for no single letter.
    if (folded.length === 0 || String.fromCodePoint(folded.codePointAt(0) ?? 0) !== folded) continue;
    const unit = unitOfFolded(folded);
    if (unit !== NONE) return unit;
    if (depth < 3) {
      const deeper = confusableUnit(folded, depth + 1);
      if (deeper !== NONE) return deeper;
    }
  }
  return NONE;
}

/** How many characters took the slow way so far in this process: each should, once. */
let slowFolds = 0;

/** Characters folded the slow way so far (each is kept after its first fold; a test holds that to account). */
export function slowFoldCount(): number {
  return slowFolds;
}

/** One character's unit, the slow way (callers keep the answers: see unitOf). */
function foldCharacter(code: number): number {
  slowFolds += 1;
  // Regional indicators (🇧🇦🇩) are the letters they show.
  if (code >= 0x1f1e6 && code <= 0x1f1ff) return 1 << (code - 0x1f1e6);
  const char = String.fromCodePoint(code);
  if (/[\p{Default_Ignorable_Code_Point}\p{M}\p{Cf}]/u.test(char)) return IGNORED;
  const lowered = char.toLowerCase();
  const direct = unitOfFolded(lowered);
  if (direct !== NONE) return direct;
  // Accents, full-width, mathematical, circled and squared letters (some of them symbols) fold to their letter.
  const plain = stripped(lowered);
  const folded = plain.length === 1 ? unitOfFolded(plain) : NONE;
  if (folded !== NONE) return folded;
  if (/\p{L}/u.test(char)) {
    const alike = confusableUnit(char, 0);
    if (alike !== NONE) return alike;
  }
  return /[\p{Z}\p{P}\p{S}\p{Cc}]/u.test(char) ? SEPARATOR : BLOCKER;
}

/** Not folded yet (BMP_UNITS starts so). */
const UNSET = -3;
/**
 * Every BMP character's unit, folded the first time it is seen (256 KiB): a hostile line of thousands of distinct
 * characters pays the fold (regular expressions, NFKD) once per character for the process's life, never per line.
 */
const BMP_UNITS = new Int32Array(0x10000).fill(UNSET);
/** Astral characters that are letters or nothing, folded once: see isAstralFolded. */
const astralUnits = new Map<number, number>();

/**
 * Astral characters worth a fold: mathematical alphanumerics (𝐛𝐚𝐝), enclosed letters (🄱🄰🄳), regional
 * indicators, and tags and variation selectors (E0000–E0FFF: default-ignorable, so dropped).
 */
function isAstralFolded(code: number): boolean {
  return (code >= 0x1d400 && code <= 0x1d7ff) || (code >= 0x1f130 && code <= 0x1f189) || (code >= 0x1f1e6 && code <= 0x1f1ff) || (code >= 0xe0000 && code <= 0xe0fff);
}

/** The unit of a character beyond ASCII (see the header). */
export function foldWide(code: number): number {
  if (code < 0x10000) {
    const known = BMP_UNITS[code] ?? UNSET;
    if (known !== UNSET) return known;
    const unit = foldCharacter(code);
    BMP_UNITS[code] = unit;
    return unit;
  }
  // Other astral characters (emoji, rare scripts) separate words: folding each would let a line of distinct ones
  // cost a regular expression a character.
  if (!isAstralFolded(code)) return SEPARATOR;
  let unit = astralUnits.get(code);
  if (unit === undefined) {
    unit = foldCharacter(code);
    astralUnits.set(code, unit);
  }
  return unit;
}

/** The unit of one code point. */
export function unitOf(code: number): number {
  return code < 128 ? (ASCII_UNITS[code] ?? SEPARATOR) : foldWide(code);
}
