// The System API client on an undici MockAgent: what reaches the wire, the cooldowns kept before sending (with fake
// time), GSA's own 429 cooldown (not retried, no hold on the key) against the key's limit (a hold), the documented
// refusals, the players/find cache, the budget class of each call, and the key kept out of every error and log line.
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CooldownError, SystemApiClient, type ApiBudget, type BudgetDecision, type CallKind, type RequestEvent, type WaitingCalls } from '../../src/gsa/index.js';
import { createLogger } from '../../src/log/logger.js';
import { failureOf } from '../fixtures/failureOf.js';

const ORIGIN = 'http://gsa.test';
const KEY = 'sys-S3cret/key+=&';
const UUID = 'f47ac10b-58cc-4372-a567-0e02b2c3d479';
const STEAM = '76561198023513722';
const FOUND = { data: [{ uuid: UUID, service_users: [{ service_id: STEAM, username: 'Rex', type: 'steam' }] }], meta: {} };
const PLAYER = { data: { uuid: UUID, moderation: { muted: { is_muted: true, until: null } } } };

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Rig {
  readonly client: SystemApiClient;
  readonly agent: MockAgent;
  readonly arrivals: { method: string; path: string; at: number; body: string; headers: Record<string, string> }[];
  readonly lines: string[];
  readonly events: RequestEvent[];
}

function rig(options: { retries?: number; budget?: ApiBudget } = {}): Rig {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const lines: string[] = [];
  const events: RequestEvent[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
  const client = new SystemApiClient({
    baseUrl: ORIGIN,
    key: KEY,
    gsaId: 'gsa-bridge-test',
    dispatcher: agent,
    logger,
    retry: { retries: options.retries ?? 0, minDelayMs: 1, maxDelayMs: 1 },
    budget: options.budget,
    onRequest: (event) => events.push(event),
  });
  cleanup.push(async () => {
    await client.close();
    await agent.close();
  });
  return { client, agent, arrivals: [], lines, events };
}

/** Answers `path` with `status` and `body` `times` times, recording each arrival. */
function answer(r: Rig, method: string, path: string, status: number, body: unknown, options: { times?: number; headers?: Record<string, string> } = {}): void {
  r.agent
    .get(ORIGIN)
    .intercept({ path, method })
    .reply((request) => {
      r.arrivals.push({
        method: request.method,
        path: request.path,
        at: Date.now(),
        body: typeof request.body === 'string' ? request.body : '',
        headers: request.headers as Record<string, string>,
      });
      return { statusCode: status, data: typeof body === 'string' ? body : JSON.stringify(body), responseOptions: { headers: options.headers ?? {} } };
    })
    .times(options.times ?? 1);
}

describe('what reaches the wire', () => {
  it('a mute check: players/find (JSON, Bearer, GSA-ID) then GET player; muted with no alert', async () => {
    const r = rig();
    answer(r, 'POST', '/system-api/v2/players/find', 200, FOUND);
    answer(r, 'GET', `/system-api/v2/player/${UUID}`, 200, PLAYER);
    expect(await r.client.checkMuted(STEAM)).toEqual({ muted: true, alert: null, steamId: null, eosId: null });
    expect(r.arrivals.map((a) => `${a.method} ${a.path}`)).toEqual(['POST /system-api/v2/players/find', `GET /system-api/v2/player/${UUID}`]);
    expect(r.arrivals[0]?.body).toBe(`{"service_id":"${STEAM}"}`);
    expect(r.arrivals[0]?.headers).toMatchObject({ authorization: `Bearer ${KEY}`, 'gsa-id': 'gsa-bridge-test', accept: 'application/json', 'content-type': 'application/json' });
  });

  it('a players/find answer is kept: the second lookup costs no request', async () => {
    const r = rig();
    answer(r, 'POST', '/system-api/v2/players/find', 200, FOUND, { times: 1 });
    expect(await r.client.findPlayer(STEAM)).toEqual({ uuid: UUID, name: 'Rex', gameIds: { steamId: STEAM } });
    expect(await r.client.findPlayer(STEAM)).toEqual({ uuid: UUID, name: 'Rex', gameIds: { steamId: STEAM } });
    expect(r.arrivals).toHaveLength(1);
  });

  it('a players/find 404 is "GSA does not know this player", kept one minute only', async () => {
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const r = rig();
    answer(r, 'POST', '/system-api/v2/players/find', 404, { error: 'No players found matching the criteria' }, { times: 2 });
    const first = await failureOf(r.client.findPlayer(STEAM));
    expect(first).toMatchObject({ code: 'not_found', status: 404 });
    expect(first.message).toMatch(/^GSA does not know this player \(404\): No players found matching the criteria/);
    expect(await failureOf(r.client.findPlayer(STEAM))).toBe(first);
    expect(r.arrivals).toHaveLength(1);
    vi.setSystemTime(61_000);
    expect((await failureOf(r.client.findPlayer(STEAM))).code).toBe('not_found');
    expect(r.arrivals).toHaveLength(2);
  });

  it('a mute check of a player GSA says it has no record of is "not muted"; a 404 without its words stays an error', async () => {
    const r = rig();
    answer(r, 'POST', '/system-api/v2/players/find', 404, { error: 'No players found matching the criteria' });
    expect(await r.client.checkMuted(STEAM)).toEqual({ muted: false, alert: null, steamId: null, eosId: null });
    const other = rig();
    // A wrong base URL or a proxy answers 404 too, without GSA's words: not a verdict on the player.
    answer(other, 'POST', '/system-api/v2/players/find', 404, '<html>Not Found</html>');
    expect(await failureOf(other.client.checkMuted(STEAM))).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('cooldowns kept before sending', () => {
  it('a second mute of one player waits 121 s; one whose deadline comes first fails with when, sending nothing', async () => {
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const r = rig();
    answer(r, 'POST', `/system-api/v2/player/${UUID}/mute`, 200, { data: 'Player will be muted shortly.' });
    answer(r, 'POST', `/system-api/v2/player/${UUID}/unmute`, 200, { data: 'Player will be unmuted shortly.' });
    expect(await r.client.mute(UUID, { type: 'period', period: '1h' }, 'language')).toEqual({ status: 200, message: 'Player will be muted shortly.' });
    expect(await r.client.playerFreeAt(UUID)).toBe(121_000);

    const deadline = new AbortController();
    setTimeout(() => { deadline.abort(); }, 5000);
    const refused = failureOf(r.client.unmute(UUID, undefined, { signal: deadline.signal }));
    await vi.advanceTimersByTimeAsync(5000);
    const error = await refused;
    expect(error).toBeInstanceOf(CooldownError);
    expect(error).toMatchObject({ code: 'cooldown', availableAt: 121_000, retryAfterMs: 116_000, maybeProcessed: false });
    expect(error.message).toMatch(/this player can be muted or unmuted again at 1970-01-01T00:02:01Z; nothing was sent/);
    expect(r.arrivals).toHaveLength(1);

    const waited = r.client.unmute(UUID);
    await vi.advanceTimersByTimeAsync(115_999);
    expect(r.arrivals).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect((await waited).message).toBe('Player will be unmuted shortly.');
    expect(r.arrivals.map((a) => a.at)).toEqual([0, 121_000]);
  });

  it('one game server: every action and broadcast share one 61 s spacing; another server is not held', async () => {
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const r = rig();
    answer(r, 'POST', '/system-api/v2/gameserver/7/broadcast', 200, { data: 'Broadcast sent to game server' });
    answer(r, 'POST', '/system-api/v2/gameserver/7/restart', 200, { data: 'Restart request sent to game server' });
    answer(r, 'POST', '/system-api/v2/gameserver/8/shutdown', 200, { data: 'Shutdown request sent to game server' });
    await r.client.broadcast(7, 'Hello', 'warning');
    expect(await r.client.serverFreeAt(7)).toBe(61_000);
    expect(await r.client.serverFreeAt(8)).toBeUndefined();
    const restart = r.client.serverAction(7, 'restart', { countdown: 5, message: 'brb' });
    await r.client.serverAction(8, 'stop');
    await vi.advanceTimersByTimeAsync(61_000);
    await restart;
    expect(r.arrivals.map((a) => `${a.path}@${a.at}`)).toEqual(['/system-api/v2/gameserver/7/broadcast@0', '/system-api/v2/gameserver/8/shutdown@0', '/system-api/v2/gameserver/7/restart@61000']);
    expect(r.arrivals[2]?.body).toBe('countdown=5&message=brb');
  });
});

it('a mute whose connection was never made is retried at once, not a whole 121 s later', async () => {
  vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  const r = rig({ retries: 1 });
  r.agent
    .get(ORIGIN)
    .intercept({ path: `/system-api/v2/player/${UUID}/mute`, method: 'POST' })
    .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
  answer(r, 'POST', `/system-api/v2/player/${UUID}/mute`, 200, { data: 'Player will be muted shortly.' });
  const muted = r.client.mute(UUID, { type: 'permanent' });
  await vi.advanceTimersByTimeAsync(10);
  expect((await muted).message).toBe('Player will be muted shortly.');
  expect(r.arrivals.map((a) => a.at)).toEqual([1]);
  expect(await r.client.playerFreeAt(UUID)).toBe(121_001);
});

describe("GSA's answers", () => {
  it('a 429 "You cannot do this yet" is a cooldown: not retried, and the key is not held', async () => {
    const r = rig({ retries: 5 });
    answer(r, 'POST', `/system-api/v2/player/${UUID}/mute`, 429, { error: 'You cannot do this yet. Please wait 120\n     *          second(s) between calls for the same player.' }, { headers: { 'retry-after': '120' } });
    const error = await failureOf(r.client.mute(UUID, { type: 'permanent' }));
    expect(error).toMatchObject({ code: 'cooldown', retryAfterMs: 120_000 });
    expect(r.arrivals).toHaveLength(1);
    expect(r.client.heldForMs).toBe(0);
  });

  it("a 429 without that text is the key's limit: rate_limited, and the key is held for its Retry-After", async () => {
    const r = rig();
    answer(r, 'POST', '/system-api/v2/gameserver/7/start', 429, { message: 'Too Many Attempts.' }, { headers: { 'retry-after': '30' } });
    expect((await failureOf(r.client.serverAction(7, 'start'))).code).toBe('rate_limited');
    expect(r.client.heldForMs).toBeGreaterThan(20_000);
  });

  it.each([
    [401, 'Unauthenticated.', 'unauthorized', /GSA refused the System API key \(401\): check api\.system\.key or GSA_SYSTEM_API_KEY/],
    [403, 'Forbidden', 'forbidden', /\(403\)/],
    [404, 'Game server not found', 'not_found', /GSA does not know game server 7 \(404\)/],
    [400, 'Game server needs to be online to do this.', 'refused', /game server 7 is offline \(400\)/],
  ] as const)('%i is %s, never retried', async (status, text, code, message) => {
    const r = rig({ retries: 5 });
    answer(r, 'POST', '/system-api/v2/gameserver/7/broadcast', status, { error: text });
    const error = await failureOf(r.client.broadcast(7, 'hi'));
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(r.arrivals).toHaveLength(1);
  });

  it('a player read that fails on the network is retried, as a mute check is', async () => {
    const r = rig({ retries: 2 });
    r.agent.get(ORIGIN).intercept({ path: `/system-api/v2/player/${UUID}`, method: 'GET' }).replyWithError(Object.assign(new Error('connect failed'), { code: 'ECONNREFUSED' }));
    answer(r, 'GET', `/system-api/v2/player/${UUID}`, 200, PLAYER);
    expect((await r.client.player(UUID)).muted).toBe(true);
  });

  it('refuses bad input before sending: a countdown over 90, an empty broadcast, a period that is not a code', async () => {
    const r = rig();
    expect((await failureOf(r.client.serverAction(7, 'update', { countdown: 91 }))).code).toBe('invalid_input');
    expect((await failureOf(r.client.broadcast(7, ' '))).code).toBe('invalid_input');
    expect((await failureOf(r.client.mute(UUID, { type: 'period', period: '7d' as '1w' }))).code).toBe('invalid_input');
    expect((await failureOf(r.client.serverAction(7, 'backup'))).code).toBe('invalid_input');
  });
});

/** A budget that lets every call go at once and notes the kind of each start. */
class RecordingBudget implements ApiBudget {
  readonly starts: CallKind[] = [];
  readonly heldForMs = 0;
  decide(waiting: WaitingCalls): BudgetDecision {
    const kind = (['lookup', 'refresh', 'review', 'action'] as const).find((candidate) => waiting[candidate] > 0) ?? 'lookup';
    this.starts.push(kind);
    return { start: kind };
  }
  holdFor(): void {}
  observeServiceCount(): void {}
  close(): Promise<void> {
    return Promise.resolve();
  }
}

it('budget classes: lookups (and refreshes) in the mute class, mutes in the review class, server calls in the action class', async () => {
  const budget = new RecordingBudget();
  const r = rig({ budget });
  answer(r, 'POST', '/system-api/v2/players/find', 200, FOUND);
  answer(r, 'GET', `/system-api/v2/player/${UUID}`, 200, PLAYER, { times: 2 });
  answer(r, 'POST', `/system-api/v2/player/${UUID}/mute`, 200, { data: 'ok' });
  answer(r, 'POST', '/system-api/v2/gameserver/7/broadcast', 200, { data: 'ok' });
  await r.client.checkMuted(STEAM);
  await r.client.checkMuted(STEAM, { kind: 'refresh', source: 'chat' });
  await r.client.mute(UUID, { type: 'date', date: '2030-01-01' });
  await r.client.broadcast(7, 'hi');
  expect(budget.starts).toEqual(['lookup', 'lookup', 'refresh', 'review', 'action']);
});

it('the System API key never reaches an error, a log line or a request event, even when GSA echoes it', async () => {
  const r = rig({ retries: 1 });
  const echoes = [KEY, encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1)];
  answer(r, 'POST', '/system-api/v2/players/find', 401, { error: `bad token Bearer ${KEY}` });
  answer(r, 'POST', `/system-api/v2/player/${UUID}/mute`, 400, `{"error":"Invalid period or date. got ${encodeURIComponent(KEY)}"}`);
  answer(r, 'POST', '/system-api/v2/gameserver/7/broadcast', 500, `<html>${KEY}</html>`);
  answer(r, 'POST', '/system-api/v2/gameserver/8/broadcast', 200, { data: `sent ${KEY}` });
  // The 401 last: after it the client pauses calls with this key (credentialsBreaker.ts) and would send no more.
  const receipt = await r.client.broadcast(8, 'hi');
  const errors = [
    await failureOf(r.client.mute(UUID, { type: 'period', period: '1h' })),
    await failureOf(r.client.broadcast(7, 'hi')),
    await failureOf(r.client.findPlayer(STEAM)),
  ];
  const seen = [
    ...errors.flatMap((error) => [error.message, String(error.serviceMessage), JSON.stringify(error), String(error.stack)]),
    JSON.stringify(receipt),
    ...r.lines,
    JSON.stringify(r.events),
    JSON.stringify(r.client),
  ];
  expect(r.lines.length).toBeGreaterThan(0);
  for (const text of seen) for (const echo of echoes) expect(text).not.toContain(echo);
});
