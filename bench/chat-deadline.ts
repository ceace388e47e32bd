// Benchmark: how late the policy's chat verdicts come when many players are unknown at once and the service is
// slow. A real `gsa-bridge run` process (default decisionTimeoutMs 300) against the emulator in its own process,
// which answers every mute check after 1 s. This process sends bursts of chat lines from players nobody has
// asked about (every line is a cache miss) over 4 connections, and times each verdict from send to receipt.
// The same bursts go to a baseline in its own process (bench/deadlineEchoServer: a bare `ws` server answering
// each line after exactly decisionTimeoutMs), whose lateness is the machine's and the event loop's own lag.
// The goal: no verdict later than decisionTimeoutMs + 5 ms beyond that lag.
//
//   npm run bench     or     node dist/bench/chat-deadline.js [burstSizes, e.g. 100,1000,4000] [bursts per size]

import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort, sleep, spawnCli, spawnEmulator, stopProcess, type CliProcess } from './processes.js';

const burstSizes = (process.argv[2] ?? '100,1000,4000').split(',').map(Number);
const burstsPerSize = Number(process.argv[3] ?? 3);
const CONNECTIONS = 4;
const DECISION_TIMEOUT_MS = 300;
const SERVICE_LATENCY_MS = 1000;
const GOAL_LATE_MS = 5;
const TOKEN = 'bench-token-0123456789abcdef';

const BASELINE = fileURLToPath(new URL('./deadlineEchoServer.js', import.meta.url));

interface BurstResult {
  readonly target: string;
  readonly size: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly notUnknown: number;
}

async function open(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false });
  await once(socket, 'open');
  return socket;
}

let nextPlayer = 0;

/** Sends `size` chat lines from new players in one go and resolves with their verdicts' latencies. */
async function burst(target: string, sockets: readonly WebSocket[], size: number): Promise<BurstResult> {
  const sentAt = new Float64Array(size);
  const latencies: number[] = [];
  let notUnknown = 0;
  const first = nextPlayer;
  await new Promise<void>((resolve) => {
    const onMessage = (data: Buffer): void => {
      const received = performance.now();
      const text = data.toString();
      const id = /"id":"b(\d+)"/.exec(text)?.[1];
      if (id === undefined) return;
      latencies.push(received - (sentAt[Number(id) - first] ?? received));
      if (!text.includes('"unknown"')) notUnknown++;
      if (latencies.length === size) resolve();
    };
    for (const socket of sockets) socket.on('message', onMessage);
    for (let index = 0; index < size; index++) {
      const player = nextPlayer++;
      sentAt[index] = performance.now();
      const steamId = `7656119${String(player).padStart(10, '0')}`;
      sockets[index % sockets.length]?.send(`{"type":"chat","id":"b${player}","player":{"steam_id":"${steamId}"},"channel":"global","text":"hi"}`);
    }
  });
  for (const socket of sockets) socket.removeAllListeners('message');
  latencies.sort((x, y) => x - y);
  const at = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))] ?? 0;
  return { target, size, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: latencies.at(-1) ?? 0, notUnknown };
}

async function startBaseline(): Promise<{ child: CliProcess; url: string }> {
  const child = spawn(process.execPath, [BASELINE, String(DECISION_TIMEOUT_MS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const port = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const found = /listening on (\d+)/.exec(chunk)?.[1];
      if (found !== undefined) resolve(found);
    });
    child.once('exit', () => {
      reject(new Error('the baseline server did not start'));
    });
  });
  return { child, url: `ws://127.0.0.1:${port}/` };
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-chat-deadline-'));
  const emulator = await spawnEmulator();
  const port = await freePort();
  const configPath = join(dir, 'config.json');
  await writeFile(
    configPath,
    JSON.stringify({
      api: {
        baseUrl: emulator.url,
        clientId: 'demo-client',
        clientSecret: 'demo-secret',
        // The default budget (100 calls a minute, 1000 waiting): a host's setup. Misses beyond the queue get
        // the policy at once; the others wait for the deadline.
      },
      servers: [{ name: 'ovddykvbs', adapters: [{ type: 'websocket', host: '127.0.0.1', port, token: TOKEN }] }],
      mute: { decisionTimeoutMs: DECISION_TIMEOUT_MS },
      reviews: { dataDir: join(dir, 'data') },
      http: { port: 0 },
      log: { level: 'info' },
    }),
  );
  const response = await fetch(`${emulator.url}/_emulator/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'latency', ms: SERVICE_LATENCY_MS, count: -1, endpoint: 'mute' }),
  });
  if (!response.ok) throw new Error(`the emulator refused the latency fault: ${response.status} ${await response.text()}`);
  const sidecar = await spawnCli(['run', '--config', configPath], /gsa-bridge running/);
  const baseline = await startBaseline();
  const results: BurstResult[] = [];
  try {
    const targets = [
      { name: 'gsa-bridge sidecar', sockets: await Promise.all(Array.from({ length: CONNECTIONS }, () => open(`ws://127.0.0.1:${port}/`))) },
      { name: 'bare ws + setTimeout (baseline)', sockets: await Promise.all(Array.from({ length: CONNECTIONS }, () => open(baseline.url))) },
    ];
    for (const target of targets) await burst(target.name, target.sockets, 50); // warm-up
    for (const size of burstSizes) {
      for (let round = 0; round < burstsPerSize; round++) {
        // Alternating, so machine noise hits both alike.
        for (const target of targets) {
          await sleep(SERVICE_LATENCY_MS);
          results.push(await burst(target.name, target.sockets, size));
        }
      }
    }
    for (const target of targets) for (const socket of target.sockets) socket.close();
  } finally {
    await stopProcess(baseline.child);
    await stopProcess(sidecar.child);
    await stopProcess(emulator.child);
    await rm(dir, { recursive: true, force: true });
  }
  console.log(
    `chat verdicts for cache misses against a service answering after ${SERVICE_LATENCY_MS} ms; decisionTimeoutMs ${DECISION_TIMEOUT_MS}; ` +
      `a real \`gsa-bridge run\`, ${CONNECTIONS} connections; latency from send to verdict, in the client's process`,
  );
  console.log('| target | burst of misses | p50 ms | p99 ms | max ms | max past the deadline | verdicts not "unknown" |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(`| ${r.target} | ${r.size} | ${r.p50Ms.toFixed(1)} | ${r.p99Ms.toFixed(1)} | ${r.maxMs.toFixed(1)} | ${(r.maxMs - DECISION_TIMEOUT_MS).toFixed(1)} ms | ${r.notUnknown} |`);
  }
  const worst = (target: string): number => Math.max(...results.filter((r) => r.target === target).map((r) => r.maxMs)) - DECISION_TIMEOUT_MS;
  const sidecarLate = worst('gsa-bridge sidecar');
  const baselineLate = worst('bare ws + setTimeout (baseline)');
  console.log(
    `latest verdict: ${sidecarLate.toFixed(1)} ms past decisionTimeoutMs; the baseline's ${baselineLate.toFixed(1)} ms ` +
      `(goal: sidecar <= baseline + ${GOAL_LATE_MS} ms, i.e. <= ${(baselineLate + GOAL_LATE_MS).toFixed(1)} ms)`,
  );
}

await main();
