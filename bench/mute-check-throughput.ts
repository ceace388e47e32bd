// Benchmark: mute checks per second through GsaClient (rate limit lifted) next to raw undici requests of
// the same bytes to the same emulator, in one run. The emulator runs in its own process so that it does not
// share the measured thread. Rounds alternate so machine noise hits both sides alike; the ratio matters,
// absolute numbers on a shared 2-core machine do not.
//
//   npm run bench            (after npm ci, which builds dist/)
//   node dist/bench/mute-check-throughput.js [requestsPerRound] [inFlight] [rounds]

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { GsaClient } from '../src/gsa/index.js';

const requestsPerRound = Number(process.argv[2] ?? 5000);
const inFlight = Number(process.argv[3] ?? 32);
const rounds = Number(process.argv[4] ?? 4);

const SERVER = 'ovddykvbs';
const STEAM_ID = '76561198000000001';
const CLIENT_ID = 'demo-client';
const CLIENT_SECRET = 'demo-secret';
const CONNECTIONS = 16;

interface RoundResult {
  readonly perSecond: number;
  /** CPU time of this (the client's) process per request: what the client itself costs, whatever the emulator does. */
  readonly cpuMicrosPerRequest: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
}

async function startEmulator(): Promise<{ url: string; child: ChildProcessByStdio<null, Readable, null> }> {
  const bin = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));
  const child = spawn(process.execPath, [bin, 'emulator', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) resolve({ url: match[1], child });
    });
    child.once('exit', () => {
      reject(new Error(`emulator did not start: ${output}`));
    });
  });
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
}

async function runRound(call: () => Promise<unknown>): Promise<RoundResult> {
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < requestsPerRound) {
      next++;
      const t0 = performance.now();
      await call();
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  return {
    perSecond: requestsPerRound / elapsedS,
    cpuMicrosPerRequest: (cpu.user + cpu.system) / requestsPerRound,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const { url, child } = await startEmulator();
  const origin = new URL(url).origin;
  const client = new GsaClient({
    baseUrl: url,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    rateLimit: { requests: Infinity, maxQueued: Infinity },
  });
  const pool = new Pool(origin, { connections: CONNECTIONS });
  const body = new URLSearchParams({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, steam_id: STEAM_ID }).toString();
  const raw = async (): Promise<unknown> => {
    const response = await pool.request({
      origin,
      path: `/api/v1/gameserver/${SERVER}/mute`,
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    return JSON.parse(await response.body.text()) as unknown;
  };
  const viaClient = (): Promise<unknown> => client.checkMuted(SERVER, { steamId: STEAM_ID });

  const results = { client: [] as RoundResult[], raw: [] as RoundResult[] };
  try {
    await runRound(raw); // warm-up: connections, JIT
    await runRound(viaClient);
    for (let round = 0; round < rounds; round++) {
      results.raw.push(await runRound(raw));
      results.client.push(await runRound(viaClient));
    }
  } finally {
    await client.close();
    await pool.close();
    child.kill('SIGTERM');
    await once(child, 'exit');
  }

  const summary = (name: string, rows: readonly RoundResult[]): [string, number, number, number, number] => [
    name,
    median(rows.map((row) => row.perSecond)),
    median(rows.map((row) => row.cpuMicrosPerRequest)),
    median(rows.map((row) => row.p50Ms)),
    median(rows.map((row) => row.p99Ms)),
  ];
  const table = [summary('raw undici (baseline)', results.raw), summary('GsaClient.checkMuted', results.client)];
  const ratio = (table[1]?.[1] ?? 0) / (table[0]?.[1] ?? 1);
  console.log(`mute checks against the emulator: ${rounds} rounds x ${requestsPerRound} requests, ${inFlight} in flight, ${CONNECTIONS} connections (medians)`);
  console.log('| path | checks/s | CPU µs/check (this process) | p50 ms | p99 ms |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [name, perSecond, cpu, p50, p99] of table) {
    console.log(`| ${name} | ${perSecond.toFixed(0)} | ${cpu.toFixed(1)} | ${p50.toFixed(2)} | ${p99.toFixed(2)} |`);
  }
  const cpuRatio = (table[1]?.[2] ?? 0) / (table[0]?.[2] ?? 1);
  console.log(`client / raw throughput: ${ratio.toFixed(3)} (client overhead ${((1 - ratio) * 100).toFixed(1)}%; goal <= 10%)`);
  console.log(`client / raw CPU per check: ${cpuRatio.toFixed(3)}`);
}

await main();
