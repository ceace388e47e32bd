// Benchmark: resident memory of a real `gsa-bridge run` process, the way a host runs it (default Node flags):
// at idle (3 s and 12 s after start), right after 100 000 distinct players were looked up over the mod protocol, a few seconds later, and
// after a further steady chat load from those players (cache hits), when V8 has had reason to collect.
// The emulator runs in its own process; the mod client is this process. Each run starts a fresh sidecar; the
// table shows the median of the runs. RSS is read from /proc/<pid>/status (VmRSS), so this needs Linux.
//
//   npm run bench     or     node dist/bench/run-memory.js [players] [runs]

import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { freePort, median, residentMb, sleep, spawnCli, spawnEmulator, stopProcess } from './processes.js';

const players = Number(process.argv[2] ?? 100_000);
const runs = Number(process.argv[3] ?? 3);
const IN_FLIGHT = 256;
const IDLE_SETTLE_MS = 3000;
/** V8's memory reducer runs about 8 s after the last full GC when the process allocates little: idle for good. */
const IDLE_LATER_MS = 12_000;
const AFTER_SETTLE_MS = 3000;
/** The quiet collector (src/ops/quietCollector.ts) runs 5 s after the last request: read again after it. */
const AFTER_QUIET_MS = 8000;
/** Then a steady chat load from the cached players, the way a running server sees it. */
const CHAT_PER_SECOND = 200;
const CHAT_SECONDS = 20;
const TOKEN = 'bench-token-0123456789abcdef';
const GOALS = { idle: 60, afterLookups: 100 };

interface RunResult {
  readonly idleMb: number;
  readonly idleLaterMb: number;
  readonly rightAfterMb: number;
  readonly settledMb: number;
  readonly quietMb: number;
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

/** Sends one mute.check per distinct player, IN_FLIGHT at a time, and waits for every mute.status. */
async function lookUpPlayers(url: string): Promise<{ seconds: number; policyAnswers: number }> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${TOKEN}` }, perMessageDeflate: false });
  await once(socket, 'open');
  let sent = 0;
  let answered = 0;
  let policyAnswers = 0;
  const started = performance.now();
  const send = (): void => {
    const steamId = `7656119${String(sent).padStart(10, '0')}`;
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
      if (answered === players) resolve();
      else if (sent < players) send();
    });
    socket.once('close', () => {
      reject(new Error(`the sidecar closed the connection after ${answered} answers`));
    });
    for (let i = 0; i < IN_FLIGHT && sent < players; i++) send();
  });
  const seconds = (performance.now() - started) / 1000;
  socket.removeAllListeners('close');
  socket.close();
  return { seconds, policyAnswers };
}

async function oneRun(emulatorUrl: string, dir: string, index: number): Promise<RunResult> {
  const port = await freePort();
  const configPath = join(dir, `config-${index}.json`);
  await writeFile(
    configPath,
    JSON.stringify({
      api: {
        baseUrl: emulatorUrl,
        clientId: 'demo-client',
        clientSecret: 'demo-secret',
        // Lifted so that 100 000 first lookups can happen in seconds; the budget is not what is measured here.
        rateLimit: { requests: 1_000_000_000, intervalMs: 1000, maxQueued: 1_000_000 },
      },
      servers: [{ name: 'ovddykvbs', adapters: [{ type: 'websocket', host: '127.0.0.1', port, token: TOKEN }] }],
      mute: { decisionTimeoutMs: 5000 },
      reviews: { dataDir: join(dir, `data-${index}`) },
      http: { port: 0 },
      log: { level: 'info' },
    }),
  );
  const { child } = await spawnCli(['run', '--config', configPath], /gsa-bridge running/);
  try {
    const pid = child.pid;
    if (pid === undefined) throw new Error('no pid');
    await sleep(IDLE_SETTLE_MS);
    const idleMb = await residentMb(pid);
    await sleep(IDLE_LATER_MS - IDLE_SETTLE_MS);
    const idleLaterMb = await residentMb(pid);
    const { seconds, policyAnswers } = await lookUpPlayers(`ws://127.0.0.1:${port}/`);
    const rightAfterMb = await residentMb(pid);
    await sleep(AFTER_SETTLE_MS);
    const settledMb = await residentMb(pid);
    await sleep(AFTER_QUIET_MS - AFTER_SETTLE_MS);
    const quietMb = await residentMb(pid);
    await steadyChat(`ws://127.0.0.1:${port}/`);
    return { idleMb, idleLaterMb, rightAfterMb, settledMb, quietMb, afterChatMb: await residentMb(pid), peakMb: await residentMb(pid, 'VmHWM'), seconds, policyAnswers };
  } finally {
    await stopProcess(child);
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-run-memory-'));
  const emulator = await spawnEmulator();
  const results: RunResult[] = [];
  try {
    for (let index = 0; index < runs; index++) results.push(await oneRun(emulator.url, dir, index));
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
  console.log(`| right after ${players} lookups | ${cell((r) => r.rightAfterMb)} | |`);
  console.log(`| ${AFTER_SETTLE_MS / 1000} s later | ${cell((r) => r.settledMb)} | ≤ ${GOALS.afterLookups} MB |`);
  console.log(`| ${AFTER_QUIET_MS / 1000} s later | ${cell((r) => r.quietMb)} | |`);
  console.log(`| after ${CHAT_SECONDS} s more of ${CHAT_PER_SECOND} cache-hot chats/s | ${cell((r) => r.afterChatMb)} | |`);
  console.log(`| peak (VmHWM) | ${cell((r) => r.peakMb)} | |`);
  const policy = results.reduce((sum, r) => sum + r.policyAnswers, 0);
  if (policy > 0) console.log(`note: ${policy} answers came from the policy (the lookup was slower than the decision timeout)`);
  console.log(`idle ${idle <= GOALS.idle ? 'meets' : 'MISSES'} the goal; after lookups ${settled <= GOALS.afterLookups ? 'meets' : 'MISSES'} the goal`);
}

await main();
