// Rust WebRCON wire formats on their own: the envelope, the chat entry inside it (odd names, unicode, old numeric
// ids, malformed inner JSON), the command encoding, and the URL/password helpers that keep the secret out of logs.
import { describe, expect, it } from 'vitest';
import {
  encodeWebRconCommand,
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
