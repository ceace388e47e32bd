// Benchmark: cache-hot chat verdicts through the real sidecar (mod WebSocket → bridge → mute cache → verdict)
// next to a bare `ws` echo server doing the same JSON round trip, in one run, each loaded by a client in a
// separate process (bench/chatLoadClient). Then the latency at a fixed 2 000 chats/s. Ratios matter; the
// absolute numbers on a shared 2-core machine do not.
// A third row runs the same sidecar with the chat filter on (moderation.filter: FILTER_WORDS listed words), every
// line clean, as the bulk of chat is: the filter's cost where it must cost almost nothing. A last line gives the
// matcher's own cost per clean line, in this process.
//
//   npm run bench     or     node dist/bench/chat-verdicts.js [messages] [rounds] [metrics]
// With `metrics`, the sidecar's events are subscribed by the Prometheus metrics, as in `run`: the cost of listening.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketAdapter } from '../adapters/websocket/websocketAdapter.js';
import { parseConfig } from '../src/app/config.js';
import { GsaEmulator } from '../src/gsaEmulator/index.js';
import { silentLogger } from '../src/log/logger.js';
import { startSidecar } from '../src/sidecar.js';
import { SidecarMetrics } from '../src/ops/metrics.js';
import { ChatFilter } from '../src/moderation/chatFilter.js';
import { ModerationLog } from '../src/moderation/moderationLog.js';
import { StrikeBook } from '../src/moderation/strikeBook.js';
import { WordFilter } from '../src/moderation/wordFilter.js';
import { load as loadTarget, startEchoServer, type LoadResult } from './chatTargets.js';

const messages = Number(process.argv[2] ?? 40_000);
const rounds = Number(process.argv[3] ?? 3);
const withMetrics = process.argv[4] === 'metrics';
const CONNECTIONS = 4;
const IN_FLIGHT = 64;
const PLAYERS = 1000;
const TOKEN = 'bench-token';
/** Listed words of the filtered row: a few short common ones and many made up, some sharing the clean line's prefixes. */
const FILTER_WORDS = 1000;

function filterWords(): string[] {
  const words = ['scam', 'hell', 'ass', 'bad', 'cheater', 'go away'];
  for (let index = 0; words.length < FILTER_WORDS; index++) {
    let suffix = '';
    for (let rest = index; suffix.length < 3 || rest > 0; rest = Math.floor(rest / 26)) suffix += String.fromCharCode(97 + (rest % 26));
    words.push(`${['th', 'he', 'the', 'her', 'z'][index % 5] ?? 'z'}${suffix}`);
  }
  return words;
}

/**
 * The matcher alone on the load's clean line and a longer one: ns per line, in this process. It first meets the
 * chat any live server soon sees (a stretch, a spacing trick, a symbol, a listed phrase): the JIT rebuilds the walk
 * for the paths they take, and that is the clean line's cost from then on (about 10% over a matcher that has only
 * ever seen clean lines, which no live server's stays).
 */
function matcherCost(words: readonly string[]): { readonly short: number; readonly long: number } {
  const matcher = new WordFilter(words);
  for (let round = 0; round < 2_000; round++) for (const line of ['so b a d', 'baaad!', 'go  away now', '@scam.', 'h.e.l.l']) matcher.matchIndex(line);
  const time = (line: string): number => {
    const runs = 400_000;
    let found = 0;
    for (let index = 0; index < 50_000; index++) found += matcher.matchIndex(line);
    const started = process.hrtime.bigint();
    for (let index = 0; index < runs; index++) found += matcher.matchIndex(line);
    const ns = Number(process.hrtime.bigint() - started) / runs;
    if (found === 42) console.log('');
    return ns;
  };
  return { short: time('hello there'), long: time('anyone up for a raid on the north base tonight? bring rockets and meds') };
}

const load = (url: string, args: (string | number)[]): Promise<LoadResult> => loadTarget(url, TOKEN, args);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const emulator = await GsaEmulator.start();
  const dataDir = await mkdtemp(join(tmpdir(), 'gsa-bridge-bench-'));
  const config = parseConfig(
    {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, rateLimit: { requests: 100_000, intervalMs: 1000 } },
      servers: [{ name: 'ovddykvbs', adapters: [{ type: 'websocket', port: 0, token: TOKEN }] }],
      reviews: { dataDir },
    },
    {},
  );
  const sidecar = await startSidecar(config, { logger: silentLogger() });
  const logger = silentLogger();
  const words = filterWords();
  const filter = new ChatFilter({
    words,
    ladder: [{ action: 'warn' }],
    dryRun: false,
    strikes: await StrikeBook.open({ dataDir, memoryMs: 86_400_000, logger }),
    log: await ModerationLog.open(dataDir, logger),
    logger,
  });
  const metrics = withMetrics
    ? new SidecarMetrics({ events: sidecar.events, sources: { adapters: () => [], outboxPending: () => sidecar.outbox.pending } })
    : undefined;
  const adapter = sidecar.adapters[0];
  if (!(adapter instanceof WebSocketAdapter)) throw new Error('no websocket adapter');
  const sidecarUrl = `ws://127.0.0.1:${adapter.port}/`;
  const echo = await startEchoServer();

  try {
    // Warm the mute cache with every player the load uses, then warm both targets' JIT. A pass may leave players out:
    // one mod holds at most maxQueuedPerSource (250) lookups waiting for the wire, and a lookup that gives way is
    // asked again at the player's next line; so passes repeat until every player is cached.
    const bridge = sidecar.bridges.get('ovddykvbs');
    for (let pass = 0; pass < 10 && (pass === 0 || (bridge?.cachedPlayers ?? 0) < PLAYERS); pass++) {
      await load(sidecarUrl, ['closed', CONNECTIONS, IN_FLIGHT, PLAYERS * 2, PLAYERS]);
    }
    await load(echo.url, ['closed', CONNECTIONS, IN_FLIGHT, 5000, PLAYERS]);
    const gsaCallsAfterWarmUp = emulator.calls.length;

    const results = { echo: [] as LoadResult[], sidecar: [] as LoadResult[], filtered: [] as LoadResult[] };
    for (let round = 0; round < rounds; round++) {
      results.echo.push(await load(echo.url, ['closed', CONNECTIONS, IN_FLIGHT, messages, PLAYERS]));
      results.sidecar.push(await load(sidecarUrl, ['closed', CONNECTIONS, IN_FLIGHT, messages, PLAYERS]));
      bridge?.useFilter(filter);
      results.filtered.push(await load(sidecarUrl, ['closed', CONNECTIONS, IN_FLIGHT, messages, PLAYERS]));
      bridge?.useFilter(undefined);
    }
    const atRate = {
      echo: await load(echo.url, ['rate', CONNECTIONS, 2000, 5, PLAYERS]),
      sidecar: await load(sidecarUrl, ['rate', CONNECTIONS, 2000, 5, PLAYERS]),
      filtered: await (async () => {
        bridge?.useFilter(filter);
        const result = await load(sidecarUrl, ['rate', CONNECTIONS, 2000, 5, PLAYERS]);
        bridge?.useFilter(undefined);
        return result;
      })(),
    };
    const gsaCallsDuringLoad = emulator.calls.length - gsaCallsAfterWarmUp;

    const row = (name: string, rows: readonly LoadResult[], rate: LoadResult): string =>
      `| ${name} | ${median(rows.map((r) => r.perSecond)).toFixed(0)} | ${median(rows.map((r) => r.p50Ms)).toFixed(2)} | ${median(rows.map((r) => r.p99Ms)).toFixed(2)} | ${rate.p50Ms.toFixed(2)} | ${rate.p99Ms.toFixed(2)} |`;
    const ratio = median(results.sidecar.map((r) => r.perSecond)) / median(results.echo.map((r) => r.perSecond));
    console.log(`cache-hot chat verdicts: client in its own process, ${CONNECTIONS} connections x ${IN_FLIGHT} in flight, ${messages} chats x ${rounds} rounds (medians); then 2000 chats/s for 5 s`);
    console.log('| target | chats/s | p50 ms | p99 ms | p50 ms @2000/s | p99 ms @2000/s |');
    console.log('|---|---:|---:|---:|---:|---:|');
    console.log(row('bare ws echo (baseline)', results.echo, atRate.echo));
    console.log(row('gsa-bridge sidecar', results.sidecar, atRate.sidecar));
    console.log(row(`gsa-bridge sidecar + chat filter (${words.length} words, clean lines)`, results.filtered, atRate.filtered));
    console.log(`sidecar / echo throughput: ${ratio.toFixed(3)} (goal >= 0.9); p99 at 2000 chats/s: ${atRate.sidecar.p99Ms.toFixed(2)} ms (goal <= 1 ms; echo ${atRate.echo.p99Ms.toFixed(2)} ms)`);
    const filteredRatio = median(results.filtered.map((r) => r.perSecond)) / median(results.echo.map((r) => r.perSecond));
    const cost = matcherCost(words);
    console.log(`sidecar + chat filter / echo throughput: ${filteredRatio.toFixed(3)}; with / without the filter: ${(filteredRatio / ratio).toFixed(3)}`);
    console.log(`the matcher alone, ${words.length} words, clean line: ${cost.short.toFixed(0)} ns ("hello there"), ${cost.long.toFixed(0)} ns (70 characters)`);
    console.log(`GSA calls during the measured load: ${gsaCallsDuringLoad} (cache-hot: expected 0)`);
    if (metrics !== undefined) console.log(`metrics listening: ${(await metrics.text()).match(/^gsa_bridge_chat_verdicts_total\{verdict="allow"\} .*$/m)?.[0] ?? '?'}`);
  } finally {
    await echo.close();
    metrics?.close();
    await sidecar.stop();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
