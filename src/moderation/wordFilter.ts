// The chat filter's matcher: does a line contain one of the host's listed words (or phrases), as a whole word, after
// folding case, accents, look-alike characters (`3`→e, `@`→a, `0`→o, `1`/`!`→i or l, `$`→s, Cyrillic and Greek
// look-alikes), repeated letters (`baaad`) and spacing tricks (`b a d`, `b.a.d`)? It answers the index of the word
// in the host's list, never the text.
// Not the `obscenity` package, though it was measured first (0.4.6, built from the host's list through its DataSet
// with the confusables, leetspeak, lower-case and collapse-duplicates transformers): whole-word patterns and its
// skip-non-alphabetic transformer exclude each other there (with it, `you are bad!` and `what a scam.` are missed;
// without it, `b a d` and `b.a.d` are), `!` and `$` are always letters (`bad!` is not whole-word `bad`, `a$$` is
// missed), and a clean 60-character line cost 6–10 µs. Here a character may be a letter or punctuation, tried both
// ways, and a clean line costs one pass over a reused buffer.
// How: one pass folds the line into units (a bit set of the letters a character may be, a separator, or nothing),
// then one pass over them keeps the set of live nodes of a trie of the folded words (the root joins at each word
// start) and accepts when a listed word ends on a word boundary. A text letter may repeat the letter just matched (`baaad`, `asss`), but each listed letter needs its own
// (so `as` is not `ass`). A separator may be stepped over only beside a single letter (`b a d`, `b.a.d`), so `sc am`
// and `class act` stay what they are.
// Must never allocate per line on the clean path beyond its reused buffer, never throw on hostile text, and never
// keep or log the line.

/** Bits 0–25: the letters a unit may be. */
const LETTER_BITS = (1 << 26) - 1;
/** The unit is a separator (whitespace, punctuation). */
const SEPARATOR = 1 << 26;
/** The unit is a look-alike symbol that may also be punctuation (`!`, `@`, `$`): the walk may skip it. */
const OPTIONAL = 1 << 27;
/** Nothing: the character is invisible (zero-width, combining mark) and is dropped. */
const IGNORED = -1;
/** A character that is neither a letter nor a separator (an unmapped digit, an unknown script): it matches nothing. */
const BLOCKER = 0;

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

/** Symbols that are letters inside a word and punctuation at its edge. */
const OPTIONAL_SYMBOLS = new Set(['!', '@', '$', '|', '+', '€', '£']);

/** ASCII: a unit per code, so the common line is one table read per character. */
const ASCII_UNITS = new Int32Array(128);

function unitOfFolded(char: string): number {
  const alike = LOOK_ALIKES[char];
  if (alike !== undefined) {
    let mask = 0;
    for (const letter of alike) mask |= bit(letter);
    return OPTIONAL_SYMBOLS.has(char) ? mask | OPTIONAL : mask;
  }
  if (char.length === 1 && char >= 'a' && char <= 'z') return bit(char);
  return -2;
}

for (let code = 0; code < 128; code++) {
  const char = String.fromCharCode(code).toLowerCase();
  const unit = unitOfFolded(char);
  if (unit !== -2) ASCII_UNITS[code] = unit;
  else if (/[0-9]/.test(char)) ASCII_UNITS[code] = BLOCKER;
  else ASCII_UNITS[code] = SEPARATOR;
}

/** Not folded yet (BMP_UNITS starts so). */
const UNSET = -3;
/**
 * Every BMP character's unit, folded the first time it is seen (256 KiB): a hostile line of thousands of distinct
 * characters pays the fold (regular expressions, NFKD) once per character for the process's life, never per line.
 */
const BMP_UNITS = new Int32Array(0x10000).fill(UNSET);
/** Astral letters that fold to ASCII: mathematical alphanumerics (𝐛𝐚𝐝) and enclosed letters (🄱🄰🄳). */
const astralUnits = new Map<number, number>();

function isAstralLetter(code: number): boolean {
  return (code >= 0x1d400 && code <= 0x1d7ff) || (code >= 0x1f130 && code <= 0x1f189);
}

function foldWide(code: number): number {
  if (code < 0x10000) {
    const known = BMP_UNITS[code] ?? UNSET;
    if (known !== UNSET) return known;
    const unit = foldCharacter(code);
    BMP_UNITS[code] = unit;
    return unit;
  }
  // Other astral characters (emoji, rare scripts) separate words: folding each would let a line of distinct ones
  // cost a regular expression a character.
  if (!isAstralLetter(code)) return SEPARATOR;
  let unit = astralUnits.get(code);
  if (unit === undefined) {
    unit = foldCharacter(code);
    astralUnits.set(code, unit);
  }
  return unit;
}

/** One character's unit, the slow way (see foldWide, which keeps the answers). */
function foldCharacter(code: number): number {
  const char = String.fromCodePoint(code);
  if (/[\p{Mn}\p{Me}\p{Cf}]/u.test(char)) return IGNORED;
  const lowered = char.toLowerCase();
  const direct = unitOfFolded(lowered);
  if (direct !== -2) return direct;
  // Accents, full-width, mathematical, circled and squared letters (some of them symbols) fold to their letter.
  const stripped = lowered.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const folded = stripped.length === 1 ? unitOfFolded(stripped) : -2;
  if (folded !== -2) return folded;
  return /[\p{Z}\p{P}\p{S}\p{Cc}]/u.test(char) ? SEPARATOR : BLOCKER;
}

/** The unit of one code point (see the header). */
function unitOf(code: number): number {
  return code < 128 ? (ASCII_UNITS[code] ?? SEPARATOR) : foldWide(code);
}

const SPACE = 26;
const NO_WORD = -1;

/** A listed word (or phrase) folded to one letter sequence: letters 0–25, 26 for a space between words. */
function foldListed(word: string): number[] {
  const letters: number[] = [];
  for (const char of word) {
    const code = char.codePointAt(0) ?? 0;
    const unit = unitOf(code);
    if (unit === IGNORED || unit === BLOCKER) continue;
    if ((unit & SEPARATOR) !== 0) {
      if (letters.length > 0 && letters[letters.length - 1] !== SPACE) letters.push(SPACE);
      continue;
    }
    // A look-alike in a listed word stands for its first letter (`1` → i).
    letters.push(31 - Math.clz32(unit & LETTER_BITS & -(unit & LETTER_BITS)));
  }
  while (letters[letters.length - 1] === SPACE) letters.pop();
  return letters;
}

/** What the matcher found: the index of the listed word in the host's list. */
export interface WordMatch {
  readonly wordIndex: number;
}

export class WordFilter {
  /** Edges of the trie: (node * 32 + letter) → child node. Node 0 is the root. */
  readonly #edges = new Map<number, number>();
  /** The root's children by letter, read first from every word start: most starts end here. */
  readonly #rootChildren = new Int32Array(32).fill(-1);
  /** node → index of the listed word ending there, or NO_WORD. */
  readonly #wordAt: number[] = [NO_WORD];
  /** node → the letter of the edge into it (SPACE after a space, -1 for the root): what a repeat may absorb. */
  readonly #letterOf: number[] = [-1];
  /** Any letter some listed word starts with: a line none of whose units may be one of them is clean at once. */
  #firstLetters = 0;
  /** The folded line, reused from line to line (grown when a longer line comes). */
  #units = new Int32Array(256);
  /** The walk's two sets of live trie nodes and their stamps (one stamp a step, so nothing is cleared). */
  #current = new Int32Array(0);
  #next = new Int32Array(0);
  #stamps = new Uint32Array(0);
  #step = 0;
  /** Indexes of listed words that fold to nothing (only digits or symbols): left out, for the host's log. */
  readonly ignored: readonly number[];
  /** How many listed words are in force. */
  readonly size: number;

  constructor(words: readonly string[]) {
    const ignored: number[] = [];
    let size = 0;
    words.forEach((word, index) => {
      const letters = foldListed(word);
      if (letters.length === 0) ignored.push(index);
      else if (this.#add(letters, index)) size++;
    });
    this.ignored = ignored;
    this.size = size;
    const nodes = this.#wordAt.length;
    this.#current = new Int32Array(nodes);
    this.#next = new Int32Array(nodes);
    this.#stamps = new Uint32Array(nodes);
  }

  /** True when the word was new (a second listing of a word, folded, names the first). */
  #add(letters: readonly number[], index: number): boolean {
    let node = 0;
    for (const letter of letters) {
      const key = node * 32 + letter;
      let child = this.#edges.get(key);
      if (child === undefined) {
        child = this.#wordAt.length;
        this.#wordAt.push(NO_WORD);
        this.#letterOf.push(letter);
        this.#edges.set(key, child);
        if (node === 0) {
          this.#rootChildren[letter] = child;
          this.#firstLetters |= 1 << letter;
        }
      }
      node = child;
    }
    if (this.#wordAt[node] !== NO_WORD) return false;
    this.#wordAt[node] = index;
    return true;
  }

  /** The first listed word the line contains, or undefined. Never throws. */
  match(text: string): WordMatch | undefined {
    const wordIndex = this.matchIndex(text);
    return wordIndex === NO_WORD ? undefined : { wordIndex };
  }

  /** match() without the object: the listed word's index, or -1. */
  matchIndex(text: string): number {
    if (this.#firstLetters === 0) return NO_WORD;
    const count = this.#fold(text);
    return count < 0 ? NO_WORD : this.#run(count);
  }

  /**
   * Folds the line into #units and returns their number, or -1 when no unit may be the first letter of a listed
   * word (the clean line's exit: one pass, nothing allocated).
   */
  #fold(text: string): number {
    if (this.#units.length < text.length) this.#units = new Int32Array(Math.max(text.length, this.#units.length * 2));
    const units = this.#units;
    let count = 0;
    let seen = 0;
    for (let i = 0; i < text.length; i++) {
      let code = text.charCodeAt(i);
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
        code = text.codePointAt(i) ?? code;
        i++;
      }
      const unit = code < 128 ? (ASCII_UNITS[code] ?? SEPARATOR) : foldWide(code);
      if (unit === IGNORED) continue;
      // Runs of separators are one separator.
      if ((unit & SEPARATOR) !== 0 && count > 0 && ((units[count - 1] ?? 0) & SEPARATOR) !== 0) continue;
      seen |= unit;
      units[count++] = unit;
    }
    return (seen & this.#firstLetters) === 0 ? -1 : count;
  }

  /** Unit `at` is a letter standing alone between separators (the `b` of `b a d`). */
  #lone(at: number, count: number): boolean {
    const units = this.#units;
    if (at < 0 || at >= count || ((units[at] ?? SEPARATOR) & SEPARATOR) !== 0) return false;
    const before = at === 0 || ((units[at - 1] ?? SEPARATOR) & SEPARATOR) !== 0;
    const after = at + 1 >= count || ((units[at + 1] ?? SEPARATOR) & SEPARATOR) !== 0;
    return before && after;
  }

  /**
   * One pass over the folded line with the set of live trie nodes (an NFA: every reading of a look-alike, a repeat
   * and a skipped symbol is one more live node, never a branch to re-walk, so hostile text stays linear in its
   * length times the trie's depth). The root joins the set at each word start.
   */
  #run(count: number): number {
    const units = this.#units;
    let size = 0;
    this.#current[size++] = 0;
    for (let at = 0; at < count; at++) {
      const unit = units[at] ?? SEPARATOR;
      this.#step = this.#step === 0xffffffff ? 1 : this.#step + 1;
      let nextSize = 0;
      if ((unit & SEPARATOR) !== 0) {
        // A word boundary: a listed word ending here matches.
        for (let k = 0; k < size; k++) {
          const word = this.#wordAt[this.#current[k] ?? 0] ?? NO_WORD;
          if (word !== NO_WORD) return word;
        }
        const trick = this.#lone(at - 1, count) || this.#lone(at + 1, count);
        for (let k = 0; k < size; k++) {
          const node = this.#current[k] ?? 0;
          if (node === 0) continue;
          // A separator inside a listed phrase.
          const spaced = this.#edges.get(node * 32 + SPACE);
          if (spaced !== undefined) nextSize = this.#push(spaced, nextSize);
          // A spacing trick: the separator beside a single letter is stepped over (`b a d`, `b.a.d`).
          if (trick && this.#letterOf[node] !== SPACE) nextSize = this.#push(node, nextSize);
        }
        nextSize = this.#push(0, nextSize);
      } else {
        for (let k = 0; k < size; k++) {
          const node = this.#current[k] ?? 0;
          const last = this.#letterOf[node] ?? -1;
          let letters = unit & LETTER_BITS;
          while (letters !== 0) {
            const lowest = letters & -letters;
            letters ^= lowest;
            const letter = 31 - Math.clz32(lowest);
            const child = node === 0 ? (this.#rootChildren[letter] ?? -1) : (this.#edges.get(node * 32 + letter) ?? -1);
            if (child >= 0) nextSize = this.#push(child, nextSize);
            // A repeated letter (`baaad`): absorbed by the letter just matched.
            if (letter === last) nextSize = this.#push(node, nextSize);
          }
          // `bad!`, `@bad`: the symbol read as punctuation.
          if ((unit & OPTIONAL) !== 0) nextSize = this.#push(node, nextSize);
        }
      }
      const swap = this.#current;
      this.#current = this.#next;
      this.#next = swap;
      size = nextSize;
      if (size === 0) {
        // Nothing live: skip to the next word start.
        while (at + 1 < count && ((units[at + 1] ?? SEPARATOR) & SEPARATOR) === 0) at++;
        if (at + 1 < count) continue;
      }
    }
    for (let k = 0; k < size; k++) {
      const word = this.#wordAt[this.#current[k] ?? 0] ?? NO_WORD;
      if (word !== NO_WORD) return word;
    }
    return NO_WORD;
  }

  /** Adds a node to the next set once per step. */
  #push(node: number, size: number): number {
    if (this.#stamps[node] === this.#step) return size;
    this.#stamps[node] = this.#step;
    this.#next[size] = node;
    return size + 1;
  }
}
