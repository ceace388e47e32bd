// The GSA emulator over real HTTP on loopback: every endpoint and flavour, the service's error shapes,
// fault injection, the /_emulator/ control surface, reset, and closing with open keep-alive sockets.
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { Agent, Pool, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CAPTIVE_PORTAL_PAGE, EmulatorInputError, GsaEmulator, type AlertKey, type FaultSpec } from '../../src/gsaEmulator/index.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'ovddykvbs';
const SERVER_ID = 4711;
const STEAM = '76561198000000001';
const EOS = '0123456789abcdef0123456789abcdef';
const SECRET = 'demo-secret';
const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
const UNAUTHENTICATED = { message: 'Unauthenticated.' };
/** The Mod API v2 features' endpoints, none of them called (their own tests: emulator-mod-features.test.ts). */
const NO_FEATURE_CALLS = { access: 0, 'report-settings': 0, report: 0, shop: 0, 'shop-order': 0, tokens: 0, ui: 0 };
/** The features' part of a snapshot with nothing set, stored or spent. */
const NO_FEATURES = { access: {}, reports: [], orders: [], tokenSpends: [], wallets: [] };

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  readonly json: unknown;
}

interface CallInit {
  readonly method?: 'GET' | 'POST' | 'DELETE' | 'PUT';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Lets a test give up on a request, as a client with a deadline does. */
  readonly signal?: AbortSignal;
}

let emu: GsaEmulator;
let agent: Agent;

beforeEach(async () => {
  emu = await GsaEmulator.start();
  agent = new Agent();
});

afterEach(async () => {
  await emu.close();
  await agent.destroy();
});

async function send(path: string, init: CallInit = {}, target: GsaEmulator = emu): Promise<Answer> {
  const res = await request(`${target.url}${path}`, {
    dispatcher: agent,
    method: init.method ?? 'POST',
    ...(init.headers === undefined ? {} : { headers: init.headers }),
    ...(init.body === undefined ? {} : { body: init.body }),
    ...(init.signal === undefined ? {} : { signal: init.signal }),
  });
  const text = await res.body.text();
  const isJson = String(res.headers['content-type']).includes('json');
  return { status: res.statusCode, headers: res.headers, text, json: text === '' || !isJson ? undefined : JSON.parse(text) };
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

/** A v1 call: credentials in the form body. */
function v1(op: 'mute' | 'review', fields: Record<string, string>, options: { server?: string; target?: GsaEmulator; signal?: AbortSignal } = {}): Promise<Answer> {
  return send(
    `/api/v1/gameserver/${options.server ?? SERVER}/${op}`,
    {
      headers: FORM,
      body: form({ client_id: 'demo-client', client_secret: SECRET, ...fields }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    },
    options.target,
  );
}

/** A v2 call: credentials in headers, never in the body. */
function v2(op: 'mute' | 'review', fields: Record<string, string>, options: { server?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
  return send(`/mod-api/v2/gameserver/${options.server ?? SERVER}/${op}`, {
    headers: { ...FORM, ...(options.headers ?? { 'x-client-id': 'demo-client', 'x-client-secret': SECRET }) },
    body: form(fields),
  });
}

function webhook(action: string, options: { id?: string | number; clientId?: string | null; secret?: string; query?: string } = {}): Promise<Answer> {
  const clientId = options.clientId === undefined ? 'demo-client' : options.clientId;
  const params = [clientId === null ? '' : `client_id=${clientId}`, options.query ?? ''].filter((p) => p !== '').join('&');
  return send(`/api/v1/server/${options.id ?? SERVER_ID}/${action}${params === '' ? '' : `?${params}`}`, {
    headers: { 'content-type': 'text/plain' },
    body: options.secret ?? SECRET,
  });
}

function control(method: 'GET' | 'POST' | 'DELETE', route: string, body?: unknown): Promise<Answer> {
  return send(`/_emulator/${route}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

function muteAnswer(fields: { steam_id?: string; eos_id?: string; muted: boolean; alert: string }): Record<string, unknown> {
  return {
    identifier: 'gsamod-muted',
    steam_id: fields.steam_id ?? '',
    eos_id: fields.eos_id ?? '',
    muted: fields.muted,
    'muted-alert-tex': fields.alert,
  };
}

async function until(condition: () => boolean, timeoutMs = patientMs(2000)): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('mod API: mute', () => {
  it('answers not muted for an unknown player (v1, form body)', async () => {
    const answer = await v1('mute', { steam_id: STEAM });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(answer.json).toStrictEqual(muteAnswer({ steam_id: STEAM, muted: false, alert: '' }));
  });

  it('reports a mute with its alert, and forgets it on unmute (v1)', async () => {
    emu.mute(SERVER, STEAM, 'You are muted for spam.');
    expect((await v1('mute', { steam_id: STEAM })).json).toStrictEqual(muteAnswer({ steam_id: STEAM, muted: true, alert: 'You are muted for spam.' }));
    emu.unmute(SERVER, STEAM);
    expect((await v1('mute', { steam_id: STEAM })).json).toStrictEqual(muteAnswer({ steam_id: STEAM, muted: false, alert: '' }));
  });

  it('answers an eos_id muted without an alert with an empty alert (v2, header credentials)', async () => {
    emu.mute(SERVER, EOS);
    const answer = await v2('mute', { eos_id: EOS });
    expect(answer.status).toBe(200);
    expect(answer.json).toStrictEqual(muteAnswer({ eos_id: EOS, muted: true, alert: '' }));
  });

  it('accepts a JSON body on v1', async () => {
    emu.mute(SERVER, STEAM, 'json');
    const answer = await send(`/api/v1/gameserver/${SERVER}/mute`, {
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ client_id: 'demo-client', client_secret: SECRET, steam_id: STEAM }),
    });
    expect(answer.status).toBe(200);
    expect(answer.json).toStrictEqual(muteAnswer({ steam_id: STEAM, muted: true, alert: 'json' }));
  });

  it('keeps mutes per server', async () => {
    emu.addServer('second');
    emu.mute(SERVER, STEAM, 'muted here');
    expect((await v1('mute', { steam_id: STEAM }, { server: 'second' })).json).toMatchObject({ muted: false });
    expect((await v1('mute', { steam_id: STEAM })).json).toMatchObject({ muted: true });
  });
});

describe('mod API: review', () => {
  it('stores a v1 review and answers Done!', async () => {
    const answer = await v1('review', { steam_id: STEAM, stars: '4', comment: 'Great admins' });
    expect(answer.status).toBe(200);
    expect(answer.json).toStrictEqual({ data: 'Done!' });
    expect(emu.reviews).toStrictEqual([{ server: SERVER, steamId: STEAM, stars: 4, comment: 'Great admins', at: expect.any(Number) as number }]);
  });

  it('stores a v2 review by eos_id with an empty comment when none is given', async () => {
    const answer = await v2('review', { eos_id: EOS, stars: '5' });
    expect(answer.json).toStrictEqual({ data: 'Done!' });
    expect(emu.reviews).toStrictEqual([{ server: SERVER, eosId: EOS, stars: 5, comment: '', at: expect.any(Number) as number }]);
  });

  it('stamps calls and reviews with the injected clock at arrival', async () => {
    let clock = 1234.5;
    const clocked = await GsaEmulator.start({ now: () => clock });
    try {
      await v1('review', { steam_id: STEAM, stars: '3' }, { target: clocked });
      clock = 2000;
      await v1('mute', { steam_id: STEAM }, { target: clocked });
      expect(clocked.reviews.map((r) => r.at)).toStrictEqual([1234.5]);
      expect(clocked.calls.map((c) => c.at)).toStrictEqual([1234.5, 2000]);
    } finally {
      await clocked.close();
    }
  });

  it('counts the 500-character comment limit in code points, as the service does', async () => {
    const emoji = '\u{1F600}'.repeat(500); // 1000 UTF-16 units, 500 characters
    expect((await v1('review', { steam_id: STEAM, stars: '5', comment: emoji })).status).toBe(200);
    expect((await v1('review', { steam_id: STEAM, stars: '5', comment: `${emoji}!` })).status).toBe(422);
    expect(emu.reviews).toHaveLength(1);
  });
});

describe('webhooks', () => {
  it('queues start, stop, restart, update (default and explicit countdown) and wipe, then cancel-scheduled clears them', async () => {
    const messages: unknown[] = [];
    for (const [action, query] of [['start'], ['stop'], ['restart'], ['update'], ['update', 'countdown=5'], ['wipe']] as const) {
      const answer = await webhook(action, query === undefined ? {} : { query });
      expect(answer.status).toBe(200);
      messages.push(answer.json);
    }
    expect(messages).toStrictEqual([
      { message: 'Start queued.' },
      { message: 'Stop queued.' },
      { message: 'Restart queued.' },
      { message: 'Update queued.' },
      { message: 'Update queued.' },
      { message: 'Wipe queued.' },
    ]);
    const at = expect.any(Number) as number;
    expect(emu.actions(SERVER_ID)).toStrictEqual([
      { action: 'start', at },
      { action: 'stop', at },
      { action: 'restart', at },
      { action: 'update', countdownMinutes: 30, at },
      { action: 'update', countdownMinutes: 5, at },
      { action: 'wipe', at },
    ]);

    const cancel = await webhook('cancel-scheduled');
    expect(cancel.status).toBe(200);
    expect(cancel.json).toStrictEqual({ message: 'Scheduled actions cancelled.' });
    expect(emu.actions(SERVER_ID)).toStrictEqual([]);
  });

  it('treats countdown=0 as an immediate update and a blank countdown as the default', async () => {
    await webhook('update', { query: 'countdown=0' });
    await webhook('update', { query: 'countdown=' });
    expect(emu.actions(SERVER_ID).map((a) => a.countdownMinutes)).toStrictEqual([0, 30]);
  });

  it('refuses a bad countdown with 422 and queues nothing', async () => {
    const negative = await webhook('update', { query: 'countdown=-1' });
    expect(negative.status).toBe(422);
    expect(negative.json).toStrictEqual({
      message: 'The countdown field must be at least 0.',
      errors: { countdown: ['The countdown field must be at least 0.'] },
    });
    const word = await webhook('update', { query: 'countdown=soon' });
    expect(word.json).toStrictEqual({
      message: 'The countdown field must be an integer.',
      errors: { countdown: ['The countdown field must be an integer.'] },
    });
    expect(emu.actions(SERVER_ID)).toStrictEqual([]);
  });

  it('answers 409 to cancel-scheduled on a locked server and keeps the queue', async () => {
    await webhook('restart');
    emu.lock(SERVER_ID, true);
    const refused = await webhook('cancel-scheduled');
    expect(refused.status).toBe(409);
    expect(refused.json).toStrictEqual({ message: 'A scheduled action is already running and cannot be cancelled.' });
    expect(emu.actions(SERVER_ID).map((a) => a.action)).toStrictEqual(['restart']);

    emu.lock(SERVER_ID, false);
    expect((await webhook('cancel-scheduled')).status).toBe(200);
    expect(emu.actions(SERVER_ID)).toStrictEqual([]);
  });
});

describe('401 Unauthenticated', () => {
  const cases: [string, () => Promise<Answer>][] = [
    ['v1 with a wrong secret', () => v1('mute', { steam_id: STEAM, client_secret: 'wrong-secret' })],
    ['v1 with a wrong client id', () => v1('review', { steam_id: STEAM, stars: '5', client_id: 'someone-else' })],
    ['v1 with credentials in v2 headers only', () => send(`/api/v1/gameserver/${SERVER}/mute`, {
      headers: { ...FORM, 'x-client-id': 'demo-client', 'x-client-secret': SECRET },
      body: form({ steam_id: STEAM }),
    })],
    ['v2 without the headers (credentials in the body)', () => v2('mute', { steam_id: STEAM, client_id: 'demo-client', client_secret: SECRET }, { headers: {} })],
    ['v2 with a wrong secret header', () => v2('review', { steam_id: STEAM, stars: '5' }, { headers: { 'x-client-id': 'demo-client', 'x-client-secret': 'wrong-secret' } })],
    ['a webhook for an unknown server id', () => webhook('restart', { id: 9999 })],
    ['a webhook for a non-numeric server id', () => webhook('restart', { id: SERVER })],
    ['a webhook with a wrong secret', () => webhook('restart', { secret: 'wrong-secret' })],
    ['a webhook whose body is the secret plus a newline', () => webhook('restart', { secret: `${SECRET}\n` })],
    ['a webhook without client_id', () => webhook('restart', { clientId: null })],
    ['bad credentials on an unknown server (401 wins over 404)', () => v1('mute', { steam_id: STEAM, client_secret: 'wrong-secret' }, { server: 'nope' })],
  ];

  it.each(cases)('%s', async (_name, attempt) => {
    const answer = await attempt();
    expect(answer.status).toBe(401);
    expect(answer.json).toStrictEqual(UNAUTHENTICATED);
    expect(answer.text).not.toContain(SECRET);
    expect(answer.text).not.toContain('wrong-secret');
    expect(emu.reviews).toStrictEqual([]);
    expect(emu.actions(SERVER_ID)).toStrictEqual([]);
  });
});

describe('404 and 405', () => {
  it('answers 404 Game server not found for an unknown name on v1 and v2', async () => {
    for (const answer of [await v1('mute', { steam_id: STEAM }, { server: 'unknown' }), await v2('review', { steam_id: STEAM, stars: '5' }, { server: 'unknown' })]) {
      expect(answer.status).toBe(404);
      expect(answer.json).toStrictEqual({ message: 'Game server not found.' });
    }
    expect(emu.reviews).toStrictEqual([]);
  });

  it('answers 404 Not found for unknown routes, webhook actions and malformed paths', async () => {
    for (const path of ['/api/v1/nothing', '/api/v1/server/4711/explode', '/api/v1/gameserver/%E0%A4%A/mute', '/api/v1/gameserver//mute']) {
      const answer = await send(path, { headers: FORM, body: form({ client_id: 'demo-client', client_secret: SECRET }) });
      expect(answer.status, path).toBe(404);
      expect(answer.json).toStrictEqual({ message: 'Not found.' });
    }
    expect(emu.calls.map((c) => c.endpoint)).toStrictEqual(['other', 'other', 'other', 'other']);
  });

  it('answers 405 with Allow: POST for the wrong method on a known route', async () => {
    const answer = await send(`/api/v1/gameserver/${SERVER}/mute`, { method: 'GET' });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    expect(answer.json).toStrictEqual({ message: 'The GET method is not supported for this route. Supported methods: POST.' });
  });
});

describe('422 validation', () => {
  it('words stars and comment errors as Laravel does and stores nothing', async () => {
    const answer = await v1('review', { steam_id: STEAM, stars: '9', comment: 'x'.repeat(501) });
    expect(answer.status).toBe(422);
    expect(answer.json).toStrictEqual({
      message: 'The stars field must be between 1 and 5. (and 1 more error)',
      errors: {
        stars: ['The stars field must be between 1 and 5.'],
        comment: ['The comment field must not be greater than 500 characters.'],
      },
    });
    expect(emu.reviews).toStrictEqual([]);
  });

  it('requires one of steam_id or eos_id', async () => {
    const answer = await v1('mute', {});
    expect(answer.status).toBe(422);
    expect(answer.json).toStrictEqual({
      message: 'The steam id field is required when eos id is not present. (and 1 more error)',
      errors: {
        steam_id: ['The steam id field is required when eos id is not present.'],
        eos_id: ['The eos id field is required when steam id is not present.'],
      },
    });
  });

  it('refuses both steam_id and eos_id, but counts a blank one as absent', async () => {
    expect((await v2('mute', { steam_id: STEAM, eos_id: EOS })).json).toStrictEqual({
      message: 'The steam id field prohibits eos id from being present.',
      errors: { steam_id: ['The steam id field prohibits eos id from being present.'] },
    });
    expect((await v2('mute', { steam_id: STEAM, eos_id: '' })).status).toBe(200);
  });

  it('checks id formats', async () => {
    expect((await v1('mute', { steam_id: '7656119800000000' })).json).toStrictEqual({
      message: 'The steam id field format is invalid.',
      errors: { steam_id: ['The steam id field format is invalid.'] },
    });
    expect((await v1('mute', { eos_id: 'not-hex-not-hex-not-hex-not-hex!' })).json).toStrictEqual({
      message: 'The eos id field format is invalid.',
      errors: { eos_id: ['The eos id field format is invalid.'] },
    });
  });

  it('requires integer stars and pluralises "more errors"', async () => {
    expect((await v1('review', { steam_id: STEAM })).json).toStrictEqual({
      message: 'The stars field is required.',
      errors: { stars: ['The stars field is required.'] },
    });
    expect((await v1('review', { steam_id: STEAM, stars: '4.5' })).json).toStrictEqual({
      message: 'The stars field must be an integer.',
      errors: { stars: ['The stars field must be an integer.'] },
    });
    const three = await v1('review', { steam_id: 'abc', stars: '0', comment: 'y'.repeat(600) });
    expect(three.json).toMatchObject({ message: 'The steam id field format is invalid. (and 2 more errors)' });
    expect(Object.keys((three.json as { errors: object }).errors)).toStrictEqual(['steam_id', 'stars', 'comment']);
    expect(emu.reviews).toStrictEqual([]);
  });
});

describe('review eligibility', () => {
  it('answers 403 with the configured message and stores nothing, until cleared', async () => {
    const message = 'You need to play at least 2 hours before you can leave a review.';
    emu.setIneligible(SERVER, STEAM, message);
    const refused = await v1('review', { steam_id: STEAM, stars: '5' });
    expect(refused.status).toBe(403);
    expect(refused.json).toStrictEqual({ message });
    expect(emu.reviews).toStrictEqual([]);

    expect((await v1('review', { steam_id: '76561198000000002', stars: '5' })).status).toBe(200);
    emu.setIneligible(SERVER, STEAM, null);
    expect((await v1('review', { steam_id: STEAM, stars: '5' })).status).toBe(200);
    expect(emu.reviews.map((r) => r.steamId)).toStrictEqual(['76561198000000002', STEAM]);
  });
});

describe('alertKey', () => {
  const expected: Record<AlertKey, Record<string, string>> = {
    'muted-alert-tex': { 'muted-alert-tex': 'Muted by admin' },
    'muted-alert-text': { 'muted-alert-text': 'Muted by admin' },
    both: { 'muted-alert-tex': 'Muted by admin', 'muted-alert-text': 'Muted by admin' },
  };

  it.each(Object.keys(expected) as AlertKey[])('writes the alert under %s', async (alertKey) => {
    const keyed = await GsaEmulator.start({ alertKey });
    try {
      keyed.mute(SERVER, STEAM, 'Muted by admin');
      const answer = await v1('mute', { steam_id: STEAM }, { target: keyed });
      expect(answer.json).toStrictEqual({ identifier: 'gsamod-muted', steam_id: STEAM, eos_id: '', muted: true, ...expected[alertKey] });
    } finally {
      await keyed.close();
    }
  });
});

describe('faults', () => {
  it('latency: processes before the delay, so a client that times out leaves the review stored', async () => {
    let clock = 1;
    // The injected latency on fake time (setTimeout only): the client's AbortSignal.timeout and the sockets stay real.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const clocked = await GsaEmulator.start({ now: () => clock });
    try {
      clocked.injectFault({ kind: 'latency', ms: 300, endpoint: 'review' });
      const attempt = v1('review', { steam_id: STEAM, stars: '5' }, { target: clocked, signal: AbortSignal.timeout(100) });
      await expect(attempt).rejects.toMatchObject({ name: 'TimeoutError' });
      clock = 2; // anything stamped from here on was stamped after arrival
      expect(clocked.reviews).toStrictEqual([{ server: SERVER, steamId: STEAM, stars: 5, comment: '', at: 1 }]);
      // A later request answered: the emulator has read the first client's close too (it came before this one).
      expect((await v1('mute', { steam_id: STEAM }, { target: clocked })).status).toBe(200);
      await vi.advanceTimersByTimeAsync(300);
      // Stamped at arrival; status 0 because the client had gone when the delayed answer was due.
      expect(clocked.calls.map((c) => [c.at, c.status])).toStrictEqual([
        [1, 0],
        [2, 200],
      ]);
    } finally {
      vi.useRealTimers();
      await clocked.close();
    }
  });

  it('latency: answers normally after the delay', async () => {
    emu.injectFault({ kind: 'latency', ms: 150 });
    const started = performance.now();
    const answer = await v1('mute', { steam_id: STEAM });
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(answer.json).toStrictEqual(muteAnswer({ steam_id: STEAM, muted: false, alert: '' }));
    expect(emu.calls[0]!.status).toBe(200);
  });

  it('status: answers 429 with Retry-After without processing, once by default', async () => {
    emu.injectFault({ kind: 'status', status: 429, retryAfter: '2' });
    const limited = await v1('review', { steam_id: STEAM, stars: '5' });
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBe('2');
    expect(limited.json).toStrictEqual({ message: 'Too Many Attempts.' });
    expect(emu.reviews).toStrictEqual([]);

    expect((await v1('review', { steam_id: STEAM, stars: '5' })).status).toBe(200);
    expect(emu.reviews).toHaveLength(1);
    expect(emu.calls.map((c) => c.status)).toStrictEqual([429, 200]);
  });

  it('status: carries an HTTP-date Retry-After and a custom message', async () => {
    const date = 'Wed, 21 Oct 2037 07:28:00 GMT';
    emu.injectFault({ kind: 'status', status: 503, retryAfter: date, message: 'Down for maintenance.' });
    const answer = await webhook('restart');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe(date);
    expect(answer.json).toStrictEqual({ message: 'Down for maintenance.' });
    expect(emu.actions(SERVER_ID)).toStrictEqual([]);
  });

  it('drop: destroys the socket without processing by default', async () => {
    emu.injectFault({ kind: 'drop' });
    await expect(v1('review', { steam_id: STEAM, stars: '5' })).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(emu.reviews).toStrictEqual([]);
    expect(emu.calls.map((c) => [c.endpoint, c.status])).toStrictEqual([['review', 0]]);
    expect((await v1('review', { steam_id: STEAM, stars: '5' })).status).toBe(200);
  });

  it('drop with afterProcessing: stores the review, then destroys the socket', async () => {
    emu.injectFault({ kind: 'drop', afterProcessing: true });
    await expect(v1('review', { steam_id: STEAM, stars: '5' })).rejects.toMatchObject({ code: 'UND_ERR_SOCKET' });
    expect(emu.reviews).toHaveLength(1);
    expect(emu.calls[0]!.status).toBe(0);
  });

  it('matches by endpoint and count, in injection order', async () => {
    emu.injectFault({ kind: 'status', status: 503, count: 2, endpoint: 'mute' });
    emu.injectFault({ kind: 'status', status: 502 });
    const statuses = [
      (await v1('review', { steam_id: STEAM, stars: '5' })).status,
      (await v1('mute', { steam_id: STEAM })).status,
      (await v2('mute', { steam_id: STEAM })).status,
      (await v1('mute', { steam_id: STEAM })).status,
      (await webhook('start')).status,
    ];
    expect(statuses).toStrictEqual([502, 503, 503, 200, 200]);
  });

  it('aims a fault at webhooks only', async () => {
    emu.injectFault({ kind: 'status', status: 504, endpoint: 'webhook' });
    expect((await v1('mute', { steam_id: STEAM })).status).toBe(200);
    const answer = await webhook('start');
    expect(answer.status).toBe(504);
    expect(answer.json).toStrictEqual({ message: 'Gateway Timeout' });
    expect(emu.actions(SERVER_ID)).toStrictEqual([]);
  });

  it('keeps a count: Infinity fault until cleared', async () => {
    emu.injectFault({ kind: 'status', status: 500, count: Infinity });
    for (let i = 0; i < 3; i += 1) expect((await v1('mute', { steam_id: STEAM })).json).toStrictEqual({ message: 'Server Error' });
    emu.clearFaults();
    expect((await v1('mute', { steam_id: STEAM })).status).toBe(200);
  });

  it('status: passes a huge Retry-After through verbatim (a day, and 2^40 ms in seconds)', async () => {
    const huge = String(Math.ceil(2 ** 40 / 1000));
    emu.injectFault({ kind: 'status', status: 429, retryAfter: '86400', endpoint: 'mute' });
    emu.injectFault({ kind: 'status', status: 503, retryAfter: huge, endpoint: 'mute' });
    const day = await v1('mute', { steam_id: STEAM });
    const eon = await v1('mute', { steam_id: STEAM });
    expect([day.status, day.headers['retry-after']]).toStrictEqual([429, '86400']);
    expect([eon.status, eon.headers['retry-after']]).toStrictEqual([503, '1099511628']);
  });

  it('status: a 503 burst answers `count` requests, then the service is back', async () => {
    emu.injectFault({ kind: 'status', status: 503, count: 4 });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await v1('mute', { steam_id: STEAM })).status);
    expect(statuses).toStrictEqual([503, 503, 503, 503, 200]);
  });

  it('reset: aborts the connection with a RST (ECONNRESET) without processing', async () => {
    emu.injectFault({ kind: 'reset', endpoint: 'review' });
    await expect(v1('review', { steam_id: STEAM, stars: '5' })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(emu.reviews).toStrictEqual([]);
    expect(emu.calls.map((c) => [c.endpoint, c.status])).toStrictEqual([['review', 0]]);
    expect((await v1('review', { steam_id: STEAM, stars: '5' })).status).toBe(200);
  });

  it('reset with afterProcessing: stores the review, then aborts the connection', async () => {
    emu.injectFault({ kind: 'reset', afterProcessing: true });
    await expect(v1('review', { steam_id: STEAM, stars: '5' })).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(emu.reviews).toHaveLength(1);
  });

  it('html: answers 200 text/html (a captive portal) without processing', async () => {
    emu.injectFault({ kind: 'html', endpoint: 'review' });
    const answer = await send(`/api/v1/gameserver/${SERVER}/review`, {
      headers: FORM,
      body: form({ client_id: 'demo-client', client_secret: SECRET, steam_id: STEAM, stars: '5' }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.text).toBe(CAPTIVE_PORTAL_PAGE);
    expect(emu.reviews).toStrictEqual([]);
    expect(emu.calls.map((c) => c.status)).toStrictEqual([200]);
  });

  it('html: takes another status and page', async () => {
    emu.injectFault({ kind: 'html', status: 502, body: '<h1>Bad gateway</h1>' });
    const answer = await send(`/api/v1/gameserver/${SERVER}/mute`, { headers: FORM, body: form({ client_id: 'demo-client', client_secret: SECRET, steam_id: STEAM }) });
    expect([answer.status, answer.text]).toStrictEqual([502, '<h1>Bad gateway</h1>']);
  });

  it('refuses malformed faults with an error naming the field', () => {
    expect(() => {
      emu.injectFault({ kind: 'status', status: 503, count: 0 });
    }).toThrow(EmulatorInputError);
    expect(() => {
      emu.injectFault({ kind: 'latency', ms: -5 });
    }).toThrow(/ms/);
    expect(() => {
      emu.injectFault({ kind: 'explode' } as unknown as FaultSpec);
    }).toThrow(/kind/);
    expect(emu.snapshot().faults).toStrictEqual([]);
  });
});

describe('control surface over HTTP', () => {
  it('adds servers, mutes, unmutes, sets eligibility and locks', async () => {
    expect((await control('POST', 'servers', { name: 'second', id: 99 })).json).toStrictEqual({ ok: true });
    expect((await webhook('restart', { id: 99 })).status).toBe(200);

    await control('POST', 'mute', { server: 'second', player: STEAM, alert: 'Over HTTP' });
    expect((await v1('mute', { steam_id: STEAM }, { server: 'second' })).json).toMatchObject({ muted: true, 'muted-alert-tex': 'Over HTTP' });
    await control('POST', 'unmute', { server: 'second', player: STEAM });
    expect((await v1('mute', { steam_id: STEAM }, { server: 'second' })).json).toMatchObject({ muted: false });

    await control('POST', 'ineligible', { server: SERVER, player: EOS, message: 'Play more first.' });
    expect((await v2('review', { eos_id: EOS, stars: '2' })).json).toStrictEqual({ message: 'Play more first.' });
    await control('POST', 'ineligible', { server: SERVER, player: EOS, message: null });
    expect((await v2('review', { eos_id: EOS, stars: '2' })).status).toBe(200);

    await control('POST', 'lock', { serverId: 99, locked: true });
    expect((await webhook('cancel-scheduled', { id: 99 })).status).toBe(409);
  });

  it('injects faults (count -1 = until cleared), lists them in state, and clears them', async () => {
    expect((await control('POST', 'faults', { kind: 'status', status: 503, count: -1, endpoint: 'mute' })).status).toBe(200);
    expect((await control('GET', 'state')).json).toMatchObject({ faults: [{ kind: 'status', status: 503, count: -1, endpoint: 'mute', remaining: -1 }] });
    expect((await v1('mute', { steam_id: STEAM })).status).toBe(503);
    expect((await v1('mute', { steam_id: STEAM })).status).toBe(503);
    expect((await control('DELETE', 'faults')).status).toBe(200);
    expect((await v1('mute', { steam_id: STEAM })).status).toBe(200);
  });

  it('injects reset and html faults, watches a window and reports stats over HTTP', async () => {
    expect((await control('POST', 'faults', { kind: 'html', count: 2, endpoint: 'review' })).status).toBe(200);
    expect((await control('POST', 'faults', { kind: 'reset', endpoint: 'webhook' })).status).toBe(200);
    expect((await control('GET', 'faults')).json).toStrictEqual([
      { kind: 'html', count: 2, endpoint: 'review', remaining: 2 },
      { kind: 'reset', endpoint: 'webhook', remaining: 1 },
    ]);
    expect((await control('POST', 'window', { requests: 100, intervalMs: 60_000 })).status).toBe(200);
    expect((await v1('review', { steam_id: STEAM, stars: '5' })).text).toBe(CAPTIVE_PORTAL_PAGE);
    const stats = await control('GET', 'stats');
    expect(stats.json).toStrictEqual({
      counters: { total: 1, byEndpoint: { mute: 0, review: 1, webhook: 0, system: 0, ...NO_FEATURE_CALLS, other: 0 }, byStatus: { '200': 1 } },
      window: { requests: 100, intervalMs: 60_000, arrivals: 1, maxInWindow: 1, maxAt: expect.any(Number) as unknown, minSpanMs: null, violations: 0 },
      budget: null,
    });
    expect((await control('POST', 'window', { requests: 1.5, intervalMs: 60_000 })).json).toMatchObject({ message: expect.stringMatching(/^requests: /) as unknown });
    expect((await control('POST', 'faults', { kind: 'html', status: 199 })).json).toMatchObject({ message: expect.stringMatching(/^status: /) as unknown });
  });

  it('reports state, calls and reviews, and never records or faults its own calls', async () => {
    emu.injectFault({ kind: 'drop', count: Infinity });
    emu.mute(SERVER, STEAM, 'spam');
    emu.setIneligible(SERVER, EOS, 'not yet');
    emu.lock(SERVER_ID, true);
    const state = await control('GET', 'state');
    expect(state.status).toBe(200);
    expect(state.json).toStrictEqual({
      servers: [{ name: SERVER, id: SERVER_ID }],
      mutes: [{ server: SERVER, player: STEAM, alert: 'spam' }],
      ineligible: [{ server: SERVER, player: EOS, message: 'not yet' }],
      reviews: [],
      actions: {},
      locks: [SERVER_ID],
      faults: [{ kind: 'drop', count: -1, remaining: -1 }],
      // The players the controls made on sight; the System API's state is asserted in emulator-system-api.test.ts.
      system: { players: expect.any(Array) as unknown, mutes: [], offline: [], actions: [] },
      features: NO_FEATURES,
    });
    emu.clearFaults();

    await v1('review', { steam_id: STEAM, stars: '3', comment: 'ok' });
    await webhook('wipe');
    const calls = await control('GET', 'calls');
    expect(calls.json).toStrictEqual([
      // The player ids the body named: which id a client asked by.
      { at: expect.any(Number) as number, method: 'POST', path: `/api/v1/gameserver/${SERVER}/review`, endpoint: 'review', flavor: 'v1', server: SERVER, status: 200, player: { steam_id: STEAM } },
      { at: expect.any(Number) as number, method: 'POST', path: `/api/v1/server/${SERVER_ID}/wipe`, endpoint: 'webhook', flavor: 'webhook', server: String(SERVER_ID), status: 200 },
    ]);
    expect(emu.calls).toHaveLength(2);
    expect((await control('GET', 'reviews')).json).toStrictEqual([{ server: SERVER, steamId: STEAM, stars: 3, comment: 'ok', at: emu.reviews[0]!.at }]);
    expect((await control('GET', 'state')).json).toMatchObject({ actions: { [String(SERVER_ID)]: [{ action: 'wipe' }] } });
  });

  it('answers 400 naming the field for bad bodies', async () => {
    const bad: [string, unknown, RegExp][] = [
      ['mute', { server: SERVER }, /^player: /],
      ['mute', { server: 'nope', player: STEAM }, /^server: 'nope' is not a known server/],
      ['mute', { server: SERVER, player: STEAM, extra: 1 }, /extra/],
      ['lock', { serverId: 12345, locked: true }, /^serverId: /],
      ['lock', { serverId: SERVER_ID, locked: 'yes' }, /^locked: /],
      ['ineligible', { server: SERVER, player: STEAM }, /^message: /],
      ['servers', { name: 'a/b' }, /^name: /],
      ['servers', { name: 'other', id: SERVER_ID }, /^id: 4711 already belongs to server 'ovddykvbs'/],
      ['faults', { kind: 'status', status: 503, count: 0 }, /^count: /],
      ['faults', { kind: 'teleport' }, /^kind: /],
      ['faults', { kind: 'latency' }, /^ms: /],
    ];
    for (const [route, body, pattern] of bad) {
      const answer = await control('POST', route, body);
      expect(answer.status, route).toBe(400);
      expect((answer.json as { message: string }).message).toMatch(pattern);
    }
    const notJson = await send('/_emulator/mute', { headers: { 'content-type': 'application/json' }, body: '{"server":' });
    expect(notJson.status).toBe(400);
    expect((notJson.json as { message: string }).message).toMatch(/^body: not valid JSON/);
    expect(emu.snapshot()).toMatchObject({ mutes: [], locks: [], faults: [], servers: [{ name: SERVER, id: SERVER_ID }] });
  });

  it('answers 404 for unknown control routes and 405 for the wrong method', async () => {
    expect((await control('GET', 'nothing')).status).toBe(404);
    const wrong = await control('GET', 'reset');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('POST');
  });
});

describe('long runs: a capped call log, counters and the window watch', () => {
  it('keeps only the latest callLogLimit calls, and counts every call', async () => {
    const capped = await GsaEmulator.start({ callLogLimit: 3 });
    try {
      capped.injectFault({ kind: 'status', status: 503, count: 2 });
      for (let i = 0; i < 7; i += 1) await v1('mute', { steam_id: STEAM }, { target: capped });
      await send('/nowhere', { method: 'GET' }, capped);
      expect(capped.calls.map((c) => c.endpoint)).toStrictEqual(['mute', 'mute', 'other']);
      expect(capped.counters()).toStrictEqual({ total: 8, byEndpoint: { mute: 7, review: 0, webhook: 0, system: 0, ...NO_FEATURE_CALLS, other: 1 }, byStatus: { '200': 5, '404': 1, '503': 2 } });
      capped.reset();
      expect(capped.counters()).toStrictEqual({ total: 0, byEndpoint: { mute: 0, review: 0, webhook: 0, system: 0, ...NO_FEATURE_CALLS, other: 0 }, byStatus: {} });
    } finally {
      await capped.close();
    }
  });

  it('refuses a callLogLimit that is not a positive integer', async () => {
    await expect(GsaEmulator.start({ callLogLimit: 0 })).rejects.toThrow(/callLogLimit/);
  });

  it('watches a strict window on arrival: the peak count, the shortest span, and each arrival over the limit', async () => {
    let clock = 0;
    const watched = await GsaEmulator.start({ now: () => clock, window: { requests: 2, intervalMs: 100 } });
    try {
      // Arrivals at 0, 100, 150, 199, 300: {100, 150, 199} are three inside 100 ms (199 - 100 < 100).
      for (const at of [0, 100, 150, 199, 300]) {
        clock = at;
        await v1('mute', { steam_id: STEAM }, { target: watched });
      }
      expect(watched.windowReport()).toStrictEqual({ requests: 2, intervalMs: 100, arrivals: 5, maxInWindow: 3, maxAt: 199, minSpanMs: 99, violations: 1 });
      watched.watchWindow({ requests: 10, intervalMs: 1000 });
      expect(watched.windowReport()).toMatchObject({ arrivals: 0, maxInWindow: 0, maxAt: null, minSpanMs: null, violations: 0 });
    } finally {
      await watched.close();
    }
  });

  it('keeps to the window exactly at its edge: an arrival intervalMs after the oldest is a new window', async () => {
    let clock = 0;
    const watched = await GsaEmulator.start({ now: () => clock, window: { requests: 2, intervalMs: 100 } });
    try {
      for (const at of [0, 50, 100, 150, 200]) {
        clock = at;
        await v1('mute', { steam_id: STEAM }, { target: watched });
      }
      expect(watched.windowReport()).toMatchObject({ maxInWindow: 2, minSpanMs: 100, violations: 0 });
    } finally {
      await watched.close();
    }
  });

  it('has no window report until one is watched, and refuses a bad window', () => {
    expect(emu.windowReport()).toBeNull();
    expect(() => {
      emu.watchWindow({ requests: 0, intervalMs: 100 });
    }).toThrow(/requests/);
  });
});

describe('reset', () => {
  it('clears mutes, reviews, calls, faults, actions, locks and eligibility but keeps servers and credentials', async () => {
    emu.addServer('second', 99);
    emu.mute(SERVER, STEAM, 'spam');
    emu.setIneligible(SERVER, EOS, 'not yet');
    await v1('review', { steam_id: STEAM, stars: '1' });
    await webhook('restart');
    emu.lock(SERVER_ID, true);
    emu.injectFault({ kind: 'status', status: 500, count: Infinity });

    emu.reset();

    expect(emu.snapshot()).toStrictEqual({
      servers: [{ name: SERVER, id: SERVER_ID }, { name: 'second', id: 99 }],
      mutes: [],
      ineligible: [],
      reviews: [],
      actions: {},
      locks: [],
      faults: [],
      // System API players are identities, like servers: reset keeps them (emulator-system-api.test.ts).
      system: { players: expect.any(Array) as unknown, mutes: [], offline: [], actions: [] },
      features: NO_FEATURES,
    });
    expect(emu.calls).toStrictEqual([]);
    expect((await v1('mute', { steam_id: STEAM })).json).toMatchObject({ muted: false });
    expect((await v2('review', { eos_id: EOS, stars: '5' }, { server: 'second' })).status).toBe(200);
  });

  it('is also reachable over HTTP', async () => {
    emu.mute(SERVER, STEAM);
    await v1('mute', { steam_id: STEAM });
    expect((await control('POST', 'reset')).json).toStrictEqual({ ok: true });
    expect(emu.snapshot().mutes).toStrictEqual([]);
    expect(emu.calls).toStrictEqual([]);
  });
});

describe('robustness', () => {
  it('refuses bodies over 64 KiB with 413 and keeps serving', async () => {
    const answer = await v1('review', { steam_id: STEAM, stars: '5', comment: 'z'.repeat(70 * 1024) });
    expect(answer.status).toBe(413);
    expect(answer.text).not.toContain(SECRET);
    expect(emu.reviews).toStrictEqual([]);
    expect(emu.calls.map((c) => c.status)).toStrictEqual([413]);
    expect((await v1('mute', { steam_id: STEAM })).status).toBe(200);
  });

  it('refuses a chunked body that grows past 64 KiB (no Content-Length to go by)', async () => {
    const chunk = Buffer.alloc(16 * 1024, 'a');
    const head = Buffer.from(`client_id=demo-client&client_secret=${SECRET}&steam_id=${STEAM}&stars=5&comment=`);
    // A stream body goes out chunked, so only counting bytes can catch it.
    const body = Readable.from([head, chunk, chunk, chunk, chunk, chunk]);
    const res = await request(`${emu.url}/api/v1/gameserver/${SERVER}/review`, { dispatcher: agent, method: 'POST', headers: FORM, body });
    expect(res.statusCode).toBe(413);
    await res.body.dump();
    expect(emu.reviews).toStrictEqual([]);
    expect((await v1('mute', { steam_id: STEAM })).status).toBe(200);
  });

  it('answers malformed JSON, non-object JSON and unsupported media types without crashing', async () => {
    const path = `/api/v1/gameserver/${SERVER}/mute`;
    const broken = await send(path, { headers: { 'content-type': 'application/json' }, body: '{"client_id":' });
    expect(broken.status).toBe(400);
    expect(broken.json).toStrictEqual({ message: 'The request body is not valid JSON.' });
    expect((await send(path, { headers: { 'content-type': 'application/json' }, body: '[1,2]' })).status).toBe(400);
    const multipart = await send(path, { headers: { 'content-type': 'multipart/form-data; boundary=x' }, body: '--x--' });
    expect(multipart.status).toBe(415);
    expect((await v1('mute', { steam_id: STEAM })).status).toBe(200);
  });
});

describe('connections', () => {
  it('serves many requests over one keep-alive connection', async () => {
    const pool = new Pool(emu.url, { connections: 1 });
    let connects = 0;
    pool.on('connect', () => {
      connects += 1;
    });
    try {
      for (let i = 0; i < 3; i += 1) {
        const res = await pool.request({ path: `/api/v1/gameserver/${SERVER}/mute`, method: 'POST', headers: FORM, body: form({ client_id: 'demo-client', client_secret: SECRET, steam_id: STEAM }) });
        expect(res.statusCode).toBe(200);
        await res.body.dump();
      }
      expect(connects).toBe(1);
    } finally {
      await pool.destroy();
    }
  });

  it('closes promptly with an idle keep-alive socket open', async () => {
    const pool = new Pool(emu.url, { connections: 1, keepAliveTimeout: 60_000 });
    let disconnected = false;
    pool.on('disconnect', () => {
      disconnected = true;
    });
    try {
      const res = await pool.request({ path: '/_emulator/state', method: 'GET' });
      await res.body.dump();
      const started = performance.now();
      await emu.close();
      // Promptly: not after the socket's 60 s keep-alive.
      expect(performance.now() - started).toBeLessThan(patientMs(1000, 60_000));
      await until(() => disconnected);
    } finally {
      await pool.destroy();
    }
  });

  it('closes promptly while a request waits on injected latency, and is safe to close twice', async () => {
    emu.injectFault({ kind: 'latency', ms: 60_000 });
    const pending = v1('mute', { steam_id: STEAM });
    const outcome = pending.then(
      () => 'answered',
      () => 'failed',
    );
    await until(() => emu.calls.length === 1);
    const started = performance.now();
    await emu.close();
    await emu.close();
    // Promptly: not after the 60 s latency.
    expect(performance.now() - started).toBeLessThan(patientMs(1000, 60_000));
    expect(await outcome).toBe('failed');
  });
});
