// What real 7 Days to Die servers print, read by the real parsers (adapters/rcon/profiles/sevenDaysLines.ts). The
// captures (test/fixtures/real/7dtd-*.txt, sources in SOURCES.md) are console lines and `lp` answers published with
// 7DTD tools; the expected readings beside them were written by reading each capture, as a person would. Entries
// published without the log prefix ("message only") get a fixed one here, as the telnet console prints every log line.
import { describe, expect, it } from 'vitest';
import { isSevenDaysLogLine, parseSevenDaysChat, parseSevenDaysPlayerList, parseSevenDaysPresence } from '../../adapters/rcon/profiles/sevenDaysLines.js';
import { readCaptures, readExpected } from '../fixtures/realCaptures.js';

const PREFIX = '2000-01-01T00:00:00 0.000 INF ';

function asPushed(text: string): string {
  return isSevenDaysLogLine(text) ? text : PREFIX + text;
}

function expectPaired(keys: readonly string[], expected: ReadonlyMap<string, unknown>): void {
  expect([...keys].sort()).toEqual([...expected.keys()].sort());
  expect(new Set(keys).size).toBe(keys.length);
}

interface ChatReading {
  chat: Record<string, unknown>;
  presence?: Record<string, unknown>;
}

describe('real 7DTD console lines (7dtd-chat.txt)', () => {
  const entries = readCaptures('7dtd-chat.txt');
  const expected = readExpected<ChatReading>('7dtd-chat.expected.json');

  it('has a reading for every capture, and enough of them', () => {
    expectPaired(
      entries.map((entry) => entry.key),
      expected,
    );
    expect(entries.length).toBeGreaterThanOrEqual(15);
  });

  it.each(entries)('$key reads as a person reads it', ({ key, text }) => {
    const reading = expected.get(key);
    if (reading === undefined) throw new Error(`no expected reading for ${key}`);
    const line = asPushed(text);
    expect(parseSevenDaysChat(line)).toEqual(reading.chat);
    expect(parseSevenDaysPresence(line)).toEqual(reading.presence ?? { kind: 'other' });
  });
});

describe('real 7DTD lp answers (7dtd-lp.txt)', () => {
  const entries = readCaptures('7dtd-lp.txt');
  const expected = readExpected<unknown>('7dtd-lp.expected.json');

  it('has a reading for every capture', () => {
    expectPaired(
      entries.map((entry) => entry.key),
      expected,
    );
  });

  it.each(entries)('$key lists who is online', ({ key, text }) => {
    // As the telnet client hands it over: CRLF line ends, and the rows only (log lines go to onLine), here kept in to
    // show the parser skips them too.
    const parsed = parseSevenDaysPlayerList(text.split('\n').join('\r\n'));
    expect({ status: parsed.status, players: parsed.players, unparsed: parsed.unparsed.map((odd) => odd.line) }).toEqual(expected.get(key));
  });
});
