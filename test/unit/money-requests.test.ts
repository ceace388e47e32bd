// The bridge's money rule (src/bridge/moneyRequests.ts) with a ledger of the test's own (the MoneyLedger port) and the
// send scripted per case: recorded before it is sent, sent once whatever the failure, `unconfirmed` when the answer
// may have been lost, `refused` only when GSA surely did not act, a ledger that cannot record stops the send, and one
// request per player per cooldown. Also the UI settings' 60 s cache (dashboardSettingsCache.ts) on a hand-set clock.
import { describe, expect, it } from 'vitest';
import { DashboardSettingsCache } from '../../src/bridge/dashboardSettingsCache.js';
import { CooldownRefusal, UnavailableRefusal } from '../../src/bridge/errors.js';
import { MoneyNotRecordedError, type MoneyLedger, type MoneyRequest } from '../../src/bridge/moneyLedger.js';
import { MoneyRequests, type MoneySend } from '../../src/bridge/moneyRequests.js';
import type { MoneyOutcome, PlayerIdentity } from '../../src/bridge/port.js';
import { GsaClient, NetworkError, RateLimitedError, ServerError, TimeoutError, UnauthorizedError } from '../../src/gsa/index.js';
import { silentLogger } from '../../src/log/logger.js';

const ALICE: PlayerIdentity = { steamId: '76561198000000001', name: 'Alice' };
const BOB: PlayerIdentity = { steamId: '76561198000000002', name: 'Bob' };

class DiskFull extends MoneyNotRecordedError {
  readonly code = 'storage';
}

/** A ledger in memory that records the order of what happened, so "recorded before sent" can be checked. */
class MemoryLedger implements MoneyLedger {
  readonly steps: string[] = [];
  readonly settled: { id: string; outcome: MoneyOutcome }[] = [];
  failNext: Error | undefined;
  #next = 0;

  begin(request: MoneyRequest): Promise<{ readonly id: string }> {
    if (this.failNext !== undefined) {
      const error = this.failNext;
      this.failNext = undefined;
      return Promise.reject(error);
    }
    const id = `m${++this.#next}`;
    this.steps.push(`recorded ${id} ${request.kind}`);
    return Promise.resolve({ id });
  }

  settle(id: string, outcome: MoneyOutcome): Promise<void> {
    this.steps.push(`settled ${id} ${outcome.state}`);
    this.settled.push({ id, outcome });
    return Promise.resolve();
  }
}

function rig(cooldownMs = 10_000) {
  const clock = { ms: 50_000, now(): number { return this.ms; } };
  const ledger = new MemoryLedger();
  const states: string[] = [];
  const money = new MoneyRequests({ server: 'ovddykvbs', ledger, settings: () => ({ orderCooldownMs: cooldownMs }), logger: silentLogger(), clock });
  // Never called by these tests' sends: they answer themselves.
  const client = new GsaClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'a', clientSecret: 'b' });
  return { clock, ledger, money, client, states };
}

const ORDER = (player: PlayerIdentity): MoneyRequest => ({ kind: 'order', server: 'ovddykvbs', player, item: 7, origin: { adapter: 'mod', requestId: 'o1' } });

/** A send that records its call in the ledger's steps, then answers with `result`. */
function sendAnswering(ledger: MemoryLedger, result: () => Promise<{ ok: boolean; message: string }>): { send: MoneySend; calls: () => number } {
  let calls = 0;
  return {
    send: () => {
      calls += 1;
      ledger.steps.push('sent');
      return result();
    },
    calls: () => calls,
  };
}

describe('MoneyRequests', () => {
  it("records, sends once, settles: done with GSA's message", async () => {
    const { ledger, money, client } = rig();
    const { send, calls } = sendAnswering(ledger, () => Promise.resolve({ ok: true, message: 'Thank you for your order!' }));
    await expect(money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, send)).resolves.toEqual({ ok: true, state: 'done', message: 'Thank you for your order!' });
    expect(ledger.steps).toEqual(['recorded m1 order', 'sent', 'settled m1 done']);
    expect(calls()).toBe(1);
  });

  it("is refused with GSA's words when GSA says no, and nothing is re-sent", async () => {
    const { ledger, money, client } = rig();
    const { send, calls } = sendAnswering(ledger, () => Promise.resolve({ ok: false, message: 'Not enough credit' }));
    await expect(money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, send)).resolves.toEqual({ ok: false, state: 'refused', message: 'Not enough credit' });
    expect(calls()).toBe(1);
  });

  it.each([
    ['a timeout after sending', new TimeoutError('no answer in 5000 ms', { maybeProcessed: true })],
    ['a 502', new ServerError('GSA answered 502', { status: 502, maybeProcessed: true })],
    ['a connection dropped after sending', new NetworkError('socket hang up', { maybeProcessed: true })],
    ['a bug', new TypeError('boom')],
  ])('is unconfirmed after %s, sent exactly once', async (_what, failure) => {
    const { ledger, money, client } = rig();
    const { send, calls } = sendAnswering(ledger, () => Promise.reject(failure));
    const outcome = await money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, send);
    expect(outcome).toMatchObject({ ok: false, state: 'unconfirmed' });
    expect(outcome.message).toContain('will not be sent again');
    expect(calls()).toBe(1);
    expect(ledger.settled).toEqual([{ id: 'm1', outcome }]);
  });

  it('is refused (nothing spent) when GSA surely did not act, the host-side reason hidden from players', async () => {
    const { ledger, money, client } = rig(0);
    const refused = sendAnswering(ledger, () => Promise.reject(new RateLimitedError('GSA answered 429', 1000, { status: 429, serviceMessage: 'Too Many Attempts.' })));
    await expect(money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, refused.send)).resolves.toEqual({ ok: false, state: 'refused', message: 'Too Many Attempts.' });
    const unbound = sendAnswering(ledger, () => Promise.reject(new UnauthorizedError('401', { status: 401, serviceMessage: 'Unauthenticated.' })));
    const outcome = await money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, unbound.send);
    expect(outcome.state).toBe('refused');
    expect(outcome.message).not.toContain('Unauthenticated');
  });

  it('sends nothing when the ledger cannot record it, and the player may try again at once', async () => {
    const { ledger, money, client } = rig();
    ledger.failNext = new DiskFull('ENOSPC');
    const { send, calls } = sendAnswering(ledger, () => Promise.resolve({ ok: true, message: 'ok' }));
    await expect(money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, send)).rejects.toBeInstanceOf(UnavailableRefusal);
    expect(calls()).toBe(0);
    await expect(money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, send)).resolves.toMatchObject({ state: 'done' });
  });

  it('allows one request per player per cooldown, the others at once', async () => {
    const { ledger, money, client, clock } = rig(10_000);
    const { send, calls } = sendAnswering(ledger, () => Promise.resolve({ ok: true, message: 'ok' }));
    const first = money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, send);
    // The second arrives while the first is still being recorded: refused, not sent twice.
    await expect(money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, send)).rejects.toBeInstanceOf(CooldownRefusal);
    await expect(money.run(ORDER(BOB), client, { steamId: BOB.steamId! }, send)).resolves.toMatchObject({ state: 'done' });
    await first;
    clock.ms += 9_999;
    await expect(money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, send)).rejects.toThrow(/try again in 1 s/);
    clock.ms += 1;
    await expect(money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, send)).resolves.toMatchObject({ state: 'done' });
    expect(calls()).toBe(3);
  });

  it('refuses everything without a ledger', async () => {
    const money = new MoneyRequests({ server: 'ovddykvbs', ledger: undefined, settings: () => ({ orderCooldownMs: 0 }), logger: silentLogger(), clock: { now: () => 1 } });
    const client = new GsaClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'a', clientSecret: 'b' });
    await expect(money.run(ORDER(ALICE), client, { steamId: ALICE.steamId! }, () => Promise.resolve({ ok: true, message: '' }))).rejects.toBeInstanceOf(UnavailableRefusal);
  });
});

describe('DashboardSettingsCache', () => {
  it('asks at most once a minute per kind, once however many ask, and never keeps a failure', async () => {
    const clock = { ms: 0, now(): number { return this.ms; } };
    const asked: string[] = [];
    let fail = false;
    const cache = new DashboardSettingsCache((kind) => {
      asked.push(kind);
      return fail ? Promise.reject(new Error('down')) : Promise.resolve({ kind, at: clock.ms });
    }, clock);
    await Promise.all([cache.get('settings'), cache.get('settings'), cache.get('modal')]);
    clock.ms = 59_999;
    await expect(cache.get('settings')).resolves.toEqual({ kind: 'settings', at: 0 });
    expect(asked).toEqual(['settings', 'modal']);
    clock.ms = 60_000;
    fail = true;
    await expect(cache.get('settings')).rejects.toThrow('down');
    fail = false;
    await expect(cache.get('settings')).resolves.toEqual({ kind: 'settings', at: 60_000 });
    expect(asked).toEqual(['settings', 'modal', 'settings', 'settings']);
  });
});
