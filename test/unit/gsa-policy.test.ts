import { describe, expect, it } from 'vitest';
import { Credentials } from '../../src/gsa/client/credentials.js';
import {
  NetworkError,
  RateLimitedError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnavailableError,
  ValidationError,
  NotFoundError,
  ForbiddenError,
  InvalidInputError,
  QueueFullError,
} from '../../src/gsa/errors.js';
import { muteCheckRequest, reviewRequest, serverActionRequest, type RequestContext } from '../../src/gsa/client/requests.js';
import { isRetryable, retryDelayMs, REVIEW_MAX_WAIT_MS, withRetry } from '../../src/gsa/client/retryPolicy.js';
import { DEFAULT_REVIEW_LIMITS, validateMuteCheck, validateReview, validateServerAction } from '../../src/gsa/client/validation.js';
import { inspect } from 'node:util';

const STEAM = '76561198000000001';
const EOS = '0123456789abcdef0123456789ABCDEF';

describe('isRetryable', () => {
  const notSent = new NetworkError('refused', { maybeProcessed: false });
  const reset = new NetworkError('reset', { maybeProcessed: true });
  const timeout = new TimeoutError('slow', { maybeProcessed: true });
  const tooMany = new RateLimitedError('429', 1000, { status: 429 });
  const maintenance = new UnavailableError('503', undefined, { status: 503 });
  const badGateway = new ServerError('502', { status: 502, maybeProcessed: true });
  const gatewayTimeout = new ServerError('504', { status: 504, maybeProcessed: true });
  const internal = new ServerError('500', { status: 500, maybeProcessed: true });
  const refusals = [
    new UnauthorizedError('401', { status: 401 }),
    new ForbiddenError('403', { status: 403 }),
    new NotFoundError('404', { status: 404 }),
    new ValidationError('422', {}, { status: 422 }),
    new InvalidInputError({ stars: ['bad'] }),
  ];

  it('retries mute checks on network, timeout, 429, 503, 502, 504 only', () => {
    for (const error of [notSent, reset, timeout, tooMany, maintenance, badGateway, gatewayTimeout]) expect(isRetryable(error, 'mute')).toBe(true);
    for (const error of [internal, ...refusals]) expect(isRetryable(error, 'mute')).toBe(false);
  });

  it('retries reviews only when the service surely did not process them', () => {
    for (const error of [notSent, tooMany, maintenance]) expect(isRetryable(error, 'review')).toBe(true);
    for (const error of [reset, timeout, badGateway, gatewayTimeout, internal, ...refusals]) expect(isRetryable(error, 'review')).toBe(false);
  });

  it('retries webhooks only when the request never left', () => {
    expect(isRetryable(notSent, 'webhook')).toBe(true);
    for (const error of [reset, timeout, tooMany, maintenance, badGateway, internal, ...refusals]) expect(isRetryable(error, 'webhook')).toBe(false);
  });

  it('retries the Mod API v2 reads as mute checks, a report as a review', () => {
    for (const endpoint of ['access', 'report-settings', 'shop', 'ui'] as const) {
      for (const error of [notSent, reset, timeout, tooMany, maintenance, badGateway, gatewayTimeout]) expect(isRetryable(error, endpoint)).toBe(true);
      for (const error of [internal, ...refusals]) expect(isRetryable(error, endpoint)).toBe(false);
    }
    for (const error of [notSent, tooMany, maintenance]) expect(isRetryable(error, 'report')).toBe(true);
    for (const error of [reset, timeout, badGateway, gatewayTimeout, internal, ...refusals]) expect(isRetryable(error, 'report')).toBe(false);
  });

  it('never retries a shop order or a token spend, not even one that surely never left', () => {
    for (const endpoint of ['shop-order', 'tokens'] as const) {
      for (const error of [notSent, reset, timeout, tooMany, maintenance, badGateway, gatewayTimeout, internal, ...refusals]) expect(isRetryable(error, endpoint)).toBe(false);
    }
  });

  it('never retries something that is not a GsaError', () => {
    expect(isRetryable(new Error('bug'), 'mute')).toBe(false);
  });
});

describe('retryDelayMs', () => {
  const options = { retries: 5, minDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 60_000 };

  it('honours Retry-After over the backoff, even past maxDelayMs', () => {
    expect(retryDelayMs(new RateLimitedError('429', 5000), 1, options, () => 0)).toBe(5000);
  });

  it('caps Retry-After at maxRetryAfterMs: a day, and 2^40 ms (past the timer limit), become 60 s', () => {
    expect(retryDelayMs(new RateLimitedError('429', 86_400_000), 1, options, () => 0)).toBe(60_000);
    expect(retryDelayMs(new UnavailableError('503', 2 ** 40), 1, options, () => 0)).toBe(60_000);
    expect(retryDelayMs(new UnavailableError('503', 2 ** 40), 1, { ...options, maxRetryAfterMs: Number.MAX_SAFE_INTEGER }, () => 0)).toBe(2 ** 31 - 1);
  });

  it('backs off exponentially with 50–100% jitter, capped', () => {
    const error = new NetworkError('x');
    expect(retryDelayMs(error, 1, options, () => 0)).toBe(50);
    expect(retryDelayMs(error, 1, options, () => 1)).toBe(100);
    expect(retryDelayMs(error, 3, options, () => 1)).toBe(400);
    expect(retryDelayMs(error, 10, options, () => 1)).toBe(1000);
    expect(retryDelayMs(error, 10, options, () => 0)).toBe(500);
  });

  it('never retries a call the local rate limiter refused', () => {
    for (const endpoint of ['mute', 'review', 'webhook'] as const) expect(isRetryable(new QueueFullError('full', undefined), endpoint)).toBe(false);
  });
});

describe('withRetry', () => {
  const options = { retries: 5, minDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 60_000 };

  async function run(endpoint: 'mute' | 'review' | 'report', failures: Error[]): Promise<{ slept: number[]; attempts: number; result: unknown }> {
    const slept: number[] = [];
    let attempts = 0;
    const result = await withRetry(
      () => {
        attempts += 1;
        const failure = failures.shift();
        return failure === undefined ? Promise.resolve('ok') : Promise.reject(failure);
      },
      endpoint,
      options,
      { random: () => 0, sleep: (ms) => { slept.push(ms); return Promise.resolve(); } },
    ).catch((error: unknown) => error);
    return { slept, attempts, result };
  }

  it('waits a capped Retry-After inside a mute check', async () => {
    expect(await run('mute', [new RateLimitedError('429', 86_400_000)])).toEqual({ slept: [60_000], attempts: 2, result: 'ok' });
  });

  it('waits at most 1 s inside a review send, and hands a longer wait back with the capped retryAfterMs', async () => {
    expect(await run('review', [new RateLimitedError('429', REVIEW_MAX_WAIT_MS)])).toEqual({ slept: [1000], attempts: 2, result: 'ok' });
    const asked = new UnavailableError('503', 60_000);
    expect(await run('review', [asked])).toEqual({ slept: [], attempts: 1, result: asked });
  });

  it('holds a report to the same in-send wait as a review: its outbox owns the timing', async () => {
    expect(await run('report', [new RateLimitedError('429', REVIEW_MAX_WAIT_MS)])).toEqual({ slept: [1000], attempts: 2, result: 'ok' });
    const asked = new UnavailableError('503', 60_000);
    expect(await run('report', [asked])).toEqual({ slept: [], attempts: 1, result: asked });
  });

  it('stops when a wait is cancelled (the client closed), with the last error', async () => {
    const error = new NetworkError('refused');
    const result = await withRetry(() => Promise.reject(error), 'mute', options, { random: () => 0, sleep: () => Promise.reject(new Error('closed')) }).catch(
      (caught: unknown) => caught,
    );
    expect(result).toBe(error);
  });
});

describe('withRetryAfterAtMost', () => {
  it('keeps the class, code and details, lowers retryAfterMs and remembers what was asked', () => {
    const asked = new UnavailableError('503 maintenance', 3_600_000, { status: 503, serviceMessage: 'back soon' });
    const capped = asked.withRetryAfterAtMost(60_000);
    expect(capped).toBeInstanceOf(UnavailableError);
    expect(capped).toMatchObject({ code: 'unavailable', status: 503, serviceMessage: 'back soon', retryAfterMs: 60_000, requestedRetryAfterMs: 3_600_000 });
    expect(capped.message).toBe('503 maintenance');
    const short = new RateLimitedError('429', 5000);
    expect(short.withRetryAfterAtMost(60_000)).toBe(short);
    expect(new QueueFullError('full', undefined).withRetryAfterAtMost(1)).toMatchObject({ code: 'rate_limited', retryAfterMs: undefined });
  });
});

describe('validation before any request', () => {
  it('accepts good ids and names', () => {
    expect(() => { validateMuteCheck('ovddykvbs', { steamId: STEAM }); }).not.toThrow();
    expect(() => { validateMuteCheck('ovddykvbs', { eosId: EOS }); }).not.toThrow();
  });

  it('names each bad field', () => {
    const error = (() => {
      try {
        validateReview('', { steamId: '123' }, 9, 'x'.repeat(501), DEFAULT_REVIEW_LIMITS);
      } catch (caught) {
        return caught as InvalidInputError;
      }
      throw new Error('no error thrown');
    })();
    expect(error.code).toBe('invalid_input');
    expect(Object.keys(error.fieldErrors).sort()).toEqual(['comment', 'server', 'stars', 'steam_id']);
    expect(error.message).toContain('stars: must be a whole number from 1 to 5');
  });

  it('refuses a player with no id, a bad eos id, an unsafe server name', () => {
    expect(() => { validateMuteCheck('ovddykvbs', {}); }).toThrow(/player: needs a steam_id or an eos_id/);
    // GSA takes one id; which one is the caller's choice, so both are refused rather than one guessed.
    expect(() => { validateMuteCheck('ovddykvbs', { steamId: STEAM, eosId: EOS }); }).toThrow(/player: give one id, steam_id or eos_id, not both/);
    expect(() => { validateReview('ovddykvbs', { steamId: STEAM, eosId: EOS }, 5, '', DEFAULT_REVIEW_LIMITS); }).toThrow(/not both/);
    expect(() => { validateMuteCheck('ovddykvbs', { eosId: 'zz' }); }).toThrow(/eos_id: must be 32 hexadecimal/);
    expect(() => { validateMuteCheck('a/b', { steamId: STEAM }); }).toThrow(/server: may contain only/);
  });

  it('counts comment length in characters, so an emoji is one', () => {
    expect(() => { validateReview('s', { steamId: STEAM }, 5, '🎮'.repeat(500), DEFAULT_REVIEW_LIMITS); }).not.toThrow();
    expect(() => { validateReview('s', { steamId: STEAM }, 5, '🎮'.repeat(501), DEFAULT_REVIEW_LIMITS); }).toThrow(/comment/);
  });

  it('refuses non-integer stars and respects configured bounds', () => {
    expect(() => { validateReview('s', { steamId: STEAM }, 2.5, '', DEFAULT_REVIEW_LIMITS); }).toThrow(/stars/);
    expect(() => { validateReview('s', { steamId: STEAM }, 10, '', { minStars: 1, maxStars: 10, maxCommentLength: 5 }); }).not.toThrow();
    expect(() => { validateReview('s', { steamId: STEAM }, 0, '', DEFAULT_REVIEW_LIMITS); }).toThrow(/stars/);
  });

  it('checks webhook ids and countdowns', () => {
    expect(() => { validateServerAction(0, undefined); }).toThrow(/id: must be a positive whole number/);
    expect(() => { validateServerAction(4711, -1); }).toThrow(/countdown/);
    expect(() => { validateServerAction(4711, 15); }).not.toThrow();
  });
});

describe('request building', () => {
  const credentials = new Credentials('client-1', 's3cr3t&=x');
  const v1: RequestContext = { flavor: 'v1', credentials, basePath: '', wipePath: 'wipe' };
  const v2: RequestContext = { ...v1, flavor: 'v2' };

  it('v1 puts the credentials in the form body', () => {
    const request = muteCheckRequest(v1, 'ovddykvbs', { steamId: STEAM });
    expect(request.path).toBe('/api/v1/gameserver/ovddykvbs/mute');
    const form = new URLSearchParams(request.body);
    expect(form.get('client_id')).toBe('client-1');
    expect(form.get('client_secret')).toBe('s3cr3t&=x');
    expect(form.get('steam_id')).toBe(STEAM);
    expect(request.headers['x-client-secret']).toBeUndefined();
  });

  it('v2 puts the credentials in headers, not the body', () => {
    const request = reviewRequest(v2, 'ovddykvbs', { eosId: EOS }, 4, 'nice & "fun"');
    expect(request.path).toBe('/mod-api/v2/gameserver/ovddykvbs/review');
    expect(request.headers['x-client-id']).toBe('client-1');
    expect(request.headers['x-client-secret']).toBe('s3cr3t&=x');
    const form = new URLSearchParams(request.body);
    expect(form.get('client_secret')).toBeNull();
    expect(Object.fromEntries(form)).toEqual({ eos_id: EOS, stars: '4', comment: 'nice & "fun"' });
  });

  it('webhooks send the raw secret as body and client_id in the query; wipe uses the configured path', () => {
    const update = serverActionRequest(v1, 4711, 'update', 15);
    expect(update.path).toBe('/api/v1/server/4711/update?client_id=client-1&countdown=15');
    expect(update.body).toBe('s3cr3t&=x');
    expect(serverActionRequest(v1, 4711, 'wipe').path).toBe('/api/v1/server/4711/wipe?client_id=client-1');
    expect(serverActionRequest({ ...v1, wipePath: '/wipe-now/' }, 4711, 'wipe').path).toBe('/api/v1/server/4711/wipe-now?client_id=client-1');
    expect(serverActionRequest(v1, 4711, 'cancel-scheduled').path).toBe('/api/v1/server/4711/cancel-scheduled?client_id=client-1');
    expect(serverActionRequest(v1, 4711, 'restart', 5).path).not.toContain('countdown');
  });

  it('sends exactly the one player id it is given, with no preference of its own', () => {
    const bySteam = new URLSearchParams(muteCheckRequest(v1, 's', { steamId: STEAM }).body);
    expect([bySteam.get('steam_id'), bySteam.get('eos_id')]).toEqual([STEAM, null]);
    const byEos = new URLSearchParams(muteCheckRequest(v1, 's', { eosId: EOS }).body);
    expect([byEos.get('steam_id'), byEos.get('eos_id')]).toEqual([null, EOS]);
    const review = new URLSearchParams(reviewRequest(v1, 's', { steamId: STEAM }, 5, 'ok').body);
    expect([review.get('steam_id'), review.get('eos_id')]).toEqual([STEAM, null]);
  });

  it('keeps a base URL path prefix', () => {
    expect(muteCheckRequest({ ...v1, basePath: '/gsa' }, 's', { steamId: STEAM }).path).toBe('/gsa/api/v1/gameserver/s/mute');
  });

  it('never shows the secret when credentials are printed', () => {
    const shown = [JSON.stringify(credentials), inspect(credentials), inspect({ credentials })].join('\n');
    expect(shown).not.toContain('s3cr3t');
    expect(credentials.scrub('echo s3cr3t&=x here')).toBe('echo *** here');
  });
});
