// Benchmark: what an idle sidecar costs a host, against a bare Node on the same machine at the same moment. Each
// run starts a bare `node -e "setInterval(()=>{},1e6)"` and a real `gsa-bridge run` with a websocket-only config
// (one server, one mod listener, the ops endpoint, default Node flags) against the emulator in its own process,
// waits until the sidecar says it is running, then 12 s more (V8's memory reducer has run by then), and reads both
// processes' resident memory (VmRSS) and V8 heap (used of reserved): the sidecar's from its own /metrics (the
// process defaults, scraped after RSS is read), the bare node's from a line it prints on SIGUSR2. The table shows
// the median of the runs and each run's value. Then one more sidecar, not measured, with a module-load log
// preloaded (moduleLoadLog.ts), to list what the config made it load, per package. Linux only (/proc).
//
//   npm run build && node dist/bench/idle-memory.js [runs] [settle seconds]     # defaults: 5 runs, 12 s

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, median, residentMb, sleep, spawnCli, spawnEmulator, stopProcess, type CliProcess } from './processes.js';

const runs = Number(process.argv[2] ?? 5);
const settleMs = Number(process.argv[3] ?? 12) * 1000;
const GOAL_MB = 65;
const TOKEN = 'bench-token-0123456789abcdef';
const MODULE_LOG = fileURLToPath(new URL('./moduleLoadLog.js', import.meta.url));
const BARE_NODE = 'setInterval(()=>{},1e6); process.on("SIGUSR2",()=>{const m=process.memoryUsage();console.log(JSON.stringify(m))})';

/** A host's websocket-only config: no Redis, no RCON, no System API key, no moderation, JSON logs. */
function idleConfig(emulatorUrl: string, port: number, httpPort: number, dataDir: string): Record<string, unknown> {
  return {
    api: { baseUrl: emulatorUrl, clientId: 'demo-client', clientSecret: 'demo-secret' },
    servers: [{ name: 'ovddykvbs', adapters: [{ type: 'websocket', host: '127.0.0.1', port, token: TOKEN }] }],
    reviews: { dataDir },
    http: { host: '127.0.0.1', port: httpPort },
    log: { level: 'info' },
  };
}

interface Reading {
  readonly rssMb: number;
  readonly anonMb: number;
  readonly fileMb: number;
  readonly heapUsedMb: number;
  readonly heapTotalMb: number;
}

interface RunResult {
  readonly bare: Reading;
  readonly sidecar: Reading;
}

/** A bare node, started the way the issue measured it (plus a SIGUSR2 listener to print its heap). */
async function spawnBareNode(): Promise<CliProcess> {
  const child = spawn(process.execPath, ['-e', BARE_NODE], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '' } });
  await once(child, 'spawn');
  return child;
}

async function bareHeap(child: CliProcess): Promise<{ heapUsedMb: number; heapTotalMb: number }> {
  const line = once(child.stdout, 'data') as Promise<[Buffer]>;
  child.kill('SIGUSR2');
  const [chunk] = await line;
  const usage = JSON.parse(chunk.toString()) as { heapUsed: number; heapTotal: number };
  return { heapUsedMb: usage.heapUsed / 2 ** 20, heapTotalMb: usage.heapTotal / 2 ** 20 };
}

/** heapUsed and heapTotal as the sidecar's /metrics reports them (prom-client's process defaults). */
async function sidecarHeap(httpPort: number): Promise<{ heapUsedMb: number; heapTotalMb: number }> {
  const text = await (await fetch(`http://127.0.0.1:${httpPort}/metrics`)).text();
  const value = (name: string): number => {
    const found = new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1];
    if (found === undefined) throw new Error(`no ${name} in /metrics`);
    return Number(found) / 2 ** 20;
  };
  return { heapUsedMb: value('nodejs_heap_size_used_bytes'), heapTotalMb: value('nodejs_heap_size_total_bytes') };
}

async function writeConfig(dir: string, name: string, emulatorUrl: string): Promise<{ path: string; httpPort: number }> {
  const httpPort = await freePort();
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify(idleConfig(emulatorUrl, await freePort(), httpPort, join(dir, `data-${name}`))));
  return { path, httpPort };
}

async function oneRun(emulatorUrl: string, dir: string, index: number): Promise<RunResult> {
  const { path, httpPort } = await writeConfig(dir, `run-${index}`, emulatorUrl);
  const bare = await spawnBareNode();
  try {
    const { child } = await spawnCli(['run', '--config', path], /gsa-bridge running/);
    try {
      await sleep(settleMs);
      if (bare.pid === undefined || child.pid === undefined) throw new Error('no pid');
      // RSS first, both at once: a scrape allocates.
      const resident = async (pid: number): Promise<{ rssMb: number; anonMb: number; fileMb: number }> => {
        const [rssMb, anonMb, fileMb] = await Promise.all([residentMb(pid), residentMb(pid, 'RssAnon'), residentMb(pid, 'RssFile')]);
        return { rssMb, anonMb, fileMb };
      };
      const [bareRss, sidecarRss] = await Promise.all([resident(bare.pid), resident(child.pid)]);
      return { bare: { ...bareRss, ...(await bareHeap(bare)) }, sidecar: { ...sidecarRss, ...(await sidecarHeap(httpPort)) } };
    } finally {
      await stopProcess(child);
    }
  } finally {
    await stopProcess(bare);
  }
}

/** `node_modules/<package>`, `dist/<folder>` of this project, or `node:` for builtins: where a loaded module comes from. */
function originOf(url: string): string {
  if (url.startsWith('node:')) return 'node: (builtins)';
  const inPackage = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (inPackage !== undefined) return inPackage;
  const own = /\/dist\/((?:src|adapters|bench)\/[^/]+)/.exec(url)?.[1];
  return own === undefined ? url : `(this project) ${own.replace(/\.js$/, '')}`;
}

/** One more sidecar with the module-load log preloaded; the modules it loaded, counted per origin. */
async function loadedModules(emulatorUrl: string, dir: string): Promise<Map<string, number>> {
  const { path } = await writeConfig(dir, 'modules', emulatorUrl);
  const logFile = join(dir, 'modules.log');
  const { child } = await spawnCli(['run', '--config', path], /gsa-bridge running/, { nodeArgs: ['--import', MODULE_LOG], env: { MODULE_LOG_FILE: logFile } });
  await sleep(2000);
  await stopProcess(child);
  const urls = new Set((await readFile(logFile, 'utf8')).split('\n').filter((line) => line !== ''));
  const counts = new Map<string, number>();
  for (const url of urls) counts.set(originOf(url), (counts.get(originOf(url)) ?? 0) + 1);
  return counts;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-idle-memory-'));
  const emulator = await spawnEmulator();
  const results: RunResult[] = [];
  let modules: Map<string, number>;
  try {
    for (let index = 0; index < runs; index++) results.push(await oneRun(emulator.url, dir, index));
    modules = await loadedModules(emulator.url, dir);
  } finally {
    await stopProcess(emulator.child);
    await rm(dir, { recursive: true, force: true });
  }
  const cell = (pick: (result: RunResult) => number): string => `${median(results.map(pick)).toFixed(1)} MB (${results.map((r) => pick(r).toFixed(1)).join(', ')})`;
  console.log(`idle \`gsa-bridge run\`, websocket-only config, ${settleMs / 1000} s after it said it was running, against a bare node started just before it;`);
  console.log(`median of ${runs} runs (each run's value in brackets); heap = V8 heapUsed / heapTotal`);
  const row = (label: string, pick: (result: RunResult) => Reading): string =>
    `| ${label} | ${(['rssMb', 'anonMb', 'fileMb', 'heapUsedMb', 'heapTotalMb'] as const).map((key) => cell((r) => pick(r)[key])).join(' | ')} |`;
  const difference = (r: RunResult): Reading => ({
    rssMb: r.sidecar.rssMb - r.bare.rssMb,
    anonMb: r.sidecar.anonMb - r.bare.anonMb,
    fileMb: r.sidecar.fileMb - r.bare.fileMb,
    heapUsedMb: r.sidecar.heapUsedMb - r.bare.heapUsedMb,
    heapTotalMb: r.sidecar.heapTotalMb - r.bare.heapTotalMb,
  });
  console.log('| process | RSS (VmRSS) | of it anonymous (RssAnon) | of it files (RssFile) | heap used | heap reserved |');
  console.log('|---|---:|---:|---:|---:|---:|');
  console.log(row('bare node', (r) => r.bare));
  console.log(row('gsa-bridge run', (r) => r.sidecar));
  console.log(row('difference', difference));
  const idle = median(results.map((r) => r.sidecar.rssMb));
  console.log(`idle RSS ${idle.toFixed(1)} MB ${idle <= GOAL_MB ? 'meets' : 'MISSES'} the goal (≤ ${GOAL_MB} MB)`);
  const total = [...modules.values()].reduce((sum, count) => sum + count, 0);
  const sorted = [...modules.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  console.log(`\nmodules the same config loads (one more run, not measured, --import moduleLoadLog.js): ${total}`);
  console.log(sorted.map(([origin, count]) => `${String(count).padStart(5)}  ${origin}`).join('\n'));
}

await main();
