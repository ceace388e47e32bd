// MuteCache + ChatGate against the emulator over loopback with a real client: single flight, TTLs,
// stale-while-revalidate, the decision timeout, policies, aliases and change detection. The cache's TTLs read a
// hand-moved clock, and background refreshes are awaited by what reached the emulator, never by sleeping.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChatGate, type ChatGateOptions } from '../../src/bridge/chatGate.js';
import { MuteCache, type MuteEntry } from '../../src/bridge/muteCache.js';
import { DEFAULT_LOOKUP_IDS, askByEach, idsToAsk } from '../../src/bridge/lookupIds.js';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient } from '../../src/gsa/index.js';
import { PATIENT_DECISION_TIMEOUT_MS, patientMs } from '../fixtures/patience.js';

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
  /** Moves the cache's clock (its TTLs) forward. */
  readonly advance: (ms: number) => void;
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
  let now = 1_000_000;
  const cache = new MuteCache({
    clock: { now: () => now },
    mutedTtlMs: options.mutedTtlMs ?? 60_000,
    unmutedTtlMs: options.unmutedTtlMs ?? 300_000,
    // As the bridge asks: by the id servers[].lookupIds picks (its default), one id per call.
    lookup: (player) => askByEach(idsToAsk(player, DEFAULT_LOOKUP_IDS), (asked) => client.checkMuted(SERVER, asked)),
    onChange: (player, entry) => changes.push({ player, entry }),
  });
  const gate = new ChatGate(cache, {
    // Verdicts come from the service on a busy machine too; the test of the deadline sets its own.
    decisionTimeoutMs: options.decisionTimeoutMs ?? PATIENT_DECISION_TIMEOUT_MS,
    onUnknown: options.onUnknown ?? 'allow',
    defaultAlert: options.defaultAlert ?? 'You are muted on this server.',
  });
  return { advance: (ms) => (now += ms), cache, gate, changes };
}

const muteCalls = (): number => emulator.calls.filter((call) => call.endpoint === 'mute').length;
/** Waits, on real I/O, until the emulator has answered `count` mute checks in all. */
async function muteCallsReach(count: number): Promise<void> {
  await vi.waitFor(() => {
    expect(muteCalls()).toBeGreaterThanOrEqual(count);
  }, patientMs(10_000));
}

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
    }, patientMs(10_000));
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
    const { advance, gate } = setup({ mutedTtlMs: 50, unmutedTtlMs: 60_000 });
    emulator.mute(SERVER, MALLORY.steamId!, 'x');
    await gate.decide(MALLORY);
    await gate.decide(ALICE);
    advance(49);
    await gate.decide(MALLORY); // still fresh: no call
    expect(muteCalls()).toBe(2);
    advance(11);
    await gate.decide(ALICE); // fresh for a minute: no call
    expect(await gate.decide(MALLORY)).toMatchObject({ reason: 'muted' }); // stale: served, refreshed in the background
    await muteCallsReach(3);
    advance(60_000);
    await gate.decide(ALICE); // now stale too
    await muteCallsReach(4);
    expect(emulator.calls.map((call) => call.endpoint)).toEqual(['mute', 'mute', 'mute', 'mute']);
  });

  it('serves a stale entry at once while it refreshes, then the new answer', async () => {
    const { advance, gate, changes } = setup({ mutedTtlMs: 30 });
    emulator.mute(SERVER, MALLORY.steamId!, 'x');
    await gate.decide(MALLORY);
    advance(50);
    emulator.unmute(SERVER, MALLORY.steamId!);
    emulator.injectFault({ kind: 'latency', ms: 200, endpoint: 'mute' });
    // Answered in the same tick from the stale entry, while the slow refresh is still out.
    expect(gate.decideNow(MALLORY)).toMatchObject({ allow: false, reason: 'muted' });
    await vi.waitFor(() => {
      expect(changes).toEqual([{ player: MALLORY, entry: { muted: false, alert: null } }]);
    }, patientMs(10_000));
    expect(await gate.decide(MALLORY)).toEqual({ allow: true, reason: 'ok' });
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
    await vi.waitFor(() => {
      expect(changes).toEqual([{ player: ALICE, entry: { muted: true, alert: 'now muted', mutedBy: { kind: 'steam', id: ALICE.steamId } } }]);
    }, patientMs(10_000));
    expect(cache.peek(ALICE)).toEqual({ muted: true, alert: 'now muted', mutedBy: { kind: 'steam', id: ALICE.steamId } });
  });

  it('keeps the stale answer when a refresh fails', async () => {
    const { advance, cache } = setup({ mutedTtlMs: 30 });
    emulator.mute(SERVER, MALLORY.steamId!, 'x');
    await cache.lookup(MALLORY);
    emulator.injectFault({ kind: 'status', status: 503, count: Infinity });
    advance(50);
    cache.refresh(MALLORY);
    await muteCallsReach(2); // the refresh was answered 503
    await new Promise((resolve) => setImmediate(resolve));
    expect(cache.peek(MALLORY)).toEqual({ muted: true, alert: 'x', mutedBy: { kind: 'steam', id: MALLORY.steamId } });
  });

  it('does not cache a failed first lookup', async () => {
    const { cache } = setup();
    emulator.injectFault({ kind: 'status', status: 503 });
    await expect(cache.lookup(ALICE)).rejects.toMatchObject({ code: 'unavailable' });
    expect(cache.peek(ALICE)).toBeUndefined();
    expect(await cache.lookup(ALICE)).toEqual({ muted: false, alert: null });
  });
});
