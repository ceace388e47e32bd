// Benchmark: cache-hot chat verdicts through the real sidecar (mod WebSocket → bridge → mute cache → verdict)
// next to a bare `ws` echo server doing the same JSON round trip, in one run, each loaded by a client in a
// separate process (bench/chatLoadClient). Then the latency at a fixed 2 000 chats/s. Ratios matter; the
// absolute numbers on a shared 2-core machine do not.
//
//   npm run bench     or     node dist/bench/chat-verdicts.js [messages] [rounds] [metrics]
// With `metrics`, the sidecar's events are subscribed by the Prometheus metrics, as in `run`: the cost of listening.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketAdapter } from '../adapters/websocket/websocketAdapter.js';
import { parseConfig } from '../src/app/config.js';
import { GsaEmulator } from '../src/gsa/emulator/index.js';
import { silentLogger } from '../src/log/logger.js';
import { startSidecar } from '../src/sidecar.js';
import { SidecarMetrics } from '../src/ops/metrics.js';
import { load as loadTarget, startEchoServer, type LoadResult } from './chatTargets.js';

const messages = Number(process.argv[2] ?? 40_000);
const rounds = Number(process.argv[3] ?? 3);
const withMetrics = process.argv[4] === 'metrics';
const CONNECTIONS = 4;
const IN_FLIGHT = 64;
const PLAYERS = 1000;
const TOKEN = 'bench-token';

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

    const results = { echo: [] as LoadResult[], sidecar: [] as LoadResult[] };
    for (let round = 0; round < rounds; round++) {
      results.echo.push(await load(echo.url, ['closed', CONNECTIONS, IN_FLIGHT, messages, PLAYERS]));
      results.sidecar.push(await load(sidecarUrl, ['closed', CONNECTIONS, IN_FLIGHT, messages, PLAYERS]));
    }
    const atRate = {
      echo: await load(echo.url, ['rate', CONNECTIONS, 2000, 5, PLAYERS]),
      sidecar: await load(sidecarUrl, ['rate', CONNECTIONS, 2000, 5, PLAYERS]),
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
    console.log(`sidecar / echo throughput: ${ratio.toFixed(3)} (goal >= 0.9); p99 at 2000 chats/s: ${atRate.sidecar.p99Ms.toFixed(2)} ms (goal <= 1 ms; echo ${atRate.echo.p99Ms.toFixed(2)} ms)`);
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
