// Benchmark: memory as a host sees it. Resident memory (RSS) of a real `gsa-bridge run` process with one game
// server, the way a host runs it (default Node flags): at idle (3 s and 12 s after start), during and right after
// 100 000 distinct players were looked up over the mod protocol, a few seconds later, and after a further steady
// chat load from those players (cache hits). Then the live heap each cached player costs, measured in this process:
// the sidecar started in-process, the same lookups, and heapUsed compared after forced collections (this process
// needs `--expose-gc`; the sidecar processes above never get it).
// The emulator runs in its own process; the mod client is this process. Each run starts a fresh sidecar; the
// table shows the median of the runs. RSS is read from /proc/<pid>/status (VmRSS), so this needs Linux.
//
//   npm run bench     or     node --expose-gc dist/bench/run-memory.js [players] [runs]

import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { parseConfig } from '../src/app/config.js';
import { silentLogger } from '../src/log/logger.js';
import { startSidecar } from '../src/sidecar.js';
import { freePort, median, residentMb, sleep, spawnCli, spawnEmulator, stopProcess } from './processes.js';

const players = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 3);
const IN_FLIGHT = 256;
const IDLE_SETTLE_MS = 3000;
/** V8's memory reducer runs about 8 s after the last full GC when the process allocates little: idle for good. */
const IDLE_LATER_MS = 12_000;
const AFTER_SETTLE_MS = 3000;
/** A later reading: what a host sees once the burst is over, with nothing forced (V8 collects when it decides to). */
const AFTER_LATER_MS = 8000;
/** RSS is sampled this often while the lookups run, for the highest value during the load. */
const DURING_SAMPLE_MS = 200;
/** Then a steady chat load from the cached players, the way a running server sees it. */
const CHAT_PER_SECOND = 200;
const CHAT_SECONDS = 20;
const TOKEN = 'bench-token-0123456789abcdef';
const GOALS = { idle: 60, afterLookups: 100 };
const SERVER = 'ovddykvbs';

/** The bench's config: one server, one mod listener, the rate limit lifted so 100 000 first lookups take seconds. */
function benchConfig(emulatorUrl: string, port: number, dataDir: string): Record<string, unknown> {
  return {
    api: {
      baseUrl: emulatorUrl,
      clientId: 'demo-client',
      clientSecret: 'demo-secret',
      // Lifted so that 100 000 first lookups can happen in seconds; the budget is not what is measured here.
      rateLimit: { requests: 1_000_000_000, intervalMs: 1000, maxQueued: 1_000_000 },
    },
    servers: [{ name: SERVER, adapters: [{ type: 'websocket', host: '127.0.0.1', port, token: TOKEN }] }],
    mute: { decisionTimeoutMs: 5000 },
    reviews: { dataDir },
    http: { port: 0 },
    log: { level: 'info' },
  };
}

interface RunResult {
  readonly idleMb: number;
  readonly idleLaterMb: number;
  readonly duringMaxMb: number;
  readonly rightAfterMb: number;
  readonly settledMb: number;
  readonly laterMb: number;
  readonly afterChatMb: number;
  readonly peakMb: number;
  readonly seconds: number;
  readonly policyAnswers: number;
}

/** Sends CHAT_PER_SECOND chat lines a second from the players looked up before (cache hits), for CHAT_SECONDS. */
async function steadyChat(url: string): Promise<void> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false });
  await once(socket, 'open');
  let answered = 0;
  socket.on('message', () => {
    answered++;
  });
  const total = CHAT_PER_SECOND * CHAT_SECONDS;
  const started = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * CHAT_PER_SECOND));
    for (; sent < due; sent++) {
      const steamId = `7656119${String((sent * 7919) % players).padStart(10, '0')}`;
      socket.send(`{"type":"chat","id":"${sent}","player":{"steam_id":"${steamId}"},"channel":"global","text":"gg, well played"}`);
    }
    await sleep(10);
  }
  while (answered < total) await sleep(10);
  socket.close();
}

/**
 * Sends one mute.check per distinct player (`count` of them, numbered from `first`), IN_FLIGHT at a time, and waits
 * for every mute.status.
 */
async function lookUpPlayers(url: string, count = players, first = 0): Promise<{ seconds: number; policyAnswers: number }> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false });
  await once(socket, 'open');
  let sent = 0;
  let answered = 0;
  let policyAnswers = 0;
  const started = performance.now();
  const send = (): void => {
    const steamId = `7656119${String(first + sent).padStart(10, '0')}`;
    socket.send(`{"type":"mute.check","id":"${sent}","player":{"steam_id":"${steamId}"}}`);
    sent++;
  };
  await new Promise<void>((resolve, reject) => {
    socket.on('message', (data: Buffer) => {
      const text = data.toString();
      if (!text.includes('"mute.status"')) {
        if (text.includes('"error"')) reject(new Error(`the sidecar refused a lookup: ${text}`));
        return;
      }
      if (text.includes('"policy"')) policyAnswers++;
      answered++;
      if (answered === count) resolve();
      else if (sent < count) send();
    });
    socket.once('close', () => {
      reject(new Error(`the sidecar closed the connection after ${answered} answers`));
    });
    for (let i = 0; i < IN_FLIGHT && sent < count; i++) send();
  });
  const seconds = (performance.now() - started) / 1000;
  socket.removeAllListeners('close');
  socket.close();
  return { seconds, policyAnswers };
}

async function oneRun(emulatorUrl: string, dir: string, index: number): Promise<RunResult> {
  const port = await freePort();
  const configPath = join(dir, `config-${index}.json`);
  await writeFile(configPath, JSON.stringify(benchConfig(emulatorUrl, port, join(dir, `data-${index}`))));
  const { child } = await spawnCli(['run', '--config', configPath], /gsa-bridge running/);
  try {
    const pid = child.pid;
    if (pid === undefined) throw new Error('no pid');
    await sleep(IDLE_SETTLE_MS);
    const idleMb = await residentMb(pid);
    await sleep(IDLE_LATER_MS - IDLE_SETTLE_MS);
    const idleLaterMb = await residentMb(pid);
    let duringMaxMb = 0;
    const sampler = setInterval(() => {
      residentMb(pid).then(
        (mb) => {
          duringMaxMb = Math.max(duringMaxMb, mb);
        },
        () => undefined,
      );
    }, DURING_SAMPLE_MS);
    let lookups: { seconds: number; policyAnswers: number };
    try {
      lookups = await lookUpPlayers(`ws://127.0.0.1:${port}/`);
    } finally {
      clearInterval(sampler);
    }
    const rightAfterMb = await residentMb(pid);
    duringMaxMb = Math.max(duringMaxMb, rightAfterMb);
    await sleep(AFTER_SETTLE_MS);
    const settledMb = await residentMb(pid);
    await sleep(AFTER_LATER_MS - AFTER_SETTLE_MS);
    const laterMb = await residentMb(pid);
    await steadyChat(`ws://127.0.0.1:${port}/`);
    return { idleMb, idleLaterMb, duringMaxMb, rightAfterMb, settledMb, laterMb, afterChatMb: await residentMb(pid), peakMb: await residentMb(pid, 'VmHWM'), ...lookups };
  } finally {
    await stopProcess(child);
  }
}

/** Players looked up before the baseline, so code, connections and first allocations are not counted per player. */
const WARM_UP_PLAYERS = 2000;

/** heapUsed after full collections, once what closing sockets and settling promises left behind is garbage too. */
async function liveHeapBytes(gc: () => void): Promise<number> {
  await sleep(200);
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/**
 * The live heap one cached player costs: a sidecar started in this process with the bench's config, `players`
 * distinct players looked up over a real mod WebSocket, and heapUsed after forced full collections compared with
 * the baseline taken after a warm-up. The mod client is closed before the reading, so only what the sidecar keeps
 * (the cache's entries) is left.
 */
async function liveHeapPerPlayer(emulatorUrl: string, dir: string, gc: () => void): Promise<{ bytesPerPlayer: number; baselineMb: number; afterMb: number }> {
  const port = await freePort();
  const config = parseConfig(benchConfig(emulatorUrl, port, join(dir, 'data-heap')), {});
  const sidecar = await startSidecar(config, { logger: silentLogger() });
  try {
    const url = `ws://127.0.0.1:${port}/`;
    // Numbered after the measured players, so none of them is cached already.
    await lookUpPlayers(url, WARM_UP_PLAYERS, players);
    const baseline = await liveHeapBytes(gc);
    await lookUpPlayers(url, players);
    const after = await liveHeapBytes(gc);
    return { bytesPerPlayer: (after - baseline) / players, baselineMb: baseline / 2 ** 20, afterMb: after / 2 ** 20 };
  } finally {
    await sidecar.stop();
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-run-memory-'));
  const emulator = await spawnEmulator();
  const results: RunResult[] = [];
  // Present only when this process was started with --expose-gc (the sidecar processes never are).
  const gc = (globalThis as { gc?: () => void }).gc;
  let heap: Awaited<ReturnType<typeof liveHeapPerPlayer>> | undefined;
  try {
    for (let index = 0; index < runs; index++) results.push(await oneRun(emulator.url, dir, index));
    if (gc !== undefined) heap = await liveHeapPerPlayer(emulator.url, dir, gc);
  } finally {
    await stopProcess(emulator.child);
    await rm(dir, { recursive: true, force: true });
  }
  const cell = (pick: (result: RunResult) => number): string => `${median(results.map(pick)).toFixed(1)} MB (${results.map((r) => pick(r).toFixed(0)).join(', ')})`;
  const idle = median(results.map((r) => r.idleMb));
  const settled = median(results.map((r) => r.settledMb));
  console.log(
    `real \`gsa-bridge run\` RSS (VmRSS), default Node flags, median of ${runs} runs (each run's value in brackets); ` +
      `${players} distinct players looked up with mute.check, ${IN_FLIGHT} in flight, in ${median(results.map((r) => r.seconds)).toFixed(1)} s`,
  );
  console.log('| when | RSS | goal |');
  console.log('|---|---:|---:|');
  console.log(`| idle, ${IDLE_SETTLE_MS / 1000} s after start | ${cell((r) => r.idleMb)} | ≤ ${GOALS.idle} MB |`);
  console.log(`| idle, ${IDLE_LATER_MS / 1000} s after start | ${cell((r) => r.idleLaterMb)} | ≤ ${GOALS.idle} MB |`);
  console.log(`| highest during the ${players} lookups (sampled every ${DURING_SAMPLE_MS} ms) | ${cell((r) => r.duringMaxMb)} | |`);
  console.log(`| right after ${players} lookups | ${cell((r) => r.rightAfterMb)} | |`);
  console.log(`| ${AFTER_SETTLE_MS / 1000} s later | ${cell((r) => r.settledMb)} | ≤ ${GOALS.afterLookups} MB |`);
  console.log(`| ${AFTER_LATER_MS / 1000} s later | ${cell((r) => r.laterMb)} | |`);
  console.log(`| after ${CHAT_SECONDS} s more of ${CHAT_PER_SECOND} cache-hot chats/s | ${cell((r) => r.afterChatMb)} | |`);
  console.log(`| peak (VmHWM) | ${cell((r) => r.peakMb)} | |`);
  const policy = results.reduce((sum, r) => sum + r.policyAnswers, 0);
  if (policy > 0) console.log(`note: ${policy} answers came from the policy (the lookup was slower than the decision timeout)`);
  if (heap === undefined) console.log('live heap per cached player: not measured (run this bench with node --expose-gc)');
  else {
    console.log(
      `live heap per cached player: ${heap.bytesPerPlayer.toFixed(0)} B (${players} players looked up in a sidecar in this process; ` +
        `heapUsed after forced full GCs ${heap.baselineMb.toFixed(1)} MB before, ${heap.afterMb.toFixed(1)} MB after)`,
    );
  }
  console.log(`idle ${idle <= GOALS.idle ? 'meets' : 'MISSES'} the goal; after lookups ${settled <= GOALS.afterLookups ? 'meets' : 'MISSES'} the goal`);
}

await main();
