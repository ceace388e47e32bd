// "The service's own count wins", end to end and without Redis: the emulator enforces 20 calls per 2 s on the key;
// another tool on the same key (plain HTTP, same credentials) spends 15; then a GsaClient of `requests: 20` sends 30
// mute checks. It reads X-RateLimit-Limit / -Remaining from every answer and never believes it has more left than the
// service says, so it gets no 429 and every check is answered.
// Time is fake (the client's timers and clock, and the emulator's clock). Fake time only moves while no request is on
// the wire (undici's own diagnostics channel counts them), so each arrival is stamped at the time it was sent.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { Agent, request } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient, GsaError } from '../../src/gsa/index.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'ovddykvbs';
const REQUESTS = 20;
const INTERVAL_MS = 2000;
const OTHER_TOOL_CALLS = 15;
const CLIENT_CHECKS = 30;

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Requests between undici's create and their end (answer read whole, or failed), every dispatcher of the process. */
function countRequestsOnTheWire(): () => number {
  let onTheWire = 0;
  const created = (): void => {
    onTheWire += 1;
  };
  const ended = (): void => {
    onTheWire -= 1;
  };
  subscribe('undici:request:create', created);
  subscribe('undici:request:trailers', ended);
  subscribe('undici:request:error', ended);
  cleanup.push(() => {
    unsubscribe('undici:request:create', created);
    unsubscribe('undici:request:trailers', ended);
    unsubscribe('undici:request:error', ended);
  });
  return () => onTheWire;
}

/** Real I/O runs (setImmediate is not faked) until `condition`, within 10 s of real time. */
async function waitForRealIo(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + patientMs(10_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`${what}: not reached within 10 s of real time`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function playerId(index: number): string {
  return `7656119${String(8_000_000_000 + index)}`;
}

interface Outcome {
  /** 429s the emulator's budget sent, to the client and the other tool together. */
  readonly refused: number;
  readonly answered: number;
  readonly failed: string[];
  readonly otherToolStatuses: number[];
}

async function run(maxInFlight: number): Promise<Outcome> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: 1_000_000 });
  const onTheWire = countRequestsOnTheWire();
  const emulator = await GsaEmulator.start({ servers: [{ name: SERVER }], now: () => Date.now(), enforceBudget: { requests: REQUESTS, intervalMs: INTERVAL_MS } });
  cleanup.push(() => emulator.close());

  // Another tool on the key (a host's script, GSA's own integration): plain HTTP, the same credentials.
  const agent = new Agent();
  cleanup.push(() => agent.destroy());
  const otherToolStatuses: number[] = [];
  for (let index = 0; index < OTHER_TOOL_CALLS; index++) {
    const res = await request(`${emulator.url}/api/v1/gameserver/${SERVER}/mute`, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ client_id: emulator.clientId, client_secret: emulator.clientSecret, steam_id: playerId(1000 + index) }).toString(),
    });
    await res.body.text();
    otherToolStatuses.push(res.statusCode);
  }

  const client = new GsaClient({
    baseUrl: emulator.url,
    clientId: emulator.clientId,
    clientSecret: emulator.clientSecret,
    // Longer than the whole test in fake time: nothing on the wire is ever aborted by moving the clock.
    timeoutMs: 600_000,
    rateLimit: { requests: REQUESTS, intervalMs: INTERVAL_MS, maxQueued: 100, maxInFlight },
  });
  cleanup.push(() => client.close());

  let answered = 0;
  const failed: string[] = [];
  const checks = Array.from({ length: CLIENT_CHECKS }, (_, index) =>
    client.checkMuted(SERVER, { steamId: playerId(index) }).then(
      () => {
        answered += 1;
      },
      (error: unknown) => {
        failed.push(error instanceof GsaError ? error.code : String(error));
      },
    ),
  );
  const settled = (): boolean => answered + failed.length === CLIENT_CHECKS;
  // Fake time moves to the next timer (the window's wake, a Retry-After hold, a retry's backoff) only while nothing
  // is on the wire; a call that timer starts is then stamped, at both ends, at the time it was sent.
  for (let steps = 0; !settled(); steps++) {
    if (steps > 1000) throw new Error('the checks did not settle within 1,000 timer steps');
    await waitForRealIo(() => onTheWire() === 0, 'every request answered');
    // One more turn: a call started by the answer just read is created on the wire by now, or there is none.
    await new Promise((resolve) => setImmediate(resolve));
    if (onTheWire() === 0 && !settled()) await vi.advanceTimersToNextTimerAsync();
  }
  await Promise.all(checks);
  return { refused: emulator.budgetReport()?.refused ?? -1, answered, failed, otherToolStatuses };
}

describe("the service's own count wins (X-RateLimit-* from every answer, no Redis)", () => {
  it('one call on the wire at a time: 0 429s, all 30 checks answered', async () => {
    const outcome = await run(1);
    expect(outcome.otherToolStatuses).toStrictEqual(Array<number>(OTHER_TOOL_CALLS).fill(200));
    expect(outcome).toMatchObject({ refused: 0, answered: CLIENT_CHECKS, failed: [] });
  });

  it('four calls on the wire at once: answers to calls sent before others still count those others, so 0 429s', async () => {
    const outcome = await run(4);
    expect(outcome.otherToolStatuses).toStrictEqual(Array<number>(OTHER_TOOL_CALLS).fill(200));
    expect(outcome).toMatchObject({ refused: 0, answered: CLIENT_CHECKS, failed: [] });
  });
});
