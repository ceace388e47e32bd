import { describe, expect, it } from 'vitest';
import { errorFromResponse, parseMuteStatus, parseRetryAfter, parseReviewReceipt, serviceMessageOf } from '../../src/gsa/client/responses.js';
import { BadResponseError, RateLimitedError, ValidationError } from '../../src/gsa/errors.js';
import type { RawResponse } from '../../src/gsa/client/rawResponse.js';

const noScrub = (text: string): string => text;

function answer(status: number, body: unknown, headers: Record<string, string> = {}): RawResponse {
  return { status, headers, text: typeof body === 'string' ? body : JSON.stringify(body) };
}

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('2', 0)).toBe(2000);
    expect(parseRetryAfter(' 0.5 ', 0)).toBe(500);
  });

  it('reads an HTTP date relative to now', () => {
    const now = Date.parse('Sat, 21 Nov 2026 10:00:00 GMT');
    expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
  });
});

describe('serviceMessageOf', () => {
  it('prefers message, then error, then the raw text', () => {
    expect(serviceMessageOf('{"message":"m","error":"e"}', noScrub)).toBe('m');
    expect(serviceMessageOf('{"error":"e"}', noScrub)).toBe('e');
    expect(serviceMessageOf('<html>Bad   Gateway</html>', noScrub)).toBe('<html>Bad Gateway</html>');
  });

  it('scrubs and caps the text', () => {
    expect(serviceMessageOf('{"message":"secret-x leaked"}', (t) => t.replace('secret-x', '***'))).toBe('*** leaked');
    expect(serviceMessageOf('x'.repeat(2000), noScrub)).toHaveLength(501);
  });
});

describe('errorFromResponse', () => {
  const cases: [number, string][] = [
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [400, 'refused'],
    [408, 'timeout'],
    [409, 'refused'],
    [410, 'refused'],
    [422, 'invalid'],
    [429, 'rate_limited'],
    [503, 'unavailable'],
    [500, 'server_error'],
    [502, 'server_error'],
    [504, 'server_error'],
  ];
  it.each(cases)('maps %i to %s with the status and service message', (status, code) => {
    const error = errorFromResponse(answer(status, { message: `said ${status}` }), noScrub, 0);
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.serviceMessage).toBe(`said ${status}`);
    expect(error.message).toContain(`said ${status}`);
  });

  it('keeps the 422 field errors', () => {
    const error = errorFromResponse(answer(422, { message: 'bad', errors: { stars: ['too many'] } }), noScrub, 0);
    if (!(error instanceof ValidationError)) throw new Error(`expected a ValidationError, got ${error.name}`);
    expect(error.fieldErrors).toEqual({ stars: ['too many'] });
  });

  it('carries Retry-After on 429 in ms', () => {
    const error = errorFromResponse(answer(429, '', { 'retry-after': '3' }), noScrub, 0);
    if (!(error instanceof RateLimitedError)) throw new Error(`expected a RateLimitedError, got ${error.name}`);
    expect(error.retryAfterMs).toBe(3000);
  });

  it('marks 5xx other than 503 as maybe processed, and 4xx as not', () => {
    expect(errorFromResponse(answer(500, ''), noScrub, 0).maybeProcessed).toBe(true);
    expect(errorFromResponse(answer(503, ''), noScrub, 0).maybeProcessed).toBe(false);
    expect(errorFromResponse(answer(429, ''), noScrub, 0).maybeProcessed).toBe(false);
    expect(errorFromResponse(answer(422, ''), noScrub, 0).maybeProcessed).toBe(false);
    // The service stopped waiting for the request before it arrived whole: it did nothing with it.
    expect(errorFromResponse(answer(408, ''), noScrub, 0).maybeProcessed).toBe(false);
  });
});

describe('parseMuteStatus', () => {
  const base = { identifier: 'gsamod-muted', steam_id: '76561198000000001', eos_id: '' };
  const ASKED = { steamId: '76561198000000001' };

  it('reads the documented key muted-alert-tex', () => {
    expect(parseMuteStatus(answer(200, { ...base, muted: true, 'muted-alert-tex': 'Muted by admin' }), ASKED)).toEqual({
      muted: true,
      alert: 'Muted by admin',
      steamId: '76561198000000001',
      eosId: null,
    });
  });

  it('reads the key the official mod uses, muted-alert-text, and prefers whichever is non-empty', () => {
    expect(parseMuteStatus(answer(200, { ...base, muted: true, 'muted-alert-text': 'A' }), ASKED).alert).toBe('A');
    expect(parseMuteStatus(answer(200, { ...base, muted: true, 'muted-alert-text': '', 'muted-alert-tex': 'B' }), ASKED).alert).toBe('B');
    expect(parseMuteStatus(answer(200, { ...base, muted: true, 'muted-alert-text': ' ', 'muted-alert-tex': '' }), ASKED).alert).toBeNull();
  });

  it('gives no alert for an unmuted player', () => {
    expect(parseMuteStatus(answer(200, { ...base, muted: false, 'muted-alert-tex': 'stale' }), ASKED)).toMatchObject({ muted: false, alert: null });
  });

  it('accepts 0/1 and string booleans for muted', () => {
    expect(parseMuteStatus(answer(200, { ...base, muted: 1 }), ASKED).muted).toBe(true);
    expect(parseMuteStatus(answer(200, { ...base, muted: '0' }), ASKED).muted).toBe(false);
  });

  it('refuses an answer with the wrong identifier', () => {
    expect(() => parseMuteStatus(answer(200, { ...base, identifier: 'something-else', muted: true }), ASKED)).toThrow(/identifier "something-else"/);
  });

  it('refuses an answer about another player than the one asked for', () => {
    expect(() => parseMuteStatus(answer(200, { ...base, steam_id: '76561198000000009', muted: true }), ASKED)).toThrow(/about another player/);
    expect(() => parseMuteStatus(answer(200, { identifier: 'gsamod-muted', muted: true }), ASKED)).toThrow(/about another player/);
    const eos = 'ABCDEF0123456789abcdef0123456789';
    expect(() => parseMuteStatus(answer(200, { ...base, steam_id: '', eos_id: 'f'.repeat(32), muted: false }), { eosId: eos })).toThrow(/about another player/);
    // The error is a bad_response: the chat gate then decides by its policy (reason "unknown").
    try {
      parseMuteStatus(answer(200, { ...base, steam_id: '76561198000000009', muted: true }), ASKED);
    } catch (error) {
      expect(error).toMatchObject({ code: 'bad_response', status: 200 });
    }
  });

  it('compares the eos_id case-insensitively, like the official mod', () => {
    const eos = 'ABCDEF0123456789abcdef0123456789';
    const status = parseMuteStatus(answer(200, { identifier: 'gsamod-muted', eos_id: eos.toLowerCase(), steam_id: null, muted: true }), { eosId: eos });
    expect(status).toMatchObject({ muted: true, eosId: eos.toLowerCase() });
  });

  it('names the missing field of an unreadable answer', () => {
    expect(() => parseMuteStatus(answer(200, { identifier: 'gsamod-muted' }), ASKED)).toThrow(/field "muted"/);
    expect(() => parseMuteStatus(answer(200, 'not json'), ASKED)).toThrow(/unreadable mute answer/);
  });
});

describe('parseReviewReceipt: delivered only on the documented success, a JSON object holding a "data" string', () => {
  const stored = (body: unknown, status = 200): string => parseReviewReceipt(answer(status, body), noScrub).message;
  const unconfirmed = (body: unknown, status = 200, headers: Record<string, string> = { 'content-type': 'application/json' }): BadResponseError => {
    try {
      parseReviewReceipt(answer(status, body, headers), noScrub);
    } catch (error) {
      if (error instanceof BadResponseError) return error;
      throw error;
    }
    throw new Error(`${JSON.stringify(body)} was read as stored`);
  };
  const MAY_BE_STORED = 'the review may or may not be stored';
  const HOW_TO_RESEND = 'gsa-bridge reviews retry ID';

  it.each([
    [{ data: 'Done!' }, 'Done!'],
    [{ data: 'Done!', error: null }, 'Done!'],
    [{ data: 'Done!', errors: [] }, 'Done!'],
    // The documented success field is the whole rule: what stands beside it is not read.
    [{ data: 'Done!', status: 'failed' }, 'Done!'],
    [{ data: 'Review saved', message: 'ignored' }, 'Review saved'],
  ])('%j is delivered', (body, message) => {
    expect(stored(body)).toBe(message);
    expect(stored(body, 201)).toBe(message);
    expect(stored(body, 202)).toBe(message);
  });

  // Each body alone: every one of them was "delivered" before, though the service stored none.
  it.each([
    { body: { message: 'error: failed' }, status: 202, words: 'error: failed' },
    { body: { message: 'stored? maybe' }, status: 200, words: 'stored? maybe' },
    { body: { status: 400 }, status: 200, words: '{"status":400}' },
    { body: { success: 'false' }, status: 200, words: '{"success":"false"}' },
    { body: { message: 'Accepted' }, status: 202, words: 'Accepted' },
    { body: {}, status: 200, words: '{}' },
    { body: { data: 5 }, status: 200, words: '{"data":5}' },
    { body: { data: null, message: 'queued' }, status: 200, words: 'queued' },
    { body: { success: true }, status: 200, words: '{"success":true}' },
    { body: { error: 'database down', status: 'failed' }, status: 200, words: 'database down' },
    { body: { errors: { comment: ['The comment may not be greater than 500 characters.'] } }, status: 200, words: '{"errors"' },
  ])('$status $body is unconfirmed (bad_response, maybeProcessed), the error quoting it', ({ body, status, words }) => {
    const error = unconfirmed(body, status);
    expect(error.code).toBe('bad_response');
    expect(error.maybeProcessed).toBe(true);
    expect(error.status).toBe(status);
    expect(error.message).toContain(`the service answered ${status} (application/json) with ${JSON.stringify(body)}: a JSON object without a "data" string`);
    expect(error.message).toContain(MAY_BE_STORED);
    expect(error.message).toContain(HOW_TO_RESEND);
    expect(error.serviceMessage).toContain(words);
  });

  it.each([
    { text: '["Done!"]', what: 'a JSON array' },
    { text: '[]', what: 'an empty JSON array' },
    { text: '"Done!"', what: 'a JSON string' },
    { text: 'null', what: 'JSON null' },
    { text: '5', what: 'a JSON number' },
  ])('$what ($text) is unconfirmed: JSON that is not an object', ({ text }) => {
    const error = unconfirmed(text);
    expect(error).toMatchObject({ code: 'bad_response', maybeProcessed: true, status: 200 });
    expect(error.message).toContain(`the service answered 200 (application/json) with ${text}: JSON that is not an object`);
    expect(error.message).toContain(MAY_BE_STORED);
    expect(error.message).toContain(HOW_TO_RESEND);
  });

  it('says what came back when it is not JSON at all (a captive portal), and when the body is empty', () => {
    const portal = unconfirmed('<html><body>Sign in to Hotel WiFi</body></html>', 200, { 'content-type': 'text/html; charset=utf-8' });
    expect(portal).toMatchObject({ code: 'bad_response', maybeProcessed: true, status: 200 });
    expect(portal.message).toContain("the service answered 200 (text/html) with <html><body>Sign in to Hotel WiFi</body></html>: not the service's JSON");
    expect(portal.message).toContain(MAY_BE_STORED);
    expect(portal.message).toContain(HOW_TO_RESEND);
    expect(unconfirmed('', 204, {}).message).toContain('the service answered 204 with an empty body: not the service\'s JSON');
  });

  it('cuts a long body short in its message', () => {
    const error = unconfirmed({ message: 'x'.repeat(5000) });
    expect(error.message).toContain(`with {"message":"${'x'.repeat(200 - '{"message":"'.length)}…:`);
    expect(error.message.length).toBeLessThan(700);
  });

  it('scrubs the service text it quotes', () => {
    const error = parseReviewReceiptError('{"error":"bad secret-x"}');
    expect(error.message).toContain('bad ***');
    expect(error.message).not.toContain('secret-x');
    expect(error.serviceMessage).toBe('bad ***');
    expect(parseReviewReceipt({ status: 200, headers: {}, text: '{"data":"Done! secret-x"}' }, (t) => t.replace('secret-x', '***'))).toEqual({ message: 'Done! ***' });
  });

  function parseReviewReceiptError(text: string): BadResponseError {
    try {
      parseReviewReceipt({ status: 200, headers: {}, text }, (t) => t.replace('secret-x', '***'));
    } catch (error) {
      if (error instanceof BadResponseError) return error;
    }
    throw new Error('no BadResponseError');
  }
});
