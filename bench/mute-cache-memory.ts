// Benchmark: resident memory of the sidecar after its mute cache holds 100 000 players. The emulator runs in
// its own process so its call log is not counted. Needs --expose-gc for a settled heap:
//
//   node --expose-gc dist/bench/mute-cache-memory.js [players]

import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../src/config/index.js';
import { silentLogger } from '../src/log/logger.js';
import { startSidecar } from '../src/sidecar.js';

const players = Number(process.argv[2] ?? 100_000);
const CONCURRENCY = 64;

function settle(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with node --expose-gc');
  gc();
  gc();
}

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function main(): Promise<void> {
  const bin = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));
  const emulator = spawn(process.execPath, [bin, 'emulator', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    emulator.stdout.setEncoding('utf8');
    emulator.stdout.on('data', (chunk: string) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    emulator.once('exit', () => {
      reject(new Error(`emulator did not start: ${output}`));
    });
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'gsa-bridge-bench-'));
  const config = parseConfig(
    {
      api: { baseUrl: url, clientId: 'demo-client', clientSecret: 'demo-secret', rateLimit: { requests: 1_000_000, intervalMs: 1000, maxQueued: 1_000_000 } },
      servers: [{ name: 'ovddykvbs', adapters: [] }],
      reviews: { dataDir },
    },
    {},
  );
  const sidecar = await startSidecar(config, { logger: silentLogger() });
  const bridge = sidecar.bridges.get('ovddykvbs');
  if (bridge === undefined) throw new Error('no bridge');
  try {
    // Warm the code paths, then take the baseline.
    await bridge.checkMute({ steamId: '76561190000000000' });
    settle();
    const before = process.memoryUsage();
    let next = 0;
    const started = performance.now();
    const worker = async (): Promise<void> => {
      while (next < players) {
        const index = next++;
        await bridge.checkMute({ steamId: `7656119${String(index).padStart(10, '0')}` });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;
    settle();
    const afterBurst = process.memoryUsage();
    // V8 hands idle pages back over a few seconds (its memory reducer); a host sees the settled number.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    settle();
    const after = process.memoryUsage();
    console.log(`mute cache memory: ${bridge.cachedPlayers} players cached in ${seconds.toFixed(1)} s`);
    console.log('| | RSS | heap total | heap used | external |');
    console.log('|---|---:|---:|---:|---:|');
    const line = (name: string, usage: NodeJS.MemoryUsage): string =>
      `| ${name} | ${mb(usage.rss)} | ${mb(usage.heapTotal)} | ${mb(usage.heapUsed)} | ${mb(usage.external)} |`;
    console.log(line('before caching', before));
    console.log(line(`right after ${players} lookups`, afterBurst));
    console.log(line('3 s later', after));
    console.log(`RSS after caching: ${mb(after.rss)} (goal <= 100 MB); per player: ${((after.heapUsed - before.heapUsed) / players).toFixed(0)} bytes of heap`);
  } finally {
    await sidecar.stop();
    emulator.kill('SIGTERM');
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
