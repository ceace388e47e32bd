// What real 7 Days to Die servers print, read by the real parsers (adapters/rcon/profiles/sevenDaysLines.ts) and by
// the profile's reader (sevenDaysProfile.chat.console.newReader(): chat mods' pairs folded, joins with their ids). The
// captures (test/fixtures/real/7dtd-*.txt, sources in SOURCES.md) are console lines, web API log events and `lp`
// answers published with 7DTD tools; the expected readings beside them were written by reading each capture, as a
// person would. Entries published without the log prefix ("message only") get one fixed prefix here, as the telnet
// console prints every log line; web API events become the console line of the same log entry.
import { describe, expect, it } from 'vitest';
import type { RconLineReader } from '../../adapters/rcon/profiles/profile.js';
import { sevenDaysProfile } from '../../adapters/rcon/profiles/sevenDays.js';
import { isSevenDaysLogLine, parseSevenDaysChat, parseSevenDaysPlayerList, parseSevenDaysPresence } from '../../adapters/rcon/profiles/sevenDaysLines.js';
import { readCaptures, readExpected } from '../fixtures/realCaptures.js';

const PREFIX = '2000-01-01T00:00:00 0.000 INF ';
/** The web API's event types and the level the console prints for each. */
const LEVELS: Readonly<Record<string, string>> = { Log: 'INF', Warning: 'WRN', Error: 'ERR', Exception: 'EXC' };

interface WebApiEvent {
  msg: string;
  type: string;
  date: string;
  time: string;
  uptime: string;
}

/** One captured line as the telnet console pushes it. */
function asPushed(text: string): string {
  if (text.startsWith('{"msg":')) {
    const event = JSON.parse(text) as WebApiEvent;
    return `${event.date}T${event.time} ${event.uptime} ${LEVELS[event.type] ?? 'INF'} ${event.msg}`;
  }
  return isSevenDaysLogLine(text) ? text : PREFIX + text;
}

function newReader(): RconLineReader {
  const chat = sevenDaysProfile.chat.console;
  if (chat?.kind !== 'stream') throw new Error('7dtd reads the console stream');
  return chat.newReader();
}

function expectPaired(keys: readonly string[], expected: ReadonlyMap<string, unknown>): void {
  expect([...keys].sort()).toEqual([...expected.keys()].sort());
  expect(new Set(keys).size).toBe(keys.length);
}

interface LineReading {
  chat: Record<string, unknown>;
  presence?: Record<string, unknown>;
  read: Record<string, unknown>;
}

type ChatReading = LineReading | { lines: LineReading[] };

const linesOf = (reading: ChatReading): LineReading[] => ('lines' in reading ? reading.lines : [reading]);

describe('real 7DTD console lines (7dtd-chat.txt)', () => {
  const entries = readCaptures('7dtd-chat.txt');
  const expected = readExpected<ChatReading>('7dtd-chat.expected.json');

  it('has a reading for every capture and every line of it, and enough of them', () => {
    expectPaired(
      entries.map((entry) => entry.key),
      expected,
    );
    for (const { key, text } of entries) expect(linesOf(expected.get(key) ?? { lines: [] }), key).toHaveLength(text.split('\n').length);
    expect(entries.length).toBeGreaterThanOrEqual(30);
  });

  it.each(entries)('$key reads as a person reads it, line by line and through one reader', ({ key, text }) => {
    const reading = expected.get(key);
    if (reading === undefined) throw new Error(`no expected reading for ${key}`);
    // One reader per entry: each entry is one stretch of one server's log.
    const read = newReader();
    const lines = text.split('\n').map(asPushed);
    lines.forEach((line, index) => {
      const want = linesOf(reading)[index];
      expect(parseSevenDaysChat(line), `${key} line ${String(index + 1)}`).toEqual(want?.chat);
      expect(parseSevenDaysPresence(line), `${key} line ${String(index + 1)}`).toEqual(want?.presence ?? { kind: 'other' });
      expect(read(line, []), `${key} line ${String(index + 1)} through the reader`).toEqual(want?.read);
    });
  });

  it('reads every capture alike through one reader for the whole file, as `log check` would', () => {
    // No two entries are one message, so reading them all in one stream changes nothing.
    const read = newReader();
    for (const { key, text } of entries) {
      const reading = expected.get(key);
      if (reading === undefined) throw new Error(`no expected reading for ${key}`);
      text.split('\n').forEach((line, index) => {
        expect(read(asPushed(line), []), `${key} line ${String(index + 1)}`).toEqual(linesOf(reading)[index]?.read);
      });
    }
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
