// The chat filter's matcher: whole listed words after folding case, accents, invisible characters, look-alikes,
// stretched letters and spacing tricks, and the words that merely contain a listed one (scamper, class), or that have
// a double letter the listed word has not (good, noob), left alone; and the bound on a line's work.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { slowFoldCount } from '../../src/moderation/letterFolding.js';
import { WORK_LIMIT, WordFilter } from '../../src/moderation/wordFilter.js';

const WORDS = ['bad', 'scam', 'ass', 'go away', 'hell'];
const filter = new WordFilter(WORDS);
const indexOf = (word: string): number => WORDS.indexOf(word);

describe('WordFilter', () => {
  it.each([
    ['bad', 'bad'],
    ['BAD', 'bad'],
    ['Bád', 'bad'],
    ['you are bad!', 'bad'],
    ['bad.', 'bad'],
    ['(bad)', 'bad'],
    ['b@d', 'bad'],
    ['b4d', 'bad'],
    ['baaad', 'bad'],
    ['BAAAAAD', 'bad'],
    ['b a d', 'bad'],
    ['b.a.d', 'bad'],
    ['b-a-d you', 'bad'],
    ['so b  a  d', 'bad'],
    ['b\u0430d', 'bad'], // Cyrillic а
    ['s\u0441\u0430m', 'scam'], // Cyrillic с and а
    ['what a scam.', 'scam'],
    ['sc@m', 'scam'],
    ['\u0455\u0441\u0430\u043c', 'scam'], // Cyrillic ѕ с а м
    ['a$$', 'ass'],
    ['@ss', 'ass'],
    ['asssss', 'ass'],
    ['h3ll', 'hell'],
    ['he11', 'hell'],
    ['h e l l', 'hell'],
    ['h€ll', 'hell'],
    ['he!!', 'hell'],
    ['hé\u0301ll', 'hell'],
    ['b\u200bad', 'bad'], // a zero-width space inside
    ['ＢＡＤ', 'bad'], // full-width
    ['please go away now', 'go away'],
    ['go   away!', 'go away'],
    ['g0 aw@y', 'go away'],
  ])('matches %j as %j', (line, word) => {
    expect(filter.matchIndex(line)).toBe(indexOf(word));
    expect(filter.match(line)).toEqual({ wordIndex: indexOf(word) });
  });

  it.each([
    'scamper',
    'class',
    'a class act',
    'badge',
    'abad',
    'hello there',
    'passion',
    'bass',
    'as',
    'ba',
    'sc am', // two letters each side: not a spacing trick
    'shell',
    'hello',
    'go',
    'away',
    'go home, away team',
    'b4dge',
    '',
    '!!!! @@@ $$$',
  ])('leaves %j alone', (line) => {
    expect(filter.matchIndex(line)).toBe(-1);
    expect(filter.match(line)).toBeUndefined();
  });

  describe('stretched letters: a run of 3 or more matches a shorter listed run; a run of 1 or 2 only its own length', () => {
    const doubles = new WordFilter(['god', 'nob', 'ho', 'fuck', 'ass', 'good']);
    const at = (word: string): number => ['god', 'nob', 'ho', 'fuck', 'ass', 'good'].indexOf(word);

    it.each([
      ['fuuuck', 'fuck'],
      ['fuuuuuuuck', 'fuck'],
      ['FFFuck', 'fuck'],
      ['fuckkk', 'fuck'],
      ['goood', 'good'], // `good` listed: a stretch of its own double letter
      ['asss', 'ass'],
      ['gggod', 'god'],
      ['Hooo', 'ho'], // three: a stretch, so an interjection of three `o`s is `ho` when `ho` is listed
      ['oh ho ho', 'ho'], // the listed word itself
    ])('matches %j as %j', (line, word) => {
      expect(doubles.matchIndex(line)).toBe(at(word));
    });

    it.each(['good game', 'Good', 'you noob', 'hoo', 'fuuck', 'ffuck', 'as', 'gd', 'nobb'])('leaves %j alone: a run of two is a spelling, not a stretch', (line) => {
      expect(new WordFilter(['god', 'nob', 'ho', 'fuck', 'ass']).matchIndex(line)).toBe(-1);
    });

    it('keeps a double letter of a listed word: one letter where the word has two is another word', () => {
      const listed = new WordFilter(['good', 'ass']);
      expect(listed.matchIndex('god')).toBe(-1);
      expect(listed.matchIndex('as')).toBe(-1);
      expect(listed.matchIndex('good')).toBe(0);
    });
  });

  describe('spacing tricks join single letters only', () => {
    it.each(['as s', 'a ss', 'b ad', 'ba d', 'sc a m', 'as  s!'])('leaves %j alone', (line) => {
      expect(filter.matchIndex(line)).toBe(-1);
    });

    it.each([
      ['a s s', 'ass'],
      ['b a d', 'bad'],
      ['x b.a.d y', 'bad'],
      ['s c a m', 'scam'],
    ])('matches %j as %j', (line, word) => {
      expect(filter.matchIndex(line)).toBe(indexOf(word));
    });
  });

  describe('evasions folded from Unicode data', () => {
    const evasions = new WordFilter(['kid', 'bad', 'idiot', 'good', 'toad', 'dog']);
    const at = (word: string): number => ['kid', 'bad', 'idiot', 'good', 'toad', 'dog'].indexOf(word);

    it.each([
      ['Hangul filler U+3164 inside', 'ba\u3164d', 'bad'],
      ['half-width Hangul filler U+FFA0 inside', 'b\uffa0ad', 'bad'],
      ['zero-width joiner', 'k\u200did', 'kid'],
      ['variation selector', 'ba\ufe0fd', 'bad'],
      ['tag characters (astral, default-ignorable)', 'b\u{e0041}a\u{e007f}d', 'bad'],
      ['combining marks stacked on letters', 'b\u0336a\u0335\u0301d', 'bad'],
      ['dotless i', 'k\u0131d', 'kid'],
      ['Latin alpha', 'b\u0251d', 'bad'],
      ['small capitals ᴀ ɪ ᴅ ᴏ ᴛ', '\u026a\u1d05\u026a\u1d0f\u1d1b', 'idiot'],
      ['small capital a and d', 'b\u1d00\u1d05', 'bad'],
      ['small capitals t, o, a, d', '\u1d1b\u1d0f\u1d00\u1d05', 'toad'],
      ['Armenian oh', 'g\u0585\u0585d', 'good'],
      ['Cyrillic soft sign', '\u044cad', 'bad'],
      ['Cyrillic i', 'k\u0456d', 'kid'],
      ['Cherokee capitals', '\u13f4\u13aa\u13a0', 'bad'],
      ['Cherokee small letters', '\u13fc\uab7a\uab70', 'bad'],
      ['Cherokee G', 'd\u13be\u13c0', 'dog'],
      ['b with stroke', '\u0180ad', 'bad'],
      ['regional indicators', '\u{1f1e7}\u{1f1e6}\u{1f1e9}', 'bad'],
      ['regional indicators in a sentence', 'you are \u{1f1e7}\u{1f1e6}\u{1f1e9}!', 'bad'],
    ])('%s: %j', (_name, line, word) => {
      expect(evasions.matchIndex(line)).toBe(at(word));
    });

    it('folds a listed word written in look-alikes to its letters', () => {
      expect(new WordFilter(['\u0431\u0251d']).size).toBe(1);
      expect(new WordFilter(['k\u0131d']).matchIndex('kid')).toBe(0);
    });

    it.each(['Stra\u00dfe', 'gr\u00fc\u00dfe', '\u00e6sir', 'ka\u0438d'])('leaves letters that are no look-alike of a listed one alone: %j', (line) => {
      expect(new WordFilter(['strabe', 'grube', 'aesir', 'kad', 'kid']).matchIndex(line)).toBe(-1);
    });
  });

  it('names the first listing of a word listed twice, and skips words that fold to nothing', () => {
    const twice = new WordFilter(['Bad', 'b@d', '#%', 'worse']);
    expect(twice.matchIndex('bad')).toBe(0);
    expect(twice.ignored).toEqual([2]);
    expect(twice.size).toBe(2);
  });

  it('matches nothing with an empty list', () => {
    expect(new WordFilter([]).matchIndex('bad words everywhere')).toBe(-1);
  });

  it('stays linear on hostile text (long repeats, look-alike runs, lone letters): a few steps a character', () => {
    const hostile = new WordFilter(['aaaaaaaaab', 'a a a a a c', '!!!!!!!x']);
    const lines = ['a'.repeat(100_000), 'a '.repeat(50_000), '!'.repeat(100_000), '@!$|'.repeat(25_000), '\u0430'.repeat(100_000)];
    for (const line of lines) {
      expect(hostile.matchIndex(line)).toBe(-1);
      expect(hostile.lastWork).toBeLessThanOrEqual(line.length * 8);
    }
  });

  it('folds mathematical and enclosed letters, and reads emoji as separators', () => {
    expect(filter.matchIndex('\u{1d41b}\u{1d41a}\u{1d41d}')).toBe(indexOf('bad')); // 𝐛𝐚𝐝
    expect(filter.matchIndex('\u{1f131}\u{1f130}\u{1f133}')).toBe(indexOf('bad')); // 🄱🄰🄳
    expect(filter.matchIndex('bad\u{1f600}')).toBe(indexOf('bad'));
    expect(filter.matchIndex('\u{1f600}scamper\u{1f600}')).toBe(-1);
  });

  it('pays the slow fold once per character, not per line: lines of thousands of distinct characters stay cheap', () => {
    const distinct = (from: number): string => Array.from({ length: 5000 }, (_, index) => String.fromCodePoint(from + index)).join('');
    const lines = [distinct(0x4e00), distinct(0xac00), distinct(0x20000), distinct(0x1d400).slice(0, 2000)];
    for (const line of lines) filter.matchIndex(line);
    const foldedOnce = slowFoldCount();
    for (let round = 0; round < 20; round++) for (const line of lines) expect(filter.matchIndex(line)).toBe(-1);
    // 80 more lines of up to 5 000 characters, each character already folded once: not one slow fold more.
    expect(slowFoldCount()).toBe(foldedOnce);
  });

  it('handles lines longer than its buffer and odd code points', () => {
    expect(filter.matchIndex(`${'x '.repeat(1000)}bad`)).toBe(indexOf('bad'));
    expect(filter.matchIndex('\ud83d\ude00 bad \ud83d')).toBe(indexOf('bad'));
    expect(filter.matchIndex('\u0000\uffff\ud800')).toBe(-1);
  });

  describe('the bound on a line\'s work', () => {
    /** 1,024 words of ten letters, each `i` or `l`: every `1`, `!` or `|` of a line may be either, so many states live at once. */
    const ambiguous = Array.from({ length: 1024 }, (_, n) => Array.from({ length: 10 }, (_, b) => ((n >> b) & 1) === 1 ? 'i' : 'l').join(''));

    it.each([
      ['ones', '1'.repeat(16_384)],
      ['bangs', '!'.repeat(16_384)],
      ['ones and bangs', '1!'.repeat(8_192)],
      ['mixed look-alikes', '1!|'.repeat(5_461)],
      ['letters and ones', 'i1'.repeat(8_192)],
    ])('stops a pathological list at WORK_LIMIT on a 16 KiB line of %s, and says so', (_name, line) => {
      const over: number[] = [];
      const filter = new WordFilter(ambiguous, { onOverBudget: (length) => over.push(length) });
      expect(filter.matchIndex(line)).toBe(-1);
      expect(filter.lastWork).toBeLessThanOrEqual(WORK_LIMIT);
      expect(filter.lastWork).toBeGreaterThan(WORK_LIMIT / 2);
      expect(over).toEqual([line.length]);
    });

    it('takes a smaller bound when given one, and tells only its own filter', () => {
      const over: number[] = [];
      const bounded = new WordFilter(['lil'], { workLimit: 40, onOverBudget: (length) => over.push(length) });
      const line = `${'!|'.repeat(20)} lil`;
      expect(bounded.matchIndex(line)).toBe(-1);
      expect(bounded.lastWork).toBeLessThanOrEqual(40);
      expect(over).toEqual([line.length]);
      // The same line within the default bound finds the word.
      expect(new WordFilter(['lil']).matchIndex(line)).toBe(0);
    });

    it('the first filter built in a process warms the walk up without telling the host of the warm-up\'s lines', async () => {
      vi.resetModules();
      const fresh = await import('../../src/moderation/wordFilter.js');
      const over: number[] = [];
      const first = new fresh.WordFilter(['bad'], { onOverBudget: (length) => over.push(length) });
      expect(over).toEqual([]);
      expect(first.lastWork).toBe(0);
      expect(first.matchIndex('so b a d')).toBe(0);
      expect(first.matchIndex('hello there')).toBe(-1);
    });

    it('reads a stretch of any length', () => {
      expect(new WordFilter(['bad']).matchIndex(`b${'a'.repeat(16_384)}d`)).toBe(0);
    });

    it('still finds a word the line holds before the budget runs out', () => {
      const filter = new WordFilter(ambiguous);
      expect(filter.matchIndex(`lllllliiii ${'1'.repeat(16_384)}`)).toBe(ambiguous.indexOf('lllllliiii'));
    });

    it('examines a real list\'s worst 16 KiB lines to their end, within the bound', () => {
      const leo = readFileSync(new URL('../fixtures/wordlists/leo-profanity-en.txt', import.meta.url), 'utf8').split('\n').filter((word) => word !== '');
      const over: number[] = [];
      const filter = new WordFilter(leo, { onOverBudget: (length) => over.push(length) });
      const lines = ['a'.repeat(16_384), 's'.repeat(16_384), '1'.repeat(16_384), '!'.repeat(16_384), '1!'.repeat(8_192), '1 '.repeat(8_192), '1!|'.repeat(5_461), 'a$$'.repeat(5_461), 'a s '.repeat(4_096), 'b1tch'.repeat(3_276), 'f u '.repeat(4_096), 'fuuuuu'.repeat(2_730)];
      for (const line of lines) {
        filter.matchIndex(line);
        expect(filter.lastWork, line.slice(0, 12)).toBeLessThan(WORK_LIMIT * 0.6);
      }
      expect(over).toEqual([]);
    });
  });
});
