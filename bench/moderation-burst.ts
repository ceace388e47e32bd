// Benchmark: a burst of filtered chat through a Conan log, as a host's server would send it, against a real
// `gsa-bridge run` process (default Node flags) with the chat filter on: the GSA emulator and a fake Conan console
// (`gsa-bridge emulator --game conan`, which lists Alice) in their own processes, and this process appending Alice's
// lines, every one holding a listed word, to ConanSandbox.log at full speed. It shows what the issue asked to hold:
// how many records `moderation/actions.jsonl` holds once the burst is written (at most 2 × KEPT_RECORDS), and the
// sidecar's resident memory (VmRSS) before the burst, at its peak, when the last line was decided, and 30 s later
// (the goal: back within 20 MB of where it started), with a reading every 5 s for a minute. Measures only; never used by the product. Linux (/proc).
//
// Mode `clean` sends the same burst with no listed word, for what reading and deciding the lines costs alone.
//
//   npm run build && node dist/bench/moderation-burst.js [lines] [mode: enforce|dryRun|clean]

import { appendFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KEPT_RECORDS } from '../src/moderation/moderationLog.js';
import { ALICE } from '../src/gameEmulator/scriptedChat.js';
import { freePort, residentMb, sleep, spawnCli, spawnEmulator, stopProcess, type CliProcess } from './processes.js';

const lines = Number(process.argv[2] ?? 20_000);
const mode = process.argv[3] ?? 'enforce';
if (!['enforce', 'dryRun', 'clean'].includes(mode)) throw new Error(`mode ${mode}: one of enforce, dryRun, clean`);
const dryRun = mode === 'dryRun';
const PASSWORD = 'bench-rcon-password';
const SERVER = 'ovddykvbs';
/** Lines per appendFile: the writer outruns the sidecar, as a flood would. */
const CHUNK = 500;
const SETTLE_MS = 5000;
/** The goal's reading; the readings go on to WATCH_MS, to show when the memory came back when it was later. */
const AFTER_MS = 30_000;
const WATCH_MS = 60_000;
const AFTER_STEP_MS = 5000;
const SAMPLE_MS = 200;
const GOAL_RSS_DELTA_MB = 20;

function chatLine(index: number, text = 'free scam'): string {
  return `[2026.06.20-21.06.10:804][ 80]ChatWindow: Character ${ALICE.character} (uid 101, player ${ALICE.steamId}) said: ${text} number ${String(index)}\r\n`;
}

/** The sidecar's V8 heap (used / total) and the memory outside it that V8 knows of (Buffers), from its /metrics. */
async function heapMb(metricsUrl: string): Promise<string> {
  const text = await (await fetch(metricsUrl)).text();
  const gauge = (name: string): string => (Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN) / 1024 / 1024).toFixed(1);
  return `heap ${gauge('nodejs_heap_size_used_bytes')} used of ${gauge('nodejs_heap_size_total_bytes')}, external ${gauge('nodejs_external_memory_bytes')} MB`;
}

/** A counter of the sidecar's /metrics, summed over its label sets (0 when absent). */
async function counter(metricsUrl: string, name: string, labels = ''): Promise<number> {
  const text = await (await fetch(metricsUrl)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) && line.includes(labels)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function until(what: string, timeoutMs: number, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(SAMPLE_MS);
  }
}

async function recordsIn(file: string): Promise<{ records: number; mb: number }> {
  try {
    const text = await readFile(file, 'utf8');
    return { records: text.split('\n').filter((line) => line !== '').length, mb: (await stat(file)).size / 1024 / 1024 };
  } catch {
    return { records: 0, mb: 0 };
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gsa-moderation-burst-'));
  const children: CliProcess[] = [];
  try {
    const emulator = await spawnEmulator();
    children.push(emulator.child);
    const logFile = join(dir, 'ConanSandbox.log');
    const rconPort = await freePort();
    const conan = await spawnCli(['emulator', '--game', 'conan', '--port', String(rconPort), '--log-file', logFile, '--chat-every', '3600'], /listening on/, {
      env: { GSA_BRIDGE_RCON_PASSWORD: PASSWORD },
    });
    children.push(conan.child);
    const httpPort = await freePort();
    const dataDir = join(dir, 'data');
    const configPath = join(dir, 'config.json');
    const config = {
      api: { baseUrl: emulator.url, clientId: 'demo-client', clientSecret: 'demo-secret' },
      servers: [{ name: SERVER, adapters: [{ type: 'rcon', id: 'conan-rcon', profile: 'conan', port: rconPort, password: PASSWORD, logFile }] }],
      reviews: { dataDir },
      moderation: { filter: { words: ['scam'], ladder: [{ action: 'warn' }], dryRun } },
      http: { port: httpPort },
    };
    await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
    const sidecar = await spawnCli(['run', '--config', configPath], /gsa-bridge running/);
    children.push(sidecar.child);
    const pid = sidecar.child.pid;
    if (pid === undefined) throw new Error('no pid');
    const metricsUrl = `http://127.0.0.1:${String(httpPort)}/metrics`;
    const verdicts = (): Promise<number> => counter(metricsUrl, 'gsa_bridge_chat_verdicts_total');
    const filtered = (): Promise<number> => counter(metricsUrl, 'gsa_bridge_moderation_actions_total', 'action="block"');

    // The fake console lists Alice after its first scripted join: a line of hers is then decided, not unattributed.
    await until('Alice listed and her probe line decided', 60_000, async () => {
      await appendFile(logFile, chatLine(0));
      await sleep(500);
      return (await filtered()) > 0;
    });
    const probes = await filtered();
    await sleep(SETTLE_MS);
    const before = await residentMb(pid);
    const decidedBefore = await verdicts();

    let peak = before;
    const sampling = new AbortController();
    const sampler = (async () => {
      while (!sampling.signal.aborted) {
        peak = Math.max(peak, await residentMb(pid));
        await sleep(SAMPLE_MS);
      }
    })();
    const started = performance.now();
    for (let from = 1; from <= lines; from += CHUNK) {
      let text = '';
      for (let index = from; index < Math.min(from + CHUNK, lines + 1); index++) text += chatLine(index, mode === 'clean' ? 'free beer' : 'free scam');
      await appendFile(logFile, text);
    }
    const written = performance.now();
    await until('every line decided', 600_000, async () => (mode === 'clean' ? (await verdicts()) >= decidedBefore + lines : (await filtered()) >= probes + lines));
    const decided = performance.now();
    const atEnd = await residentMb(pid);
    const atEndAnon = await residentMb(pid, 'RssAnon');
    const atEndHeap = await heapMb(metricsUrl);
    const atEndRecords = await recordsIn(join(dataDir, 'moderation', 'actions.jsonl'));
    const afterwards: number[] = [];
    for (let waited = 0; waited < WATCH_MS; waited += AFTER_STEP_MS) {
      await sleep(AFTER_STEP_MS);
      afterwards.push(await residentMb(pid));
    }
    sampling.abort();
    await sampler;
    const laterHeap = await heapMb(metricsUrl);
    const later = afterwards[AFTER_MS / AFTER_STEP_MS - 1] ?? atEnd;
    const settledRecords = await recordsIn(join(dataDir, 'moderation', 'actions.jsonl'));
    const strikes = await recordsIn(join(dataDir, 'moderation', 'strikes.jsonl'));
    const seconds = (decided - started) / 1000;

    const rows: [string, string][] = [
      ['lines', `${String(lines)} (${mode === 'clean' ? 'clean' : `each filtered, ${dryRun ? 'dry run' : 'enforcing'}`}, ladder: warn)`],
      ['written by this process in', `${((written - started) / 1000).toFixed(1)} s`],
      ['decided by the sidecar in', `${seconds.toFixed(1)} s (${Math.round(lines / seconds)} lines/s; ${String(await verdicts())} verdicts in all)`],
      ['actions.jsonl when the last line was decided', `${String(atEndRecords.records)} records, ${atEndRecords.mb.toFixed(2)} MB`],
      [`actions.jsonl ${String(WATCH_MS / 1000)} s later`, `${String(settledRecords.records)} records, ${settledRecords.mb.toFixed(2)} MB (goal: at most ${String(2 * KEPT_RECORDS)})`],
      ['strikes.jsonl then', `${String(strikes.records)} lines, ${strikes.mb.toFixed(2)} MB`],
      ['RSS before the burst', `${before.toFixed(1)} MB`],
      ['RSS peak during the burst', `${peak.toFixed(1)} MB`],
      ['RSS when the last line was decided', `${atEnd.toFixed(1)} MB (of which the process's own, RssAnon: ${atEndAnon.toFixed(1)} MB; ${atEndHeap})`],
      [`RSS every ${String(AFTER_STEP_MS / 1000)} s for ${String(WATCH_MS / 1000)} s`, `${afterwards.map((mb) => mb.toFixed(0)).join(', ')} MB (at the end: ${laterHeap})`],
      [`RSS ${String(AFTER_MS / 1000)} s later`, `${later.toFixed(1)} MB (${later - before >= 0 ? '+' : ''}${(later - before).toFixed(1)} MB; goal: within ${String(GOAL_RSS_DELTA_MB)} MB)`],
    ];
    const width = Math.max(...rows.map(([name]) => name.length));
    console.log(`moderation burst through a Conan log (node ${process.version})`);
    for (const [name, value] of rows) console.log(`  ${name.padEnd(width)}  ${value}`);
    const ok = settledRecords.records <= 2 * KEPT_RECORDS && later - before <= GOAL_RSS_DELTA_MB;
    console.log(ok ? 'goals met' : 'GOALS MISSED');
  } finally {
    for (const child of children.reverse()) await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
