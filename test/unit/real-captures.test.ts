// What real game servers print, read by the real parsers. The captures (test/fixtures/real/, sources in its
// SOURCES.md) are lines and answers published with Squad, Rust, ARK and Conan Exiles tools; the expected readings beside them
// were written by reading each capture, as a person would: who spoke, their ids, the channel, the text; a server
// notice is a notice; a line that is not chat is not chat. Each capture is also fed through its game profile, to
// show what the adapter gets: a player's line only for a player's chat.
import { describe, expect, it } from 'vitest';
import { arkProfile } from '../../adapters/rcon/profiles/ark.js';
import { parseArkGameLogLine } from '../../adapters/rcon/profiles/arkGameLogLines.js';
import { parseArkChat } from '../../adapters/rcon/profiles/arkLines.js';
import { parseConanLogLine, parseConanPlayerList } from '../../adapters/rcon/profiles/conanLines.js';
import type { RconChatLine } from '../../adapters/rcon/profiles/profile.js';
import { rustProfile } from '../../adapters/rcon/profiles/rust.js';
import { parseRustChat, parseRustPlayerList } from '../../adapters/rcon/profiles/rustLines.js';
import { squadProfile } from '../../adapters/rcon/profiles/squad.js';
import { parseSquadPlayerList, parseSquadPush, type SquadPushParse } from '../../adapters/rcon/profiles/squadLines.js';
import { readCaptures, readExpected } from '../fixtures/realCaptures.js';

/** Every capture has a reading, and every reading a capture: a capture added without one fails here. */
function expectPaired(entries: readonly { key: string }[], expected: ReadonlyMap<string, unknown>): void {
  expect(entries.map((entry) => entry.key).sort()).toEqual([...expected.keys()].sort());
  expect(new Set(entries.map((entry) => entry.key)).size).toBe(entries.length);
}

function want<T>(expected: ReadonlyMap<string, T>, key: string): T {
  const value = expected.get(key);
  if (value === undefined) throw new Error(`no expected reading for ${key}`);
  return value;
}

// ---- Squad ---------------------------------------------------------------------------------------------------------

type SquadReading =
  | { kind: 'chat'; channel: string; steamId?: string | undefined; eosId?: string | undefined; name: string; text: string }
  | { kind: 'notice'; channel: string; sender: string; text: string }
  | { kind: 'not-chat' }
  | { kind: 'unparsed' };

function squadReading(parsed: SquadPushParse): SquadReading {
  if (parsed.kind === 'chat') return { ...parsed };
  if (parsed.kind === 'unparsed') return { kind: 'unparsed' };
  return parsed.notice === undefined ? { kind: 'not-chat' } : { kind: 'notice', ...parsed.notice };
}

/** Squad's chat tags as the contract maps them: ChatAll→global, ChatTeam→team, ChatSquad→squad, ChatAdmin→admin. */
const SQUAD_CHANNELS: Record<string, string> = { ChatAll: 'global', ChatTeam: 'team', ChatSquad: 'squad', ChatAdmin: 'admin' };

function readPushed(body: string): RconChatLine {
  if (squadProfile.chat.console?.kind !== 'pushed') throw new Error('the squad profile reads pushed chat');
  return squadProfile.chat.console.read(body, () => undefined);
}

describe('real Squad pushes (squad-chat.txt)', () => {
  const entries = readCaptures('squad-chat.txt');
  const expected = readExpected<SquadReading>('squad-chat.expected.json');

  it('has a reading for every capture', () => {
    expectPaired(entries, expected);
  });

  it.each(entries)('$key reads as a person reads it', ({ key, text }) => {
    const reading = want(expected, key);
    expect(squadReading(parseSquadPush(text))).toEqual(reading);
    const line = readPushed(text);
    if (reading.kind === 'chat') {
      // The profile names the channel in the sidecar's vocabulary (interfaces.md, "Chat channels").
      expect(line).toMatchObject({ kind: 'player', channel: SQUAD_CHANNELS[reading.channel], name: reading.name, text: reading.text });
      expect(line.kind === 'player' ? [line.steamId, line.eosId] : []).toEqual([reading.steamId, reading.eosId]);
    } else if (reading.kind === 'notice') {
      // The server's own line: never gated, never a review.
      expect(line).toEqual({ kind: 'server', text: reading.text });
    } else {
      expect(line.kind).not.toBe('player');
      expect(line.kind).not.toBe('unparsed');
    }
  });
});

interface SquadListReading {
  status: string;
  players: { slot: number; steamId?: string; eosId?: string; name: string; teamId: number | null; squadId: number | null }[];
  unparsed: string[];
}

describe('real Squad ListPlayers answers (squad-listplayers.txt)', () => {
  const entries = readCaptures('squad-listplayers.txt');
  const expected = readExpected<SquadListReading>('squad-listplayers.expected.json');

  it('has a reading for every capture', () => {
    expectPaired(entries, expected);
  });

  it.each(entries)('$key lists who is online', ({ key, text }) => {
    const parsed = parseSquadPlayerList(text);
    expect({ status: parsed.status, players: parsed.players, unparsed: parsed.unparsed.map((odd) => odd.line) }).toEqual(want(expected, key));
  });
});

describe('real Squad ListPlayers answers in the current layout (squad-listplayers-current.txt)', () => {
  const entries = readCaptures('squad-listplayers-current.txt');
  const expected = readExpected<SquadListReading>('squad-listplayers-current.expected.json');

  it('has a reading for every capture', () => {
    expectPaired(entries, expected);
  });

  it.each(entries)('$key lists who is online, with Party ID and Vehicle', ({ key, text }) => {
    const parsed = parseSquadPlayerList(text);
    expect({ status: parsed.status, players: parsed.players, unparsed: parsed.unparsed.map((odd) => odd.line) }).toEqual(want(expected, key));
  });
});

// ---- ARK -----------------------------------------------------------------------------------------------------------

interface ArkReading {
  status: string;
  lines: ({ kind: 'player'; playerName: string; characterName: string; text: string } | { kind: 'server'; text: string })[];
  notices: string[];
  unparsed: string[];
}

describe('real ARK GetChat answers (ark-getchat.txt)', () => {
  const entries = readCaptures('ark-getchat.txt');
  const expected = readExpected<ArkReading>('ark-getchat.expected.json');

  it('has a reading for every capture', () => {
    expectPaired(entries, expected);
  });

  it.each(entries)('$key reads as a person reads it', ({ key, text }) => {
    const reading = want(expected, key);
    const parsed = parseArkChat(text);
    expect({
      status: parsed.status,
      lines: parsed.lines,
      notices: parsed.notices.map((notice) => notice.kind),
      unparsed: parsed.unparsed.map((odd) => odd.line),
    }).toEqual(reading);
    // The adapter gets the players' lines and the server's; a notice is nothing to it, an unreadable line a debug line.
    if (arkProfile.chat.console?.kind !== 'poll') throw new Error('the ark profile polls its chat');
    const lines = arkProfile.chat.console.read(text, []);
    expect(lines.filter((line) => line.kind === 'player').map((line) => [line.name, line.text])).toEqual(
      reading.lines.flatMap((line) => (line.kind === 'player' ? [[line.playerName, line.text]] : [])),
    );
    expect(lines.filter((line) => line.kind === 'server')).toHaveLength(reading.lines.filter((line) => line.kind === 'server').length);
    expect(lines.filter((line) => line.kind === 'unparsed')).toHaveLength(reading.unparsed.length);
  });
});

type ArkGameLogReading =
  | { kind: 'player'; name: string; characterName: string; text: string }
  | { kind: 'server'; text: string }
  | { kind: 'join' | 'leave'; name: string; eosId?: string }
  | { kind: 'notice' }
  | { kind: 'not-chat' };

describe('real ARK game-log lines (ark-gamelog.txt)', () => {
  const entries = readCaptures('ark-gamelog.txt');
  const expected = readExpected<ArkGameLogReading>('ark-gamelog.expected.json');

  it('has a reading for every capture', () => {
    expectPaired(entries, expected);
  });

  it.each(entries)('$key reads as a person reads it, as written and with a BOM and CRLF', ({ key, text }) => {
    const reading = want(expected, key);
    // The file is CRLF, and its first line carries a BOM: the same reading either way.
    for (const line of [text, `\uFEFF${text}\r\n`]) {
      const parsed = parseArkGameLogLine(line);
      if (reading.kind === 'not-chat') expect(['notice', 'unparsed']).toContain(parsed.kind);
      else expect(parsed).toEqual(reading);
    }
  });

  it('reads the chat line by the listed name too, and never a notice as chat when every name is listed', () => {
    const names = ['LeRaptorSauvage', 'sMuve', 'Survivor42', 'AFP_Smokey', 'Humano', 'Guppy', 'Roderick850'];
    for (const { key, text } of entries) {
      const reading = want(expected, key);
      const parsed = parseArkGameLogLine(text, names);
      if (reading.kind === 'player' || reading.kind === 'server') expect(parsed, key).toEqual(reading);
      else expect(parsed.kind, key).not.toBe('player');
    }
  });
});

// ---- Conan Exiles --------------------------------------------------------------------------------------------------

type ConanLogReading =
  | { kind: 'player'; channel: 'global'; name: string; steamId?: string; text: string }
  | { kind: 'duplicate' }
  | { kind: 'other' };

describe('real Conan Exiles log lines (conan-log.txt)', () => {
  const entries = readCaptures('conan-log.txt');
  const expected = readExpected<ConanLogReading>('conan-log.expected.json');

  it('has a reading for every capture', () => {
    expectPaired(entries, expected);
  });

  it.each(entries)('$key reads as a person reads it, as written and with a BOM and CRLF', ({ key, text }) => {
    const reading = want(expected, key);
    expect(parseConanLogLine(text)).toEqual(reading);
    // The engine writes the file with a BOM before its first line, and CRLF ends.
    expect(parseConanLogLine(`\uFEFF${text}\r\n`)).toEqual(reading);
  });
});

interface ConanListReading {
  status: string;
  players: { steamId: string; name: string; idx: number; playerName: string; userId: string; platformName: string }[];
  unparsed: string[];
}

describe('real Conan Exiles listplayers answers (conan-listplayers.txt)', () => {
  const entries = readCaptures('conan-listplayers.txt');
  const expected = readExpected<ConanListReading>('conan-listplayers.expected.json');

  it('has a reading for every capture', () => {
    expectPaired(entries, expected);
  });

  it.each(entries)('$key lists who is online', ({ key, text }) => {
    const reading = want(expected, key);
    for (const answer of [text, `${text.replace(/\n/g, '\r\n')}\r\n`]) {
      const parsed = parseConanPlayerList(answer);
      expect({ status: parsed.status, players: parsed.players, unparsed: parsed.unparsed.map((odd) => odd.line) }).toEqual(reading);
    }
  });
});

// ---- Rust ----------------------------------------------------------------------------------------------------------

interface RustConsoleReading {
  channel: 'global' | 'team';
  steamId: string;
  name: string;
  text: string;
}

/** Rust's chat channel numbers (Chat.ChatChannel): the console's [CHAT] is Global (0), [TEAM CHAT] Team (1). */
const CHANNEL_NUMBER = { global: 0, team: 1 } as const;

/** A chat entry as Rust's RCon.Broadcast writes it (Chat.ChatEntry), for a player and text read from a capture. */
function chatEntry(reading: RustConsoleReading, message: string): string {
  return JSON.stringify({ Channel: CHANNEL_NUMBER[reading.channel], Message: message, UserId: reading.steamId, Username: reading.name, Color: '#5af', Time: 1_600_000_000 });
}

describe('real Rust chat (rust-console-chat.txt)', () => {
  const entries = readCaptures('rust-console-chat.txt');
  const expected = readExpected<RustConsoleReading>('rust-console-chat.expected.json');

  it('has a reading for every capture', () => {
    expectPaired(entries, expected);
  });

  it.each(entries)('$key: the console echo is not a chat entry (the Chat-typed entry is the one read)', ({ text }) => {
    expect(parseRustChat(text)).toMatchObject({ ok: false });
  });

  // No public capture of a Type "Chat" entry was found (SOURCES.md): the entries below carry the captured player,
  // id and words in the shape Rust's server writes, plainly and as Better Chat prints them (its default console
  // format `{Title} {Username}: {Message}`, with the default group's title `[Player]`, LaserHydra/BetterChat).
  it.each(entries)('$key: the same words in a chat entry read back unchanged, plain or with Better Chat\'s prefix', ({ key }) => {
    const reading = want(expected, key);
    for (const message of [reading.text, `[Player] ${reading.name}: ${reading.text}`]) {
      const parsed = parseRustChat(chatEntry(reading, message));
      expect(parsed).toEqual({
        ok: true,
        chat: { kind: 'player', channel: reading.channel, steamId: reading.steamId, name: reading.name, text: reading.text, time: 1_600_000_000 },
      });
      if (!parsed.ok || rustProfile.chat.console?.kind !== 'webrcon') throw new Error('a player chat entry, read by the rust profile');
      expect(rustProfile.chat.console.read(parsed.chat)).toMatchObject({ kind: 'player', steamId: reading.steamId, name: reading.name, text: reading.text });
    }
  });
});

interface RustListReading {
  status: string;
  players: { steamId: string; name: string }[];
}

describe('real Rust playerlist answers (rust-playerlist.txt)', () => {
  const entries = readCaptures('rust-playerlist.txt');
  const expected = readExpected<RustListReading>('rust-playerlist.expected.json');

  it('has a reading for every capture', () => {
    expectPaired(entries, expected);
  });

  it.each(entries)('$key lists who is online', ({ key, text }) => {
    const parsed = parseRustPlayerList(text);
    expect(parsed.unparsed).toEqual([]);
    expect({ status: parsed.status, players: parsed.players }).toEqual(want(expected, key));
  });
});
