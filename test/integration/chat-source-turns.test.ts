// One flooding chat source cannot switch gating off for another (issue 12, part 2), end to end: a real sidecar
// (startSidecar) with a mod WebSocket on each of two servers, against the emulator, with a budget scaled down to
// 10 requests per 1,000 ms. One mod floods chat from hundreds of new players every window; the other has 5 muted
// players talking. Their lookups must start within S·k mute turns (S = 2 sources waiting, k = 5: 10 turns, which
// is all of one window here, since only the mute class waits) and those players stay blocked while the flood lasts.
// Time is fake for the timers and Date (the limiter's window, the decision deadline), so a window frees only when the
// test moves the clock, and everything is asserted on counts and order of arrival at the emulator, never on
// wall-clock durations. Socket I/O is real and waited for by its effects.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import type { Adapter, PlayerIdentity } from '../../src/bridge/port.js';
import { ReviewOutbox } from '../../src/reviews/reviewOutbox.js';
import { ServerBridge } from '../../src/bridge/serverBridge.js';
import { parseConfig } from '../../src/app/config.js';
import { worstCaseGrants } from '../../src/gsa/budget/budgetShares.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient } from '../../src/gsa/index.js';
import { DEFAULT_MAX_QUEUED_PER_SOURCE, guardedIntervalMs } from '../../src/gsa/budget/rateLimiter.js';
import { silentLogger } from '../../src/log/logger.js';
import { startSidecar, type Sidecar } from '../../src/sidecar.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { tempDir } from '../fixtures/tempDir.js';
import { patientMs } from '../fixtures/patience.js';

const FLOODED = 'flooded-server';
const QUIET = 'quiet-server';
const TOKEN = 'source-turns-token';
const REQUESTS = 10;
const INTERVAL_MS = 1000;
const SPAN_MS = guardedIntervalMs(INTERVAL_MS);
/** New speakers the flooding mod sends in every window: far more than the 10 starts a window allows. */
const BURST = 300;
const QUIET_PLAYERS = Array.from({ length: 5 }, (_, index) => ({ steam_id: `7656119900000000${index}`, name: `muted-${index}` }));

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Polls with setImmediate (left real by these fake timers), so real socket I/O can finish; fails after 20 s of real time. */
async function waitForRealIo(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + patientMs(20_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`${what}: not reached within 20 s of real time`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Moves fake time in small steps, letting real I/O run after each, until `condition` holds: a chat line the cache
 * cannot answer is answered by the policy at its decision deadline (270 ms of fake time after it was read). Stays
 * far inside one window (at most 600 ms), so no slot of the budget frees meanwhile.
 */
async function advanceUntil(condition: () => boolean, what: string): Promise<void> {
  for (let advanced = 0; !condition(); advanced += 30) {
    if (advanced > 600) throw new Error(`${what}: not reached within 600 ms of fake time`);
    const until = performance.now() + 50;
    while (!condition() && performance.now() < until) await new Promise((resolve) => setImmediate(resolve));
    if (!condition()) await vi.advanceTimersByTimeAsync(30);
  }
}

function verdictsOf(socket: ModSocket, prefix: string): Record<string, unknown>[] {
  return socket.received.filter((frame) => frame.type === 'chat.verdict' && String(frame.id).startsWith(prefix));
}

describe('chat sources take turns for the mute share (real sidecar, real emulator)', () => {
  it('blocks a quiet server\'s muted players within S·k mute turns, and keeps them blocked, while another server\'s mod floods', async () => {
    const emulator = await GsaEmulator.start({ servers: [{ name: FLOODED, id: 1 }, { name: QUIET, id: 2 }] });
    cleanup.push(() => emulator.close());
    for (const player of QUIET_PLAYERS) emulator.mute(QUIET, player.steam_id, 'muted here');
    const config = parseConfig(
      {
        api: {
          baseUrl: emulator.url,
          clientId: emulator.clientId,
          clientSecret: emulator.clientSecret,
          // Longer than the whole test in fake time: nothing in flight is aborted by moving the clock.
          timeoutMs: 600_000,
          retry: { retries: 0 },
          rateLimit: { requests: REQUESTS, intervalMs: INTERVAL_MS },
        },
        servers: [
          { name: FLOODED, id: 1, adapters: [{ type: 'websocket', id: 'flood-mod', port: 0, token: TOKEN }] },
          { name: QUIET, id: 2, adapters: [{ type: 'websocket', id: 'quiet-mod', port: 0, token: TOKEN }] },
        ],
        reviews: { dataDir: await tempDir('source-turns') },
      },
      {},
    );
    const sidecar: Sidecar = await startSidecar(config, { logger: silentLogger() });
    cleanup.push(() => sidecar.stop());
    const [floodPort, quietPort] = sidecar.adapters.map((adapter) => (adapter instanceof WebSocketAdapter ? adapter.port : 0));
    const flood = await connectMod(`ws://127.0.0.1:${floodPort}/`, TOKEN);
    cleanup.push(() => flood.close());
    const quiet = await connectMod(`ws://127.0.0.1:${quietPort}/`, TOKEN);
    cleanup.push(() => quiet.close());
    await flood.waitFor((frame) => frame.type === 'welcome');
    await quiet.waitFor((frame) => frame.type === 'welcome');
    const muteCalls = (): readonly { server: string | null }[] => emulator.calls.filter((call) => call.endpoint === 'mute');
    const quietCalls = (): number => muteCalls().filter((call) => call.server === QUIET).length;

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.now() });
    let speakers = 0;
    const floodBurst = (round: number): void => {
      for (let index = 0; index < BURST; index++) {
        const steamId = `7656119${String(8_000_000_000 + speakers++)}`;
        flood.send({ type: 'chat', id: `f${round}-${index}`, player: { steam_id: steamId, name: `spammer ${index}` }, channel: 'global', text: 'buy gold' });
      }
    };
    const quietChat = (round: number): void => {
      for (const player of QUIET_PLAYERS) quiet.send({ type: 'chat', id: `q${round}-${player.name}`, player, channel: 'global', text: 'hello' });
    };

    // When the window last let calls go: the next slots free exactly one span later, when the test moves the clock there.
    let windowAt = Date.now();
    const nextWindow = async (): Promise<void> => {
      windowAt += SPAN_MS;
      await vi.advanceTimersByTimeAsync(windowAt - Date.now());
    };

    // Window 0: the flood's first 10 new speakers take the whole window; the rest wait.
    floodBurst(0);
    await waitForRealIo(() => muteCalls().length === REQUESTS, 'the first window spent on the flood');
    // The quiet players speak, and the flood sends 300 newer speakers after them.
    quietChat(0);
    floodBurst(1);
    await advanceUntil(
      () => verdictsOf(flood, 'f0-').length === BURST && verdictsOf(quiet, 'q0-').length === 5 && verdictsOf(flood, 'f1-').length === BURST,
      'window 0 lines answered',
    );
    // Nothing could be asked before the deadline (the window is full): the policy answered.
    expect(verdictsOf(quiet, 'q0-').map((frame) => frame.reason)).toEqual(Array.from({ length: 5 }, () => 'unknown'));
    // The flood holds at most its own bound, whatever it sent (600 new speakers so far).
    expect(sidecar.client.queuedCalls).toBeLessThanOrEqual(DEFAULT_MAX_QUEUED_PER_SOURCE + QUIET_PLAYERS.length);
    const admittedAt = muteCalls().length;
    expect(admittedAt).toBe(REQUESTS);

    // Window 1 frees 10 slots. S = 2 sources wait: the quiet source's k-th newest lookup starts within k·S mute
    // turns, all 5 within 10; with only the mute class waiting a turn is a grant (with reviews and actions waiting
    // too it would be worstCaseGrants('mute', 10) = 17 grants, under two windows).
    const bound = 2 * QUIET_PLAYERS.length;
    expect(bound).toBeLessThanOrEqual(worstCaseGrants('mute', bound));
    await nextWindow();
    await waitForRealIo(() => muteCalls().length === admittedAt + REQUESTS, 'the second window spent');
    const window1 = muteCalls().slice(admittedAt, admittedAt + bound);
    expect(window1.filter((call) => call.server === QUIET)).toHaveLength(QUIET_PLAYERS.length);
    // A source gets its turn, never every turn: the flood took the other half of the window.
    expect(window1.filter((call) => call.server === FLOODED)).toHaveLength(REQUESTS - QUIET_PLAYERS.length);
    await waitForRealIo(() => sidecar.bridges.get(QUIET)?.cachedPlayers === QUIET_PLAYERS.length, 'the quiet players\' answers cached');

    // For as long as the flood lasts (4 more windows, 300 new speakers each), the quiet players are blocked at once,
    // from the cache, and the flood keeps every slot it can get.
    for (let round = 2; round <= 5; round++) {
      floodBurst(round);
      quietChat(round);
      await advanceUntil(() => verdictsOf(quiet, `q${round}-`).length === 5 && verdictsOf(flood, `f${round}-`).length === BURST, `window ${round} lines answered`);
      const answers = verdictsOf(quiet, `q${round}-`);
      expect(answers.map((frame) => [frame.allow, frame.reason])).toEqual(Array.from({ length: 5 }, () => [false, 'muted']));
      expect(sidecar.client.queuedCalls).toBeLessThanOrEqual(DEFAULT_MAX_QUEUED_PER_SOURCE);
      const before = muteCalls().length;
      await nextWindow();
      await waitForRealIo(() => muteCalls().length === before + REQUESTS, `window ${round} spent on the flood`);
    }
    expect(quietCalls()).toBe(QUIET_PLAYERS.length);

    // Let the last flood lines meet their deadline before real timers come back, so nothing waits on a dropped timer.
    await vi.advanceTimersByTimeAsync(1000);
    await waitForRealIo(() => verdictsOf(flood, 'f').length === 6 * BURST, 'every flood line answered');
  });

  it('makes two adapters of one server two sources: the quiet one is looked up at its turn, not after the flood', async () => {
    const server = 'shared-server';
    const emulator = await GsaEmulator.start({ servers: [{ name: server, id: 3 }] });
    cleanup.push(() => emulator.close());
    const muted: PlayerIdentity = { steamId: '76561199000000009', name: 'muted' };
    emulator.mute(server, muted.steamId!, 'muted here');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: Date.now() });
    const client = new GsaClient({
      baseUrl: emulator.url,
      clientId: emulator.clientId,
      clientSecret: emulator.clientSecret,
      timeoutMs: 600_000,
      retry: { retries: 0 },
      rateLimit: { requests: 2, intervalMs: INTERVAL_MS },
    });
    cleanup.push(() => client.close());
    const outbox = await ReviewOutbox.open({ dataDir: await tempDir('source-turns-bridge'), send: () => Promise.resolve(), onResult: () => undefined, logger: silentLogger() });
    cleanup.push(() => outbox.close());
    const bridge = new ServerBridge({
      server: { name: server, allowActions: [] },
      mute: { mutedTtlMs: 600_000, unmutedTtlMs: 600_000, decisionTimeoutMs: 300, onUnknown: 'allow', defaultAlert: 'muted' },
      reviews: { minStars: 1, maxStars: 5, maxCommentLength: 500, cooldownMs: 0 },
      client,
      outbox,
      logger: silentLogger(),
    });
    const adapter = (id: string): Adapter => ({
      type: 'test',
      id,
      ready: true,
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
      muteChanged: () => undefined,
      reviewResult: () => undefined,
    });
    const rcon = bridge.attach(adapter('rcon-main'));
    const mod = bridge.attach(adapter('mod-main'));
    const speaker = (index: number): PlayerIdentity => ({ steamId: `7656119${String(8_100_000_000 + index)}`, name: `spammer ${index}` });
    const mutedCalls = (): number => emulator.calls.filter((call) => call.endpoint === 'mute').length;
    const answers: Promise<unknown>[] = [];

    // Window 0: the RCON adapter's first 2 speakers take it; then the mod's muted player speaks, then 50 newer speakers.
    for (let index = 0; index < 2; index++) answers.push(rcon.chat(speaker(index), 'global', 'spam'));
    await waitForRealIo(() => mutedCalls() === 2 && bridge.cachedPlayers === 2, 'window 0 answered');
    answers.push(mod.chat(muted, 'global', 'hello'));
    for (let index = 2; index < 52; index++) answers.push(rcon.chat(speaker(index), 'global', 'spam'));
    // One player asked by both adapters at once is one request, owned by the adapter that asked first (here the RCON
    // adapter: it is that source's newest lookup, not the mod's).
    answers.push(rcon.checkMute(speaker(1000)), mod.checkMute(speaker(1000)));
    expect(bridge.chatNow(muted, 'global', 'hello')).toBeUndefined();

    // Window 1 frees 2 slots. S = 2 sources, k = 1: the mod's lookup starts within 2 mute turns, in this window; the
    // other turn is the RCON adapter's newest lookup, the shared player, asked once for both.
    await vi.advanceTimersByTimeAsync(SPAN_MS);
    await waitForRealIo(() => mutedCalls() === 4 && bridge.cachedPlayers === 4, 'window 1 answered');
    expect(bridge.chatNow(muted, 'global', 'hello')).toEqual({ allow: false, reason: 'muted', alert: 'muted here' });
    expect(bridge.chatNow(speaker(1000), 'global', 'hi')).toEqual({ allow: true, reason: 'ok' });
    // Every chat line and check was answered by its decision deadline, whether or not its lookup ever went out.
    await vi.advanceTimersByTimeAsync(1000);
    await Promise.all(answers);
  });
});
