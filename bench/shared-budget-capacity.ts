// Benchmark: what N sidecars on one API key get from the shared budget, measured. For N = 1, 2, 3, 5: N in-process
// sidecars (each its own server, mod listener and data directory) share one key through one private redis-server
// (started here on a free port, stopped at the end) against the emulator enforcing a scaled window (100 calls per
// 6 s: one tenth of the service's minute, so every number per window is the number per minute at 100 per 60 s).
// Every sidecar's mod floods chat with new players (far more than the budget), and the first sidecar's mod also
// sends a steady trickle of reviews and server actions. Per N it prints: calls per window per sidecar, total
// arrivals per window against the limit, 429s, the worst review and action delay (mod send → emulator arrival) in
// windows, the mute share per sidecar and, from it, how stale a cached answer gets. Then the cost of one shared
// decision: RedisBudget.decide() round trips on loopback, next to LocalBudget.decide().
// Counts and ratios to the window matter; absolute times on a shared 2-core machine do not.
//
//   npm run bench:capacity     or     node dist/bench/shared-budget-capacity.js [local,nodes,...] [measuredWindows] [intervalMs]
// The window's guard (1%, at least 25 ms: 60 ms here) shrinks with the window while the machine's event-loop lag does
// not, so the bench also prints the lag of its one process (sidecars, emulator and mods all share it).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { WebSocket } from 'ws';
import { WebSocketAdapter } from '../adapters/websocket/websocketAdapter.js';
import { parseConfig } from '../src/app/config.js';
import { LocalBudget } from '../src/gsa/budget/apiBudget.js';
import { GsaEmulator } from '../src/gsaEmulator/index.js';
import { RedisBudget } from '../src/gsa/budget/shared/redisBudget.js';
import { pino } from 'pino';
import { startSidecar, type Sidecar } from '../src/sidecar.js';
import { commandsBetween, startPrivateRedis, type PrivateRedis } from './privateRedis.js';
import { sleep } from './processes.js';

/** `local`: one sidecar on the local budget (no Redis) under the same load, the control for the 429 column. */
const RUNS = (process.argv[2] ?? 'local,1,2,3,5').split(',').map((run) => (run === 'local' ? { nodes: 1, shared: false } : { nodes: Number(run), shared: true }));
const MEASURED_WINDOWS = Number(process.argv[3] ?? 5);
const REQUESTS = 100;
const INTERVAL_MS = Number(process.argv[4] ?? 6000);
/** Windows of warm-up before measuring: the flood fills the budget, the cycle settles. */
const WARM_WINDOWS = 1;
/** New players per second per sidecar: about 15 times what the whole key may look up. */
const FLOOD_PER_SECOND = 40;
const REVIEW_EVERY_MS = 1500;
/**
 * Rotating four actions, so one action is 4 × this apart. Webhook spacing (3 s per action and server) is not scaled
 * with the window: with one action sent again less than 3 s after the last one arrived, the spacing, not the budget,
 * would set its delay, which at full scale (a 60 s window) it hardly ever does.
 */
const ACTION_EVERY_MS = 3000;
const ACTIONS = ['restart', 'stop', 'start', 'wipe'] as const;
const TOKEN = 'bench-token';
/** The real-scale example for staleness: players chatting per sidecar, new players a minute per sidecar, the unmuted TTL. */
const EXAMPLE_PLAYERS = 200;
const EXAMPLE_NEW_PER_MINUTE = 10;
const UNMUTED_TTL_MINUTES = 5;

interface Sent {
  readonly sentAt: number;
}

interface NodeResult {
  readonly nodes: number;
  readonly shared: boolean;
  /** The bench process's event-loop delay while measuring, ms. */
  readonly loopDelayP99Ms: number;
  readonly loopDelayMaxMs: number;
  /** Per sidecar: its calls in each measured window (every endpoint), and its mute calls. */
  readonly callsPerWindow: number[][];
  readonly muteCallsPerWindow: number[][];
  readonly totalPerWindow: number[];
  readonly maxInAnyWindow: number;
  /** The shortest time from an arrival to the one `requests` later, over the whole run: below the window is an overshoot. */
  readonly minSpanMs: number | null;
  readonly refused: number;
  readonly status429: number;
  readonly reviewDelaysMs: number[];
  readonly reviewsMissing: number;
  readonly actionDelaysMs: number[];
  readonly actionsMissing: number;
  readonly redisCommands: number;
  /** Times a sidecar fell back to its local window (Redis error, or no answer within 250 ms), during the whole run. */
  readonly fallbacks: number;
  /** EVALSHA and EVAL: decisions and reports, one round trip each. */
  readonly redisScripts: number;
  readonly granted: number;
}

function steamId(node: number, index: number): string {
  return `7656119${String(node).padStart(2, '0')}${String(index).padStart(8, '0')}`;
}

async function connectMod(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` } });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => {
      resolve();
    });
    socket.once('error', reject);
  });
  return socket;
}

function urlOf(sidecar: Sidecar): string {
  const adapter = sidecar.adapters[0];
  if (!(adapter instanceof WebSocketAdapter)) throw new Error('no websocket adapter');
  return `ws://127.0.0.1:${adapter.port}/`;
}

async function runNodes(redis: PrivateRedis, nodes: number, shared: boolean): Promise<NodeResult> {
  const names = Array.from({ length: nodes }, (_, i) => `cap${i + 1}`);
  const ids = names.map((_, i) => 101 + i);
  const servers = names.map((name, i) => ({ name, id: 101 + i }));
  const spec = { requests: REQUESTS, intervalMs: INTERVAL_MS };
  const emulator = await GsaEmulator.start({ servers, enforceBudget: spec, window: spec, callLogLimit: 1_000_000 });
  const dirs: string[] = [];
  const sidecars: Sidecar[] = [];
  const mods: WebSocket[] = [];
  const timers: NodeJS.Timeout[] = [];
  // Warnings only: the one line a sidecar logs when it falls back to its local window is counted.
  const warnings: string[] = [];
  const started = performance.now();
  const logger = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(`+${f(performance.now() - started, 0)} ms ${line.trim()}`) });
  try {
    for (let i = 0; i < nodes; i++) {
      const dataDir = await mkdtemp(join(tmpdir(), 'gsa-bridge-bench-'));
      dirs.push(dataDir);
      const config = parseConfig(
        {
          api: {
            baseUrl: emulator.url,
            clientId: emulator.clientId,
            clientSecret: emulator.clientSecret,
            rateLimit: { ...spec, ...(shared ? { shared: { redis: redis.url, prefix: `bench-capacity-${nodes}`, nodes } } : {}) },
          },
          servers: [{ name: names[i], id: ids[i], allowActions: [...ACTIONS], adapters: [{ type: 'websocket', port: 0, token: TOKEN }] }],
          reviews: { dataDir },
        },
        {},
      );
      sidecars.push(await startSidecar(config, { logger }));
    }
    for (const sidecar of sidecars) mods.push(await connectMod(urlOf(sidecar)));

    // The flood: every 25 ms each mod sends its share of new players' chat lines.
    let next = 0;
    const perTick = FLOOD_PER_SECOND / 40;
    let owed = 0;
    timers.push(
      setInterval(() => {
        owed += perTick;
        for (; owed >= 1; owed--) {
          next++;
          mods.forEach((mod, node) => {
            mod.send(JSON.stringify({ type: 'chat', id: `c${next}`, player: { steam_id: steamId(node, next) }, channel: 'global', text: 'hello' }));
          });
        }
      }, 25),
    );
    await sleep(WARM_WINDOWS * INTERVAL_MS);

    const commandsBefore = await redis.commandCounts();
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const measuredFrom = performance.now();
    const reviews = new Map<string, Sent>();
    const actions: Sent[] = [];
    const first = mods[0];
    if (first === undefined) throw new Error('no mod');
    let reviewCount = 0;
    const sendReview = (): void => {
      reviewCount++;
      const comment = `capacity bench review ${reviewCount}`;
      reviews.set(comment, { sentAt: performance.now() });
      first.send(JSON.stringify({ type: 'review', id: `r${reviewCount}`, player: { steam_id: steamId(99, reviewCount) }, stars: 5, comment }));
    };
    const sendAction = (): void => {
      const action = ACTIONS[actions.length % ACTIONS.length];
      actions.push({ sentAt: performance.now() });
      first.send(JSON.stringify({ type: 'server.action', id: `a${actions.length}`, action }));
    };
    sendReview();
    sendAction();
    timers.push(setInterval(sendReview, REVIEW_EVERY_MS), setInterval(sendAction, ACTION_EVERY_MS));
    await sleep(MEASURED_WINDOWS * INTERVAL_MS);
    const measuredTo = performance.now();
    timers.splice(1).forEach(clearInterval);
    const commandsAfter = await redis.commandCounts();
    loopDelay.disable();

    // The flood goes on until every review and action sent has arrived (or 4 windows more): their delays are under load.
    const arrivedAll = (): boolean => emulator.reviews.length >= reviews.size && emulator.actions(ids[0] ?? 0).length >= actions.length;
    for (let waited = 0; !arrivedAll() && waited < 4 * INTERVAL_MS; waited += 100) await sleep(100);
    timers.splice(0).forEach(clearInterval);

    const windowOf = (at: number): number => Math.floor((at - measuredFrom) / INTERVAL_MS);
    const callsPerWindow = names.map(() => Array.from({ length: MEASURED_WINDOWS }, () => 0));
    const muteCallsPerWindow = names.map(() => Array.from({ length: MEASURED_WINDOWS }, () => 0));
    const totalPerWindow = Array.from({ length: MEASURED_WINDOWS }, () => 0);
    for (const call of emulator.calls) {
      if (call.at < measuredFrom || call.at >= measuredTo) continue;
      const window = windowOf(call.at);
      if (window >= MEASURED_WINDOWS) continue;
      const node = call.endpoint === 'webhook' ? ids.indexOf(Number(call.server)) : names.indexOf(call.server ?? '');
      totalPerWindow[window] = (totalPerWindow[window] ?? 0) + 1;
      if (node < 0) continue;
      const calls = callsPerWindow[node];
      if (calls !== undefined) calls[window] = (calls[window] ?? 0) + 1;
      const mute = muteCallsPerWindow[node];
      if (mute !== undefined && call.endpoint === 'mute') mute[window] = (mute[window] ?? 0) + 1;
    }
    const reviewDelaysMs: number[] = [];
    for (const stored of emulator.reviews) {
      const sent = reviews.get(stored.comment);
      if (sent !== undefined) reviewDelaysMs.push(stored.at - sent.sentAt);
    }
    const actionDelaysMs = emulator
      .actions(ids[0] ?? 0)
      .slice(0, actions.length)
      .map((record, i) => record.at - (actions[i]?.sentAt ?? record.at));
    const redisDuring = commandsBetween(commandsBefore, commandsAfter);
    if (process.env.BENCH_CAPACITY_DEBUG === '1') {
      const started = emulator.calls[0]?.at ?? 0;
      const refusedAt = emulator.calls.filter((call) => call.status === 429).map((call) => `${call.endpoint} ${call.server ?? ''} +${f(call.at - started, 0)} ms`);
      process.stderr.write(`N = ${nodes}: measured from +${f(measuredFrom - started, 0)} ms; 429s at ${refusedAt.join(', ') || 'none'}; window ${JSON.stringify(emulator.windowReport())}\n`);
      process.stderr.write(`  warnings: ${warnings.join('\n    ') || 'none'}\n`);
      process.stderr.write(`  action delays ms: ${actionDelaysMs.map((d) => f(d, 0)).join(' ')}\n  review delays ms: ${reviewDelaysMs.map((d) => f(d, 0)).join(' ')}\n`);
    }
    const budget = emulator.budgetReport();
    const counters = emulator.counters();
    const measuredCalls = totalPerWindow.reduce((a, b) => a + b, 0);
    return {
      nodes,
      shared,
      loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      loopDelayMaxMs: loopDelay.max / 1e6,
      callsPerWindow,
      muteCallsPerWindow,
      totalPerWindow,
      maxInAnyWindow: emulator.windowReport()?.maxInWindow ?? Number.NaN,
      minSpanMs: emulator.windowReport()?.minSpanMs ?? null,
      refused: budget?.refused ?? Number.NaN,
      status429: counters.byStatus['429'] ?? 0,
      reviewDelaysMs,
      reviewsMissing: reviews.size - reviewDelaysMs.length,
      actionDelaysMs,
      actionsMissing: actions.length - actionDelaysMs.length,
      redisCommands: redisDuring.total,
      fallbacks: warnings.filter((line) => line.includes('cannot be reached')).length,
      redisScripts: redisDuring.scripts,
      granted: measuredCalls,
    };
  } finally {
    timers.forEach(clearInterval);
    for (const mod of mods) mod.terminate();
    for (const sidecar of sidecars) await sidecar.stop();
    await emulator.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

const mean = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

async function decisionCost(redis: PrivateRedis): Promise<{ redis: number[]; local: number[] }> {
  const rounds = 5000;
  const waiting = { lookup: 1, refresh: 0, review: 0, action: 0 };
  const shared = new RedisBudget({ url: redis.url, prefix: 'bench-decide', clientId: 'bench-client', nodes: 1, requests: 1_000_000, intervalMs: 60_000 });
  const local = new LocalBudget({ requests: 1_000_000, intervalMs: 60_000 });
  const times = { redis: [] as number[], local: [] as number[] };
  try {
    // A fresh Redis is a new state: nobody starts until its rebuild's grace (1 s) has passed.
    const deadline = performance.now() + 10_000;
    while (!(shared.shared && !shared.rebuilding) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < 500; i++) await shared.decide(waiting);
    if (!shared.shared) throw new Error('the Redis budget did not share (is the private redis-server up?)');
    for (let i = 0; i < rounds; i++) {
      let began = performance.now();
      const decision = await shared.decide(waiting);
      times.redis.push(performance.now() - began);
      if (decision.start === undefined) throw new Error(`the Redis budget refused a start: ${JSON.stringify(decision)}`);
      began = performance.now();
      local.decide(waiting);
      times.local.push(performance.now() - began);
    }
  } finally {
    await shared.close();
    await local.close();
  }
  return times;
}

const f = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : '–');

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const results: NodeResult[] = [];
  let cost: { redis: number[]; local: number[] };
  try {
    for (const run of RUNS) {
      results.push(await runNodes(redis, run.nodes, run.shared));
      process.stderr.write(`N = ${run.nodes}${run.shared ? '' : ' (local budget)'} done\n`);
    }
    cost = await decisionCost(redis);
  } finally {
    await redis.stop();
  }

  console.log(
    `shared API budget, N sidecars on one key and one private redis-server, emulator enforcing ${REQUESTS} calls per ${INTERVAL_MS / 1000} s (the service's 100 per 60 s, scaled: a number per window is the number per minute at full scale); every mod floods ${FLOOD_PER_SECOND} new players/s, the first also sends a review every ${REVIEW_EVERY_MS / 1000} s and an action every ${ACTION_EVERY_MS / 1000} s; ${MEASURED_WINDOWS} windows measured after ${WARM_WINDOWS} of warm-up`,
  );
  console.log('');
  console.log(`| N | calls/window per sidecar: mean (min–max) | mute calls/window per sidecar: mean (min–max) | total per window: mean (max) | most in any ${INTERVAL_MS / 1000} s (limit ${REQUESTS}) | shortest span of ${REQUESTS + 1} arrivals | 429s | worst review delay (reviews) | worst action delay (actions) | Redis scripts (round trips) per call | fallbacks to the local window | event-loop delay p99 / max |`);
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    const all = r.callsPerWindow.flat();
    const mute = r.muteCallsPerWindow.flat();
    const missing = (n: number): string => (n > 0 ? `, ${n} not arrived` : '');
    const name = r.shared ? String(r.nodes) : '1, local budget (no Redis)';
    console.log(
      `| ${name} | ${f(mean(all))} (${Math.min(...all)}–${Math.max(...all)}) | ${f(mean(mute))} (${Math.min(...mute)}–${Math.max(...mute)}) | ${f(mean(r.totalPerWindow))} (${Math.max(...r.totalPerWindow)}) | ${r.maxInAnyWindow} | ${r.minSpanMs === null ? '–' : `${f(r.minSpanMs, 0)} ms`} | ${r.refused} (status 429: ${r.status429}) | ${f(Math.max(...r.reviewDelaysMs) / INTERVAL_MS, 2)} windows (${r.reviewDelaysMs.length}${missing(r.reviewsMissing)}) | ${f(Math.max(...r.actionDelaysMs) / INTERVAL_MS, 2)} windows (${r.actionDelaysMs.length}${missing(r.actionsMissing)}) | ${r.shared ? f(r.redisScripts / Math.max(1, r.granted), 1) : '–'} | ${r.shared ? r.fallbacks : '–'} | ${f(r.loopDelayP99Ms, 0)} / ${f(r.loopDelayMaxMs, 0)} ms |`,
    );
  }
  console.log('');
  console.log(
    `How stale a cached answer gets, at full scale (100 per 60 s): M = the mute calls a minute per sidecar (measured above, per window = per minute), F = first lookups a minute per sidecar, P = players chatting per sidecar; refreshes a minute = M − F, and an answer is at most about TTL + P / (M − F) minutes old (unbounded while M ≤ F). Example: P = ${EXAMPLE_PLAYERS}, F = ${EXAMPLE_NEW_PER_MINUTE}, unmuted TTL ${UNMUTED_TTL_MINUTES} min:`,
  );
  console.log('');
  console.log(`| N | M, mute calls a minute per sidecar (lowest sidecar) | refreshes a minute at F = ${EXAMPLE_NEW_PER_MINUTE} | oldest answer at P = ${EXAMPLE_PLAYERS} |`);
  console.log('|---:|---:|---:|---:|');
  for (const r of results) {
    if (!r.shared) continue;
    const perSidecar = r.muteCallsPerWindow.map((windows) => mean(windows));
    const lowest = Math.min(...perSidecar);
    const refreshes = mean(perSidecar) - EXAMPLE_NEW_PER_MINUTE;
    const refreshesLowest = lowest - EXAMPLE_NEW_PER_MINUTE;
    const stale = (rate: number): string => (rate > 0 ? `${f(UNMUTED_TTL_MINUTES + EXAMPLE_PLAYERS / rate)} min` : 'unbounded');
    console.log(`| ${r.nodes} | ${f(mean(perSidecar))} (${f(lowest)}) | ${f(refreshes)} (${f(refreshesLowest)}) | ${stale(refreshes)} (${stale(refreshesLowest)}) |`);
  }
  console.log('');
  console.log(
    `One decision, ${cost.redis.length} in a row on loopback: RedisBudget.decide() p50 ${f(percentile(cost.redis, 0.5), 3)} ms, p99 ${f(percentile(cost.redis, 0.99), 3)} ms; LocalBudget.decide() p50 ${f(percentile(cost.local, 0.5) * 1000, 1)} µs, p99 ${f(percentile(cost.local, 0.99) * 1000, 1)} µs`,
  );
}

await main();
