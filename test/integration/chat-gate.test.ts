// MuteCache + ChatGate against the emulator over loopback with a real client: single flight, TTLs,
// stale-while-revalidate, the decision timeout, policies, aliases and change detection.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChatGate, type ChatGateOptions } from '../../src/bridge/chatGate.js';
import { MuteCache, type MuteEntry } from '../../src/bridge/muteCache.js';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import { GsaEmulator } from '../../src/gsa/emulator/index.js';
import { GsaClient } from '../../src/gsa/index.js';

const SERVER = 'ovddykvbs';
const ALICE: PlayerIdentity = { steamId: '76561198000000001', name: 'Alice' };
const MALLORY: PlayerIdentity = { steamId: '76561198000000002', name: 'Mallory' };
const BOTH: PlayerIdentity = { steamId: '76561198000000003', eosId: '0123456789abcdef0123456789abcdef' };

let emulator: GsaEmulator;
const clients: GsaClient[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }] });
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

interface Setup {
  readonly cache: MuteCache;
  readonly gate: ChatGate;
  readonly changes: { player: PlayerIdentity; entry: MuteEntry }[];
}

function setup(options: Partial<ChatGateOptions & { mutedTtlMs: number; unmutedTtlMs: number; timeoutMs: number }> = {}): Setup {
  const client = new GsaClient({
    baseUrl: emulator.url,
    clientId: emulator.clientId,
    clientSecret: emulator.clientSecret,
    timeoutMs: options.timeoutMs ?? 2000,
    retry: { retries: 0 },
  });
  clients.push(client);
  const changes: Setup['changes'] = [];
  const cache = new MuteCache({
    mutedTtlMs: options.mutedTtlMs ?? 60_000,
    unmutedTtlMs: options.unmutedTtlMs ?? 300_000,
    lookup: (player) => client.checkMuted(SERVER, player),
    onChange: (player, entry) => changes.push({ player, entry }),
  });
  const gate = new ChatGate(cache, {
    decisionTimeoutMs: options.decisionTimeoutMs ?? 300,
    onUnknown: options.onUnknown ?? 'allow',
    defaultAlert: options.defaultAlert ?? 'You are muted on this server.',
  });
  return { cache, gate, changes };
}

const muteCalls = (): number => emulator.calls.filter((call) => call.endpoint === 'mute').length;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('ChatGate', () => {
  it('allows an unmuted player and blocks a muted one with the service alert', async () => {
    const { gate } = setup();
    emulator.mute(SERVER, MALLORY.steamId!, 'Muted for spam');
    expect(await gate.decide(ALICE)).toEqual({ allow: true, reason: 'ok' });
    expect(await gate.decide(MALLORY)).toEqual({ allow: false, reason: 'muted', alert: 'Muted for spam' });
  });

  it('uses the default alert when the service sent none', async () => {
    const { gate } = setup({ defaultAlert: 'Quiet, please.' });
    emulator.mute(SERVER, MALLORY.steamId!);
    expect(await gate.decide(MALLORY)).toEqual({ allow: false, reason: 'muted', alert: 'Quiet, please.' });
  });

  it('makes one API call for 200 simultaneous chats from a new player (single flight)', async () => {
    const { gate } = setup();
    const verdicts = await Promise.all(Array.from({ length: 200 }, () => gate.decide(ALICE)));
    expect(verdicts.every((verdict) => verdict.allow && verdict.reason === 'ok')).toBe(true);
    expect(muteCalls()).toBe(1);
  });

  it('answers from the cache after the first lookup', async () => {
    const { gate } = setup();
    await gate.decide(ALICE);
    await gate.decide(ALICE);
    expect(await gate.status(ALICE)).toEqual({ muted: false, source: 'cache' });
    expect(muteCalls()).toBe(1);
  });

  it('never waits past the decision timeout; the policy decides and the lookup warms the cache', async () => {
    const { gate } = setup({ decisionTimeoutMs: 100 });
    emulator.mute(SERVER, MALLORY.steamId!, 'late news');
    emulator.injectFault({ kind: 'latency', ms: 400, endpoint: 'mute' });
    // When exactly the policy answers is tested on fake timers (chat-gate-deadline.test.ts); here, that it does
    // while the real service is still thinking, and that the late answer then lands in the cache.
    expect(await gate.decide(MALLORY)).toEqual({ allow: true, reason: 'unknown' });
    await vi.waitFor(() => {
      expect(gate.decideNow(MALLORY)).toEqual({ allow: false, reason: 'muted', alert: 'late news' });
    }, 10_000);
    expect(await gate.decide(MALLORY)).toEqual({ allow: false, reason: 'muted', alert: 'late news' });
    expect(muteCalls()).toBe(1);
  });

  it('blocks with reason unknown and the default alert when the policy is block and GSA is down', async () => {
    const { gate } = setup({ onUnknown: 'block', defaultAlert: 'Chat is paused.' });
    emulator.injectFault({ kind: 'status', status: 503, count: Infinity });
    expect(await gate.decide(ALICE)).toEqual({ allow: false, reason: 'unknown', alert: 'Chat is paused.' });
    expect(await gate.status(ALICE)).toEqual({ muted: true, alert: 'Chat is paused.', source: 'policy' });
  });

  it('reports source service for a fresh lookup', async () => {
    const { gate } = setup();
    emulator.mute(SERVER, MALLORY.steamId!, 'x');
    expect(await gate.status(MALLORY)).toEqual({ muted: true, alert: 'x', source: 'service' });
  });
});

describe('MuteCache', () => {
  it('keeps muted players for the short TTL and unmuted ones for the long TTL', async () => {
    const { gate } = setup({ mutedTtlMs: 50, unmutedTtlMs: 60_000 });
    emulator.mute(SERVER, MALLORY.steamId!, 'x');
    await gate.decide(MALLORY);
    await gate.decide(ALICE);
    await sleep(80);
    await gate.decide(ALICE); // fresh: no call
    await gate.decide(MALLORY); // stale: served, refreshed in the background
    await sleep(50);
    const calls = emulator.calls.map((call) => call.endpoint);
    expect(calls).toHaveLength(3);
  });

  it('serves a stale entry at once while it refreshes, then the new answer', async () => {
    const { gate, changes } = setup({ mutedTtlMs: 30 });
    emulator.mute(SERVER, MALLORY.steamId!, 'x');
    await gate.decide(MALLORY);
    await sleep(50);
    emulator.unmute(SERVER, MALLORY.steamId!);
    emulator.injectFault({ kind: 'latency', ms: 200, endpoint: 'mute' });
    const started = performance.now();
    expect(await gate.decide(MALLORY)).toMatchObject({ allow: false, reason: 'muted' });
    expect(performance.now() - started).toBeLessThan(50);
    await sleep(300);
    expect(await gate.decide(MALLORY)).toEqual({ allow: true, reason: 'ok' });
    expect(changes).toEqual([{ player: MALLORY, entry: { muted: false, alert: null } }]);
  });

  it('finds a player known by both ids by either id', async () => {
    const { cache } = setup();
    await cache.lookup(BOTH);
    expect(cache.peek({ eosId: BOTH.eosId!.toUpperCase() })).toEqual({ muted: false, alert: null });
    expect(cache.peek({ steamId: BOTH.steamId })).toEqual({ muted: false, alert: null });
    expect(muteCalls()).toBe(1);
  });

  it('reports a changed status found by a refresh (player.join)', async () => {
    const { cache, changes } = setup();
    await cache.lookup(ALICE);
    emulator.mute(SERVER, ALICE.steamId!, 'now muted');
    cache.refresh(ALICE);
    await sleep(100);
    expect(changes).toEqual([{ player: ALICE, entry: { muted: true, alert: 'now muted' } }]);
    expect(cache.peek(ALICE)).toEqual({ muted: true, alert: 'now muted' });
  });

  it('keeps the stale answer when a refresh fails', async () => {
    const { cache } = setup({ mutedTtlMs: 30 });
    emulator.mute(SERVER, MALLORY.steamId!, 'x');
    await cache.lookup(MALLORY);
    emulator.injectFault({ kind: 'status', status: 503, count: Infinity });
    await sleep(50);
    cache.refresh(MALLORY);
    await sleep(100);
    expect(cache.peek(MALLORY)).toEqual({ muted: true, alert: 'x' });
  });

  it('does not cache a failed first lookup', async () => {
    const { cache } = setup();
    emulator.injectFault({ kind: 'status', status: 503 });
    await expect(cache.lookup(ALICE)).rejects.toMatchObject({ code: 'unavailable' });
    expect(cache.peek(ALICE)).toBeUndefined();
    expect(await cache.lookup(ALICE)).toEqual({ muted: false, alert: null });
  });
});
