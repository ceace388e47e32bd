// The durable review outbox with real files in a fresh directory per test, a real GsaClient and the project's
// emulator over loopback: delivery, refusals, ambiguous answers, outages and backoff, replay after a restart,
// torn and corrupted journals, compaction, group commit and shutdown. Assertions are on what reached the
// emulator and what is on disk.
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MockAgent } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { PlayerIdentity, ReviewOutcome } from '../../src/bridge/port.js';
import { readOutboxContents } from '../../src/reviews/letters.js';
import { ReviewOutbox, ReviewOutboxError, type NewReview, type OutboxReview, type ReviewOutboxOptions } from '../../src/reviews/reviewOutbox.js';
import { GsaEmulator, type FaultSpec, type RecordedCall } from '../../src/gsaEmulator/index.js';
import { GsaClient, UnavailableError, type GsaClientOptions } from '../../src/gsa/index.js';
import { backoffDelayMs } from '../../src/time/backoff.js';
import { createLogger } from '../../src/log/logger.js';
import { unclaimedPort } from '../fixtures/ports.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'ovddykvbs';
const ALICE: PlayerIdentity = { steamId: '76561198000000001', name: 'Alice' };
const BOB: PlayerIdentity = { steamId: '76561198000000002', name: 'Bob' };
const EVE: PlayerIdentity = { eosId: '0123456789abcdef0123456789abcdef', name: 'Eve' };
const UNCONFIRMED_MESSAGE = 'GSA did not confirm the review; it may have been stored. It was not sent again.';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const WAIT = { timeout: patientMs(8000), interval: 10 };

let emulator: GsaEmulator;
const clients: GsaClient[] = [];
const outboxes: ReviewOutbox[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }] });
});

afterEach(async () => {
  await Promise.all(outboxes.splice(0).map((outbox) => outbox.close()));
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
  emulator.reset();
});

afterAll(async () => {
  await emulator.close();
});


/** Waits for `done` across event-loop turns (setImmediate, which the fake timers here leave real): for file I/O under fake timers. */
async function until(done: () => boolean, turns = 100_000): Promise<void> {
  for (let turn = 0; !done(); turn++) {
    if (turn >= turns) throw new Error(`not done after ${turns} event-loop turns`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'gsa-outbox-'));
  dirs.push(dir);
  return dir;
}

function makeClient(overrides: Partial<GsaClientOptions> = {}): GsaClient {
  const client = new GsaClient({
    baseUrl: emulator.url,
    clientId: emulator.clientId,
    clientSecret: emulator.clientSecret,
    timeoutMs: 2000,
    retry: { retries: 0 },
    ...overrides,
  });
  clients.push(client);
  return client;
}

function sendVia(client: GsaClient): ReviewOutboxOptions['send'] {
  return async (review) => {
    await client.submitReview(review.server, review.player, review.stars, review.comment);
  };
}

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [key: string]: unknown;
}

const WARN = 40;
const ERROR = 50;

class LogCapture {
  readonly lines: LogLine[] = [];
  readonly logger = createLogger({
    level: 'debug',
    destination: {
      write: (line: string) => {
        this.lines.push(JSON.parse(line) as LogLine);
      },
    },
  });

  warnings(): LogLine[] {
    return this.lines.filter((line) => line.level >= WARN);
  }

  containing(text: string): LogLine[] {
    return this.lines.filter((line) => line.msg.includes(text));
  }
}

interface Harness {
  readonly outbox: ReviewOutbox;
  readonly results: { review: OutboxReview; outcome: ReviewOutcome }[];
  readonly log: LogCapture;
}

async function openOutbox(dir: string, options: Partial<ReviewOutboxOptions> & { client?: GsaClient } = {}): Promise<Harness> {
  const { client, ...rest } = options;
  const results: Harness['results'] = [];
  const log = new LogCapture();
  const outbox = await ReviewOutbox.open({
    dataDir: dir,
    send: sendVia(client ?? makeClient()),
    onResult: (review, outcome) => results.push({ review, outcome }),
    logger: log.logger,
    retryMinDelayMs: 20,
    retryMaxDelayMs: 100,
    ...rest,
  });
  outboxes.push(outbox);
  return { outbox, results, log };
}

function review(n: number, overrides: Partial<NewReview> = {}): NewReview {
  return {
    server: SERVER,
    player: ALICE,
    stars: 5,
    comment: `review ${n}`,
    origin: { adapter: 'websocket', ref: 'conn-1', requestId: `req-${n}` },
    ...overrides,
  };
}

function reviewCalls(): RecordedCall[] {
  return emulator.calls.filter((call) => call.endpoint === 'review');
}

interface JournalLine {
  readonly v: number;
  readonly op: string;
  readonly id: string;
  readonly [key: string]: unknown;
}

/** Every line of a JSON Lines file, checking that the file ends on a whole line. */
async function jsonLines(file: string): Promise<JournalLine[]> {
  const text = await readFile(file, 'utf8');
  if (text !== '' && !text.endsWith('\n')) throw new Error(`${file} does not end with a newline`);
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as JournalLine);
}

const journalOf = (dir: string): Promise<JournalLine[]> => jsonLines(path.join(dir, 'reviews.jsonl'));

/** A `queued` record as the journal format documents it, for journals written by hand. */
function queuedLine(id: string, comment: string): string {
  const record = {
    v: 1,
    op: 'queued',
    id,
    at: 1_700_000_000_000,
    server: SERVER,
    player: { steam_id: ALICE.steamId },
    stars: 3,
    comment,
    origin: { adapter: 'websocket', connection_id: 'conn-0' },
  };
  return `${JSON.stringify(record)}\n`;
}

describe('delivery', () => {
  it('delivers a review once, byte-exact, and reports ok', async () => {
    const dir = await dataDir();
    const { outbox, results } = await openOutbox(dir);
    const comment = 'Ünïcode & "quotes" \\ back\\slash — 5★ 🎮 <b>tags</b> 100% {"json":true} a+b=c&d';
    const queued = await outbox.enqueue(review(1, { player: EVE, stars: 4, comment }));
    expect(queued.id).toMatch(UUID);
    expect(queued).toMatchObject({ server: SERVER, player: EVE, stars: 4, comment });

    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    expect(results[0]).toEqual({ review: queued, outcome: { ok: true } });
    expect(emulator.reviews).toHaveLength(1);
    expect(emulator.reviews[0]).toMatchObject({ server: SERVER, eosId: EVE.eosId, stars: 4 });
    expect(emulator.reviews[0]?.comment).toBe(comment);
    expect(reviewCalls()).toHaveLength(1);
    expect(outbox.pending).toBe(0);

    await outbox.close();
    expect((await journalOf(dir)).map((line) => [line.op, line.id])).toEqual([
      ['queued', queued.id],
      ['sending', queued.id],
      ['delivered', queued.id],
    ]);
  });

  it('resolves enqueue only once the record is in the journal, with the protocol names, and sends nothing before start', async () => {
    const dir = path.join(await dataDir(), 'data', 'outbox');
    const { outbox } = await openOutbox(dir);
    const player: PlayerIdentity = { steamId: ALICE.steamId, eosId: EVE.eosId, name: 'Zoë "the" Tester' };
    const queued = await outbox.enqueue(review(1, { player }));

    expect(await journalOf(dir)).toEqual([
      {
        v: 1,
        op: 'queued',
        id: queued.id,
        at: queued.queuedAt,
        server: SERVER,
        player: { steam_id: ALICE.steamId, eos_id: EVE.eosId, name: 'Zoë "the" Tester' },
        stars: 5,
        comment: 'review 1',
        origin: { adapter: 'websocket', ref: 'conn-1', request_id: 'req-1' },
      },
    ]);
    expect(outbox.pending).toBe(1);
    if (process.platform !== 'win32') {
      expect((await stat(path.join(dir, 'reviews.jsonl'))).mode & 0o777).toBe(0o600);
      expect((await stat(dir)).mode & 0o777).toBe(0o700);
    }
    // close() waits for every send in flight and journals it, and a send begins (as `sending`) the moment the outbox
    // takes the review: after close, the journal and the emulator show whether one began, without a sleep.
    await outbox.close();
    expect((await journalOf(dir)).map((line) => line.op)).toEqual(['queued']);
    expect(emulator.calls).toHaveLength(0);
  });

  it('keeps a review whose send failed with a non-GSA error pending and delivers it on the next round', async () => {
    const dir = await dataDir();
    const client = makeClient();
    let attempts = 0;
    const { outbox, results } = await openOutbox(dir, {
      send: async (queued) => {
        attempts += 1;
        if (attempts === 1) throw new TypeError('a bug in the send function');
        await sendVia(client)(queued);
      },
    });
    await outbox.enqueue(review(1));
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    expect(results[0]?.outcome).toEqual({ ok: true });
    expect(attempts).toBe(2);
    expect(emulator.reviews).toHaveLength(1);
  });
});

describe('GSA unreachable', () => {
  it('keeps reviews pending through 503s with the project\'s capped backoff (fake timers), then drains them exactly once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      const dir = await dataDir();
      const sendTimes: number[] = [];
      let down = true;
      const delivered: string[] = [];
      const minDelay = 1000;
      const maxDelay = 8000;
      // One review in flight at a time: every call is one delivery round. Jitter fixed at the middle of its range.
      const { outbox, results, log } = await openOutbox(dir, {
        retryMinDelayMs: minDelay,
        retryMaxDelayMs: maxDelay,
        concurrency: 1,
        random: () => 0.5,
        send: (sent) => {
          sendTimes.push(Date.now());
          if (down) return Promise.reject(new UnavailableError('the service is unavailable (503)', undefined, { status: 503 }));
          delivered.push(sent.comment);
          return Promise.resolve();
        },
      });
      for (const n of [1, 2, 3]) await outbox.enqueue(review(n));
      outbox.start();
      // Each attempt first fsyncs its `sending` record (real I/O, which fake timers do not move): waited for causally.
      await until(() => sendTimes.length === 1);
      for (let streak = 1; streak <= 6; streak++) {
        const delay = backoffDelayMs(streak, { minDelayMs: minDelay, maxDelayMs: maxDelay }, () => 0.5);
        expect(delay).toBe(Math.round(Math.min(maxDelay, minDelay * 2 ** (streak - 1)) * 0.75));
        await until(() => log.lines.some((line) => line.streak === streak));
        // The round's timer is set for exactly this delay (fake timers fire it not a millisecond early).
        expect(log.lines.find((line) => line.streak === streak)?.delayMs).toBe(delay);
        expect(sendTimes).toHaveLength(streak);
        await vi.advanceTimersByTimeAsync(delay);
        await until(() => sendTimes.length === streak + 1);
        expect(sendTimes[streak]! - sendTimes[streak - 1]!).toBe(delay);
      }
      expect(outbox.pending).toBe(3);
      expect(results).toEqual([]);
      expect(log.containing('cannot deliver reviews to GSA')).toHaveLength(1);
      expect(log.containing('cannot deliver reviews to GSA')[0]?.level).toBe(WARN);

      down = false;
      await vi.advanceTimersByTimeAsync(6000);
      await vi.waitFor(() => {
        expect(results).toHaveLength(3);
      }, WAIT);
      expect(results.map((result) => result.outcome)).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
      expect(delivered).toEqual(['review 1', 'review 2', 'review 3']);
      expect(outbox.pending).toBe(0);
      expect(log.containing('GSA reachable again').map((line) => line.msg)).toEqual([
        `GSA reachable again (it answered review ${results[0]?.review.id ?? ''}); delivering the 2 reviews still pending`,
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says GSA is back with the true count, and nothing about delivering when the review it answered was the last one', async () => {
    const dir = await dataDir();
    const client = makeClient();
    let down = true;
    const { outbox, results, log } = await openOutbox(dir, {
      send: async (sent) => {
        if (down) throw new UnavailableError('the service is unavailable (503)', undefined, { status: 503 });
        await sendVia(client)(sent);
      },
    });
    const queued = await outbox.enqueue(review(1));
    outbox.start();
    await vi.waitFor(() => {
      expect(log.containing('cannot deliver reviews to GSA')).toHaveLength(1);
    }, WAIT);
    down = false;
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    expect(results[0]?.outcome).toEqual({ ok: true });
    expect(log.containing('GSA reachable again').map((line) => [line.msg, line.pending])).toEqual([[`GSA reachable again (it answered review ${queued.id})`, 0]]);
  });

  it('replays reviews accepted while GSA was unreachable after a restart, oldest first, exactly once', async () => {
    const dir = await dataDir();
    const offline = makeClient({ baseUrl: `http://127.0.0.1:${await unclaimedPort()}` });
    const first = await openOutbox(dir, { client: offline });
    const queued: OutboxReview[] = [];
    for (const n of [1, 2, 3, 4, 5]) queued.push(await first.outbox.enqueue(review(n, { origin: { adapter: 'websocket', ref: `conn-${n}` } })));
    first.outbox.start();
    await vi.waitFor(() => {
      expect(first.log.containing('cannot deliver reviews to GSA')).toHaveLength(1);
    }, WAIT);
    expect(first.outbox.pending).toBe(5);
    await first.outbox.close();
    expect(first.results).toEqual([]);
    expect(emulator.calls).toHaveLength(0);

    // Replayed but not started: closing it (which waits for sends in flight and journals them) shows that none began.
    const idle = await openOutbox(dir);
    expect(idle.outbox.pending).toBe(5);
    await idle.outbox.close();
    expect(emulator.calls).toHaveLength(0);
    // Compacted at the open to the five pending reviews, and no send begun since.
    expect((await journalOf(dir)).map((line) => [line.op, line.id])).toEqual(queued.map((accepted) => ['queued', accepted.id]));

    const second = await openOutbox(dir, { concurrency: 1 });
    expect(second.outbox.pending).toBe(5);
    second.outbox.start();
    await vi.waitFor(() => {
      expect(second.results).toHaveLength(5);
    }, WAIT);
    expect(second.results.map((result) => result.review)).toEqual(queued);
    expect(second.results.every((result) => result.outcome.ok)).toBe(true);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['review 1', 'review 2', 'review 3', 'review 4', 'review 5']);
    expect(reviewCalls()).toHaveLength(5);
    await second.outbox.close();

    // Nothing to replay: a new review, one at a time and oldest first, would go after any re-sent one.
    const third = await openOutbox(dir, { concurrency: 1 });
    expect(third.outbox.pending).toBe(0);
    third.outbox.start();
    await third.outbox.enqueue(review(6));
    await vi.waitFor(() => {
      expect(third.results).toHaveLength(1);
    }, WAIT);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['review 1', 'review 2', 'review 3', 'review 4', 'review 5', 'review 6']);
    expect(reviewCalls()).toHaveLength(6);
  });
});

describe('permanent refusals', () => {
  it('dead-letters a review from a player GSA finds ineligible and passes GSA\'s message on', async () => {
    const dir = await dataDir();
    const message = 'You need to play for 2 hours before you can review this server.';
    emulator.setIneligible(SERVER, BOB.steamId ?? '', message);
    const { outbox, results } = await openOutbox(dir, { client: makeClient({ retry: { retries: 3, minDelayMs: 5, maxDelayMs: 10 } }) });
    const queued = await outbox.enqueue(review(1, { player: BOB }));
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);

    expect(results[0]).toEqual({ review: queued, outcome: { ok: false, error: { code: 'forbidden', message } } });
    expect(reviewCalls()).toHaveLength(1);
    expect(emulator.reviews).toEqual([]);
    const letters = await jsonLines(path.join(dir, 'dead-letter.jsonl'));
    expect(letters).toEqual([
      {
        v: 1,
        op: 'dead',
        id: queued.id,
        at: expect.any(Number) as number,
        queued_at: queued.queuedAt,
        server: SERVER,
        player: { steam_id: BOB.steamId, name: 'Bob' },
        stars: 5,
        comment: 'review 1',
        origin: { adapter: 'websocket', ref: 'conn-1', request_id: 'req-1' },
        // The mod protocol's word for a 403 (the player hears `not_eligible` through the wire's mapping of `forbidden`).
        error: { code: 'not_eligible', status: 403, message: expect.stringContaining(message) as string },
      },
    ]);
    if (process.platform !== 'win32') expect((await stat(path.join(dir, 'dead-letter.jsonl'))).mode & 0o777).toBe(0o600);

    await outbox.close();
    expect((await journalOf(dir)).map((line) => [line.op, line.id, (line.error as { code?: string } | undefined)?.code])).toEqual([
      ['queued', queued.id, undefined],
      ['sending', queued.id, undefined],
      ['dead', queued.id, 'not_eligible'],
    ]);
    const reopened = await openOutbox(dir);
    expect(reopened.outbox.pending).toBe(0);
  });

  it.each([
    {
      what: 'stars the client refuses to send',
      input: review(1, { stars: 9 }),
      code: 'invalid_input',
      stored: 'invalid',
      status: null,
      message: 'invalid input, nothing was sent: stars: must be a whole number from 1 to 5',
      calls: 0,
    },
  ])('dead-letters a review for $what ($code, stored as $stored)', async ({ input, code, stored, status, message, calls }) => {
    const dir = await dataDir();
    const { outbox, results } = await openOutbox(dir);
    const queued = await outbox.enqueue(input);
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    expect(results[0]?.outcome).toEqual({ ok: false, error: { code, message } });
    expect(reviewCalls()).toHaveLength(calls);
    const letters = await jsonLines(path.join(dir, 'dead-letter.jsonl'));
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({ id: queued.id, comment: 'review 1', error: { code: stored, status } });
  });
});

describe('GSA\'s answer by status: refused for good, or tried again', () => {
  // The rule (src/gsa/responses.ts, reviewOutbox.ts): a 4xx other than 401, 404, 408 and 429 is GSA's refusal of this
  // review: it goes to dead-letter.jsonl with the status and GSA's words, listed as dead, and is never sent again.
  // 408 (the request did not arrive whole), 429 and 503 stored nothing: the review waits and goes again. Another 5xx
  // may have stored it: unconfirmed, not sent again (a review POST is not idempotent).
  it.each([
    { status: 400, code: 'refused' },
    { status: 409, code: 'refused' },
    { status: 410, code: 'refused' },
    { status: 413, code: 'refused' },
    { status: 451, code: 'refused' },
    { status: 422, code: 'invalid' },
  ])('dead-letters a review refused with $status ($code), with the status and GSA\'s message, and never sends it again', async ({ status, code }) => {
    const dir = await dataDir();
    const message = `GSA says no (${status})`;
    emulator.injectFault({ kind: 'status', status, message, endpoint: 'review', count: 1 });
    const { outbox, results } = await openOutbox(dir);
    const queued = await outbox.enqueue(review(1));
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    expect(results[0]).toEqual({ review: queued, outcome: { ok: false, error: { code, message } } });
    expect(await jsonLines(path.join(dir, 'dead-letter.jsonl'))).toMatchObject([
      { op: 'dead', id: queued.id, comment: 'review 1', error: { code, status, message: expect.stringContaining(message) as string } },
    ]);
    expect((await readOutboxContents(dir)).letters).toMatchObject([{ kind: 'dead', review: { id: queued.id }, reason: { code, status } }]);
    // Nothing is waiting to send it again: a later review goes out alone, and a restart has nothing pending.
    const next = await outbox.enqueue(review(2));
    await vi.waitFor(() => {
      expect(results).toHaveLength(2);
    }, WAIT);
    expect(results[1]).toEqual({ review: next, outcome: { ok: true } });
    expect(reviewCalls()).toHaveLength(2);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['review 2']);
    expect(outbox.pending).toBe(0);
    await outbox.close();
    expect((await openOutbox(dir)).outbox.pending).toBe(0);
  });

  it.each([{ status: 408 }, { status: 429 }, { status: 503 }])('keeps a review answered $status pending and delivers it on a later try', async ({ status }) => {
    const dir = await dataDir();
    emulator.injectFault({ kind: 'status', status, endpoint: 'review', count: 1 });
    const { outbox, results } = await openOutbox(dir);
    const queued = await outbox.enqueue(review(1));
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    expect(results[0]).toEqual({ review: queued, outcome: { ok: true } });
    expect(reviewCalls().map((call) => call.status)).toEqual([status, 200]);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['review 1']);
    await expect(stat(path.join(dir, 'dead-letter.jsonl'))).rejects.toThrow(/ENOENT/);
  });

  it.each([{ status: 500 }, { status: 502 }, { status: 504 }])('journals a review answered $status as unconfirmed and does not send it again', async ({ status }) => {
    const dir = await dataDir();
    emulator.injectFault({ kind: 'status', status, endpoint: 'review', count: 1 });
    const { outbox, results } = await openOutbox(dir);
    const queued = await outbox.enqueue(review(1));
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    expect(results[0]).toEqual({ review: queued, outcome: { ok: false, error: { code: 'unconfirmed', message: UNCONFIRMED_MESSAGE } } });
    expect(await jsonLines(path.join(dir, 'unconfirmed.jsonl'))).toMatchObject([{ id: queued.id, error: { code: 'server_error', status } }]);
    expect(reviewCalls()).toHaveLength(1);
    expect(outbox.pending).toBe(0);
  });
});

describe('refusals the host must fix', () => {
  it.each([
    { what: 'bad credentials (401)', fix: 'GSA refused the API credentials: check the client id and secret', code: 'unauthorized' },
    { what: 'an unknown server (404)', fix: "GSA does not know server nosuchserver: check the server's name", code: 'not_found' },
  ])('keeps a review refused for $what pending, says what to fix, and delivers it once fixed', async ({ fix, code }) => {
    const dir = await dataDir();
    const wrongSecret = makeClient({ clientSecret: 'not-the-secret' });
    const right = makeClient();
    let fixed = false;
    const { outbox, results, log } = await openOutbox(dir, {
      send: async (sent) => {
        await (code === 'unauthorized' && !fixed ? wrongSecret : right).submitReview(sent.server, sent.player, sent.stars, sent.comment);
      },
    });
    const queued = await outbox.enqueue(review(1, code === 'not_found' ? { server: 'nosuchserver' } : {}));
    outbox.start();
    await vi.waitFor(() => {
      expect(log.lines.filter((line) => line.level === ERROR && line.msg.includes(fix)).length).toBeGreaterThanOrEqual(2);
    }, WAIT);
    expect(results).toEqual([]);
    expect(outbox.pending).toBe(1);
    await expect(stat(path.join(dir, 'dead-letter.jsonl'))).rejects.toThrow(/ENOENT/);
    expect(log.lines.find((line) => line.msg.includes(fix))).toMatchObject({ code, msg: expect.stringContaining('stay pending') as string });

    fixed = true;
    if (code === 'not_found') emulator.addServer('nosuchserver'); // the emulator keeps servers across reset()
    await vi.waitFor(() => {
      expect(results).toEqual([{ review: queued, outcome: { ok: true } }]);
    }, WAIT);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['review 1']);
  });

  it('holds only the unknown server\'s reviews: those of a known server keep flowing past them', async () => {
    const dir = await dataDir();
    const { outbox, results, log } = await openOutbox(dir, { concurrency: 1, retryMinDelayMs: 50, retryMaxDelayMs: 200 });
    const held = [await outbox.enqueue(review(1, { server: 'misnamed' })), await outbox.enqueue(review(2, { server: 'misnamed' }))];
    for (const n of [3, 4, 5]) await outbox.enqueue(review(n));
    outbox.start();
    await vi.waitFor(() => {
      expect(results.map((result) => result.review.comment)).toEqual(['review 3', 'review 4', 'review 5']);
    }, WAIT);
    expect(results.every((result) => result.outcome.ok)).toBe(true);
    expect(outbox.pending).toBe(2);
    expect(log.lines.find((line) => line.level === ERROR)?.msg).toMatch(/GSA does not know server misnamed: check the server's name.*other servers' reviews go on/);

    emulator.addServer('misnamed');
    await vi.waitFor(() => {
      expect(results).toHaveLength(5);
    }, WAIT);
    expect(results.slice(3).map((result) => result.review.id)).toEqual(held.map((queued) => queued.id));
  });
});

describe('ambiguous answers', () => {
  it.each([
    { what: 'a timeout after sending', fault: { kind: 'latency', ms: 500, endpoint: 'review' } satisfies FaultSpec, code: 'timeout' },
    { what: 'a connection dropped after processing', fault: { kind: 'drop', afterProcessing: true, endpoint: 'review' } satisfies FaultSpec, code: 'network' },
  ])('journals $what as unconfirmed and never sends the review again', async ({ fault, code }) => {
    const dir = await dataDir();
    // The client's own retries are on: the review must still go out only once.
    const client = makeClient({ timeoutMs: 100, retry: { retries: 3, minDelayMs: 5, maxDelayMs: 10 } });
    const { outbox, results, log } = await openOutbox(dir, { client, concurrency: 1 });
    emulator.injectFault(fault);
    const queued = await outbox.enqueue(review(1));
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    expect(results[0]).toEqual({ review: queued, outcome: { ok: false, error: { code: 'unconfirmed', message: UNCONFIRMED_MESSAGE } } });
    const warning = log.warnings().find((line) => line.msg.includes(queued.id));
    expect(warning?.msg).toContain('will not be sent again');

    expect(outbox.pending).toBe(0);
    // A later review, one at a time and oldest first: a second send of review 1 (a client retry, an outbox round)
    // would reach the emulator before it.
    const later = await outbox.enqueue(review(2));
    await vi.waitFor(() => {
      expect(results).toHaveLength(2);
    }, WAIT);
    expect(results[1]).toEqual({ review: later, outcome: { ok: true } });
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['review 1', 'review 2']);
    expect(reviewCalls()).toHaveLength(2);
    await outbox.close();
    const journal = await journalOf(dir);
    expect(journal.filter((line) => line.id === queued.id).map((line) => line.op)).toEqual(['queued', 'sending', 'unconfirmed']);
    expect(journal.find((line) => line.op === 'unconfirmed')).toMatchObject({ id: queued.id, error: { code, status: null } });
    // Written whole where a person finds it: the fate line above goes at the next compaction.
    const letters = await jsonLines(path.join(dir, 'unconfirmed.jsonl'));
    expect(letters).toEqual([
      expect.objectContaining({ op: 'unconfirmed', id: queued.id, queued_at: queued.queuedAt, comment: 'review 1', error: expect.objectContaining({ code }) as unknown }),
    ]);

    // After a restart nothing is replayed: again a later review is the next to arrive.
    const reopened = await openOutbox(dir, { concurrency: 1 });
    expect(reopened.outbox.pending).toBe(0);
    reopened.outbox.start();
    await reopened.outbox.enqueue(review(3));
    await vi.waitFor(() => {
      expect(reopened.results).toHaveLength(1);
    }, WAIT);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['review 1', 'review 2', 'review 3']);
    expect(reviewCalls()).toHaveLength(3);
  });
});

describe('a 2xx that is not GSA\'s answer', () => {
  it('treats 200 text/html (a captive portal) as unconfirmed, writes the review whole to unconfirmed.jsonl, and never re-sends it', async () => {
    const dir = await dataDir();
    const agent = new MockAgent();
    agent.disableNetConnect();
    const portal = agent.get('http://gsa.test');
    portal.intercept({ path: '/api/v1/gameserver/ovddykvbs/review', method: 'POST' }).reply(200, '<html><body>Sign in to Hotel WiFi</body></html>', {
      headers: { 'content-type': 'text/html' },
    });
    const client = makeClient({ baseUrl: 'http://gsa.test', dispatcher: agent, clientId: 'id', clientSecret: 'secret' });
    try {
      const { outbox, results } = await openOutbox(dir, { client });
      const queued = await outbox.enqueue(review(1));
      outbox.start();
      await vi.waitFor(() => {
        expect(results).toHaveLength(1);
      }, WAIT);
      expect(results[0]?.outcome).toEqual({ ok: false, error: { code: 'unconfirmed', message: UNCONFIRMED_MESSAGE } });
      await outbox.close();
      expect(await jsonLines(path.join(dir, 'unconfirmed.jsonl'))).toMatchObject([
        { op: 'unconfirmed', id: queued.id, comment: 'review 1', error: { code: 'bad_response', status: 200 } },
      ]);
      expect((await journalOf(dir)).map((line) => line.op)).toEqual(['queued', 'sending', 'unconfirmed']);
      agent.assertNoPendingInterceptors();
    } finally {
      await agent.close();
    }
  });
});

describe('journals from before adapter ids', () => {
  it('reads an old origin (a config path and connection_id) as the adapter and its ref, and writes ref from then on', async () => {
    const dir = await dataDir();
    const file = path.join(dir, 'reviews.jsonl');
    const old = queuedLine('r-old', 'written by 0.1').replace('"adapter":"websocket"', '"adapter":"servers[0].adapters[1]"');
    await writeFile(file, old);
    const { outbox, results } = await openOutbox(dir);
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    expect(results[0]?.review.origin).toEqual({ adapter: 'servers[0].adapters[1]', ref: 'conn-0' });
    const fresh = await outbox.enqueue(review(7, { origin: { adapter: 'ovddykvbs-websocket-8787', ref: 'conn-7' } }));
    await outbox.close();
    const written = (await journalOf(dir)).find((line) => line.id === fresh.id);
    expect(written?.origin).toEqual({ adapter: 'ovddykvbs-websocket-8787', ref: 'conn-7' });
  });
});

describe('damaged journals', () => {
  const good = queuedLine('r1', 'first') + queuedLine('r2', 'second');

  it.each([
    { what: 'a record cut off mid-write', tail: queuedLine('r3', 'third').slice(0, 40) },
    { what: 'a whole record without its newline', tail: queuedLine('r3', 'third').slice(0, -1) },
    { what: 'zero-filled blocks from a power loss', tail: '\0'.repeat(64) },
  ])('cuts $what at the end (no newline: never acknowledged), keeps every whole record, and appends cleanly afterwards', async ({ tail }) => {
    const dir = await dataDir();
    const file = path.join(dir, 'reviews.jsonl');
    await writeFile(file, good + tail);
    const { outbox, results, log } = await openOutbox(dir, { concurrency: 1 });

    const tailBytes = Buffer.byteLength(tail);
    const goodBytes = Buffer.byteLength(good);
    const cut = log.containing(`cut ${tailBytes} bytes`);
    expect(cut).toHaveLength(1);
    expect(cut[0]).toMatchObject({ level: WARN, file, offset: goodBytes, bytes: tailBytes });
    expect(cut[0]?.msg).toContain(`from byte offset ${goodBytes}`);
    expect(log.warnings()).toHaveLength(1);
    expect(await readFile(file, 'utf8')).toBe(good);
    expect(outbox.pending).toBe(2);

    const added = await outbox.enqueue(review(4));
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(3);
    }, WAIT);
    expect(results.map((result) => result.review.id)).toEqual(['r1', 'r2', added.id]);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['first', 'second', 'review 4']);
    await outbox.close();

    const reopened = await openOutbox(dir);
    expect(reopened.log.warnings()).toEqual([]);
    expect(reopened.outbox.pending).toBe(0);
    const lines = await journalOf(dir);
    expect(lines.every((line) => line.v === 1 && ['queued', 'sending', 'delivered'].includes(line.op))).toBe(true);
  });

  it('moves bad lines in the middle to reviews.damaged.jsonl with a warning naming each, and keeps the records around them', async () => {
    const dir = await dataDir();
    const file = path.join(dir, 'reviews.jsonl');
    const bad = 'this is not json\n{"v":1,"op":"queued","id":"r9"}\n';
    await writeFile(file, `${queuedLine('r1', 'first')}${bad}${queuedLine('r2', 'second')}`);
    const { outbox, results, log } = await openOutbox(dir, { concurrency: 1 });

    expect(log.warnings().map((line) => [line.line, line.bytes, line.reason])).toEqual([
      [2, 17, 'not valid JSON'],
      [3, 32, expect.stringMatching(/^(at|server|player|stars|comment|origin): /) as string],
    ]);
    expect(log.warnings()[0]?.msg).toContain(`line 2 of ${file} (17 bytes at byte offset`);
    expect(await readFile(path.join(dir, 'reviews.damaged.jsonl'), 'utf8')).toBe(bad);
    expect(await readFile(file, 'utf8')).toBe(queuedLine('r1', 'first') + queuedLine('r2', 'second'));
    expect(outbox.pending).toBe(2);
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(2);
    }, WAIT);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['first', 'second']);
  });
});

describe('compaction', () => {
  it('rewrites the journal to the pending reviews once enough finished, and those survive it', async () => {
    const dir = await dataDir();
    const offline = makeClient({ baseUrl: `http://127.0.0.1:${await unclaimedPort()}` });
    const online = makeClient();
    // Reviews for 'elsewhere' go to a port nobody listens on, so they stay pending while the others finish.
    const { outbox, results, log } = await openOutbox(dir, {
      compactAfterFinished: 5,
      send: async (queued) => {
        await sendVia(queued.server === 'elsewhere' ? offline : online)(queued);
      },
    });
    const stuck = await outbox.enqueue(review(0, { server: 'elsewhere' }));
    for (const n of [1, 2, 3, 4, 5]) await outbox.enqueue(review(n));
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(5);
    }, WAIT);
    // The log line comes once the compacted file is reopened, a moment after the rename.
    await vi.waitFor(() => {
      expect(log.containing('compacted the review journal')).toHaveLength(1);
    }, WAIT);

    // The stuck review's attempts (`sending`, `not_sent`) come and go with its retries; of the finished reviews only
    // the delivered history is left: who, stars and when, no comment.
    const lines = (await journalOf(dir)).filter((line) => line.op !== 'sending' && line.op !== 'not_sent');
    expect(lines.filter((line) => line.op !== 'delivered')).toEqual([expect.objectContaining({ op: 'queued', id: stuck.id, server: 'elsewhere', comment: 'review 0' })]);
    const delivered = lines.filter((line) => line.op === 'delivered');
    expect(delivered.map((line) => line.id)).toEqual(results.map((result) => result.review.id));
    expect(delivered.every((line) => line.comment === undefined && line.server === SERVER && line.stars === 5)).toBe(true);
    expect(await readdir(dir)).toEqual(['reviews.jsonl']);
    expect(outbox.pending).toBe(1);
    await outbox.close();

    emulator.addServer('elsewhere');
    const reopened = await openOutbox(dir);
    reopened.outbox.start();
    await vi.waitFor(() => {
      expect(reopened.results).toHaveLength(1);
    }, WAIT);
    expect(reopened.results[0]).toEqual({ review: stuck, outcome: { ok: true } });
    expect(emulator.reviews.filter((stored) => stored.server === 'elsewhere').map((stored) => stored.comment)).toEqual(['review 0']);
  });

  it('keeps who reviewed through compactions while the cooldown lasts, and drops it after', async () => {
    const dir = await dataDir();
    let now = 1_800_000_000_000;
    const clock = { now: () => now };
    const { outbox, results, log } = await openOutbox(dir, { compactAfterFinished: 2, retainAcceptedMs: 60_000, clock });
    const first = await outbox.enqueue(review(1, { player: ALICE }));
    now += 1000;
    const second = await outbox.enqueue(review(2, { player: EVE }));
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(2);
    }, WAIT);
    await outbox.enqueue(review(3, { player: BOB })); // the next group runs the compaction
    await vi.waitFor(() => {
      expect(log.containing('compacted the review journal')).toHaveLength(1);
    }, WAIT);
    await outbox.close();
    // No comment in them: only who and when.
    expect((await journalOf(dir)).filter((line) => line.op === 'accepted')).toEqual([
      { v: 1, op: 'accepted', id: first.id, at: first.queuedAt, server: SERVER, player: { steam_id: ALICE.steamId } },
      { v: 1, op: 'accepted', id: second.id, at: second.queuedAt, server: SERVER, player: { eos_id: EVE.eosId } },
    ]);

    const reopened = await openOutbox(dir, { retainAcceptedMs: 60_000, clock, client: makeClient({ baseUrl: `http://127.0.0.1:${await unclaimedPort()}` }) });
    expect(reopened.outbox.accepted.map((accepted) => [accepted.id, accepted.player, accepted.at])).toEqual([
      [first.id, { steamId: ALICE.steamId }, first.queuedAt],
      [second.id, { eosId: EVE.eosId }, second.queuedAt],
      [expect.any(String), { steamId: BOB.steamId }, now],
    ]);
    await reopened.outbox.close();

    now += 60_000; // every cooldown is over
    const later = await openOutbox(dir, { retainAcceptedMs: 60_000, clock, compactAfterFinished: 1 });
    expect(later.outbox.accepted.map((accepted) => accepted.player)).toContainEqual({ steamId: BOB.steamId });
    await later.outbox.enqueue(review(4, { player: ALICE }));
    later.outbox.start();
    await vi.waitFor(() => {
      expect(later.results).toHaveLength(1);
    }, WAIT);
    await later.outbox.close();
    const kept = (await journalOf(dir)).filter((line) => line.op === 'accepted' || line.op === 'queued').map((line) => line.id);
    expect(kept).not.toContain(first.id);
    expect(kept).not.toContain(second.id);
  });

  it('compacts on open when most of the journal is finished, and removes a leftover temporary file', async () => {
    const dir = await dataDir();
    const file = path.join(dir, 'reviews.jsonl');
    const finished = ['a', 'b', 'c'].map((id) => queuedLine(id, `old ${id}`) + `${JSON.stringify({ v: 1, op: 'delivered', id, at: 1_700_000_000_001 })}\n`);
    const pendingLine = queuedLine('p', 'still pending');
    await writeFile(file, finished.join('') + pendingLine);
    await writeFile(`${file}.tmp`, 'half a compaction');

    const { outbox, results, log } = await openOutbox(dir);
    // The finished reviews' `delivered` lines stay, now naming their review (the delivered history), without comments.
    const history = ['a', 'b', 'c'].map(
      (id) => `${JSON.stringify({ v: 1, op: 'delivered', id, at: 1_700_000_000_001, server: SERVER, player: { steam_id: ALICE.steamId }, stars: 3, queued_at: 1_700_000_000_000 })}\n`,
    );
    expect(await readFile(file, 'utf8')).toBe(history.join('') + pendingLine);
    expect(await readdir(dir)).toEqual(['reviews.jsonl']);
    expect(log.containing('compacted the review journal')).toHaveLength(1);
    expect(outbox.pending).toBe(1);
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    expect(emulator.reviews.map((stored) => stored.comment)).toEqual(['still pending']);
  });
});

describe('group commit', () => {
  it('stores 300 simultaneous reviews with far fewer than 300 fsyncs', async () => {
    const dir = await dataDir();
    const { outbox, log } = await openOutbox(dir);
    const started = performance.now();
    const queued = await Promise.all(Array.from({ length: 300 }, (_, n) => outbox.enqueue(review(n))));
    const elapsedMs = performance.now() - started;

    const lines = await journalOf(dir);
    expect(lines).toHaveLength(300);
    expect(lines.every((line) => line.op === 'queued')).toBe(true);
    expect(new Set(lines.map((line) => line.id))).toEqual(new Set(queued.map((stored) => stored.id)));
    expect(outbox.pending).toBe(300);
    const commits = log.containing('journal: committed');
    expect(commits.reduce((sum, line) => sum + (line.records as number), 0)).toBe(300);
    expect(commits.length).toBeLessThan(10);
    expect(elapsedMs).toBeLessThan(patientMs(5000));
  });
});

describe('close', () => {
  it('waits for a send in flight, journals its outcome, and refuses new reviews', async () => {
    const dir = await dataDir();
    emulator.injectFault({ kind: 'latency', ms: 300, endpoint: 'review' });
    const { outbox, results } = await openOutbox(dir);
    const queued = await outbox.enqueue(review(1));
    outbox.start();
    await vi.waitFor(() => {
      expect(reviewCalls()).toHaveLength(1);
    }, WAIT);
    expect(results).toEqual([]);

    const closing = outbox.close();
    const refused = await outbox.enqueue(review(2)).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ReviewOutboxError);
    expect(refused).toMatchObject({ code: 'closed', message: expect.stringContaining('closed') as string });
    await closing;

    expect(results).toEqual([{ review: queued, outcome: { ok: true } }]);
    expect((await journalOf(dir)).map((line) => [line.op, line.id])).toEqual([
      ['queued', queued.id],
      ['sending', queued.id],
      ['delivered', queued.id],
    ]);
    await outbox.close();
    outbox.start();
    const reopened = await openOutbox(dir);
    expect(reopened.outbox.pending).toBe(0);
    expect(reopened.log.warnings()).toEqual([]);
  });
});

describe('a 2xx whose body says the review failed', () => {
  it.each([
    { body: { error: 'database down', status: 'failed' }, what: 'an error and status "failed"' },
    { body: { success: false, message: 'Could not save the review' }, what: 'success: false' },
    { body: { errors: { stars: ['The stars field is required.'] } }, what: 'Laravel errors' },
  ])('treats a 200 with $what as unconfirmed (written to unconfirmed.jsonl), never as delivered', async ({ body }) => {
    const dir = await dataDir();
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('http://gsa.test')
      .intercept({ path: '/api/v1/gameserver/ovddykvbs/review', method: 'POST' })
      .reply(200, JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
    const client = makeClient({ baseUrl: 'http://gsa.test', dispatcher: agent, clientId: 'id', clientSecret: 'secret' });
    try {
      const { outbox, results, log } = await openOutbox(dir, { client });
      const queued = await outbox.enqueue(review(1));
      outbox.start();
      await vi.waitFor(() => {
        expect(results).toHaveLength(1);
      }, WAIT);
      expect(results[0]?.outcome).toEqual({ ok: false, error: { code: 'unconfirmed', message: UNCONFIRMED_MESSAGE } });
      expect(log.containing(`review ${queued.id} delivered`)).toEqual([]);
      await outbox.close();
      expect(await jsonLines(path.join(dir, 'unconfirmed.jsonl'))).toMatchObject([
        { op: 'unconfirmed', id: queued.id, error: { code: 'bad_response', status: 200, message: expect.stringContaining('not the service\'s documented success') as string } },
      ]);
      expect((await journalOf(dir)).map((line) => line.op)).toEqual(['queued', 'sending', 'unconfirmed']);
      agent.assertNoPendingInterceptors();
    } finally {
      await agent.close();
    }
  });
});

describe('a letter that cannot be written', () => {
  /** Makes the letter file unwritable for real, even for root: a directory where the file goes (EISDIR). */
  async function blockLetterFile(dir: string, file: string): Promise<() => Promise<void>> {
    const blocker = path.join(dir, file);
    await mkdir(blocker);
    return () => rm(blocker, { recursive: true });
  }

  it('keeps an unconfirmed review in the journal, listed as unconfirmed, never re-sends it, and writes its letter once it can (also after a restart)', async () => {
    const dir = await dataDir();
    const unblock = await blockLetterFile(dir, 'unconfirmed.jsonl');
    const client = makeClient({ timeoutMs: 2000 });
    const first = await openOutbox(dir, { client, retryMinDelayMs: 60_000, retryMaxDelayMs: 60_000 });
    emulator.injectFault({ kind: 'drop', afterProcessing: true, endpoint: 'review' });
    const queued = await first.outbox.enqueue(review(1));
    first.outbox.start();
    await vi.waitFor(() => {
      expect(first.results).toHaveLength(1);
    }, WAIT);
    expect(first.results[0]?.outcome).toEqual({ ok: false, error: { code: 'unconfirmed', message: UNCONFIRMED_MESSAGE } });
    // The log says where the review is and that the write is retried.
    await vi.waitFor(() => {
      expect(first.log.containing('stays in the journal as unconfirmed')).toHaveLength(1);
    }, WAIT);

    // What `gsa-bridge reviews list` reads: the review, as unconfirmed, with its reason.
    await vi.waitFor(async () => {
      expect((await readOutboxContents(dir)).letters).toMatchObject([{ kind: 'unconfirmed', held: true, review: { id: queued.id, comment: 'review 1' }, reason: { code: 'network' } }]);
    }, WAIT);
    expect((await readOutboxContents(dir)).pending).toEqual([]);

    // A restart while the letter still cannot be written: not sent again, still listed.
    await first.outbox.close();
    const second = await openOutbox(dir, { client, retryMinDelayMs: 20, retryMaxDelayMs: 40 });
    expect(second.outbox.pending).toBe(0);
    second.outbox.start();
    await vi.waitFor(() => {
      expect(second.log.containing(`still cannot write ${path.join(dir, 'unconfirmed.jsonl')}`).length).toBeGreaterThanOrEqual(1);
    }, WAIT);
    expect((await readOutboxContents(dir)).letters).toMatchObject([{ kind: 'unconfirmed', held: true, review: { id: queued.id } }]);

    await unblock();
    await vi.waitFor(async () => {
      expect((await readOutboxContents(dir)).letters).toMatchObject([{ kind: 'unconfirmed', review: { id: queued.id } }]);
      expect((await readOutboxContents(dir)).letters[0]?.held).toBeUndefined();
    }, WAIT);
    await second.outbox.close();
    expect(await jsonLines(path.join(dir, 'unconfirmed.jsonl'))).toMatchObject([{ op: 'unconfirmed', id: queued.id, comment: 'review 1', error: { code: 'network' } }]);
    // The restart compacted the finished attempt away; the review and its held fate went through it.
    expect((await journalOf(dir)).map((line) => line.op)).toEqual(['queued', 'held', 'unconfirmed']);
    expect(reviewCalls()).toHaveLength(1);
    expect(emulator.reviews).toHaveLength(1);
    // Now a person can re-queue it like any other unconfirmed review.
    const third = await openOutbox(dir);
    expect((await third.outbox.requeue({ all: 'unconfirmed' })).requeued.map((requeued) => requeued.id)).toEqual([queued.id]);
  });

  it('keeps a refused review in the journal, listed as dead, until dead-letter.jsonl can be written', async () => {
    const dir = await dataDir();
    const unblock = await blockLetterFile(dir, 'dead-letter.jsonl');
    const message = 'You need to play for 2 hours before you can review this server.';
    emulator.setIneligible(SERVER, BOB.steamId ?? '', message);
    const { outbox, results, log } = await openOutbox(dir, { retryMinDelayMs: 20, retryMaxDelayMs: 40 });
    const queued = await outbox.enqueue(review(1, { player: BOB }));
    outbox.start();
    await vi.waitFor(() => {
      expect(results).toHaveLength(1);
    }, WAIT);
    // The player hears GSA's refusal at once: its fate is known, only its letter is late.
    expect(results[0]?.outcome).toEqual({ ok: false, error: { code: 'forbidden', message } });
    await vi.waitFor(async () => {
      expect((await readOutboxContents(dir)).letters).toMatchObject([{ kind: 'dead', held: true, review: { id: queued.id }, reason: { code: 'not_eligible', status: 403 } }]);
    }, WAIT);
    await vi.waitFor(() => {
      expect(log.containing('still cannot write').length).toBeGreaterThanOrEqual(1);
    }, WAIT);

    await unblock();
    await vi.waitFor(async () => {
      expect(await jsonLines(path.join(dir, 'dead-letter.jsonl'))).toMatchObject([{ op: 'dead', id: queued.id, error: { code: 'not_eligible' } }]);
    }, WAIT);
    await vi.waitFor(async () => {
      expect((await journalOf(dir)).map((line) => line.op)).toEqual(['queued', 'sending', 'held', 'dead']);
    }, WAIT);
    expect((await readOutboxContents(dir)).letters).toMatchObject([{ kind: 'dead', review: { id: queued.id } }]);
    expect(reviewCalls()).toHaveLength(1);
  });
});

describe('a restart after a send in flight', () => {
  it('re-sends a review whose journal shows it in flight when the process died, and reports it once as a possible duplicate', async () => {
    const dir = await dataDir();
    // The first process: GSA stores the review, then the process "dies" before the answer is journaled (its send
    // never settles and it is never closed: what SIGKILL leaves on disk is `queued` and `sending`, fsynced).
    const { outbox: dying } = await openOutbox(dir, {
      send: async (sent) => {
        await sendVia(makeClient())(sent);
        await new Promise<never>(() => undefined);
      },
    });
    const queued = await dying.enqueue(review(1));
    dying.start();
    await vi.waitFor(() => {
      expect(emulator.reviews).toHaveLength(1);
    }, WAIT);
    expect((await journalOf(dir)).map((line) => line.op)).toEqual(['queued', 'sending']);
    outboxes.splice(outboxes.indexOf(dying), 1);

    const resent: OutboxReview[] = [];
    const restarted = await openOutbox(dir, { onResend: (again) => resent.push(again) });
    restarted.outbox.start();
    await vi.waitFor(() => {
      expect(restarted.results).toHaveLength(1);
    }, WAIT);
    expect(restarted.results[0]).toEqual({ review: queued, outcome: { ok: true } });
    expect(resent).toEqual([queued]);
    expect(restarted.log.containing('was being sent when the sidecar stopped')).toHaveLength(1);
    // At-least-once: the window between GSA storing it and `delivered` on disk gave a duplicate, and it was counted.
    expect(emulator.reviews).toHaveLength(2);

    // A review that only waited (its attempt surely stored nothing) is no possible duplicate.
    await restarted.outbox.close();
    const calm = await openOutbox(dir, { onResend: (again) => resent.push(again) });
    calm.outbox.start();
    expect(calm.outbox.pending).toBe(0);
    expect(resent).toHaveLength(1);
  });

  it('does not count a review whose last attempt surely did not leave', async () => {
    const dir = await dataDir();
    const offline = makeClient({ baseUrl: `http://127.0.0.1:${await unclaimedPort()}` });
    const first = await openOutbox(dir, { client: offline, retryMinDelayMs: 60_000, retryMaxDelayMs: 60_000 });
    await first.outbox.enqueue(review(1));
    first.outbox.start();
    await vi.waitFor(async () => {
      expect((await journalOf(dir)).map((line) => line.op)).toEqual(['queued', 'sending', 'not_sent']);
    }, WAIT);
    await first.outbox.close();
    const resent: OutboxReview[] = [];
    const second = await openOutbox(dir, { onResend: (again) => resent.push(again) });
    second.outbox.start();
    await vi.waitFor(() => {
      expect(second.results).toHaveLength(1);
    }, WAIT);
    expect(second.results[0]?.outcome).toEqual({ ok: true });
    expect(resent).toEqual([]);
    expect(emulator.reviews).toHaveLength(1);
  });
});
