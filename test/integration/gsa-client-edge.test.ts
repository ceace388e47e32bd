// Precise HTTP edge cases: undici MockAgent for exact answers, a raw node:http server for an oversize body.
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { MockAgent } from 'undici';
import { failureOf } from '../fixtures/failureOf.js';
import { afterEach, describe, expect, it } from 'vitest';
import { GsaClient, RateLimitedError, type RequestEvent } from '../../src/gsa/index.js';

const ORIGIN = 'http://gsa.test';
const STEAM = '76561198000000001';
const muteBody = { identifier: 'gsamod-muted', steam_id: STEAM, eos_id: '', muted: true, 'muted-alert-tex': 'x' };

let agent: MockAgent | undefined;
let server: Server | undefined;

afterEach(async () => {
  await agent?.close();
  agent = undefined;
  if (server !== undefined) {
    server.closeAllConnections();
    server.close();
    server = undefined;
  }
});

function mockedClient(): GsaClient {
  agent = new MockAgent();
  agent.disableNetConnect();
  return new GsaClient({ baseUrl: ORIGIN, clientId: 'id', clientSecret: 'secret', dispatcher: agent, retry: { retries: 0 } });
}

function intercept(path: string) {
  if (agent === undefined) throw new Error('call mockedClient() first');
  return agent.get(ORIGIN).intercept({ path, method: 'POST' });
}


describe('answers that cannot be read', () => {
  it('bad_response for a 200 mute answer that is not JSON', async () => {
    const client = mockedClient();
    intercept('/api/v1/gameserver/s/mute').reply(200, '<html>maintenance</html>');
    expect(await failureOf(client.checkMuted('s', { steamId: STEAM }))).toMatchObject({ code: 'bad_response', status: 200 });
  });

  it('bad_response for a mute answer with another identifier (not trusted, like the official mod)', async () => {
    const client = mockedClient();
    intercept('/api/v1/gameserver/s/mute').reply(200, { ...muteBody, identifier: 'other' });
    const error = await failureOf(client.checkMuted('s', { steamId: STEAM }));
    expect(error.code).toBe('bad_response');
    expect(error.message).toMatch(/identifier "other"/);
  });

  it('bad_response for an unexpected 3xx', async () => {
    const client = mockedClient();
    intercept('/api/v1/gameserver/s/mute').reply(302, '', { headers: { location: '/login' } });
    expect(await failureOf(client.checkMuted('s', { steamId: STEAM }))).toMatchObject({ code: 'bad_response', status: 302 });
  });

  it('a 2xx review answer that is not the service\'s JSON is bad_response, maybe processed: never "delivered"', async () => {
    const client = mockedClient();
    intercept('/api/v1/gameserver/s/review').reply(200, '<html>Welcome to Hotel WiFi</html>', { headers: { 'content-type': 'text/html' } });
    intercept('/api/v1/gameserver/s/review').reply(201, 'OK');
    intercept('/api/v1/gameserver/s/review').reply(200, '"Done!"', { headers: { 'content-type': 'application/json' } });
    for (let index = 0; index < 3; index++) {
      const error = await failureOf(client.submitReview('s', { steamId: STEAM }, 5, ''));
      expect(error).toMatchObject({ code: 'bad_response', status: index === 1 ? 201 : 200, maybeProcessed: true });
    }
    expect((await failureOf(client.submitReview('s', { steamId: STEAM }, 5, ''))).code).toBe('network'); // nothing more was intercepted: no retry was sent
  });

  it('a 2xx review answer with the documented success, a JSON object holding a "data" string, is the receipt', async () => {
    const client = mockedClient();
    intercept('/api/v1/gameserver/s/review').reply(200, { data: 'Done!' });
    expect(await client.submitReview('s', { steamId: STEAM }, 5, '')).toEqual({ message: 'Done!' });
  });

  it('a webhook with an empty 2xx body succeeds with an empty message', async () => {
    const client = mockedClient();
    intercept('/api/v1/server/7/start?client_id=id').reply(204, '');
    expect(await client.start(7)).toEqual({ action: 'start', status: 204, body: '', message: '' });
  });

  it('bad_response for an answer over 1 MiB, read from a real server', async () => {
    server = createServer((_request, response) => {
      response.end('x'.repeat(2 * 1024 * 1024));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    const client = new GsaClient({ baseUrl: `http://127.0.0.1:${address.port}`, clientId: 'id', clientSecret: 'secret', retry: { retries: 0 } });
    try {
      const error = await failureOf(client.checkMuted('s', { steamId: STEAM }));
      expect(error.code).toBe('bad_response');
      expect(error.message).toMatch(/more than 1048576 bytes/);
    } finally {
      await client.close();
    }
  });
});

describe('Retry-After', () => {
  it('reads an HTTP date into retryAfterMs', async () => {
    const client = mockedClient();
    const at = new Date(Date.now() + 30_000).toUTCString();
    intercept('/api/v1/gameserver/s/mute').reply(429, { message: 'Too Many Attempts.' }, { headers: { 'retry-after': at } });
    const error = await failureOf(client.checkMuted('s', { steamId: STEAM }));
    if (!(error instanceof RateLimitedError)) throw new Error(`expected rate_limited, got ${error.code}`);
    expect(error.retryAfterMs).toBeGreaterThan(28_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(30_000);
  });

  it('reads the service message from `error` when there is no `message`', async () => {
    const client = mockedClient();
    intercept('/api/v1/gameserver/s/mute').reply(403, { error: 'Key disabled' });
    expect(await failureOf(client.checkMuted('s', { steamId: STEAM }))).toMatchObject({ code: 'forbidden', serviceMessage: 'Key disabled' });
  });
});

describe('onRequest', () => {
  it('tells an observer the outcome of every attempt, retries included, without the secret', async () => {
    agent = new MockAgent();
    agent.disableNetConnect();
    const events: RequestEvent[] = [];
    const client = new GsaClient({
      baseUrl: ORIGIN,
      clientId: 'id',
      clientSecret: 'observed-secret',
      dispatcher: agent,
      retry: { retries: 2, minDelayMs: 1, maxDelayMs: 1 },
      random: () => 0,
      onRequest: (event) => events.push(event),
    });
    intercept('/api/v1/gameserver/s/mute').reply(503, { message: 'down for maintenance, client_secret=observed-secret' });
    intercept('/api/v1/gameserver/s/mute').reply(200, muteBody);
    await client.checkMuted('s', { steamId: STEAM });
    intercept('/api/v1/server/7/start?client_id=id').reply(401, { message: 'Unauthenticated.' });
    await failureOf(client.start(7));
    expect(events).toEqual([
      expect.objectContaining({ endpoint: 'mute', target: 's', status: 503, code: 'unavailable', attempt: 1 }),
      expect.objectContaining({ endpoint: 'mute', target: 's', status: 200, code: undefined, message: undefined, attempt: 2 }),
      expect.objectContaining({ endpoint: 'webhook', target: '7', status: 401, code: 'unauthorized', attempt: 1 }),
    ]);
    expect(events[0]?.message).toContain('down for maintenance');
    expect(JSON.stringify(events)).not.toContain('observed-secret');
    for (const event of events) expect(event.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('an observer that throws does not fail the call', async () => {
    agent = new MockAgent();
    agent.disableNetConnect();
    const client = new GsaClient({
      baseUrl: ORIGIN,
      clientId: 'id',
      clientSecret: 'secret',
      dispatcher: agent,
      onRequest: () => {
        throw new Error('observer bug');
      },
    });
    intercept('/api/v1/gameserver/s/mute').reply(200, muteBody);
    expect(await client.checkMuted('s', { steamId: STEAM })).toMatchObject({ muted: true });
  });
});
