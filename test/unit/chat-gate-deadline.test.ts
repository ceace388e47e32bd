// ChatGate's deadline, driven by fake timers: a verdict comes a margin before mute.decisionTimeoutMs with the policy's
// answer when the lookup is slower, as soon as the lookup answers when it is faster, at once when it fails, and
// a cached player is answered synchronously. The lookup is the MuteCache's injected service call.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChatGate, policyAnswerAfterMs } from '../../src/bridge/chatGate.js';
import { MuteCache } from '../../src/bridge/muteCache.js';
import type { MuteStatus, PlayerIds } from '../../src/gsa/index.js';

const TIMEOUT_MS = 300;
/** When the policy answers: 30 ms early, to leave room for the event loop and the write (see policyAnswerAfterMs). */
const POLICY_AT_MS = 270;
const PLAYER = { steamId: '76561198000000001' };
const MUTED: MuteStatus = { muted: true, alert: 'quiet please', steamId: PLAYER.steamId, eosId: null };

/** A lookup that answers `status` after `delayMs` of (fake) time, or fails then when status is an Error. */
function slowLookup(delayMs: number, status: MuteStatus | Error): { lookup: (player: PlayerIds) => Promise<MuteStatus>; calls: () => number } {
  let calls = 0;
  return {
    lookup: () => {
      calls++;
      return new Promise<MuteStatus>((resolve, reject) => {
        setTimeout(() => {
          if (status instanceof Error) reject(status);
          else resolve(status);
        }, delayMs);
      });
    },
    calls: () => calls,
  };
}

function gateWith(lookup: (player: PlayerIds) => Promise<MuteStatus>, onUnknown: 'allow' | 'block' = 'allow'): ChatGate {
  const cache = new MuteCache({ mutedTtlMs: 60_000, unmutedTtlMs: 300_000, lookup, onChange: () => undefined });
  return new ChatGate(cache, { decisionTimeoutMs: TIMEOUT_MS, onUnknown, defaultAlert: 'You are muted.' });
}

describe('policyAnswerAfterMs', () => {
  it('answers 10% early, never more than 30 ms early', () => {
    expect([300, 150, 100, 5000, 1, 9, 10].map(policyAnswerAfterMs)).toEqual([270, 135, 90, 4970, 1, 9, 9]);
  });
});

/** Records when (in fake ms since the start) a promise settled, and with what. */
function track<T>(promise: Promise<T>): { settledAt: number | undefined; value: T | undefined } {
  const started = Date.now();
  const result: { settledAt: number | undefined; value: T | undefined } = { settledAt: undefined, value: undefined };
  void promise.then((value) => {
    result.settledAt = Date.now() - started;
    result.value = value;
  });
  return result;
}

describe('ChatGate deadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers with the policy a margin before decisionTimeoutMs when the lookup is slower', async () => {
    const gate = gateWith(slowLookup(1000, MUTED).lookup);
    const verdict = track(gate.decide(PLAYER));
    await vi.advanceTimersByTimeAsync(POLICY_AT_MS - 1);
    expect(verdict.settledAt).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(verdict).toEqual({ settledAt: POLICY_AT_MS, value: { allow: true, reason: 'unknown' } });
  });

  it('blocks at the deadline when the policy says block', async () => {
    const gate = gateWith(slowLookup(1000, MUTED).lookup, 'block');
    const verdict = track(gate.decide(PLAYER));
    const status = track(gate.status(PLAYER));
    await vi.advanceTimersByTimeAsync(POLICY_AT_MS);
    expect(verdict).toEqual({ settledAt: POLICY_AT_MS, value: { allow: false, reason: 'unknown', alert: 'You are muted.' } });
    expect(status).toEqual({ settledAt: POLICY_AT_MS, value: { muted: true, alert: 'You are muted.', source: 'policy' } });
  });

  it('answers as soon as a faster lookup does, and never again at the deadline', async () => {
    const gate = gateWith(slowLookup(120, MUTED).lookup);
    const verdict = track(gate.decide(PLAYER));
    await vi.advanceTimersByTimeAsync(120);
    expect(verdict).toEqual({ settledAt: 120, value: { allow: false, reason: 'muted', alert: 'quiet please' } });
    // The deadline's timer was cleared with the answer: nothing is left to fire.
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers with the policy at once when the lookup fails before the deadline', async () => {
    const gate = gateWith(slowLookup(40, new Error('service down')).lookup);
    const verdict = track(gate.decide(PLAYER));
    await vi.advanceTimersByTimeAsync(40);
    expect(verdict).toEqual({ settledAt: 40, value: { allow: true, reason: 'unknown' } });
  });

  it('lets a late lookup warm the cache, so the next line is decided at once without asking again', async () => {
    const service = slowLookup(1000, MUTED);
    const gate = gateWith(service.lookup);
    expect(gate.decideNow(PLAYER)).toBeUndefined();
    const first = track(gate.decide(PLAYER));
    await vi.advanceTimersByTimeAsync(POLICY_AT_MS);
    expect(first.value).toEqual({ allow: true, reason: 'unknown' });
    await vi.advanceTimersByTimeAsync(1000 - POLICY_AT_MS);
    expect(gate.decideNow(PLAYER)).toEqual({ allow: false, reason: 'muted', alert: 'quiet please' });
    const second = track(gate.decide(PLAYER));
    await vi.advanceTimersByTimeAsync(0);
    expect(second).toEqual({ settledAt: 0, value: { allow: false, reason: 'muted', alert: 'quiet please' } });
    expect(service.calls()).toBe(1);
  });

  it('gives every one of many concurrent misses its verdict at the deadline, one shared lookup each', async () => {
    const service = slowLookup(1000, MUTED);
    const gate = gateWith(service.lookup);
    const players = Array.from({ length: 100 }, (_, index) => ({ steamId: `765611980000${String(index).padStart(5, '0')}` }));
    const verdicts = players.flatMap((player) => [track(gate.decide(player)), track(gate.decide(player))]);
    await vi.advanceTimersByTimeAsync(POLICY_AT_MS);
    expect(verdicts.every((verdict) => verdict.settledAt === POLICY_AT_MS && verdict.value?.reason === 'unknown')).toBe(true);
    expect(service.calls()).toBe(players.length);
  });
});
