// A refused key stops spending: a real sidecar (startSidecar) with a wrong secret against the emulator, chat from many
// new players over a real mod WebSocket, counted at the emulator in fake time. After the first 401 at most one
// request a minute reaches GSA (the probe), chat goes by mute.onUnknown, a review waits pending on disk, /readyz says
// why and when the next probe goes, and a reload with the right secret delivers the review. A probe GSA answers with
// a 429, a 5xx or not at all leaves the pause on and the next call a minute later probes again (a sidecar meeting a
// 503 at its first probe resumes by itself); a probe answered 403, 404 or 422 ends it: the credentials passed.
import { afterEach, beforeAll, afterAll, describe, expect, it, vi } from 'vitest';
import { parseConfig, type BridgeConfig } from '../../src/app/config.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient, SystemApiClient } from '../../src/gsa/index.js';
import { createLogger } from '../../src/log/logger.js';
import { startSidecar, type Sidecar } from '../../src/sidecar.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { patientMs } from '../fixtures/patience.js';
import { modListenerPort } from '../fixtures/sidecarHarness.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'breaker-token';
const WRONG_SECRET = 'wrong-secret-7f3a9c';

let emulator: GsaEmulator;
const sidecars: Sidecar[] = [];
const sockets: ModSocket[] = [];
const clients: GsaClient[] = [];

beforeAll(async () => {
  // Arrival times on the sidecar's (fake) clock.
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }], now: () => Date.now() });
});
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  await Promise.all(sidecars.splice(0).map((sidecar) => sidecar.stop()));
  await Promise.all(clients.splice(0).map((client) => client.close()));
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

function configOf(dataDir: string, secret: string): BridgeConfig {
  return parseConfig(
    {
      // A request's own timeout runs on the fake clock too: longer than any jump here, so a call on the wire while the
      // clock jumps is never timed out by the jump (it would be left unconfirmed).
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: secret, timeoutMs: 3_600_000, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
      servers: [{ name: SERVER, id: 4711, adapters: [{ type: 'websocket', id: 'mod', port: 0, token: TOKEN }] }],
      mute: { decisionTimeoutMs: 60_000, onUnknown: 'allow' },
      reviews: { dataDir },
    },
    {},
  );
}

/** A sidecar on `secret` with a mod connected and welcomed; both closed after the test. */
async function startWithMod(dataDir: string, secret: string, logger = createLogger({ level: 'silent' })): Promise<{ sidecar: Sidecar; mod: ModSocket }> {
  const sidecar = await startSidecar(configOf(dataDir, secret), { logger });
  sidecars.push(sidecar);
  const mod = await connectMod(`ws://127.0.0.1:${String(modListenerPort(sidecar))}/`, TOKEN);
  sockets.push(mod);
  await mod.waitFor((frame) => frame.type === 'welcome');
  return { sidecar, mod };
}

/** Polls with setImmediate, which these fake timers leave alone, so real socket I/O can finish. */
async function untilRealIo(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + patientMs(10_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const player = (index: number): { steam_id: string } => ({ steam_id: `765611980001${String(index).padStart(5, '0')}` });
const ids = (index: number): { steamId: string } => ({ steamId: player(index).steam_id });
const verdictOf = (mod: ModSocket, id: string): Record<string, unknown> | undefined => mod.received.find((frame) => frame.type === 'chat.verdict' && frame.id === id);
const modApiCalls = (): number => emulator.calls.filter((call) => call.endpoint === 'mute' || call.endpoint === 'review').length;

describe('a refused key', () => {
  it('sends at most one request a minute after the first 401, gates chat by onUnknown, keeps a review pending, and delivers it after a reload with the right secret', async () => {
    const dataDir = await tempDir('breaker');
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', destination: { write: (line: string) => lines.push(line) } });
    const { sidecar, mod } = await startWithMod(dataDir, WRONG_SECRET, logger);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });

    // The first new player's lookup is the 401 that opens the breaker.
    mod.send({ type: 'chat', id: 'c0', player: player(0), channel: 'global', text: 'hello' });
    await untilRealIo(() => verdictOf(mod, 'c0') !== undefined, 'the first verdict');
    expect(verdictOf(mod, 'c0')).toMatchObject({ allow: true, reason: 'unknown' });
    expect(emulator.calls.map((call) => call.status)).toEqual([401]);
    const linesAfterFirst = lines.length;

    // Five minutes of chat from new players, one every 2 s, and a review in the middle: nothing but the probes leaves.
    let next = 1;
    for (let second = 0; second < 300; second += 2) {
      const id = `c${String(next)}`;
      mod.send({ type: 'chat', id, player: player(next), channel: 'global', text: 'hi' });
      next += 1;
      if (second === 10) mod.send({ type: 'review', id: 'r1', player: player(0), stars: 5, comment: 'Great admins' });
      await untilRealIo(() => verdictOf(mod, id) !== undefined, `verdict ${id}`);
      if (second === 10) await untilRealIo(() => mod.received.some((frame) => frame.type === 'review.queued' && frame.id === 'r1'), 'the review queued');
      await vi.advanceTimersByTimeAsync(2000);
      // Whatever a probe sent is answered before the clock moves on.
      await untilRealIo(() => emulator.calls.every((call) => call.status !== 0), 'the probe answered');
    }
    const chats = mod.received.filter((frame) => frame.type === 'chat.verdict');
    expect(chats).toHaveLength(next);
    expect(chats.every((frame) => frame.allow === true && frame.reason === 'unknown')).toBe(true);
    // 1 (the first 401) + at most one probe a minute over 5 minutes.
    expect(modApiCalls()).toBeGreaterThanOrEqual(2);
    expect(modApiCalls()).toBeLessThanOrEqual(1 + 5);
    expect(emulator.calls.every((call) => call.status === 401)).toBe(true);
    const times = emulator.calls.map((call) => call.at);
    for (let index = 1; index < times.length; index++) expect(times[index]! - times[index - 1]!).toBeGreaterThanOrEqual(59_000);

    // The review waits on disk as pending: not dead, not unconfirmed, not refused to the mod.
    expect(sidecar.outbox.pending).toBe(1);
    expect(mod.received.some((frame) => frame.type === 'review.result')).toBe(false);
    expect(emulator.reviews).toHaveLength(0);

    // /readyz says why, and when the next probe goes.
    const [problem] = sidecar.health.problems;
    expect(problem?.key).toBe('credentials');
    expect(problem?.message).toMatch(/Lookups and reviews are paused, spending no budget: (next probe in \d+ s|a probe is due or on its way)/);
    // No line per refused chat (150 of them): the health's error line repeats at most once a minute, and the outbox
    // says once a round (its backoff grows to a minute) that the review waits.
    const loud = lines.slice(linesAfterFirst).filter((line) => (JSON.parse(line) as { level: number }).level >= 40);
    expect(loud.length).toBeLessThan(25);
    expect(lines.join('\n')).not.toContain(WRONG_SECRET);

    // The right secret: a new client, no pause; the outbox's next round delivers the review.
    const report = await sidecar.reconfigure(configOf(dataDir, emulator.clientSecret));
    expect(report.clientReplaced).toBe(true);
    // The outbox's longest wait between rounds is a minute.
    await vi.advanceTimersByTimeAsync(60_000);
    await untilRealIo(() => emulator.reviews.length === 1, 'the review delivered');
    await untilRealIo(() => mod.received.some((frame) => frame.type === 'review.result' && frame.id === 'r1'), 'the review result');
    expect(mod.received.find((frame) => frame.type === 'review.result')).toMatchObject({ ok: true });
    mod.send({ type: 'chat', id: 'after', player: player(9999), channel: 'global', text: 'back' });
    await untilRealIo(() => verdictOf(mod, 'after') !== undefined, 'a verdict after the reload');
    expect(verdictOf(mod, 'after')).toMatchObject({ allow: true, reason: 'ok' });
  });
});

describe('the probe', () => {
  it('closes the pause on the first answer once GSA takes the credentials again, without a reload: the review goes, chat is checked', async () => {
    const dataDir = await tempDir('breaker-probe');
    const { sidecar, mod } = await startWithMod(dataDir, emulator.clientSecret);
    // GSA refuses the keys (as while a host fixes the key's binding in the dashboard) until the fault is cleared.
    emulator.injectFault({ kind: 'status', status: 401, endpoint: 'mute' });
    emulator.injectFault({ kind: 'status', status: 401, endpoint: 'review' });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    mod.send({ type: 'chat', id: 'p0', player: player(0), channel: 'global', text: 'hello' });
    await untilRealIo(() => verdictOf(mod, 'p0') !== undefined, 'the first verdict');
    mod.send({ type: 'review', id: 'r1', player: player(0), stars: 4, comment: 'Fair admins' });
    await untilRealIo(() => mod.received.some((frame) => frame.type === 'review.queued' && frame.id === 'r1'), 'the review queued');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(sidecar.client.credentialsPause).toBeDefined();
    expect(modApiCalls()).toBe(1);

    emulator.clearFaults();
    // Within the minute the probe waits for and the outbox's longest round (a minute), the review is the probe.
    for (let step = 0; step < 6 && emulator.reviews.length === 0; step++) {
      await vi.advanceTimersByTimeAsync(30_000);
      await untilRealIo(() => emulator.calls.every((call) => call.status !== 0), 'the calls answered');
    }
    await untilRealIo(() => emulator.reviews.length === 1, 'the review delivered');
    // The client has read GSA's answer once the mod is told.
    await untilRealIo(() => mod.received.some((frame) => frame.type === 'review.result' && frame.id === 'r1'), 'the review result');
    expect(mod.received.find((frame) => frame.type === 'review.result')).toMatchObject({ ok: true });
    expect(sidecar.client.credentialsPause).toBeUndefined();
    expect(sidecar.health.problems).toEqual([]);
    mod.send({ type: 'chat', id: 'p1', player: player(1), channel: 'global', text: 'back' });
    await untilRealIo(() => verdictOf(mod, 'p1') !== undefined, 'a verdict after the probe');
    expect(verdictOf(mod, 'p1')).toMatchObject({ allow: true, reason: 'ok' });
  });
});

describe('a probe GSA does not answer about the key', () => {
  it('opens on a 401, meets a 503 at the first probe, probes again a minute later and resumes by itself when GSA answers: no reload', async () => {
    const dataDir = await tempDir('breaker-503');
    const { sidecar, mod } = await startWithMod(dataDir, emulator.clientSecret);
    // The next mute lookup is refused (a key not bound yet), the one after meets maintenance; then GSA answers.
    emulator.injectFault({ kind: 'status', status: 401, endpoint: 'mute' });
    emulator.injectFault({ kind: 'status', status: 503, endpoint: 'mute' });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const chat = async (id: string, index: number): Promise<Record<string, unknown> | undefined> => {
      mod.send({ type: 'chat', id, player: player(index), channel: 'global', text: 'hello' });
      await untilRealIo(() => verdictOf(mod, id) !== undefined, `verdict ${id}`);
      await untilRealIo(() => emulator.calls.every((call) => call.status !== 0), 'the calls answered');
      return verdictOf(mod, id);
    };

    expect(await chat('q0', 0)).toMatchObject({ allow: true, reason: 'unknown' });
    expect(emulator.calls.map((call) => call.status)).toEqual([401]);
    await vi.advanceTimersByTimeAsync(60_000);
    // The first probe: GSA is down, which says nothing about the key. The next probe is a minute away, not "on its way".
    expect(await chat('q1', 1)).toMatchObject({ allow: true, reason: 'unknown' });
    expect(emulator.calls.map((call) => call.status)).toEqual([401, 503]);
    expect(sidecar.client.credentialsPause).toEqual({ nextProbeInMs: 60_000 });
    expect(await chat('q2', 2)).toMatchObject({ allow: true, reason: 'unknown' });
    expect(emulator.calls).toHaveLength(2);

    // Within the minute after the 503 the next call goes as the probe; GSA answers it, and chat is checked again.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await chat('q3', 3)).toMatchObject({ allow: true, reason: 'ok' });
    expect(emulator.calls.map((call) => call.status)).toEqual([401, 503, 200]);
    expect(sidecar.client.credentialsPause).toBeUndefined();
    expect(sidecar.health.problems).toEqual([]);
    expect(await chat('q4', 4)).toMatchObject({ allow: true, reason: 'ok' });
  });
});

describe('GsaClient with refused credentials', () => {
  it('fails lookups and reviews at once with credentials_refused and no request, lets webhooks through, and probes at once on probeCredentialsNow', async () => {
    const client = new GsaClient({ baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: WRONG_SECRET, retry: { retries: 0 } });
    try {
      await expect(client.checkMuted(SERVER, ids(1))).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
      expect(client.credentialsPause?.nextProbeInMs).toBeGreaterThan(55_000);
      await expect(client.checkMuted(SERVER, ids(2))).rejects.toMatchObject({ code: 'credentials_refused', status: undefined, maybeProcessed: false });
      await expect(client.submitReview(SERVER, ids(2), 5, 'ok')).rejects.toMatchObject({ code: 'credentials_refused' });
      expect(emulator.calls).toHaveLength(1);
      // A webhook's 401 may mean a server not bound to the key: it is neither paused nor does it pause.
      await expect(client.restart(4711)).rejects.toMatchObject({ code: 'unauthorized' });
      expect(emulator.calls).toHaveLength(2);
      expect(client.probeCredentialsNow()).toBe(true);
      await expect(client.checkMuted(SERVER, ids(3))).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
      expect(emulator.calls).toHaveLength(3);
      await expect(client.checkMuted(SERVER, ids(4))).rejects.toMatchObject({ code: 'credentials_refused' });
      expect(emulator.calls).toHaveLength(3);
    } finally {
      await client.close();
    }
  });

  it('a client whose credentials pass is never paused', async () => {
    const client = new GsaClient({ baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0 } });
    try {
      await client.checkMuted(SERVER, ids(1));
      expect(client.credentialsPause).toBeUndefined();
      expect(client.probeCredentialsNow()).toBe(false);
    } finally {
      await client.close();
    }
  });
});

describe('the probe through the call pipeline', () => {
  /** A client on fake time whose lookups GSA refused once (401): paused, its probe a minute away. */
  async function pausedClient(options: { timeoutMs?: number } = {}): Promise<GsaClient> {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const client = new GsaClient({ baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, timeoutMs: options.timeoutMs, retry: { retries: 0 } });
    clients.push(client);
    emulator.injectFault({ kind: 'status', status: 401, endpoint: 'mute' });
    await expect(client.checkMuted(SERVER, ids(1))).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
    expect(client.credentialsPause).toEqual({ nextProbeInMs: 60_000 });
    return client;
  }

  /** After a probe that said nothing about the key: not "on its way", the next probe a minute off; it closes the pause. */
  async function probesAgainWithinAMinute(client: GsaClient): Promise<void> {
    // A minute from when the probe ended (a timeout ends it up to one deadline slice after the 5 s).
    const wait = client.credentialsPause?.nextProbeInMs ?? 0;
    expect(wait).toBeGreaterThan(59_000);
    expect(wait).toBeLessThanOrEqual(60_000);
    const sent = emulator.calls.length;
    await expect(client.checkMuted(SERVER, ids(3))).rejects.toThrow(/the next call goes through as a probe in 60 s/);
    expect(emulator.calls).toHaveLength(sent);
    await vi.advanceTimersByTimeAsync(wait);
    await expect(client.checkMuted(SERVER, ids(4))).resolves.toMatchObject({ muted: false });
    expect(client.credentialsPause).toBeUndefined();
    expect(emulator.calls).toHaveLength(sent + 1);
  }

  it.each([429, 500, 503])('a probe answered %i says nothing about the key: the next call a minute later is the probe, and GSA answering it ends the pause', async (status) => {
    const client = await pausedClient();
    await vi.advanceTimersByTimeAsync(60_000);
    emulator.injectFault({ kind: 'status', status, endpoint: 'mute' });
    await expect(client.checkMuted(SERVER, ids(2))).rejects.toMatchObject({ status });
    expect(emulator.calls.map((call) => call.status)).toEqual([401, status]);
    await probesAgainWithinAMinute(client);
  });

  it('a probe that timed out says nothing about the key either: the next call a minute later is the probe', async () => {
    const client = await pausedClient({ timeoutMs: 5_000 });
    await vi.advanceTimersByTimeAsync(60_000);
    // GSA takes the probe and never answers within the request timeout (on the same fake clock).
    emulator.injectFault({ kind: 'latency', ms: 600_000, endpoint: 'mute' });
    const probe = client.checkMuted(SERVER, ids(2));
    const failed = expect(probe).rejects.toMatchObject({ code: 'timeout' });
    await untilRealIo(() => emulator.calls.length === 2, 'the probe at GSA');
    await vi.advanceTimersByTimeAsync(5_100);
    await failed;
    await probesAgainWithinAMinute(client);
  });

  it.each([403, 404, 422])('a probe answered %i ends the pause: GSA took the credentials and refused the request itself', async (status) => {
    const client = await pausedClient();
    await vi.advanceTimersByTimeAsync(60_000);
    emulator.injectFault({ kind: 'status', status, endpoint: 'mute' });
    await expect(client.checkMuted(SERVER, ids(2))).rejects.toMatchObject({ status });
    expect(client.credentialsPause).toBeUndefined();
    // The very next call is sent, at once.
    await expect(client.checkMuted(SERVER, ids(3))).resolves.toMatchObject({ muted: false });
    expect(emulator.calls.map((call) => call.status)).toEqual([401, status, 200]);
  });
});

describe('SystemApiClient with a refused key', () => {
  it('fails every call at once with credentials_refused after the 401, sends nothing, and probes at once on probeCredentialsNow', async () => {
    const client = new SystemApiClient({ baseUrl: emulator.url, key: 'not-the-system-key-5d2e', retry: { retries: 0 } });
    try {
      await expect(client.checkKey()).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
      const sent = emulator.calls.length;
      await expect(client.findPlayer(ids(1).steamId)).rejects.toMatchObject({ code: 'credentials_refused' });
      await expect(client.checkMuted(ids(2).steamId)).rejects.toMatchObject({ code: 'credentials_refused' });
      expect(emulator.calls).toHaveLength(sent);
      expect(client.credentialsPause?.nextProbeInMs).toBeGreaterThan(55_000);
      expect(client.probeCredentialsNow()).toBe(true);
      await expect(client.checkKey()).rejects.toMatchObject({ code: 'unauthorized', status: 401 });
      expect(emulator.calls).toHaveLength(sent + 1);
    } finally {
      await client.close();
    }
  });
});
