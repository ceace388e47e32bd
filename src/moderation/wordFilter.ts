// The chat filter's matcher: does a line contain one of the host's listed words (or phrases), as a whole word, after
// folding case, accents, invisible characters and look-alikes (letterFolding.ts), stretched letters (`baaad`) and
// spacing tricks (`b a d`, `b.a.d`)? It answers the index of the word in the host's list, never the text.
// Not the `obscenity` package, though it was measured first (0.4.6, built from the host's list through its DataSet
// with the confusables, leetspeak, lower-case and collapse-duplicates transformers): whole-word patterns and its
// skip-non-alphabetic transformer exclude each other there (with it, `you are bad!` and `what a scam.` are missed;
// without it, `b a d` and `b.a.d` are), `!` and `$` are always letters (`bad!` is not whole-word `bad`, `a$$` is
// missed), and a clean 60-character line cost 6–10 µs. Here a character may be a letter or punctuation, tried both
// ways, and a clean line costs one pass over a reused buffer.
// The rules that keep real words apart:
// - Stretched letters: a run of one letter in the line matches a run of that letter in the listed word when the two
//   are as long, or when the line's run is 3 or more and longer than the listed run. No English word has a run of
//   three, so `fuuuck` is `fuck` and `baaad` is `bad`, while `good` is never `god`, `noob` never `nob`, `hoo` never
//   `ho`, and `bad` is not `baad` (the cost: `gooood` is `god` too when `god` is listed).
// - Spacing tricks: a separator is stepped over only between two single letters, so `b a d` and `b.a.d` are `bad`,
//   while `as s`, `sc am` and `class act` stay what they are.
// How: one pass folds the line into units, then one pass over them keeps the set of live states of a trie of the
// folded words (the root joins at each word start): a state is a trie node and how the line's current run of letters
// stands against the listed run (exact, stretched, or two where the word has one: not a match yet).
// Bounded: a line may cost at most WORK_LIMIT live states read, summed over its characters (a few milliseconds);
// past that the rest of the line is not examined and onOverBudget is told. Only a list of many words that differ by
// look-alikes alone (`i`/`l`, which `1`, `!` and `|` all stand for) comes near it; a real list reads a few states a
// character.
// Must never allocate per line on the clean path beyond its reused buffers, never throw on hostile text, and never
// keep or log the line.

import * as folding from './letterFolding.js';

// The folding's constants and ASCII table, copied into this module: the clean line's pass reads them per character,
// and V8 folds a module's own constants into the loop where it reads an imported binding through its module each
// time (together about 20% of a clean line's cost in bench/chat-verdicts).
const { LETTER_BITS, SEPARATOR, OPTIONAL, IGNORED, BLOCKER, foldWide, unitOf } = folding;
const ASCII = Int32Array.from(folding.ASCII_UNITS);
const SPACE = 26;
const NO_WORD = -1;
/** The line's run of the node's letter is as long as the listed run so far. */
const EXACT = 0;
/** The line's run is two where the listed run is one: it matches nothing unless it grows to a stretch. */
const PENDING = 1;
/** The line's run is 3 or more and longer than the listed run: a stretch (`baaad`). */
const STRETCHED = 2;
/** A line's run this long is a stretch, not a spelling. */
const STRETCH_RUN = 3;

/**
 * The most live states one line may read, summed over its characters: 2–5 ms on a busy 2-core machine
 * (bench/word-filter-bound). A real list costs at most 7 a character (leo-profanity's 253 words on a line of `!`), so a
 * 16 KiB line (the mod protocol's default frame cap, the log reader's cut) is examined to its end.
 */
export const WORK_LIMIT = 200_000;

/** A listed word (or phrase) folded to one letter sequence: letters 0–25, 26 for a space between words. */
function foldListed(word: string): number[] {
  const letters: number[] = [];
  for (const char of word) {
    const unit = unitOf(char.codePointAt(0) ?? 0);
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

/** Set bits of a 32-bit integer. */
function popcount(value: number): number {
  let x = value - ((value >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Adds a state to a set once per step (its stamp says it is in already); the set's new size. */
function add(set: Int32Array, stamps: Uint32Array, step: number, size: number, state: number): number {
  if (stamps[state] === step) return size;
  stamps[state] = step;
  set[size] = state;
  return size + 1;
}

/** A listed word ending at a live state that is not PENDING, or NO_WORD. */
function wordEnding(states: Int32Array, size: number, wordAt: Int32Array): number {
  for (let k = 0; k < size; k++) {
    const state = states[k] ?? 0;
    if ((state & 3) === PENDING) continue;
    const word = wordAt[state >> 2] ?? NO_WORD;
    if (word !== NO_WORD) return word;
  }
  return NO_WORD;
}

/**
 * A walk the JIT has not optimised yet costs about eight times as much: a hostile 16 KiB line met first would block
 * the event loop for 10–25 ms where it later costs 2–4, and so would the first line to take a path the optimised
 * walk had not seen (it is deoptimised in the middle of the line). So the first filter built in a process walks
 * short lines through a small list first, until the walk is optimised with every path seen: a clean line, one past
 * the reused buffer's size, a match at a separator, a phrase, a stretch, a spacing trick, a symbol read both ways,
 * look-alikes, and (through a filter with a tiny bound) a line past the bound. Short lines only, so it is optimised
 * as a whole function rather than in the middle of a loop. About 20 ms, once (bench/word-filter-bound).
 */
const WARM_UP = {
  words: [...Array.from({ length: 64 }, (_, n) => Array.from({ length: 6 }, (_, b) => (((n >> b) & 1) === 1 ? 'i' : 'l')).join('')), 'bad', 'go away', 'ab'],
  lines: ['hello there, '.repeat(24), 'hello there', 'so b a d', 'baaad!', 'you bad', 'go  away now', '@ab.', 'b.a.d', 'lil il !|1'],
  pastBound: '!|1 lil !|1 ll',
  rounds: 1_000,
};
let warmedUp = false;

function warmUp(): void {
  warmedUp = true;
  const filter = new WordFilter(WARM_UP.words);
  const bounded = new WordFilter(WARM_UP.words, { workLimit: 40, onOverBudget: () => undefined });
  for (let round = 0; round < WARM_UP.rounds; round++) {
    for (const line of WARM_UP.lines) filter.matchIndex(line);
    bounded.matchIndex(WARM_UP.pastBound);
  }
}

/** What the matcher found: the index of the listed word in the host's list. */
export interface WordMatch {
  readonly wordIndex: number;
}

export interface WordFilterOptions {
  /**
   * A line cost WORK_LIMIT before it was examined to its end (the list is too ambiguous for it): the rest of
   * the line was let through. `length`: the line's length in UTF-16 units. Must not throw.
   */
  readonly onOverBudget?: ((length: number) => void) | undefined;
  /** The bound in live states read a line: WORK_LIMIT unless given (smaller only for the warm-up and tests). */
  readonly workLimit?: number | undefined;
}

export class WordFilter {
  /** node → bit set of the letters (and SPACE) it has a child for. Node 0 is the root. */
  readonly #childMask: Int32Array;
  /** node → where its children start in #children, in letter order. */
  readonly #childStart: Int32Array;
  readonly #children: Int32Array;
  /** The root's children by letter (-1: none), read at every word start. */
  readonly #rootChildren = new Int32Array(32).fill(-1);
  /** node → index of the listed word ending there, or NO_WORD. */
  readonly #wordAt: Int32Array;
  /** node → the letter of the edge into it (SPACE after a space, -1 for the root): the run a line's letter extends. */
  readonly #letterOf: Int8Array;
  /** node → how many of the listed word's letters up to it are that letter in a row (capped at 255). */
  readonly #runOf: Uint8Array;
  /** Any letter some listed word starts with: a line none of whose units may be one of them is clean at once. */
  readonly #firstLetters: number;
  readonly #onOverBudget: ((length: number) => void) | undefined;
  /** The most live states one line may read (WORK_LIMIT). */
  readonly #workLimit: number;
  /** The folded line, reused from line to line (grown when a longer line comes). */
  #units = new Int32Array(256);
  /** The walk's two sets of live states (node * 4 + EXACT/PENDING/STRETCHED), and a stamp a state a step. */
  #current: Int32Array;
  #next: Int32Array;
  readonly #stamps: Uint32Array;
  #step = 0;
  /** The work of the last line (see lastWork). */
  #work = 0;
  /** Indexes of listed words that fold to nothing (only digits or symbols): left out, for the host's log. */
  readonly ignored: readonly number[];
  /** How many listed words are in force. */
  readonly size: number;

  constructor(words: readonly string[], options: WordFilterOptions = {}) {
    this.#onOverBudget = options.onOverBudget;
    this.#workLimit = options.workLimit ?? WORK_LIMIT;
    if (words.length > 0) folding.loadConfusables();
    const edges = new Map<number, number>();
    const wordAt: number[] = [NO_WORD];
    const letterOf: number[] = [-1];
    const runOf: number[] = [0];
    const ignored: number[] = [];
    let firstLetters = 0;
    let size = 0;
    words.forEach((word, index) => {
      const letters = foldListed(word);
      if (letters.length === 0) {
        ignored.push(index);
        return;
      }
      let node = 0;
      for (const letter of letters) {
        const key = node * 32 + letter;
        let child = edges.get(key);
        if (child === undefined) {
          child = wordAt.length;
          wordAt.push(NO_WORD);
          letterOf.push(letter);
          runOf.push(letterOf[node] === letter ? Math.min(255, (runOf[node] ?? 0) + 1) : 1);
          edges.set(key, child);
          if (node === 0) firstLetters |= 1 << letter;
        }
        node = child;
      }
      // A second listing of a word, folded, names the first.
      if (wordAt[node] !== NO_WORD) return;
      wordAt[node] = index;
      size++;
    });
    this.ignored = ignored;
    this.size = size;
    this.#firstLetters = firstLetters;
    const nodes = wordAt.length;
    this.#wordAt = Int32Array.from(wordAt);
    this.#letterOf = Int8Array.from(letterOf);
    this.#runOf = Uint8Array.from(runOf);
    this.#childMask = new Int32Array(nodes);
    this.#childStart = new Int32Array(nodes);
    this.#children = new Int32Array(Math.max(0, nodes - 1));
    const sorted = [...edges].sort(([a], [b]) => a - b);
    let at = 0;
    for (const [key, child] of sorted) {
      const node = Math.floor(key / 32);
      if (this.#childMask[node] === 0) this.#childStart[node] = at;
      this.#childMask[node] = (this.#childMask[node] ?? 0) | (1 << (key % 32));
      this.#children[at++] = child;
      if (node === 0) this.#rootChildren[key % 32] = child;
    }
    // A step reads at most WORK_LIMIT live states, and each adds at most five.
    const states = Math.min(nodes * 4, 5 * WORK_LIMIT);
    this.#current = new Int32Array(states);
    this.#next = new Int32Array(states);
    this.#stamps = new Uint32Array(nodes * 4);
    if (size > 0 && !warmedUp) warmUp();
  }

  /** The first listed word the line contains, or undefined. Never throws. */
  match(text: string): WordMatch | undefined {
    const wordIndex = this.matchIndex(text);
    return wordIndex === NO_WORD ? undefined : { wordIndex };
  }

  /** match() without the object: the listed word's index, or -1. */
  matchIndex(text: string): number {
    if (this.#firstLetters === 0) {
      this.#work = 0;
      return NO_WORD;
    }
    const count = this.#fold(text);
    if (count >= 0) return this.#run(count, text.length);
    this.#work = 0;
    return NO_WORD;
  }

  /** The work the last matchIndex took, in live states read (never more than WORK_LIMIT): for tests and benches. */
  get lastWork(): number {
    return this.#work;
  }

  /**
   * Folds the line into #units and returns their number, or -1 when no unit may be the first letter of a listed
   * word (the clean line's exit: one pass, nothing allocated).
   */
  #fold(text: string): number {
    if (this.#units.length < text.length) this.#units = new Int32Array(Math.max(text.length, this.#units.length * 2));
    const units = this.#units;
    const ascii = ASCII;
    let count = 0;
    let seen = 0;
    for (let i = 0; i < text.length; i++) {
      let code = text.charCodeAt(i);
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
        code = text.codePointAt(i) ?? code;
        i++;
      }
      const unit = code < 128 ? (ascii[code] ?? SEPARATOR) : foldWide(code);
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

  /** The stamp before this line's first step: the stamps are cleared when the line's steps could wrap the counter. */
  #firstStep(count: number): number {
    if (this.#step > 0xffffffff - count - 2) {
      this.#stamps.fill(0);
      this.#step = 0;
    }
    return this.#step;
  }

  /**
   * One pass over the folded line with the set of live states (an NFA: every reading of a look-alike, a stretch and
   * a skipped symbol is one more live state, never a branch to re-walk, so hostile text stays linear in its length
   * times the live states, and WORK_LIMIT bounds their sum). The root joins the set at each word start.
   */
  #run(count: number, length: number): number {
    const units = this.#units;
    const wordAt = this.#wordAt;
    const letterOf = this.#letterOf;
    const runOf = this.#runOf;
    const childMask = this.#childMask;
    const childStart = this.#childStart;
    const children = this.#children;
    const stamps = this.#stamps;
    let current = this.#current;
    let next = this.#next;
    let size = 1;
    current[0] = 0;
    let work = 0;
    const rootChildren = this.#rootChildren;
    let step = this.#firstStep(count);
    const workLimit = this.#workLimit;
    for (let at = 0; at < count; at++) {
      const unit = units[at] ?? SEPARATOR;
      if (work + size > workLimit) {
        this.#step = step;
        this.#work = work;
        // The host's callback through Reflect.apply, a call the JIT does not tie to one function: the warm-up's
        // callback and the host's differ, and a direct call would be deoptimised by the first line past the bound
        // (the next such line would then cost 15 ms).
        const tell = this.#onOverBudget;
        if (tell !== undefined) Reflect.apply(tell, undefined, [length]);
        return NO_WORD;
      }
      work += size;
      step++;
      let nextSize = 0;
      if ((unit & SEPARATOR) !== 0) {
        // A word boundary: a listed word ending here matches.
        const found = wordEnding(current, size, wordAt);
        if (found !== NO_WORD) {
          this.#step = step;
          this.#work = work;
          return found;
        }
        const trick = this.#lone(at - 1, count) && this.#lone(at + 1, count);
        for (let k = 0; k < size; k++) {
          const state = current[k] ?? 0;
          const node = state >> 2;
          if (node === 0) continue;
          // A separator inside a listed phrase.
          if ((state & 3) !== PENDING && ((childMask[node] ?? 0) & (1 << SPACE)) !== 0) {
            const spaced = children[(childStart[node] ?? 0) + popcount((childMask[node] ?? 0) & ((1 << SPACE) - 1))] ?? 0;
            nextSize = add(next, stamps, step, nextSize, spaced << 2);
          }
          // A spacing trick: the separator between two single letters is stepped over (`b a d`, `b.a.d`).
          if (trick && letterOf[node] !== SPACE) nextSize = add(next, stamps, step, nextSize, state);
        }
        nextSize = add(next, stamps, step, nextSize, 0);
      } else {
        for (let k = 0; k < size; k++) {
          const state = current[k] ?? 0;
          const node = state >> 2;
          const flavour = state & 3;
          const last = letterOf[node] ?? -1;
          const mask = childMask[node] ?? 0;
          let letters = unit & LETTER_BITS;
          while (letters !== 0) {
            const lowest = letters & -letters;
            letters ^= lowest;
            const letter = 31 - Math.clz32(lowest);
            let child = -1;
            if (node === 0) child = rootChildren[letter] ?? -1;
            else if ((mask & lowest) !== 0) child = children[(childStart[node] ?? 0) + popcount(mask & (lowest - 1))] ?? -1;
            if (letter === last) {
              // The run goes on: the listed run too (a PENDING run of two over a listed one becomes a stretch of
              // three)…
              if (child >= 0) nextSize = add(next, stamps, step, nextSize, (child << 2) | (flavour === EXACT ? EXACT : STRETCHED));
              // …or the line's letter is one more than the listed run has.
              const stretch = flavour === EXACT && (runOf[node] ?? 0) + 1 < STRETCH_RUN ? PENDING : STRETCHED;
              nextSize = add(next, stamps, step, nextSize, (node << 2) | stretch);
            } else if (child >= 0 && flavour !== PENDING) {
              nextSize = add(next, stamps, step, nextSize, child << 2);
            }
          }
          // `bad!`, `@bad`: the symbol read as punctuation.
          if ((unit & OPTIONAL) !== 0) nextSize = add(next, stamps, step, nextSize, state);
        }
      }
      const swap = current;
      current = next;
      next = swap;
      size = nextSize;
      if (size === 0) {
        // Nothing live: skip to the next word start.
        while (at + 1 < count && ((units[at + 1] ?? SEPARATOR) & SEPARATOR) === 0) at++;
      }
    }
    // (The two sets may have swapped: both stay the fields' arrays, which is all they need.)
    this.#step = step;
    this.#work = work;
    return wordEnding(current, size, wordAt);
  }
}
