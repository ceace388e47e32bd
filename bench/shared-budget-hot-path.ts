// Benchmark: the chat hot path never touches Redis. Cache-hot chat verdicts of an in-process sidecar with the shared
// API budget off, and of one with it on (api.rateLimit.shared, a private redis-server this bench starts on a free
// port and stops), next to a bare `ws` echo server, each loaded by a client in its own process
// (bench/chatLoadClient). Rounds interleave the targets, rotating their order, and the `off` sidecar runs twice a
// round: the spread of off ÷ off is the noise that "on within noise of off" is judged against. The proof is the
// count: decisions in Redis and GSA calls during the measured load (both expected 0; the budget's state check, a
// timer every 500 ms while the sidecar's own starts are in the window, is counted apart). Ratios and counts matter; the
// absolute numbers on a shared 2-core machine do not.
//
//   node dist/bench/shared-budget-hot-path.js [messages] [rounds]      (part of npm run bench)

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocketAdapter } from '../adapters/websocket/websocketAdapter.js';
import { parseConfig } from '../src/app/config.js';
import { GsaEmulator } from '../src/gsaEmulator/index.js';
import { silentLogger } from '../src/log/logger.js';
import { startSidecar, type Sidecar } from '../src/sidecar.js';
import { load, startEchoServer, type LoadResult } from './chatTargets.js';
import { commandsBetween, startPrivateRedis } from './privateRedis.js';
import { median } from './processes.js';

const messages = Number(process.argv[2] ?? 40_000);
const rounds = Number(process.argv[3] ?? 6);
const CONNECTIONS = 4;
const IN_FLIGHT = 64;
const PLAYERS = 1000;
const TOKEN = 'bench-token';
const SERVER = 'ovddykvbs';

type Target = 'echo' | 'off' | 'on' | 'off again';
const TARGETS: readonly Target[] = ['echo', 'off', 'on', 'off again'];

function urlOf(sidecar: Sidecar): string {
  const adapter = sidecar.adapters[0];
  if (!(adapter instanceof WebSocketAdapter)) throw new Error('no websocket adapter');
  return `ws://127.0.0.1:${adapter.port}/`;
}

/** Chat lines until every player the load uses is cached (a pass may leave some out: see chat-verdicts.ts). */
async function warm(sidecar: Sidecar, url: string): Promise<void> {
  const bridge = sidecar.bridges.get(SERVER);
  for (let pass = 0; pass < 10 && (pass === 0 || (bridge?.cachedPlayers ?? 0) < PLAYERS); pass++) {
    await load(url, TOKEN, ['closed', CONNECTIONS, IN_FLIGHT, PLAYERS * 2, PLAYERS]);
  }
  if ((bridge?.cachedPlayers ?? 0) < PLAYERS) throw new Error(`warm-up cached ${bridge?.cachedPlayers ?? 0} of ${PLAYERS} players`);
}

const range = (values: readonly number[]): string => `${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)}`;

async function main(): Promise<void> {
  const redis = await startPrivateRedis();
  const emulator = await GsaEmulator.start();
  const dirs: string[] = [];
  const sidecars: Sidecar[] = [];
  const echo = await startEchoServer();
  try {
    const start = async (shared: boolean): Promise<Sidecar> => {
      const dataDir = await mkdtemp(join(tmpdir(), 'gsa-bridge-bench-'));
      dirs.push(dataDir);
      const rateLimit = { requests: 100_000, intervalMs: 1000, ...(shared ? { shared: { redis: redis.url, prefix: 'bench-hot-path', nodes: 1 } } : {}) };
      const config = parseConfig(
        {
          api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, rateLimit },
          servers: [{ name: SERVER, adapters: [{ type: 'websocket', port: 0, token: TOKEN }] }],
          reviews: { dataDir },
        },
        {},
      );
      const sidecar = await startSidecar(config, { logger: silentLogger() });
      sidecars.push(sidecar);
      return sidecar;
    };
    const off = await start(false);
    const on = await start(true);
    const urls: Record<Target, string> = { echo: echo.url, off: urlOf(off), on: urlOf(on), 'off again': urlOf(off) };

    await warm(off, urls.off);
    const commandsBeforeOnWarmUp = await redis.commandCounts();
    await warm(on, urls.on);
    const warmUpCommands = commandsBetween(commandsBeforeOnWarmUp, await redis.commandCounts());
    await load(echo.url, TOKEN, ['closed', CONNECTIONS, IN_FLIGHT, 5000, PLAYERS]);

    const gsaBefore = emulator.counters().total;
    const commandsBefore = await redis.commandCounts();
    const results: Record<Target, LoadResult[]> = { echo: [], off: [], on: [], 'off again': [] };
    for (let round = 0; round < rounds; round++) {
      // Rotate the order so no target always runs first (after a pause) or last.
      for (let i = 0; i < TARGETS.length; i++) {
        const target = TARGETS[(round + i) % TARGETS.length] ?? 'echo';
        results[target].push(await load(urls[target], TOKEN, ['closed', CONNECTIONS, IN_FLIGHT, messages, PLAYERS]));
      }
    }
    const redisDuring = commandsBetween(commandsBefore, await redis.commandCounts());
    const gsaDuring = emulator.counters().total - gsaBefore;

    const perRound = (a: Target, b: Target): number[] => results[a].map((r, i) => r.perSecond / (results[b][i]?.perSecond ?? Number.NaN));
    const onOff = perRound('on', 'off');
    const onOffAgain = perRound('on', 'off again');
    const noise = perRound('off again', 'off');
    const row = (name: string, target: Target): string => {
      const rows = results[target];
      const ratios = perRound(target, 'echo');
      return `| ${name} | ${median(rows.map((r) => r.perSecond)).toFixed(0)} | ${median(rows.map((r) => r.p50Ms)).toFixed(2)} | ${median(rows.map((r) => r.p99Ms)).toFixed(2)} | ${target === 'echo' ? '1.000' : `${median(ratios).toFixed(3)} (${range(ratios)})`} |`;
    };
    console.log(
      `cache-hot chat verdicts, shared API budget off and on: client in its own process, ${CONNECTIONS} connections x ${IN_FLIGHT} in flight, ${messages} chats per target per round, ${rounds} rounds interleaved (order rotated; medians, per-round ranges)`,
    );
    console.log('| target | chats/s | p50 ms | p99 ms | ÷ echo, same round |');
    console.log('|---|---:|---:|---:|---:|');
    console.log(row('bare ws echo (baseline)', 'echo'));
    console.log(row('sidecar, shared off', 'off'));
    console.log(row('sidecar, shared on (private redis-server)', 'on'));
    console.log(row('sidecar, shared off (again, same round)', 'off again'));
    console.log('');
    console.log(`shared on ÷ off, same round: median ${median(onOff).toFixed(3)} (${range(onOff)}); on ÷ off again: median ${median(onOffAgain).toFixed(3)} (${range(onOffAgain)})`);
    console.log(`noise, off again ÷ off, same round: median ${median(noise).toFixed(3)} (${range(noise)})`);
    // Within noise: the median difference between on and off (against either off run) is no larger than the largest
    // difference between the two off runs of one round (both compared in log terms, so 0.8× and 1.25× weigh alike).
    const noiseBound = Math.max(...noise.map((r) => Math.abs(Math.log(r))));
    const onDifference = Math.max(Math.abs(Math.log(median(onOff))), Math.abs(Math.log(median(onOffAgain))));
    console.log(
      `shared on within the measured noise of off: ${onDifference <= noiseBound ? 'yes' : 'no'} (median on ÷ off differs by ${(100 * (Math.exp(onDifference) - 1)).toFixed(1)}%; off ÷ off by up to ${(100 * (Math.exp(noiseBound) - 1)).toFixed(1)}% in one round)`,
    );
    const byName = [...redisDuring.byName].map(([name, calls]) => `${name} ${calls}`).join(', ');
    // A decision (DECIDE_SCRIPT) is the only script that counts the window (ZCARD): the chat path asks Redis nothing.
    // The state check (JOIN_SCRIPT, every 500 ms while this sidecar's own starts are in the window) is a timer, not chat.
    console.log(`Redis commands during the measured load: ${redisDuring.total}${byName === '' ? '' : ` (${byName})`}; decisions among them (zcard): ${redisDuring.byName.get('zcard') ?? 0} (cache-hot: expected 0; the rest is the 500 ms state check while the warm-up's starts are in the window); during the warm-up of the shared sidecar (${PLAYERS} first lookups): ${warmUpCommands.total}, of them ${warmUpCommands.scripts} scripts (${[...warmUpCommands.byName].map(([name, calls]) => `${name} ${calls}`).join(', ')})`);
    console.log(`GSA calls during the measured load: ${gsaDuring} (cache-hot: expected 0)`);
  } finally {
    await echo.close();
    for (const sidecar of sidecars) await sidecar.stop();
    await emulator.close();
    await redis.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

await main();
