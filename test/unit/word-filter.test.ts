// The chat filter's matcher: whole listed words after folding case, accents, look-alikes, repeats and spacing
// tricks, and the words that merely contain a listed one (scamper, class) left alone.
import { describe, expect, it } from 'vitest';
import { WordFilter } from '../../src/moderation/wordFilter.js';

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

  it('names the first listing of a word listed twice, and skips words that fold to nothing', () => {
    const twice = new WordFilter(['Bad', 'b@d', '#%', 'worse']);
    expect(twice.matchIndex('bad')).toBe(0);
    expect(twice.ignored).toEqual([2]);
    expect(twice.size).toBe(2);
  });

  it('matches nothing with an empty list', () => {
    expect(new WordFilter([]).matchIndex('bad words everywhere')).toBe(-1);
  });

  it('stays linear on hostile text (long repeats, look-alike runs, lone letters)', () => {
    const hostile = new WordFilter(['aaaaaaaaab', 'a a a a a c', '!!!!!!!x']);
    const lines = ['a'.repeat(100_000), 'a '.repeat(50_000), '!'.repeat(100_000), '@!$|'.repeat(25_000), '\u0430'.repeat(100_000)];
    const started = performance.now();
    for (const line of lines) expect(hostile.matchIndex(line)).toBe(-1);
    // Generous for a busy machine: exponential walks take minutes here, not this.
    expect(performance.now() - started).toBeLessThan(5_000);
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
    const started = performance.now();
    for (let round = 0; round < 20; round++) for (const line of lines) expect(filter.matchIndex(line)).toBe(-1);
    // 80 lines of up to 5 000 characters, already folded once: milliseconds; a regular expression a character would
    // take seconds here.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('handles lines longer than its buffer and odd code points', () => {
    expect(filter.matchIndex(`${'x '.repeat(1000)}bad`)).toBe(indexOf('bad'));
    expect(filter.matchIndex('\ud83d\ude00 bad \ud83d')).toBe(indexOf('bad'));
    expect(filter.matchIndex('\u0000\uffff\ud800')).toBe(-1);
  });
});
