// Token guessing at the mod listener, with real WebSocket clients: after a few wrong tokens an address's wrong
// tokens are answered 429 with Retry-After, the log gets one line, not one per guess, and the right token from
// the same address (every local process is 127.0.0.1) always gets in.
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
    options: { type: 'websocket', host: '127.0.0.1', port: 0, token: TOKEN, maxFrameBytes: 16_384, maxMessagesPerSecond: 0, maxUnauthenticatedConnections: 128, handshakeTimeoutMs: 5000 },
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
  it('are answered 429 with Retry-After after 10 failures, while the right token from it gets in', async () => {
    const { url, clock } = await start();
    for (let index = 0; index < 10; index++) expect((await refusal(url, `guess-${index}`)).status).toBe(401);
    expect(await refusal(url, 'guess-11')).toEqual({ status: 429, retryAfter: '1' });
    // Always compared: the address waiting for its wrong tokens does not keep the right one out.
    const first = await connectMod(url, TOKEN);
    cleanups.push(() => first.close());
    expect(await first.waitFor((frame) => frame.type === 'welcome')).toMatchObject({ type: 'welcome' });
    // ...nor does the right token start the address afresh (other processes share it).
    expect(await refusal(url, 'guess-12')).toEqual({ status: 429, retryAfter: '1' });

    clock.now += 1000;
    expect((await refusal(url, 'guess-13')).status).toBe(401); // checked after the wait, and failed: the wait doubles
    expect(await refusal(url, 'guess-14')).toEqual({ status: 429, retryAfter: '2' });
    clock.now += 2000;
    expect((await refusal(url, 'guess-15')).status).toBe(401);
  });

  it('never keep the real mod out: a wrong-token loop beside it, and every one of its reconnects succeeds', async () => {
    const { url, lines, clock } = await start();
    const answers: number[] = [];
    const loop = { running: true };
    let sawWait: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (sawWait = resolve));
    // Another local process: a wrong token as fast as the listener answers, for as long as the mod reconnects.
    const hammer = (async () => {
      for (let index = 0; loop.running; index++) {
        const { status } = await refusal(url, `wrong-${index}`);
        answers.push(status);
        if (status === 429) sawWait();
      }
    })();
    await waiting; // the shared address is now told to wait

    const reconnects = 25;
    let welcomed = 0;
    for (let index = 0; index < reconnects; index++) {
      const mod = await connectMod(url, TOKEN);
      await mod.waitFor((frame) => frame.type === 'welcome');
      welcomed++;
      await mod.close();
      // Time passes for the throttle too: waits run out, the loop's next wrong tokens are checked and fail again.
      clock.now += 700;
    }
    loop.running = false;
    await hammer;

    expect(welcomed).toBe(reconnects);
    expect(new Set(answers)).toEqual(new Set([401, 429]));
    expect(answers.length).toBeGreaterThan(reconnects);
    // One line for all of the loop's wrong tokens: the rest goes into the summary a minute.
    expect(lines.filter((line) => /refused/.test(line))).toHaveLength(1);
    expect(lines.join('')).not.toContain(TOKEN);
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
