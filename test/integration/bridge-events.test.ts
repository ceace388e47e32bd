// What the core publishes, end to end: a real sidecar over a real mod WebSocket against the emulator, with the
// emitter passed in as `run` does. A first chat line is a cache miss decided by the service, the next a hit; a
// muted player is blocked; a mute check counts too; a review is queued then delivered, with the outbox depth; every
// request to GSA is told with its endpoint and status. And a sidecar whose events nobody hears behaves the same.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { BridgeEvents, type BridgeEventMap, type BridgeEventName } from '../../src/bridge/events.js';
import { parseConfig } from '../../src/app/config.js';
import { silentLogger } from '../../src/log/logger.js';
import { SidecarMetrics } from '../../src/ops/metrics.js';
import { startSidecar } from '../../src/sidecar.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { PATIENT_DECISION_TIMEOUT_MS, patientMs } from '../fixtures/patience.js';
import { modListenerPort } from '../fixtures/sidecarHarness.js';
import { emulatorWorld } from '../fixtures/emulatorWorld.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'events-token';
const ALICE = '76561198000000101';
const MALLORY = '76561198000000666';

const world = emulatorWorld(SERVER);
const { sidecars, sockets } = world;

type Recorded = { [K in BridgeEventName]: BridgeEventMap[K][] };

function record(events: BridgeEvents): Recorded {
  const recorded: Recorded = { request: [], verdict: [], muteCache: [], outbox: [], review: [], reviewResent: [], reviewsDamaged: [], moderation: [], chatLine: [], access: [], money: [] };
  events.on('request', (event) => recorded.request.push(event));
  events.on('verdict', (event) => recorded.verdict.push(event));
  events.on('muteCache', (event) => recorded.muteCache.push(event));
  events.on('outbox', (event) => recorded.outbox.push(event));
  events.on('review', (event) => recorded.review.push(event));
  events.on('reviewResent', (event) => recorded.reviewResent.push(event));
  events.on('reviewsDamaged', (event) => recorded.reviewsDamaged.push(event));
  events.on('moderation', (event) => recorded.moderation.push(event));
  events.on('chatLine', (event) => recorded.chatLine.push(event));
  events.on('access', (event) => recorded.access.push(event));
  events.on('money', (event) => recorded.money.push(event));
  return recorded;
}

async function start(events?: BridgeEvents, dataDir?: string): Promise<ModSocket> {
  const config = parseConfig(
    {
      api: { baseUrl: world.emulator.url, clientId: world.emulator.clientId, clientSecret: world.emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
      servers: [{ name: SERVER, id: 4711, adapters: [{ type: 'websocket', port: 0, token: TOKEN }] }],
      reviews: { dataDir: dataDir ?? (await tempDir('events')), cooldownMs: 0 },
      // A first lookup decides the verdict (source "service") on a busy machine too, not the deadline's policy.
      mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS },
    },
    {},
  );
  const sidecar = await startSidecar(config, { logger: silentLogger(), events });
  sidecars.push(sidecar);
  const socket = await connectMod(`ws://127.0.0.1:${String(modListenerPort(sidecar))}/`, TOKEN);
  sockets.push(socket);
  await socket.waitFor((frame) => frame.type === 'welcome');
  return socket;
}

async function chat(socket: ModSocket, id: string, steamId: string): Promise<Record<string, unknown>> {
  socket.send({ type: 'chat', id, player: { steam_id: steamId }, channel: 'global', text: 'a secret message text' });
  return socket.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === id);
}

describe('bridge events', () => {
  it('publishes verdicts with their source, cache hits and misses, and each request', async () => {
    const events = new BridgeEvents();
    const recorded = record(events);
    world.emulator.mute(SERVER, MALLORY, 'Muted for spam');
    const socket = await start(events);

    expect(await chat(socket, 'a1', ALICE)).toMatchObject({ allow: true });
    expect(await chat(socket, 'a2', ALICE)).toMatchObject({ allow: true });
    expect(await chat(socket, 'm1', MALLORY)).toMatchObject({ allow: false });
    socket.send({ type: 'mute.check', id: 'c1', player: { steam_id: MALLORY } });
    await socket.waitFor((frame) => frame.type === 'mute.status' && frame.id === 'c1');

    expect(recorded.verdict.map(({ player, verdict, reason, source, server }) => ({ steamId: player.steamId, verdict, reason, source, server }))).toEqual([
      { steamId: ALICE, verdict: 'allow', reason: 'ok', source: 'service', server: SERVER },
      { steamId: ALICE, verdict: 'allow', reason: 'ok', source: 'cache', server: SERVER },
      { steamId: MALLORY, verdict: 'block', reason: 'muted', source: 'service', server: SERVER },
    ]);
    expect(recorded.verdict[0]!.durationMs).toBeGreaterThan(0);
    expect(recorded.verdict[1]!.durationMs).toBe(0);
    expect(recorded.muteCache.map((event) => event.hit)).toEqual([false, true, false, true]);
    expect(recorded.request.map(({ endpoint, status, code, attempt }) => ({ endpoint, status, code, attempt }))).toEqual([
      { endpoint: 'mute', status: 200, code: undefined, attempt: 1 },
      { endpoint: 'mute', status: 200, code: undefined, attempt: 1 },
    ]);
    // The message text is never part of an event.
    expect(JSON.stringify(recorded)).not.toContain('secret message');
  });

  it('publishes a review queued then delivered, with the outbox depth at each step', async () => {
    const events = new BridgeEvents();
    const recorded = record(events);
    const socket = await start(events);
    socket.send({ type: 'review', id: 'r1', player: { steam_id: ALICE }, stars: 5, comment: 'Great admins' });
    await socket.waitFor((frame) => frame.type === 'review.result' && frame.id === 'r1');

    expect(recorded.review.map(({ result, server }) => ({ result, server }))).toEqual([
      { result: 'queued', server: SERVER },
      { result: 'delivered', server: SERVER },
    ]);
    expect(recorded.review[0]!.review).toBe(recorded.review[1]!.review);
    expect(recorded.outbox).toEqual([{ pending: 1 }, { pending: 0 }]);
    expect(recorded.request.map((event) => event.endpoint)).toEqual(['review']);
  });

  it('publishes a refused review with its code', async () => {
    const events = new BridgeEvents();
    const recorded = record(events);
    world.emulator.setIneligible(SERVER, ALICE, 'You have not played long enough');
    const socket = await start(events);
    socket.send({ type: 'review', id: 'r1', player: { steam_id: ALICE }, stars: 5, comment: 'Great admins' });
    await socket.waitFor((frame) => frame.type === 'review.result' && frame.id === 'r1');
    expect(recorded.review.at(-1)).toMatchObject({ result: 'refused', server: SERVER, code: expect.any(String) as unknown });
  });

  it('counts a review re-sent after a restart that the journal shows in flight when the process died, in the event and in /metrics', async () => {
    // The journal as `kill -9` leaves it in the middle of a send: the review and its fsynced `sending`, no fate.
    const dataDir = await tempDir('events-resent');
    const id = '5b0e8f4e-3c1a-4f7e-9d0a-2b6c8e1f7a90';
    const queued = { v: 1, op: 'queued', id, at: 1_700_000_000_000, server: SERVER, player: { steam_id: ALICE }, stars: 4, comment: 'in flight', origin: { adapter: 'x', ref: 'c' } };
    await writeFile(join(dataDir, 'reviews.jsonl'), `${JSON.stringify(queued)}\n${JSON.stringify({ v: 1, op: 'sending', id, at: 1_700_000_000_001 })}\n`, { mode: 0o600 });
    const events = new BridgeEvents();
    const recorded = record(events);
    const metrics = new SidecarMetrics({ events, sources: { adapters: () => [], outboxPending: () => 0 }, processDefaults: false });
    try {
      await start(events, dataDir);
      await vi.waitFor(() => {
        expect(recorded.review).toContainEqual({ server: SERVER, review: id, result: 'delivered' });
      }, { timeout: patientMs(8000), interval: 10 });
      expect(recorded.reviewResent).toEqual([{ server: SERVER, review: id }]);
      expect(world.emulator.reviews.map((stored) => stored.comment)).toEqual(['in flight']);
      expect(await metrics.text()).toMatch(/^gsa_bridge_reviews_resent_after_restart_total 1$/m);
    } finally {
      metrics.close();
    }
  });

  it('counts journal lines found damaged at start (moved to the quarantine file), in the event and in /metrics, and delivers the rest', async () => {
    // Two whole lines that no longer read as a record (a flipped byte in each), around a good review.
    const dataDir = await tempDir('events-damaged');
    const queued = (id: string, comment: string): string =>
      `${JSON.stringify({ v: 1, op: 'queued', id, at: 1_700_000_000_000, server: SERVER, player: { steam_id: ALICE }, stars: 4, comment, origin: { adapter: 'x', ref: 'c' } })}\n`;
    const damaged = [queued('d1', 'first').replace('"stars":4', '"stars":4X'), queued('d3', 'third').replace('"stars":4', '"stars":4X')];
    await writeFile(join(dataDir, 'reviews.jsonl'), damaged[0]! + queued('g2', 'kept') + damaged[1]!, { mode: 0o600 });
    const events = new BridgeEvents();
    const recorded = record(events);
    const metrics = new SidecarMetrics({ events, sources: { adapters: () => [], outboxPending: () => 0 }, processDefaults: false });
    try {
      expect(await metrics.text()).toMatch(/^gsa_bridge_reviews_damaged_total 0$/m);
      await start(events, dataDir);
      expect(recorded.reviewsDamaged).toEqual([{ lines: 2 }]);
      expect(await metrics.text()).toMatch(/^gsa_bridge_reviews_damaged_total 2$/m);
      await vi.waitFor(() => {
        expect(world.emulator.reviews.map((stored) => stored.comment)).toEqual(['kept']);
      }, { timeout: patientMs(8000), interval: 10 });
      expect(await readFile(join(dataDir, 'reviews.damaged.jsonl'), 'utf8')).toBe(damaged.join(''));
      // What a damaged line holds (a comment is player text) never reaches an event.
      expect(JSON.stringify(recorded)).not.toContain('third');
    } finally {
      metrics.close();
    }
  });

  it('decides the same with nobody listening (the emitter made by the sidecar itself)', async () => {
    world.emulator.mute(SERVER, MALLORY);
    const socket = await start();
    expect(await chat(socket, 'm1', MALLORY)).toMatchObject({ allow: false, reason: 'muted' });
    expect(await chat(socket, 'm2', MALLORY)).toMatchObject({ allow: false, reason: 'muted' });
    expect(sidecars[0]!.events.listens('verdict')).toBe(false);
  });
});
