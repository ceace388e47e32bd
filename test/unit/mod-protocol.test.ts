// parseModMessage: every mod → sidecar message type parses, and every kind of bad frame yields exactly one error
// with the protocol's code, the offending field's path in the protocol's names, and the request id when valid.
import { describe, expect, it } from 'vitest';
import {
  MOD_MESSAGE_TYPES,
  MOD_SERVER_ACTIONS,
  parseModMessage,
  parseModMessageBySchema,
  type ModMessageError,
} from '../../adapters/websocket/protocol.js';

const STEAM = '76561198000000001';
const EOS = '0123456789abcdef0123456789ABCDEF';
const PLAYER = { steam_id: STEAM, name: 'Rex' };

function parse(frame: unknown): ReturnType<typeof parseModMessage> {
  return parseModMessage(typeof frame === 'string' ? frame : JSON.stringify(frame));
}

function errorOf(frame: unknown): ModMessageError {
  const result = parse(frame);
  if (result.ok) throw new Error(`expected an error, parsed ${JSON.stringify(result.message)}`);
  return result.error;
}

describe('parseModMessage: valid messages', () => {
  it('knows the message types of protocol v1: the seven first ones, then the Mod API requests', () => {
    expect(MOD_MESSAGE_TYPES).toEqual([
      'chat',
      'mute.check',
      'review',
      'player.join',
      'player.leave',
      'server.action',
      'ping',
      'player.access',
      'report.settings',
      'report',
      'shop.list',
      'shop.item',
      'shop.order',
      'token.consume',
      'ui.settings',
      'ui.modal',
    ]);
  });

  it('parses chat', () => {
    expect(parse({ type: 'chat', id: 'c1', player: PLAYER, channel: 'global', text: 'hello' })).toEqual({
      ok: true,
      message: { type: 'chat', id: 'c1', player: PLAYER, channel: 'global', text: 'hello' },
    });
  });

  it('accepts any channel string and empty text', () => {
    expect(parse({ type: 'chat', player: { eos_id: EOS }, channel: 'tribe:42', text: '' })).toEqual({
      ok: true,
      message: { type: 'chat', player: { eos_id: EOS }, channel: 'tribe:42', text: '' },
    });
  });

  it('parses mute.check with either id or both', () => {
    for (const player of [{ steam_id: STEAM }, { eos_id: EOS }, { steam_id: STEAM, eos_id: EOS, name: 'x'.repeat(64) }]) {
      expect(parse({ type: 'mute.check', id: 'm', player })).toEqual({ ok: true, message: { type: 'mute.check', id: 'm', player } });
    }
  });

  it('parses review, an empty comment included, and leaves the star range to the bridge', () => {
    expect(parse({ type: 'review', id: 'r1', player: PLAYER, stars: 5, comment: 'great' })).toEqual({
      ok: true,
      message: { type: 'review', id: 'r1', player: PLAYER, stars: 5, comment: 'great' },
    });
    expect(parse({ type: 'review', player: PLAYER, stars: 9, comment: '' })).toMatchObject({ ok: true, message: { stars: 9, comment: '' } });
  });

  it('parses player.join and player.leave', () => {
    expect(parse({ type: 'player.join', player: PLAYER })).toEqual({ ok: true, message: { type: 'player.join', player: PLAYER } });
    expect(parse({ type: 'player.leave', player: PLAYER })).toEqual({ ok: true, message: { type: 'player.leave', player: PLAYER } });
  });

  it.each(MOD_SERVER_ACTIONS.filter((action) => action !== 'broadcast'))('parses server.action %s', (action) => {
    expect(parse({ type: 'server.action', id: 'a', action })).toEqual({ ok: true, message: { type: 'server.action', id: 'a', action } });
  });

  it('parses server.action broadcast with its text, and a notice on update, restart and stop', () => {
    expect(parse({ type: 'server.action', id: 'a', action: 'broadcast', message: 'Restart soon' })).toEqual({
      ok: true,
      message: { type: 'server.action', id: 'a', action: 'broadcast', message: 'Restart soon' },
    });
    for (const action of ['update', 'restart', 'stop']) expect(parse({ type: 'server.action', id: 'a', action, message: 'Back in 5' })).toMatchObject({ ok: true, message: { message: 'Back in 5' } });
    expect(parse({ type: 'server.action', id: 'a', action: 'broadcast' })).toMatchObject({ ok: false, error: { code: 'bad_message', path: 'message' } });
    expect(parse({ type: 'server.action', id: 'a', action: 'wipe', message: 'x' })).toMatchObject({ ok: false, error: { code: 'bad_message', path: 'message' } });
    expect(parse({ type: 'server.action', id: 'a', action: 'broadcast', message: 'x'.repeat(501) })).toMatchObject({ ok: false, error: { code: 'bad_message', path: 'message' } });
  });

  it('parses server.action update with a countdown, 0 included', () => {
    expect(parse({ type: 'server.action', id: 'a', action: 'update', countdown: 15 })).toMatchObject({ ok: true, message: { countdown: 15 } });
    expect(parse({ type: 'server.action', id: 'a', action: 'update', countdown: 0 })).toMatchObject({ ok: true, message: { countdown: 0 } });
  });

  it('parses ping with and without id', () => {
    expect(parse({ type: 'ping' })).toEqual({ ok: true, message: { type: 'ping' } });
    expect(parse({ type: 'ping', id: 'p' })).toEqual({ ok: true, message: { type: 'ping', id: 'p' } });
  });

  it('accepts unknown extra fields (forward compatibility) and drops them', () => {
    expect(parse({ type: 'chat', id: 'c', player: { ...PLAYER, level: 12 }, channel: 'global', text: 'hi', future: true })).toEqual({
      ok: true,
      message: { type: 'chat', id: 'c', player: PLAYER, channel: 'global', text: 'hi' },
    });
  });

  it('accepts ids of 1 and 64 characters', () => {
    expect(parse({ type: 'ping', id: 'x' }).ok).toBe(true);
    expect(parse({ type: 'ping', id: 'x'.repeat(64) }).ok).toBe(true);
  });
});

describe('parseModMessage: bad_json', () => {
  it.each([
    ['not JSON', 'hello'],
    ['truncated JSON', '{"type":"chat"'],
    ['empty frame', ''],
  ])('refuses %s', (_name, text) => {
    expect(errorOf(text)).toEqual({ code: 'bad_json', message: expect.stringMatching(/^not valid JSON/) as unknown });
  });

  it.each([
    ['an array', '[1,2]'],
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"chat"'],
    ['a boolean', 'true'],
  ])('refuses %s: not an object', (name, text) => {
    const error = errorOf(text);
    expect(error.code).toBe('bad_json');
    expect(error.message).toContain(name);
    expect(error).not.toHaveProperty('path');
    expect(error).not.toHaveProperty('id');
  });
});

describe('parseModMessage: type', () => {
  it('missing type is bad_message at path type, with the id echoed', () => {
    expect(errorOf({ id: 'q1', player: PLAYER })).toEqual({ code: 'bad_message', message: expect.any(String) as unknown, path: 'type', id: 'q1' });
  });

  it('a non-string type is bad_message at path type', () => {
    expect(errorOf({ type: 7 })).toMatchObject({ code: 'bad_message', path: 'type' });
    expect(errorOf({ type: null, id: 'q' })).toMatchObject({ code: 'bad_message', path: 'type', id: 'q' });
  });

  it('an unknown type string is unknown_type, with the id echoed and no path', () => {
    const error = errorOf({ type: 'chat.send', id: 'q2' });
    expect(error).toEqual({ code: 'unknown_type', message: expect.stringContaining('"chat.send"') as unknown, id: 'q2' });
  });

  it.each(['constructor', '__proto__', 'toString', 'CHAT', ''])('the type %j is unknown', (type) => {
    expect(errorOf({ type }).code).toBe('unknown_type');
  });

  it('does not echo a huge unknown type in full', () => {
    expect(errorOf({ type: 'x'.repeat(10_000) }).message.length).toBeLessThan(300);
  });
});

describe('parseModMessage: id', () => {
  it.each([
    ['empty', ''],
    ['too long', 'x'.repeat(65)],
    ['a number', 12],
    ['null', null],
    ['an object', { a: 1 }],
  ])('refuses an id that is %s, at path id, without echoing it', (_name, id) => {
    const error = errorOf({ type: 'chat', id, player: PLAYER, channel: 'global', text: 'hi' });
    expect(error).toEqual({ code: 'bad_message', message: 'must be a string of 1–64 characters', path: 'id' });
  });

  it('an invalid id is not echoed in an unknown_type error either', () => {
    expect(errorOf({ type: 'nope', id: 5 })).not.toHaveProperty('id');
  });
});

describe('parseModMessage: player', () => {
  const chat = (player: unknown): unknown => ({ type: 'chat', id: 'c9', player, channel: 'global', text: 'hi' });

  it.each([
    ['missing', undefined, 'player', /^required/],
    ['not an object', 'Rex', 'player', /^must be an object/],
    ['null', null, 'player', /^must be an object/],
    ['without either id', { name: 'Rex' }, 'player', /steam_id or an eos_id/],
    ['empty', {}, 'player', /steam_id or an eos_id/],
    ['with a short steam_id', { steam_id: '7656119800000000' }, 'player.steam_id', /17 digits/],
    ['with a non-digit steam_id', { steam_id: '7656119800000000x' }, 'player.steam_id', /17 digits/],
    ['with a numeric steam_id', { steam_id: 76561198000000000 }, 'player.steam_id', /17 digits/],
    ['with a short eos_id', { eos_id: 'abc' }, 'player.eos_id', /32 hexadecimal/],
    ['with a non-hex eos_id', { eos_id: 'g'.repeat(32) }, 'player.eos_id', /32 hexadecimal/],
    ['with a bad eos_id next to a good steam_id', { steam_id: STEAM, eos_id: 'nope' }, 'player.eos_id', /32 hexadecimal/],
    ['with a name of 65 characters', { steam_id: STEAM, name: 'x'.repeat(65) }, 'player.name', /at most 64/],
    ['with a numeric name', { steam_id: STEAM, name: 5 }, 'player.name', /string/],
  ])('refuses a player %s', (_name, player, path, message) => {
    const error = errorOf(chat(player));
    expect(error).toEqual({ code: 'bad_message', message: expect.stringMatching(message) as unknown, path, id: 'c9' });
  });

  it('checks the player of every message that has one', () => {
    for (const type of ['mute.check', 'review', 'player.join', 'player.leave']) {
      expect(errorOf({ type, id: 'x', player: { steam_id: '1' }, stars: 5, comment: '' })).toMatchObject({ code: 'bad_message', path: 'player.steam_id', id: 'x' });
    }
  });
});

describe('parseModMessage: fields of each message', () => {
  it.each([
    ['chat without channel', { type: 'chat', id: 'i', player: PLAYER, text: 'hi' }, 'channel'],
    ['chat with a numeric channel', { type: 'chat', id: 'i', player: PLAYER, channel: 1, text: 'hi' }, 'channel'],
    ['chat without text', { type: 'chat', id: 'i', player: PLAYER, channel: 'global' }, 'text'],
    ['chat with an object text', { type: 'chat', id: 'i', player: PLAYER, channel: 'global', text: { a: 1 } }, 'text'],
    ['review without stars', { type: 'review', id: 'i', player: PLAYER, comment: '' }, 'stars'],
    ['review with fractional stars', { type: 'review', id: 'i', player: PLAYER, stars: 4.5, comment: '' }, 'stars'],
    ['review with string stars', { type: 'review', id: 'i', player: PLAYER, stars: '5', comment: '' }, 'stars'],
    ['review without comment', { type: 'review', id: 'i', player: PLAYER, stars: 5 }, 'comment'],
    ['review with a null comment', { type: 'review', id: 'i', player: PLAYER, stars: 5, comment: null }, 'comment'],
    ['server.action without action', { type: 'server.action', id: 'i' }, 'action'],
    ['server.action with an unknown action', { type: 'server.action', id: 'i', action: 'reboot' }, 'action'],
    ['server.action with a negative countdown', { type: 'server.action', id: 'i', action: 'update', countdown: -1 }, 'countdown'],
    ['server.action with a fractional countdown', { type: 'server.action', id: 'i', action: 'update', countdown: 1.5 }, 'countdown'],
    ['server.action with a string countdown', { type: 'server.action', id: 'i', action: 'update', countdown: '5' }, 'countdown'],
    ['server.action with a countdown on restart', { type: 'server.action', id: 'i', action: 'restart', countdown: 5 }, 'countdown'],
  ])('refuses %s', (_name, frame, path) => {
    expect(errorOf(frame)).toEqual({ code: 'bad_message', message: expect.any(String) as unknown, path, id: 'i' });
  });

  it('says "required" for a missing field and "must be" for a wrong one', () => {
    expect(errorOf({ type: 'review', player: PLAYER, comment: '' }).message).toBe('required (a whole number)');
    expect(errorOf({ type: 'review', player: PLAYER, stars: 'five', comment: '' }).message).toBe('must be a whole number');
    expect(errorOf({ type: 'server.action', action: 'reboot' }).message).toBe('must be one of start, stop, restart, update, wipe, cancel-scheduled, broadcast');
  });

  it('reports one error, the first problem in field order (id, player, then the rest)', () => {
    expect(errorOf({ type: 'review', id: '', player: {}, stars: 'x' })).toMatchObject({ path: 'id' });
    expect(errorOf({ type: 'review', id: 'r', player: { steam_id: '1' }, stars: 'x' })).toMatchObject({ path: 'player.steam_id', id: 'r' });
    expect(errorOf({ type: 'review', id: 'r', player: PLAYER, stars: 'x' })).toMatchObject({ path: 'stars', id: 'r' });
  });
});

describe('parseModMessage: the fast path for chat and mute.check', () => {
  const frames: readonly string[] = [
    '{"type":"chat","id":"c1","player":{"steam_id":"76561198000000001"},"channel":"global","text":"hi"}',
    // Fields in another order, unknown fields, both ids and a name: the schema's field order and no extras come out.
    '{"text":"hi","extra":1,"channel":"g","player":{"name":"Rex","eos_id":"0123456789abcdef0123456789ABCDEF","steam_id":"76561198000000001","x":2},"type":"chat"}',
    '{"type":"chat","player":{"eos_id":"0123456789abcdef0123456789abcdef"},"channel":"","text":""}',
    '{"type":"mute.check","id":"m","player":{"steam_id":"76561198000000001","name":""}}',
    '{"player":{"steam_id":"76561198000000001"},"type":"mute.check"}',
    `{"type":"chat","id":"${'i'.repeat(64)}","player":{"steam_id":"76561198000000001","name":"${'n'.repeat(64)}"},"channel":"g","text":"t"}`,
    // Every kind of bad chat or mute.check: the fast path must hand these to the schema, which words the error.
    `{"type":"chat","id":"${'i'.repeat(65)}","player":{"steam_id":"76561198000000001"},"channel":"g","text":"t"}`,
    '{"type":"chat","id":"","player":{"steam_id":"76561198000000001"},"channel":"g","text":"t"}',
    '{"type":"chat","id":7,"player":{"steam_id":"76561198000000001"},"channel":"g","text":"t"}',
    '{"type":"chat","id":null,"player":{"steam_id":"76561198000000001"},"channel":"g","text":"t"}',
    '{"type":"chat","id":"c","player":{"steam_id":"7656119800000000"},"channel":"g","text":"t"}',
    '{"type":"chat","id":"c","player":{"steam_id":76561198000000001},"channel":"g","text":"t"}',
    '{"type":"chat","id":"c","player":{"steam_id":"76561198000000001\\n"},"channel":"g","text":"t"}',
    '{"type":"chat","id":"c","player":{"eos_id":"0123456789abcdef0123456789abcdeg"},"channel":"g","text":"t"}',
    `{"type":"chat","id":"c","player":{"steam_id":"76561198000000001","name":"${'n'.repeat(65)}"},"channel":"g","text":"t"}`,
    '{"type":"chat","id":"c","player":{"steam_id":"76561198000000001","name":null},"channel":"g","text":"t"}',
    '{"type":"chat","id":"c","player":{"name":"Rex"},"channel":"g","text":"t"}',
    '{"type":"chat","id":"c","player":[],"channel":"g","text":"t"}',
    '{"type":"chat","id":"c","player":null,"channel":"g","text":"t"}',
    '{"type":"chat","id":"c","channel":"g","text":"t"}',
    '{"type":"chat","id":"c","player":{"steam_id":"76561198000000001"},"text":"t"}',
    '{"type":"chat","id":"c","player":{"steam_id":"76561198000000001"},"channel":"g","text":5}',
    '{"type":"mute.check","id":"m","player":{}}',
    '{"type":"mute.check","id":"m"}',
    '{"type":"chat ","id":"c","player":{"steam_id":"76561198000000001"},"channel":"g","text":"t"}',
  ];

  it.each(frames)('gives exactly what the schema gives for %s', (frame) => {
    // Compared as JSON text, so that the field order of the message (echoed in mute.status) counts too.
    expect(JSON.stringify(parseModMessage(frame))).toBe(JSON.stringify(parseModMessageBySchema(frame)));
  });
});
