// GSA's webhook spacing (3 s between two calls of one action on one server; the client keeps 3.25 s), with fake time: through the client
// on an undici MockAgent (when each call reached the wire), and the spacing module's own turns and give-ups.
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GsaClient } from '../../src/gsa/index.js';
import { LocalWebhookSpacing, WEBHOOK_SPACING_MS } from '../../src/gsa/spacing/webhookSpacing.js';

const ORIGIN = 'http://gsa.test';

let agent: MockAgent | undefined;

beforeEach(() => {
  // Only the timers and the date: undici's mock answers on its own microtasks and immediates.
  vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(async () => {
  vi.useRealTimers();
  await agent?.close();
  agent = undefined;
});

/** A client whose webhook calls are answered 200 at once; `arrivals` says when each path reached the wire. */
function mockedClient(): { client: GsaClient; arrivals: { path: string; at: number }[] } {
  agent = new MockAgent();
  agent.disableNetConnect();
  const arrivals: { path: string; at: number }[] = [];
  agent
    .get(ORIGIN)
    .intercept({ path: (path) => path.startsWith('/api/v1/server/'), method: 'POST' })
    .reply((request) => {
      arrivals.push({ path: request.path.split('?')[0] ?? '', at: Date.now() });
      return { statusCode: 200, data: { message: 'queued' } };
    })
    .persist();
  return { client: new GsaClient({ baseUrl: ORIGIN, clientId: 'id', clientSecret: 'secret', dispatcher: agent, retry: { retries: 0 } }), arrivals };
}

function timesOf(arrivals: readonly { path: string; at: number }[], path: string): number[] {
  return arrivals.filter((arrival) => arrival.path === path).map((arrival) => arrival.at);
}

describe('webhook spacing through the client', () => {
  it('sends a second restart of one server 3 s after the first; other actions and servers go at once', async () => {
    const { client, arrivals } = mockedClient();
    const calls = Promise.all([client.restart(4711), client.restart(4711), client.stop(4711), client.restart(4712), client.restart(4711)]);
    await vi.advanceTimersByTimeAsync(0);
    expect(timesOf(arrivals, '/api/v1/server/4711/restart')).toEqual([0]);
    expect(timesOf(arrivals, '/api/v1/server/4711/stop')).toEqual([0]);
    expect(timesOf(arrivals, '/api/v1/server/4712/restart')).toEqual([0]);

    await vi.advanceTimersByTimeAsync(WEBHOOK_SPACING_MS - 1);
    expect(timesOf(arrivals, '/api/v1/server/4711/restart')).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(timesOf(arrivals, '/api/v1/server/4711/restart')).toEqual([0, WEBHOOK_SPACING_MS]);
    await vi.advanceTimersByTimeAsync(WEBHOOK_SPACING_MS);
    expect(timesOf(arrivals, '/api/v1/server/4711/restart')).toEqual([0, WEBHOOK_SPACING_MS, 2 * WEBHOOK_SPACING_MS]);
    // None failed: they waited.
    expect((await calls).map((result) => result.status)).toEqual([200, 200, 200, 200, 200]);
    await client.close();
  });

  it('measures from when the previous call left: a call 1 s later waits the rest, one 5 s later not at all', async () => {
    const { client, arrivals } = mockedClient();
    await client.update(4711, 5);
    await vi.advanceTimersByTimeAsync(1000);
    const second = client.update(4711, 5);
    await vi.advanceTimersByTimeAsync(WEBHOOK_SPACING_MS - 1000 - 1);
    expect(timesOf(arrivals, '/api/v1/server/4711/update')).toEqual([0]);
    await vi.advanceTimersByTimeAsync(1);
    await second;
    await vi.advanceTimersByTimeAsync(5000);
    await client.update(4711, 5);
    expect(timesOf(arrivals, '/api/v1/server/4711/update')).toEqual([0, WEBHOOK_SPACING_MS, WEBHOOK_SPACING_MS + 5000]);
    await client.close();
  });

  it('a call whose signal aborts while it waits for its turn sends nothing and fails as a timeout', async () => {
    const { client, arrivals } = mockedClient();
    await client.restart(4711);
    const deadline = new AbortController();
    const waiting = client.serverAction(4711, 'restart', undefined, { signal: deadline.signal });
    const failure = waiting.then(
      () => undefined,
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(1000);
    deadline.abort();
    expect(await failure).toMatchObject({ code: 'timeout', maybeProcessed: false });
    expect(timesOf(arrivals, '/api/v1/server/4711/restart')).toEqual([0]);
    await client.close();
  });
});

describe('LocalWebhookSpacing', () => {
  it('a turn given up while waiting does not hold the ones behind it beyond the spacing', async () => {
    const spacing = new LocalWebhookSpacing();
    const never = new AbortController().signal;
    const first = await spacing.turn('4711/restart', never);
    first.leaving();
    const givingUp = new AbortController();
    const abandoned = spacing.turn('4711/restart', givingUp.signal).catch((error: unknown) => error);
    let thirdAt: number | undefined;
    const third = spacing.turn('4711/restart', never).then((turn) => {
      thirdAt = Date.now();
      turn.leaving();
    });
    givingUp.abort(new Error('deadline'));
    expect(await abandoned).toMatchObject({ message: 'deadline' });
    await vi.advanceTimersByTimeAsync(WEBHOOK_SPACING_MS);
    await third;
    expect(thirdAt).toBe(WEBHOOK_SPACING_MS);
  });

  it('a turn released without leaving (the call never went out) lets the next go at once', async () => {
    const spacing = new LocalWebhookSpacing();
    const never = new AbortController().signal;
    const first = await spacing.turn('4711/wipe', never);
    first.release();
    await spacing.turn('4711/wipe', never);
    expect(Date.now()).toBe(0);
  });
});

describe('LocalWebhookSpacing.freeAt', () => {
  it('is undefined before any call, the last departure plus the spacing after one, undefined again once passed', async () => {
    const spacing = new LocalWebhookSpacing({ spacingMs: 60_000 });
    const never = new AbortController().signal;
    expect(await spacing.freeAt('server:7')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1000);
    const turn = await spacing.turn('server:7', never);
    expect(await spacing.freeAt('server:7')).toBeUndefined();
    turn.leaving();
    expect(await spacing.freeAt('server:7')).toBe(61_000);
    expect(await spacing.freeAt('server:8')).toBeUndefined();
    await vi.advanceTimersByTimeAsync(59_999);
    expect(await spacing.freeAt('server:7')).toBe(61_000);
    await vi.advanceTimersByTimeAsync(1);
    expect(await spacing.freeAt('server:7')).toBeUndefined();
  });
});
