// Token guessing at the mod listener, with real WebSocket clients: after a few wrong tokens an address is refused
// with 429 and Retry-After before its token is even compared, and the log gets one line, not one per guess.
// The throttle's time is a hand-set clock, so nothing here waits on the wall clock.
import { WebSocket } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import { createLogger } from '../../src/log/logger.js';
import { connectMod } from '../fixtures/modSocket.js';
import { HARNESS_SERVER, startSidecarHarness, type SidecarHarness } from '../fixtures/sidecarHarness.js';

const TOKEN = 'guessing-test-token-0123456789';
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

interface Refusal {
  readonly status: number;
  readonly retryAfter: string | undefined;
}

function refusal(url: string, token: string): Promise<Refusal> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: { authorization: `Bearer ${token}` } });
    socket.on('unexpected-response', (_request, response) => {
      const retryAfter = response.headers['retry-after'];
      resolve({ status: response.statusCode ?? 0, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined });
      response.resume();
      socket.terminate();
    });
    socket.on('open', () => {
      socket.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    socket.on('error', () => undefined);
  });
}

async function start(): Promise<{ url: string; lines: string[]; clock: { now: number } }> {
  const harness: SidecarHarness = await startSidecarHarness((stop) => cleanups.push(stop));
  const lines: string[] = [];
  const clock = { now: 1_000_000 };
  const adapter = new WebSocketAdapter({
    options: { type: 'websocket', host: '127.0.0.1', port: 0, token: TOKEN, maxFrameBytes: 16_384, maxMessagesPerSecond: 0 },
    id: 'guessed',
    serverName: HARNESS_SERVER,
    sidecar: 'gsa-bridge/test',
    logger: createLogger({ level: 'debug', secrets: [TOKEN], destination: { write: (line: string) => lines.push(line) } }),
    clock: { now: () => clock.now },
    random: () => 0.999_999_999,
  });
  const bridge = harness.sidecar.bridges.get(HARNESS_SERVER);
  if (bridge === undefined) throw new Error('no bridge');
  await adapter.start(bridge);
  cleanups.push(() => adapter.stop());
  return { url: `ws://127.0.0.1:${adapter.port}/`, lines, clock };
}

describe('wrong tokens from one address', () => {
  it('are refused with 429 and Retry-After after 10 failures, even with the right token, until the wait ends', async () => {
    const { url, clock } = await start();
    for (let index = 0; index < 10; index++) expect((await refusal(url, `guess-${index}`)).status).toBe(401);
    expect(await refusal(url, 'guess-11')).toEqual({ status: 429, retryAfter: '1' });
    // Refused before the comparison: the right token does not get through while the address is throttled.
    expect(await refusal(url, TOKEN)).toEqual({ status: 429, retryAfter: '1' });

    clock.now += 1000;
    expect((await refusal(url, 'guess-12')).status).toBe(401); // checked again, and failed: the wait doubles
    expect(await refusal(url, TOKEN)).toEqual({ status: 429, retryAfter: '2' });
    clock.now += 2000;
    const mod = await connectMod(url, TOKEN);
    cleanups.push(() => mod.close());
    expect(await mod.waitFor((frame) => frame.type === 'welcome')).toMatchObject({ type: 'welcome' });
    // The right token starts the address afresh.
    expect((await refusal(url, 'guess-13')).status).toBe(401);
  });

  it('write one log line for many guesses, never the token', async () => {
    const { url, lines } = await start();
    for (let index = 0; index < 50; index++) await refusal(url, `guess-${index}`);
    const refusals = lines.filter((line) => /refused/.test(line));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(/"level":40.*mod connection refused from 127\.0\.0\.1: wrong or missing token/);
    expect(lines.join('')).not.toContain(TOKEN);
  });
});
