// The emulator enforcing the service's API budget (an option, off by default): per API key, across servers and
// endpoints, counted on arrival, a refused call not counted (Laravel's throttle), 429 with Retry-After past it, and
// X-RateLimit-Limit / -Remaining on every answer of the key's calls. Real HTTP on loopback; the emulator's clock is
// a number the test sets, so no test waits on time.
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EmulatorInputError, GsaEmulator, type EmulatorOptions } from '../../src/gsaEmulator/index.js';

const SERVER = 'ovddykvbs';
const OTHER_SERVER = 'second';
const SERVER_ID = 4711;
const STEAM = '76561198000000001';
const CLIENT = 'demo-client';
const SECRET = 'demo-secret';
const FORM = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly json: unknown;
}

let clock = 0;
let emu: GsaEmulator;
let agent: Agent;

async function startEmulator(options: EmulatorOptions = {}): Promise<GsaEmulator> {
  return GsaEmulator.start({ now: () => clock, servers: [{ name: SERVER, id: SERVER_ID }, { name: OTHER_SERVER, id: 4712 }], ...options });
}

beforeEach(async () => {
  clock = 0;
  emu = await startEmulator();
  agent = new Agent();
});

afterEach(async () => {
  await emu.close();
  await agent.destroy();
});

async function send(path: string, init: { method?: 'GET' | 'POST' | 'DELETE'; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const res = await request(`${emu.url}${path}`, {
    dispatcher: agent,
    method: init.method ?? 'POST',
    ...(init.headers === undefined ? {} : { headers: init.headers }),
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
}

function mute(options: { server?: string; secret?: string } = {}): Promise<Answer> {
  return send(`/api/v1/gameserver/${options.server ?? SERVER}/mute`, {
    headers: FORM,
    body: new URLSearchParams({ client_id: CLIENT, client_secret: options.secret ?? SECRET, steam_id: STEAM }).toString(),
  });
}

/** A v2 review: credentials in headers. */
function review(fields: Record<string, string>, server = OTHER_SERVER): Promise<Answer> {
  return send(`/mod-api/v2/gameserver/${server}/review`, {
    headers: { ...FORM, 'x-client-id': CLIENT, 'x-client-secret': SECRET },
    body: new URLSearchParams(fields).toString(),
  });
}

function webhook(action: string): Promise<Answer> {
  return send(`/api/v1/server/${SERVER_ID}/${action}?client_id=${CLIENT}`, { headers: { 'content-type': 'text/plain' }, body: SECRET });
}

function control(method: 'GET' | 'POST' | 'DELETE', route: string, body?: unknown): Promise<Answer> {
  return send(`/_emulator/${route}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

function rateHeaders(answer: Answer): { limit: unknown; remaining: unknown } {
  return { limit: answer.headers['x-ratelimit-limit'], remaining: answer.headers['x-ratelimit-remaining'] };
}

describe('off by default', () => {
  it('answers every call, with no X-RateLimit headers and no budget report', async () => {
    for (let i = 0; i < 30; i++) {
      const answer = await mute();
      expect(answer.status).toBe(200);
      expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
      expect(answer.headers['x-ratelimit-remaining']).toBeUndefined();
    }
    expect(emu.budgetReport()).toBeNull();
    expect((await control('GET', 'budget')).json).toBeNull();
    expect((await control('GET', 'stats')).json).toMatchObject({ budget: null });
  });
});

describe('enforcing a strict sliding window per key', () => {
  it('counts down X-RateLimit-Remaining, then answers 429 with Retry-After, the headers and Laravel\'s body', async () => {
    emu.enforceBudget({ requests: 3, intervalMs: 1000 });
    const remaining: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await mute();
      expect(answer.status).toBe(200);
      expect(answer.headers['x-ratelimit-limit']).toBe('3');
      remaining.push(answer.headers['x-ratelimit-remaining']);
    }
    expect(remaining).toStrictEqual(['2', '1', '0']);

    const wallBefore = Math.floor(Date.now() / 1000);
    const refused = await mute();
    const wallAfter = Math.floor(Date.now() / 1000);
    expect(refused.status).toBe(429);
    expect(refused.json).toStrictEqual({ message: 'Too Many Attempts.' });
    expect(refused.headers['retry-after']).toBe('1');
    expect(rateHeaders(refused)).toStrictEqual({ limit: '3', remaining: '0' });
    // Laravel's X-RateLimit-Reset: the Unix time (whole seconds) when a call fits again; on a 429 only.
    const reset = Number(refused.headers['x-ratelimit-reset']);
    expect(reset).toBeGreaterThanOrEqual(wallBefore + 1);
    expect(reset).toBeLessThanOrEqual(wallAfter + 1);
    expect(emu.calls.map((call) => call.status)).toStrictEqual([200, 200, 200, 429]);
  });

  it('keeps the window strict to the millisecond: the oldest arrival leaves exactly intervalMs after it came', async () => {
    emu.enforceBudget({ requests: 2, intervalMs: 1000 });
    clock = 0;
    expect((await mute()).status).toBe(200);
    clock = 400;
    expect((await mute()).status).toBe(200);
    clock = 999;
    const late = await mute();
    expect(late.status).toBe(429);
    expect(late.headers['retry-after']).toBe('1'); // 1 ms to go, rounded up to a whole second
    clock = 1000;
    const fits = await mute();
    expect(fits.status).toBe(200);
    expect(rateHeaders(fits)).toStrictEqual({ limit: '2', remaining: '0' });
    // Now {400, 1000} are inside: the next fits at 1400; from 1001 that is 399 ms, one whole second.
    clock = 1001;
    expect((await mute()).headers['retry-after']).toBe('1');
  });

  it('rounds Retry-After up to whole seconds until the oldest counted arrival leaves', async () => {
    emu.enforceBudget({ requests: 3, intervalMs: 2500 });
    for (const at of [0, 10, 20]) {
      clock = at;
      await mute();
    }
    clock = 100;
    expect((await mute()).headers['retry-after']).toBe('3'); // 2400 ms
    clock = 1499;
    expect((await mute()).headers['retry-after']).toBe('2'); // 1001 ms
    clock = 1500;
    expect((await mute()).headers['retry-after']).toBe('1'); // 1000 ms
  });

  it('does not count a refused call: after a run of 429s the next call fits as soon as the oldest counted one leaves', async () => {
    emu.enforceBudget({ requests: 2, intervalMs: 1000 });
    await mute();
    await mute();
    for (const at of [100, 200, 500, 900, 999]) {
      clock = at;
      expect((await mute()).status).toBe(429);
    }
    clock = 1000;
    const answers = [await mute(), await mute()];
    expect(answers.map((a) => a.status)).toStrictEqual([200, 200]);
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toStrictEqual(['1', '0']);
    expect(emu.budgetReport()).toStrictEqual({
      requests: 2,
      intervalMs: 1000,
      refused: 5,
      keys: [{ clientId: CLIENT, counted: 4, refused: 5, inWindow: 2 }],
    });
  });

  it('counts one key across servers, flavours and endpoints: mute checks, reviews and webhooks', async () => {
    emu.enforceBudget({ requests: 3, intervalMs: 60_000 });
    expect(rateHeaders(await mute())).toStrictEqual({ limit: '3', remaining: '2' });
    expect(rateHeaders(await review({ steam_id: STEAM, stars: '5' }))).toStrictEqual({ limit: '3', remaining: '1' });
    expect(rateHeaders(await webhook('restart'))).toStrictEqual({ limit: '3', remaining: '0' });

    // Over the budget nothing is processed: no review stored, no action queued.
    const refusedReview = await review({ steam_id: STEAM, stars: '4' }, SERVER);
    const refusedAction = await webhook('stop');
    expect([refusedReview.status, refusedAction.status]).toStrictEqual([429, 429]);
    expect(refusedAction.headers['retry-after']).toBe('60');
    expect(emu.reviews.map((r) => r.stars)).toStrictEqual([5]);
    expect(emu.actions(SERVER_ID).map((a) => a.action)).toStrictEqual(['restart']);
  });

  it('puts the headers on every answer of the key (404, 422, 403, 409), each counted; a 401 or an unknown route is neither', async () => {
    emu.enforceBudget({ requests: 10, intervalMs: 60_000 });
    emu.setIneligible(OTHER_SERVER, STEAM, 'Play a while first.');
    emu.lock(SERVER_ID, true);
    const answers = [
      await mute({ server: 'nowhere' }),
      await review({ steam_id: STEAM, stars: '9' }),
      await review({ steam_id: STEAM, stars: '5' }),
      await webhook('cancel-scheduled'),
    ];
    expect(answers.map((a) => a.status)).toStrictEqual([404, 422, 403, 409]);
    expect(answers.map((a) => a.headers['x-ratelimit-remaining'])).toStrictEqual(['9', '8', '7', '6']);

    // Laravel authenticates before it throttles: refused keys are not the key's calls.
    const unauthenticated = await mute({ secret: 'wrong' });
    const unknownRoute = await send('/api/v1/nothing/here');
    expect([unauthenticated.status, unknownRoute.status]).toStrictEqual([401, 404]);
    for (const answer of [unauthenticated, unknownRoute]) expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
    expect(emu.budgetReport()?.keys).toStrictEqual([{ clientId: CLIENT, counted: 4, refused: 0, inWindow: 4 }]);
  });
});

describe('with faults', () => {
  it('an armed 429 fault answers as before: its own Retry-After and message, no X-RateLimit headers, not counted', async () => {
    emu.enforceBudget({ requests: 2, intervalMs: 60_000 });
    emu.injectFault({ kind: 'status', status: 429, retryAfter: '7', message: 'Slow down.' });
    const faulted = await mute();
    expect(faulted.status).toBe(429);
    expect(faulted.headers['retry-after']).toBe('7');
    expect(faulted.json).toStrictEqual({ message: 'Slow down.' });
    expect(faulted.headers['x-ratelimit-limit']).toBeUndefined();
    expect(faulted.headers['x-ratelimit-reset']).toBeUndefined();
    // The budget is untouched: two calls still fit.
    expect([(await mute()).status, (await mute()).status, (await mute()).status]).toStrictEqual([200, 200, 429]);
    expect(emu.budgetReport()).toMatchObject({ refused: 1, keys: [{ counted: 2, refused: 1 }] });
  });

  it('a 503 fault (maintenance) is not counted either; a latency fault is processed, so it is counted and carries the headers', async () => {
    emu.enforceBudget({ requests: 2, intervalMs: 60_000 });
    emu.injectFault({ kind: 'status', status: 503 });
    expect((await mute()).headers['x-ratelimit-limit']).toBeUndefined();
    emu.injectFault({ kind: 'latency', ms: 20 });
    const slow = await mute();
    expect(slow.status).toBe(200);
    expect(rateHeaders(slow)).toStrictEqual({ limit: '2', remaining: '1' });
    expect(emu.budgetReport()?.keys[0]?.counted).toBe(1);
  });
});

describe('options and control', () => {
  it('enforces from the start with the enforceBudget option, and refuses a bad one naming the field', async () => {
    const enforcing = await startEmulator({ enforceBudget: { requests: 1, intervalMs: 1000 } });
    try {
      expect(enforcing.budgetReport()).toStrictEqual({ requests: 1, intervalMs: 1000, refused: 0, keys: [] });
    } finally {
      await enforcing.close();
    }
    await expect(startEmulator({ enforceBudget: { requests: 0, intervalMs: 1000 } })).rejects.toThrow(EmulatorInputError);
    await expect(startEmulator({ enforceBudget: { requests: 5, intervalMs: -1 } })).rejects.toThrow(/intervalMs/);
    expect(() => {
      emu.enforceBudget({ requests: 1.5, intervalMs: 1000 });
    }).toThrow(/requests/);
  });

  it('sets, reads and clears the budget over the control API; stats carries it; reset restarts its counts and keeps it', async () => {
    expect((await control('POST', 'budget', { requests: 1, intervalMs: 60_000 })).status).toBe(200);
    await mute();
    expect((await mute()).status).toBe(429);
    expect((await control('GET', 'budget')).json).toStrictEqual({
      requests: 1,
      intervalMs: 60_000,
      refused: 1,
      keys: [{ clientId: CLIENT, counted: 1, refused: 1, inWindow: 1 }],
    });
    expect((await control('GET', 'stats')).json).toMatchObject({ budget: { refused: 1 }, counters: { byStatus: { '200': 1, '429': 1 } } });
    // Control calls are never the key's: they are not counted and carry no headers.
    expect((await control('GET', 'state')).headers['x-ratelimit-limit']).toBeUndefined();

    expect((await control('POST', 'reset')).status).toBe(200);
    expect((await control('GET', 'budget')).json).toStrictEqual({ requests: 1, intervalMs: 60_000, refused: 0, keys: [] });
    expect((await mute()).status).toBe(200);

    // Setting it again starts the counts over.
    expect((await control('POST', 'budget', { requests: 2, intervalMs: 60_000 })).status).toBe(200);
    expect(rateHeaders(await mute())).toStrictEqual({ limit: '2', remaining: '1' });

    expect((await control('DELETE', 'budget')).status).toBe(200);
    const free = await mute();
    expect(free.status).toBe(200);
    expect(free.headers['x-ratelimit-limit']).toBeUndefined();
    expect((await control('GET', 'budget')).json).toBeNull();
  });

  it('answers 400 naming the field for a bad budget', async () => {
    const noRequests = await control('POST', 'budget', { intervalMs: 1000 });
    expect(noRequests.status).toBe(400);
    expect(noRequests.json).toStrictEqual({ message: expect.stringContaining('requests') as unknown });
    const badInterval = await control('POST', 'budget', { requests: 5, intervalMs: 0 });
    expect(badInterval.status).toBe(400);
    expect(badInterval.json).toStrictEqual({ message: expect.stringContaining('intervalMs') as unknown });
    const extra = await control('POST', 'budget', { requests: 5, intervalMs: 1000, burst: 2 });
    expect(extra.status).toBe(400);
    expect(emu.budgetReport()).toBeNull();
  });
});
