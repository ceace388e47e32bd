// GSA's access check as the bridge makes it (src/bridge/accessChecks.ts) and the door that enforces it
// (src/bridge/accessDoor.ts), with GSA's answers scripted through the `ask` port and a test adapter that has the
// "remove this player" capability. What must hold: an answer is reused for cacheMs (fake time), one call in flight per
// player, a transport error never removes anyone whatever onUnknown says, an answered-but-unusable call follows
// onUnknown, policy verdicts are not cached, and the door removes exactly the players GSA does not allow.
import { describe, expect, it } from 'vitest';
import { AccessChecks, DEFAULT_DENIAL, UNKNOWN_DENIAL, type AccessCheckRequest } from '../../src/bridge/accessChecks.js';
import { AccessDoor } from '../../src/bridge/accessDoor.js';
import { BridgeEvents, type AccessEvent } from '../../src/bridge/events.js';
import type { AccessOptions } from '../../src/bridge/options.js';
import type { Adapter, PlayerIdentity, RemovalReason } from '../../src/bridge/port.js';
import { NetworkError, ServerError, TimeoutError, type AccessAnswer, type PlayerIds } from '../../src/gsa/index.js';
import { silentLogger } from '../../src/log/logger.js';

const ALICE: PlayerIdentity = { steamId: '76561198000000001', name: 'Alice' };
const MALLORY: PlayerIdentity = { eosId: '0123456789abcdef0123456789abcdef', name: 'Mallory' };
const STEVE: PlayerIdentity = { mojangId: '069a79f4-44e9-4726-a5be-fca90e38aaf5', name: 'Steve' };

const ALLOWED: AccessAnswer = { allowed: true, usernameAccepted: true, message: null, roles: { vip: '2027-01-01T00:00:00Z' } };
const DENIED: AccessAnswer = { allowed: false, usernameAccepted: true, message: 'You are not on the whitelist', roles: {} };

interface Asked {
  readonly player: PlayerIds;
  readonly request: AccessCheckRequest;
}

function rig(answers: (player: PlayerIds) => Promise<AccessAnswer>, settings: AccessOptions = { enforce: true, onUnknown: 'admit', cacheMs: 300_000 }) {
  // Not 0: lru-cache takes a start time of 0 for "no TTL".
  const clock = { ms: 1_000, now(): number { return this.ms; } };
  const asked: Asked[] = [];
  const decisions: AccessEvent['decision'][] = [];
  const events = new BridgeEvents();
  events.on('access', (event) => decisions.push(event.decision));
  const current = { settings };
  const checks = new AccessChecks({
    server: 'ovddykvbs',
    ask: (player, request) => {
      asked.push({ player, request });
      return answers(player);
    },
    settings: () => current.settings,
    logger: silentLogger(),
    events,
    clock,
  });
  return { checks, clock, asked, decisions, current };
}

describe('AccessChecks', () => {
  it("reuses GSA's answer for cacheMs, then asks again", async () => {
    const { checks, clock, asked } = rig(() => Promise.resolve(ALLOWED));
    await expect(checks.check(ALICE)).resolves.toEqual({ allowed: true, roles: ALLOWED.roles, source: 'service' });
    clock.ms = 1_000 + 299_999;
    await expect(checks.check(ALICE)).resolves.toMatchObject({ allowed: true, source: 'cache' });
    expect(asked).toHaveLength(1);
    clock.ms = 1_000 + 300_001;
    await expect(checks.check(ALICE)).resolves.toMatchObject({ source: 'service' });
    expect(asked).toHaveLength(2);
  });

  it('asks once for a player however many ask at once, and passes the priority and source on', async () => {
    let answer: (value: AccessAnswer) => void = () => undefined;
    const { checks, asked } = rig(() => new Promise((resolve) => (answer = resolve)));
    const first = checks.check(ALICE, { lowPriority: true, source: 'ovddykvbs/rcon' });
    const second = checks.check(ALICE);
    answer(DENIED);
    await expect(first).resolves.toEqual({ allowed: false, message: 'You are not on the whitelist', roles: {}, source: 'service' });
    await expect(second).resolves.toMatchObject({ allowed: false });
    expect(asked).toEqual([{ player: ALICE, request: { lowPriority: true, source: 'ovddykvbs/rcon' } }]);
  });

  it('admits on a transport error even when onUnknown is kick, and never caches a policy verdict', async () => {
    const failures = [new NetworkError('connection refused'), new TimeoutError('no answer in 5000 ms', { maybeProcessed: true })];
    const { checks, asked, decisions } = rig(() => Promise.reject(failures.shift() ?? new Error('no more')), { enforce: true, onUnknown: 'kick', cacheMs: 300_000 });
    await expect(checks.check(ALICE)).resolves.toEqual({ allowed: true, roles: {}, source: 'policy' });
    await expect(checks.check(ALICE)).resolves.toEqual({ allowed: true, roles: {}, source: 'policy' });
    expect(asked).toHaveLength(2);
    expect(decisions).toEqual(['unknown_admit', 'unknown_admit']);
  });

  it('follows onUnknown when GSA answered but the answer cannot be used', async () => {
    const failing = () => Promise.reject(new ServerError('GSA answered 500', { status: 500 }));
    const kicking = rig(failing, { enforce: true, onUnknown: 'kick', cacheMs: 300_000 });
    await expect(kicking.checks.check(MALLORY)).resolves.toEqual({ allowed: false, message: UNKNOWN_DENIAL, roles: {}, source: 'policy' });
    expect(kicking.decisions).toEqual(['unknown_deny']);
    const admitting = rig(failing, { enforce: true, onUnknown: 'admit', cacheMs: 300_000 });
    await expect(admitting.checks.check(MALLORY)).resolves.toMatchObject({ allowed: true, source: 'policy' });
    expect(admitting.decisions).toEqual(['unknown_admit']);
  });

  it('admits a player GSA cannot be asked about (a Mojang id only) without asking', async () => {
    const { checks, asked, decisions } = rig(() => Promise.resolve(DENIED));
    await expect(checks.check(STEVE)).resolves.toEqual({ allowed: true, roles: {}, source: 'policy' });
    expect(asked).toEqual([]);
    expect(decisions).toEqual(['unknown_admit']);
  });

  it('keeps nothing with cacheMs 0, and forgets everything on clear()', async () => {
    const { checks, asked, current } = rig(() => Promise.resolve(ALLOWED), { enforce: false, onUnknown: 'admit', cacheMs: 0 });
    await checks.check(ALICE);
    await checks.check(ALICE);
    expect(asked).toHaveLength(2);
    current.settings = { enforce: false, onUnknown: 'admit', cacheMs: 60_000 };
    await checks.check(ALICE);
    await checks.check(ALICE);
    expect(asked).toHaveLength(3);
    checks.clear();
    await checks.check(ALICE);
    expect(asked).toHaveLength(4);
  });
});

/** An adapter with the "remove this player" capability, recording whom it removed. */
function removingAdapter(removed: { player: PlayerIdentity; reason: RemovalReason }[], failWith?: Error): Adapter {
  return {
    type: 'test',
    id: 'door-adapter',
    ready: true,
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    muteChanged: () => undefined,
    reviewResult: () => undefined,
    removePlayer: (player, reason) => {
      if (failWith !== undefined) return Promise.reject(failWith);
      removed.push({ player, reason });
      return Promise.resolve();
    },
  };
}

async function settled(): Promise<void> {
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe('AccessDoor', () => {
  it("removes a player GSA does not allow, with GSA's message, and lets an allowed one in", async () => {
    const { checks, current } = rig((player) => Promise.resolve(player.steamId === ALICE.steamId ? ALLOWED : DENIED));
    const door = new AccessDoor({ checks, settings: () => current.settings, logger: silentLogger() });
    const removed: { player: PlayerIdentity; reason: RemovalReason }[] = [];
    const adapter = removingAdapter(removed);
    door.joined(ALICE, adapter, false, 'ovddykvbs/door-adapter');
    door.joined(MALLORY, adapter, true, 'ovddykvbs/door-adapter');
    await settled();
    expect(removed).toEqual([
      { player: MALLORY, reason: { message: 'You are not on the whitelist', verdict: { allowed: false, message: 'You are not on the whitelist', roles: {}, source: 'service' } } },
    ]);
  });

  it("uses its own words when GSA sent none, and checks nothing while enforce is off", async () => {
    const { checks, current, asked } = rig(() => Promise.resolve({ ...DENIED, message: null }), { enforce: false, onUnknown: 'admit', cacheMs: 300_000 });
    const door = new AccessDoor({ checks, settings: () => current.settings, logger: silentLogger() });
    const removed: { player: PlayerIdentity; reason: RemovalReason }[] = [];
    door.joined(MALLORY, removingAdapter(removed), false, undefined);
    await settled();
    expect(asked).toEqual([]);
    current.settings = { ...current.settings, enforce: true };
    door.joined(MALLORY, removingAdapter(removed), false, undefined);
    await settled();
    expect(removed.map((entry) => entry.reason.message)).toEqual([DEFAULT_DENIAL]);
  });

  it('survives an adapter that cannot remove anyone, or whose kick fails', async () => {
    const { checks, current, asked } = rig(() => Promise.resolve(DENIED));
    const door = new AccessDoor({ checks, settings: () => current.settings, logger: silentLogger() });
    const unable: Adapter = {
      type: 'test',
      id: 'no-kick',
      ready: true,
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
      muteChanged: () => undefined,
      reviewResult: () => undefined,
    };
    door.joined(MALLORY, unable, false, undefined);
    door.joined(MALLORY, removingAdapter([], new Error('console refused')), false, undefined);
    await settled();
    // The adapter without the capability causes no call; the one whose kick fails was asked for once.
    expect(asked).toHaveLength(1);
  });
});
