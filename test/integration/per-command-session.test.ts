// Conan's per-command transport (adapters/rcon/perCommandSession.ts) against the fake Conan console on loopback: a
// one-shot caller's login and first command are one session (no pace waited), a second command waits for Conan's
// 3 s pace (to the millisecond, on fake time), and close() during that wait fails the command with `closed` at once
// and opens nothing after; a burst goes out one session per 3 s slot; the pace is read on the clock given. The pace
// and every timer are fake; socket I/O is real and awaited causally.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RconError } from '../../adapters/rcon/errors.js';
import { rconOptionsSchema } from '../../adapters/rcon/options.js';
import { openPerCommandSession } from '../../adapters/rcon/perCommandSession.js';
import { conanProfile } from '../../adapters/rcon/profiles/conan.js';
import type { RconConnection } from '../../adapters/rcon/connectionPort.js';
import { silentLogger } from '../../src/log/logger.js';
import type { Clock } from '../../src/time/clock.js';
import { FakeSourceRconServer } from '../fixtures/fakeSourceRconServer.js';
import { settleIo, waitForIo as waitFor } from '../fixtures/ioWaits.js';

const PASSWORD = 'conan-pace-pass-71b0';
const PACE_MS = 3_000;
const stops: (() => Promise<void>)[] = [];

afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function conan(): Promise<FakeSourceRconServer> {
  const fake = await FakeSourceRconServer.start({ quirks: 'conan', password: PASSWORD, writeMode: 'split' });
  stops.push(() => fake.stop());
  return fake;
}

function connect(port: number, oneShot: boolean, paceClock?: Clock): RconConnection {
  const transport = conanProfile.transport;
  if (transport.kind !== 'source-per-command') throw new Error('conan is per-command');
  const options = rconOptionsSchema.parse({ type: 'rcon', profile: 'conan', port, password: PASSWORD, logFile: 'ConanSandbox.log' });
  const connection = openPerCommandSession({ options, transport, label: 'conan-main', logger: silentLogger(), oneShot, paceClock }, transport);
  stops.push(() => connection.close());
  return connection;
}

/** Settles to `closed`, `answered` or `pending` without awaiting: a pending command must not hang the test. */
function track(promise: Promise<string>): () => string {
  let state = 'pending';
  promise.then(
    () => (state = 'answered'),
    (error: unknown) => (state = error instanceof RconError ? error.code : 'other'),
  );
  return () => state;
}

describe('per-command sessions (Conan)', () => {
  it("one-shot: the login waited for carries the first command; a second one waits Conan's 3 s to the millisecond", async () => {
    // `performance` too: the pace is measured from when the last session started.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: 1_000_000 });
    const fake = await conan();
    const connection = connect(fake.port, true);
    connection.start();
    await connection.waitReady(11_000);
    await expect(connection.command('listplayers')).resolves.toBe('reply to listplayers');
    expect([fake.connections, fake.loginAttempts, fake.commands]).toEqual([1, 1, ['listplayers']]);

    const second = track(connection.command('listplayers'));
    await vi.advanceTimersByTimeAsync(PACE_MS - 1);
    await settleIo();
    expect([fake.connections, second()]).toEqual([1, 'pending']);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => second() !== 'pending', 'the second command answered');
    expect([second(), fake.connections, fake.commands]).toEqual(['answered', 2, ['listplayers', 'listplayers']]);
  });

  it('a burst goes out one session at a time, each 3 s after the one before, never two in a window', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: 1_000_000 });
    const fake = await conan();
    const connection = connect(fake.port, false);
    await expect(connection.command('listplayers')).resolves.toBe('reply to listplayers');
    const burst = ['one', 'two', 'three'].map((text) => track(connection.command(text)));
    const states = (): string[] => burst.map((state) => state());
    for (const [step, answered] of [
      [1, ['answered', 'pending', 'pending']],
      [2, ['answered', 'answered', 'pending']],
      [3, ['answered', 'answered', 'answered']],
    ] as const) {
      // A millisecond short of this step's slot: nothing new has gone out.
      await vi.advanceTimersByTimeAsync(PACE_MS - 1);
      await settleIo();
      expect(fake.connections, `before slot ${String(step)}`).toBe(step);
      await vi.advanceTimersByTimeAsync(1);
      await waitFor(() => states()[step - 1] !== 'pending', `command ${String(step)} of the burst answered`);
      expect(states()).toEqual(answered);
    }
    expect([fake.connections, fake.maxConcurrentSessions, fake.commands]).toEqual([4, 1, ['listplayers', 'one', 'two', 'three']]);
  });

  it('measures the pace on the clock it is given: a command 3 s on by that clock goes at once, 1 s on waits the other 2 s', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const fake = await conan();
    let at = 50_000;
    const connection = connect(fake.port, false, { now: () => at });
    await expect(connection.command('listplayers')).resolves.toBe('reply to listplayers');
    at += PACE_MS;
    // No timer moved: only the given clock says the pace has passed.
    const one = track(connection.command('one'));
    await waitFor(() => one() !== 'pending', 'one answered without any timer');
    expect(one()).toBe('answered');
    at += 1_000;
    const two = track(connection.command('two'));
    await vi.advanceTimersByTimeAsync(PACE_MS - 1_000 - 1);
    await settleIo();
    expect([fake.connections, two()]).toEqual([2, 'pending']);
    await vi.advanceTimersByTimeAsync(1);
    await waitFor(() => two() !== 'pending', 'two answered');
    expect([two(), fake.commands]).toEqual(['answered', ['listplayers', 'one', 'two']]);
  });

  it('close() during the pace wait fails the waiting command with closed at once, and no session follows', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'], now: 1_000_000 });
    const fake = await conan();
    const connection = connect(fake.port, false);
    await expect(connection.command('listplayers')).resolves.toBe('reply to listplayers');
    const waiting = track(connection.command('listplayers'));
    await settleIo();
    expect(waiting()).toBe('pending');
    await connection.close();
    await waitFor(() => waiting() !== 'pending', 'the waiting command settled');
    expect(waiting()).toBe('closed');
    await vi.advanceTimersByTimeAsync(10 * PACE_MS);
    await settleIo();
    expect([fake.connections, fake.commands]).toEqual([1, ['listplayers']]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
