// Rust WebRCON wire formats on their own: the envelope, the chat entry inside it (odd names, unicode, old numeric
// ids, malformed inner JSON), the command encoding, and the URL/password helpers that keep the secret out of logs.
import { describe, expect, it } from 'vitest';
import {
  encodeWebRconCommand,
  parseRustChat,
  parseWebRconMessage,
} from '../../adapters/rcon/webrcon/wire.js';
import {
  passwordNeedsEncoding,
  passwordPathSegment,
  passwordScrubber,
  redactedWebRconUrl,
  webRconUrl,
} from '../../adapters/rcon/webrcon/passwordUrl.js';

// A chat broadcast exactly as Rust writes it: Newtonsoft, indented, the ChatEntry serialised into Message.
const REAL_CHAT = JSON.stringify(
  {
    Message: JSON.stringify({ Channel: 0, Message: 'hi', UserId: '76561198000000001', Username: 'Name', Color: '#5af', Time: 1763726400 }, null, 2),
    Identifier: -1,
    Type: 'Chat',
    Stacktrace: null,
  },
  null,
  2,
);

describe('parseWebRconMessage', () => {
  it('reads a reply, a broadcast and console output', () => {
    expect(parseWebRconMessage('{"Message":"ok","Identifier":7,"Type":"Generic","Stacktrace":""}')).toEqual({
      ok: true,
      value: { identifier: 7, message: 'ok', type: 'Generic', stacktrace: '' },
    });
    const chat = parseWebRconMessage(REAL_CHAT);
    expect(chat.ok && chat.value.identifier === -1 && chat.value.type === 'Chat' && chat.value.stacktrace === undefined).toBe(true);
    expect(parseWebRconMessage('{"Message":"[event] x"}')).toEqual({ ok: true, value: { identifier: 0, message: '[event] x', type: 'Generic', stacktrace: undefined } });
  });

  it('refuses what is not a WebRCON envelope, without throwing', () => {
    for (const text of ['', 'not json', '[]', 'null', '42', '{"Identifier":"7"}', '{"Identifier":1.5}', '{"Message":{}}', '{"Type":3}']) {
      expect(parseWebRconMessage(text).ok).toBe(false);
    }
  });
});

describe('parseRustChat', () => {
  it('parses the entry Rust broadcasts', () => {
    const outer = parseWebRconMessage(REAL_CHAT);
    if (!outer.ok) throw new Error('fixture');
    expect(parseRustChat(outer.value.message)).toEqual({
      ok: true,
      value: { channel: 0, channelName: 'global', text: 'hi', steamId: '76561198000000001', username: 'Name', color: '#5af', time: 1763726400 },
    });
  });

  it('keeps odd names and unicode exactly', () => {
    const names = ['[GSA] Dr. "Quote" (Admin): x', 'Ünïcødé 名前 🦀', '   spaces   ', 'a|b//c;d', '<color=red>x</color>', '\\back\\slash'];
    for (const username of names) {
      const text = `${username} says: ✓ — ½ 👍🏽`;
      const result = parseRustChat(JSON.stringify({ Channel: 1, Message: text, UserId: '76561198000000002', Username: username }));
      expect(result).toMatchObject({ ok: true, value: { username, text, channelName: 'team', color: undefined, time: undefined } });
    }
  });

  it('reads a numeric UserId (old servers, plugins) without losing digits above 2^53', () => {
    const result = parseRustChat('{"Channel":0,"Message":"x","UserId":76561198000000001,"Username":"Old"}');
    expect(result).toMatchObject({ ok: true, value: { steamId: '76561198000000001' } });
  });

  it('names every channel and keeps unknown numbers', () => {
    const names = [0, 1, 2, 3, 4, 5, 6, 9].map((channel) => {
      const result = parseRustChat(JSON.stringify({ Channel: channel, Message: 'x', UserId: '0', Username: 'SERVER' }));
      return result.ok ? result.value.channelName : 'failed';
    });
    expect(names).toEqual(['global', 'team', 'server', 'cards', 'local', 'clan', 'external_dm', 'unknown']);
  });

  it('reports malformed inner JSON and wrong field types as reasons, never throws', () => {
    const bad = [
      '{"Channel":0,"Message":"hi"',
      'hi there',
      '[]',
      '{"Channel":"0","Message":"x","UserId":"1","Username":"n"}',
      '{"Channel":0,"Message":5,"UserId":"1","Username":"n"}',
      '{"Channel":0,"Message":"x","UserId":"7656x","Username":"n"}',
      '{"Channel":0,"Message":"x","UserId":"1"}',
      '{"Channel":0,"Message":"x","UserId":-5,"Username":"n"}',
    ];
    for (const inner of bad) {
      const result = parseRustChat(inner);
      expect(result.ok, inner).toBe(false);
      if (!result.ok) expect(result.reason.length).toBeGreaterThan(0);
    }
  });
});

describe('encodeWebRconCommand', () => {
  it('writes the shape Rust reads, escaping the command as JSON', () => {
    expect(JSON.parse(encodeWebRconCommand(3, 'say "hi"\n'))).toEqual({ Identifier: 3, Message: 'say "hi"\n', Name: 'WebRcon' });
  });
});

describe('the password in the URL', () => {
  it('builds the URL Rust expects and a redacted one for messages', () => {
    expect(webRconUrl('127.0.0.1', 28016, 'abc123')).toBe('ws://127.0.0.1:28016/abc123');
    expect(webRconUrl('::1', 28016, 'abc')).toBe('ws://[::1]:28016/abc');
    expect(redactedWebRconUrl('rust.example', 28016)).toBe('ws://rust.example:28016/***');
  });

  it('encodes only what a path segment cannot hold, and says when that happens', () => {
    expect(passwordPathSegment('Pa$$w0rd!*')).toBe('Pa$$w0rd!*');
    expect(passwordNeedsEncoding('Pa$$w0rd!*')).toBe(false);
    expect(passwordPathSegment('a b#c?d/e%')).toBe('a%20b%23c%3Fd%2Fe%25');
    expect(passwordNeedsEncoding('pässword')).toBe(true);
  });

  it('scrubs every form of the password from a text', () => {
    const scrub = passwordScrubber('p@ss word$');
    const text = `ws://h:1/p@ss word$ or p%40ss%20word%24 or p@ss%20word$ or p@ss%20word%24`;
    const scrubbed = scrub(text);
    expect(scrubbed).not.toContain('p@ss');
    expect(scrubbed).not.toContain('p%40ss');
    expect(scrubbed).toContain('ws://h:1/***');
  });
});
