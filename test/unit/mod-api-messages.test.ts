// The mod protocol's Mod API requests (adapters/websocket/modApiMessages.ts) through parseModMessage: each parses
// into the fields the dispatch reads (a pack id sent as digits becomes a number, unknown fields are dropped), and a bad
// field is one bad_message at its path, worded for a mod author ("required …" when missing, "must be …" otherwise).
import { describe, expect, it } from 'vitest';
import { parseModMessage, parseModMessageBySchema, type ModMessage, type ModMessageError } from '../../adapters/websocket/protocol.js';

const PLAYER = { steam_id: '76561198000000001', name: 'Rex' };
const REPORT = { type: 'report', id: 'r', player: PLAYER, character_id: -7, coords: 'X_-1.25 Y_0 Z_99999', report_type: 'cheating', comment: 'x' };

function parsed(frame: unknown): ModMessage {
  const result = parseModMessage(JSON.stringify(frame));
  if (!result.ok) throw new Error(`expected a message, got ${JSON.stringify(result.error)}`);
  return result.message;
}

function errorOf(frame: unknown): ModMessageError {
  const result = parseModMessage(JSON.stringify(frame));
  if (result.ok) throw new Error(`expected an error, parsed ${JSON.stringify(result.message)}`);
  return result.error;
}

describe('Mod API requests: valid messages', () => {
  it('parse with the fields as sent, unknown ones dropped', () => {
    expect(parsed({ type: 'player.access', id: 'a', player: PLAYER, extra: true })).toEqual({ type: 'player.access', id: 'a', player: PLAYER });
    expect(parsed({ type: 'report.settings', player: PLAYER })).toEqual({ type: 'report.settings', player: PLAYER });
    expect(parsed({ ...REPORT, reported_player: 17, type_of_day: 1 })).toEqual({ ...REPORT, reported_player: 17 });
    expect(parsed({ ...REPORT, report_type: 3 })).toMatchObject({ report_type: 3 });
    // The spec's table names the field `type`, which the message's own `type` takes: `reportType` and `type_id` are read too.
    expect(parsed({ ...REPORT, report_type: undefined, reportType: 2 })).toMatchObject({ reportType: 2 });
    expect(parsed({ ...REPORT, report_type: undefined, type_id: 'spam' })).toMatchObject({ type_id: 'spam' });
    expect(parsed({ type: 'shop.list', player: PLAYER })).toEqual({ type: 'shop.list', player: PLAYER });
    expect(parsed({ type: 'shop.list', player: PLAYER, search: '', filter: 'f'.repeat(100) })).toMatchObject({ search: '', filter: 'f'.repeat(100) });
    expect(parsed({ type: 'token.consume', player: PLAYER, amount: 1_000_000 })).toMatchObject({ amount: 1_000_000 });
    expect(parsed({ type: 'ui.settings', id: 'u' })).toEqual({ type: 'ui.settings', id: 'u' });
    expect(parsed({ type: 'ui.modal', player: PLAYER })).toEqual({ type: 'ui.modal' });
  });

  it('take a pack id as a number or as its digits, and give the dispatch a number', () => {
    expect(parsed({ type: 'shop.item', player: PLAYER, item: 42 })).toMatchObject({ item: 42 });
    expect(parsed({ type: 'shop.item', player: PLAYER, item: '42' })).toMatchObject({ item: 42 });
    expect(parsed({ type: 'shop.order', player: PLAYER, item: '0000000042' })).toMatchObject({ item: 42 });
    expect(parsed({ type: 'shop.order', player: PLAYER, item: '9999999999' })).toMatchObject({ item: 9_999_999_999 });
  });

  it('take coords in every form of GSA', () => {
    for (const coords of ['X_1 Y_2 Z_3', 'X_-1 Y_-2.5 Z_0.125', `X_${'1'.repeat(30)} Y_1 Z_1`]) expect(parsed({ ...REPORT, coords })).toMatchObject({ coords });
    for (const coords of ['X_1 Y_2', 'x_1 y_2 z_3', 'X_1  Y_2 Z_3', 'X_1 Y_2 Z_3 ', 'X_1. Y_2 Z_3', 'X_+1 Y_2 Z_3']) {
      expect(errorOf({ ...REPORT, coords })).toMatchObject({ code: 'bad_message', path: 'coords', id: 'r' });
    }
  });

  it('parse the same by the fast path and by the schema alone', () => {
    for (const frame of [REPORT, { type: 'shop.item', player: PLAYER, item: '7' }, { type: 'shop.item', player: PLAYER, item: 'x' }]) {
      expect(parseModMessage(JSON.stringify(frame))).toEqual(parseModMessageBySchema(JSON.stringify(frame)));
    }
  });
});

describe('Mod API requests: the words of a refusal', () => {
  it.each([
    ['character_id', { ...REPORT, character_id: undefined }, /^required \(a whole number/],
    ['character_id', { ...REPORT, character_id: '5' }, /^must be a whole number/],
    ['coords', { ...REPORT, coords: 5 }, /^must be a string like "X_123 Y_456 Z_789"/],
    ['coords', { ...REPORT, coords: 'somewhere' }, /^must be GSA's form "X_<n> Y_<n> Z_<n>"/],
    ['report_type', { ...REPORT, report_type: undefined }, /^required \(one of the report settings' type ids/],
    ['report_type', { ...REPORT, report_type: 1.5 }, /^must be one of the report settings' type ids/],
    ['report_type', { ...REPORT, report_type: '' }, /^must be one of the report settings' type ids/],
    ['reported_player', { ...REPORT, reported_player: 'Grim' }, /^must be a positive whole number \(a user_id/],
    ['comment', { ...REPORT, comment: undefined }, /^required \(a string of 1–1000 characters\)$/],
    ['comment', { ...REPORT, comment: 'c'.repeat(1001) }, /^must be a string of 1–1000 characters$/],
    ['item', { type: 'shop.item', id: 'r', player: PLAYER }, /^required \(a positive whole number \(GSA's pack id\)/],
    ['item', { type: 'shop.item', id: 'r', player: PLAYER, item: 'abc' }, /^must be a positive whole number \(GSA's pack id\)/],
    ['item', { type: 'shop.item', id: 'r', player: PLAYER, item: 0 }, /^must be a positive whole number \(GSA's pack id\)/],
    ['item', { type: 'shop.item', id: 'r', player: PLAYER, item: 2.5 }, /^must be a positive whole number \(GSA's pack id\)/],
    ['amount', { type: 'token.consume', id: 'r', player: PLAYER }, /^required \(a whole number from 1 to 1,000,000\)$/],
    ['amount', { type: 'token.consume', id: 'r', player: PLAYER, amount: -1 }, /^must be a whole number from 1 to 1,000,000$/],
    ['search', { type: 'shop.list', id: 'r', player: PLAYER, search: null }, /^must be a string of at most 100 characters$/],
  ])('%s: %j', (path, frame, message) => {
    expect(errorOf(frame)).toEqual({ code: 'bad_message', message: expect.stringMatching(message) as unknown, path, id: 'r' });
  });

  it('checks the player before the request own fields', () => {
    expect(errorOf({ ...REPORT, player: { steam_id: '1' }, comment: '' })).toMatchObject({ path: 'player.steam_id' });
    expect(errorOf({ type: 'token.consume', id: 'r', amount: 0 })).toMatchObject({ path: 'player' });
  });
});
