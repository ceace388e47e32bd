// LogLineDecoder, pure: every way of splitting the same bytes gives the same lines; encodings sniffed from the head;
// BOMs and line endings never in a line; over-long lines cut and their rest dropped; a mid-line start skipped.
// Must never touch the file system (LogTail's own tests do that, test/integration/log-tail.test.ts).
import { describe, expect, it } from 'vitest';
import { LogLineDecoder, sniffEncoding } from '../../adapters/rcon/sources/logLineDecoder.js';

/** Feeds `bytes` in pieces cut at `cuts` (sorted offsets), returns every line including end()'s. */
function decode(bytes: Buffer, cuts: readonly number[], options: ConstructorParameters<typeof LogLineDecoder>[0] = {}): string[] {
  const decoder = new LogLineDecoder(options);
  const lines: string[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    lines.push(...decoder.write(bytes.subarray(from, cut)));
    from = cut;
  }
  return [...lines, ...decoder.end()];
}

const text = 'Grüße 🎉 aus Köln\r\nzweite €\nlast';
const expected = ['Grüße 🎉 aus Köln', 'zweite €', 'last'];

describe('LogLineDecoder', () => {
  const cases: [string, Buffer][] = [
    ['UTF-8', Buffer.from(text, 'utf8')],
    ['UTF-8 with a BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])],
    ['UTF-16LE with a BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
    ['UTF-16LE without a BOM', Buffer.from(text, 'utf16le')],
  ];
  for (const [name, bytes] of cases) {
    it(`${name}: the same lines however the bytes are split (every single cut, and byte by byte)`, () => {
      for (let cut = 0; cut <= bytes.length; cut++) expect(decode(bytes, [cut])).toEqual(expected);
      expect(decode(bytes, Array.from({ length: bytes.length }, (_, i) => i))).toEqual(expected);
    });
  }

  it('holds a partial line until its newline, and delivers nothing before', () => {
    const decoder = new LogLineDecoder();
    expect(decoder.write(Buffer.from('hel'))).toEqual([]);
    expect(decoder.write(Buffer.from('lo\r'))).toEqual([]);
    expect(decoder.write(Buffer.from('\nnext'))).toEqual(['hello']);
  });

  it('cuts a line longer than maxLineLength, drops its rest up to the newline, and tells once per cut line', () => {
    const cuts: number[] = [];
    const long = `${'a'.repeat(25)}\n${'b'.repeat(10)}\n${'c'.repeat(11)}\r\n${'d'.repeat(10)}\r\n`;
    const bytes = Buffer.from(long);
    const lines = decode(bytes, [3, 12, 20], { maxLineLength: 10, onCut: (length) => cuts.push(length) });
    expect(lines).toEqual(['a'.repeat(10), 'b'.repeat(10), 'c'.repeat(10), 'd'.repeat(10)]);
    expect(cuts).toHaveLength(2);
  });

  it('holds at most maxLineLength (+1 for a CR) of an unfinished line: past that it is cut and told at once', () => {
    const cuts: number[] = [];
    const decoder = new LogLineDecoder({ maxLineLength: 10, onCut: (length) => cuts.push(length) });
    // Up to the bound and one more (a CR whose LF may follow), nothing is cut.
    expect(decoder.write(Buffer.from('x'.repeat(11)))).toEqual([]);
    expect(cuts).toEqual([]);
    // One more character and the unfinished line is over the bound: cut now, not when it ends.
    expect(decoder.write(Buffer.from('x'))).toEqual([]);
    expect(cuts).toEqual([12]);
    // The rest up to the newline is dropped, not held: a writer that never ends its line costs no more.
    expect(decoder.write(Buffer.from('y'.repeat(10_000)))).toEqual([]);
    expect(decoder.write(Buffer.from('y\nnext\n'))).toEqual(['x'.repeat(10), 'next']);
    expect(cuts).toEqual([12]);
  });

  it('never splits a surrogate pair when cutting', () => {
    const lines = decode(Buffer.from(`${'x'.repeat(9)}🎉tail\n`), [], { maxLineLength: 10 });
    expect(lines).toEqual(['x'.repeat(9)]);
  });

  it('started mid-line: drops everything up to the first newline', () => {
    expect(decode(Buffer.from('f of an old line\nnew\n'), [4], { startsMidLine: true })).toEqual(['new']);
  });

  it('sniff() takes the encoding from the head when the data fed starts mid-file', () => {
    const decoder = new LogLineDecoder();
    decoder.sniff(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('old\r\n', 'utf16le')]));
    expect(decoder.write(Buffer.from('neu: ß\r\n', 'utf16le'))).toEqual(['neu: ß']);
  });

  it('sniffEncoding waits on a BOM prefix or a lone byte, and decides on what there is when told it is all', () => {
    expect(sniffEncoding(Buffer.from([0xef, 0xbb]), false)).toBeUndefined();
    expect(sniffEncoding(Buffer.from([0xff]), false)).toBeUndefined();
    expect(sniffEncoding(Buffer.from('a'), false)).toBeUndefined();
    expect(sniffEncoding(Buffer.from('a'), true)).toEqual({ encoding: 'utf8', bomBytes: 0 });
    expect(sniffEncoding(Buffer.from('a\n'), false)).toEqual({ encoding: 'utf8', bomBytes: 0 });
    expect(sniffEncoding(Buffer.from('ab', 'utf16le'), false)).toEqual({ encoding: 'utf16le', bomBytes: 0 });
    expect(sniffEncoding(Buffer.from([0xff, 0xfe, 0x41]), false)).toEqual({ encoding: 'utf16le', bomBytes: 2 });
  });
});
