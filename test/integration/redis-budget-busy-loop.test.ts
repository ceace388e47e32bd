// A sidecar whose own event loop was busy (a burst of chat lines, a long GC) must not take Redis for unreachable: an
// answer that arrived while the loop was blocked is read before the "no answer within answerTimeoutMs" timer, which
// is due by then too, can switch the budget to its fallback. Found by the multi-node process test: three sidecars
// each handed 250 chat lines at once fell back one after another ("no answer within 250 ms") with Redis answering in
// a millisecond, and their fallbacks on top of the shared window brought 429s.
import { spawnSync } from 'node:child_process';
import { afterEach, expect, it } from 'vitest';
import { RedisBudget } from '../../src/gsa/budget/shared/redisBudget.js';
import { sharedKeyName } from '../../src/gsa/redis/sharedKeyName.js';
import { captureLogger, type LogLine } from '../fixtures/capturedLogLines.js';
import { describeWithRedis, startRedis } from '../fixtures/redisServer.js';
import { patientMs } from '../fixtures/patience.js';

const PREFIX = 'gsa-bridge-busy-loop';
const CLIENT_ID = 'client-id-busy-loop';
// Short enough to be long overdue once the blocked loop is free; long enough, stretched on a busy machine, that no
// other decision of the test runs out of it (100 ms did, beside other test files: a fallback and its warning).
const ANSWER_TIMEOUT_MS = patientMs(300);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** ZCARD of a key, read by a child process: this process's event loop is blocked while it asks. */
function windowCountBlocking(port: number, key: string): number {
  const script = `
    const socket = require('node:net').connect(${String(port)}, '127.0.0.1', () => socket.write('*2\\r\\n$5\\r\\nZCARD\\r\\n$${String(Buffer.byteLength(key))}\\r\\n${key}\\r\\n'));
    socket.on('data', (data) => { process.stdout.write(String(data)); socket.end(); });`;
  const { stdout } = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: patientMs(10_000) });
  return Number(/^:(\d+)/.exec(stdout)?.[1] ?? Number.NaN);
}

/**
 * One decision asked just before this process's loop is blocked until Redis has granted the start (it is in the
 * window) and the answer timer is overdue, as when a sidecar is busy with a burst of chat. Returns the decision.
 */
async function decideThroughABlockedLoop(budget: RedisBudget, port: number): Promise<unknown> {
  const decision = budget.decide({ lookup: 1, refresh: 0, review: 0, action: 0 });
  // The client writes its commands at the end of the tick: let that one turn of the loop pass first.
  await new Promise((resolve) => setImmediate(resolve));
  const blockedFrom = performance.now();
  let counted = 0;
  while (counted < 2 || performance.now() - blockedFrom < 2 * ANSWER_TIMEOUT_MS) {
    if (counted < 2) counted = windowCountBlocking(port, `${sharedKeyName(PREFIX, CLIENT_ID)}:window`);
    if (performance.now() - blockedFrom > patientMs(10_000)) throw new Error('Redis did not count the start in time');
  }
  return decision;
}

async function sharedBudget(url: string, lines: LogLine[], lateGrantMs: number): Promise<RedisBudget> {
  const budget = new RedisBudget({ url, prefix: PREFIX, clientId: CLIENT_ID, nodes: 3, requests: 20, intervalMs: 1000, answerTimeoutMs: ANSWER_TIMEOUT_MS, lateGrantMs, logger: captureLogger(lines) });
  cleanup.push(() => budget.close());
  const deadline = performance.now() + patientMs(10_000);
  // Shared, and past the grace a new state keeps while sidecars put their starts back.
  while (!(budget.shared && !budget.rebuilding) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(budget.shared && !budget.rebuilding).toBe(true);
  // Redis knows the script from then on (the first decision loads it: NOSCRIPT, then EVAL).
  expect(await budget.decide({ lookup: 1, refresh: 0, review: 0, action: 0 })).toEqual({ start: 'lookup' });
  return budget;
}

describeWithRedis('the shared budget with a busy event loop', () => {
  it('reads an answer Redis gave while the loop was blocked past answerTimeoutMs, and stays shared', async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.stop());
    const lines: LogLine[] = [];
    // A grant read late is still used here (lateGrantMs far above the block): this test is about the timeout.
    const budget = await sharedBudget(redis.url, lines, 10_000);
    expect(await decideThroughABlockedLoop(budget, redis.port)).toEqual({ start: 'lookup' });
    expect(budget.shared).toBe(true);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([]);
  });

  it('does not use a start whose grant was read later than lateGrantMs: it stays counted, and the node asks again', async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.stop());
    const lines: LogLine[] = [];
    // Late past this, far less than the block: the blocked grant is late; a grant read on a free loop is not.
    const budget = await sharedBudget(redis.url, lines, patientMs(100));
    // Redis counted it (2 in the window), but the call would leave at least the block after that: not used.
    expect(await decideThroughABlockedLoop(budget, redis.port)).toEqual({ waitMs: 0 });
    expect(budget.shared).toBe(true);
    expect(lines.filter((line) => line.level === 'warn')).toEqual([]);
    expect(lines.some((line) => line.level === 'debug' && /a start granted \d+ ms ago is not used/.test(line.message))).toBe(true);
    // Asked again with nothing in the way, the next start is used.
    expect(await budget.decide({ lookup: 1, refresh: 0, review: 0, action: 0 })).toEqual({ start: 'lookup' });
  });
});
