// Benchmark: LogTail (adapters/rcon/sources/logTail.ts) next to `tail -n0 -F <file>` spawned and piped into a
// trivial line reader in this process, and next to @logdna/tail-file when it is installed somewhere (it is not a
// dependency: pass its directory, e.g. after `npm i @logdna/tail-file` in /tmp/lt-eval). In one run:
// - throughput: a writer in its own process (bench/logTailWriter) appends chat-like CRLF lines in batches as fast as
//   it can; lines per second are counted from the writer's first byte to the reader's last line, which is what a
//   host sees: a reader that keeps up reads at the writer's pace, one that falls behind finishes later. Rounds
//   rotate the order of the sides; medians are shown.
// - latency: every side follows the same file at once while this process appends one line 20 times a second for
//   10 s; the time from just before appendFile to the side's line callback, p50/p99/max.
// Ours runs with watch (the default) and with watch:false (the polling fallback alone, at its default period).
// Ratios matter; absolute numbers on a shared 2-core machine do not. Measures only; never used by the product.
//
//   npm run bench     or     node dist/bench/log-tail.js [linesPerRound] [rounds] [path to @logdna/tail-file]

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { fileURLToPath } from 'node:url';
import { DEFAULT_LOG_TAIL_POLL_INTERVAL_MS, LogTail } from '../adapters/rcon/sources/logTail.js';
import { silentLogger } from '../src/log/logger.js';

const linesPerRound = Number(process.argv[2] ?? 300_000);
const rounds = Number(process.argv[3] ?? 3);
const logdnaPath = process.argv[4] ?? '/tmp/lt-eval/node_modules/@logdna/tail-file';
const LATENCY_RATE = 20;
const LATENCY_SECONDS = 10;
/** @logdna/tail-file polls only (1000 ms by default); given ours' period so latency compares like with like. */
const LOGDNA_POLL_MS = DEFAULT_LOG_TAIL_POLL_INTERVAL_MS;

/** One reader under test: follows `file` from its end, calls `onLine` per line; `close` stops it. */
interface Side {
  readonly name: string;
  follow(file: string, onLine: (line: string) => void): Promise<{ close(): Promise<void> }>;
}

/** A trivial line reader for a byte stream (tail's stdout, @logdna's chunks): decode, split on LF, drop a CR. */
function lineReader(onLine: (line: string) => void): (chunk: Buffer) => void {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  return (chunk) => {
    const text = pending + decoder.write(chunk);
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      onLine(text.charCodeAt(nl - 1) === 13 ? text.slice(from, nl - 1) : text.slice(from, nl));
      from = nl + 1;
    }
    pending = text.slice(from);
  };
}

function ours(watch: boolean): Side {
  return {
    name: watch ? 'LogTail, watch + poll' : 'LogTail, polling only',
    async follow(file, onLine) {
      const tail = new LogTail({ path: file, onLine, logger: silentLogger(), watch });
      await tail.start();
      return tail;
    },
  };
}

const tailF: Side = {
  name: 'tail -n0 -F, piped to a line reader',
  async follow(file, onLine) {
    const child = spawn('tail', ['-n0', '-F', file], { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', lineReader(onLine));
    await once(child, 'spawn');
    return {
      async close() {
        child.kill();
        if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
      },
    };
  },
};

/** The shape of @logdna/tail-file 4.x used here: a Readable with start() and quit(). */
interface LogdnaTail extends Readable {
  start(): Promise<void>;
  quit(): Promise<void>;
}
type LogdnaTailConstructor = new (file: string, options: { pollFileIntervalMs: number }) => LogdnaTail;

function logdna(): Side | undefined {
  if (!existsSync(join(logdnaPath, 'package.json'))) return undefined;
  const TailFile = createRequire(import.meta.url)(logdnaPath) as LogdnaTailConstructor;
  return {
    name: `@logdna/tail-file (poll ${LOGDNA_POLL_MS} ms)`,
    async follow(file, onLine) {
      const tail = new TailFile(file, { pollFileIntervalMs: LOGDNA_POLL_MS });
      tail.on('data', lineReader(onLine));
      tail.on('tail_error', () => undefined);
      await tail.start();
      return { close: () => tail.quit() };
    },
  };
}

/** Appends `marker` until every side has seen it: each has taken its position (tail -F gives no other sign). */
async function whenFollowing(file: string, seen: () => boolean): Promise<void> {
  for (let attempt = 0; !seen(); attempt++) {
    if (attempt > 200) throw new Error('a side never saw the ready marker');
    await appendFile(file, 'ready\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function throughput(dir: string, side: Side, round: number): Promise<number> {
  const file = join(dir, `throughput-${round}-${side.name.replace(/\W+/g, '-')}.log`);
  await writeFile(file, 'an old line\n');
  let ready = false;
  let count = 0;
  let writingSince = 0;
  let last = 0;
  let done: () => void = () => undefined;
  const allRead = new Promise<void>((resolve) => (done = resolve));
  const reader = await side.follow(file, (line) => {
    if (line === 'ready') {
      ready = true;
      return;
    }
    if (line.charCodeAt(0) !== 76 /* L */) return;
    count++;
    if (count === linesPerRound) {
      last = performance.now();
      done();
    }
  });
  try {
    await whenFollowing(file, () => ready);
    const writer = spawn(process.execPath, [fileURLToPath(new URL('./logTailWriter.js', import.meta.url)), file, String(linesPerRound), '500'], { stdio: ['ignore', 'pipe', 'inherit'] });
    writer.stdout.once('data', () => {
      writingSince = performance.now();
    });
    await once(writer, 'exit');
    const timeout = setTimeout(() => {
      done();
    }, 60_000);
    await allRead;
    clearTimeout(timeout);
    if (count < linesPerRound) throw new Error(`${side.name} read ${count} of ${linesPerRound} lines`);
    return count / ((last - writingSince) / 1000);
  } finally {
    await reader.close();
    await rm(file, { force: true });
  }
}

interface Latency {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly missed: number;
}

async function latency(dir: string, sides: readonly Side[]): Promise<Map<Side, Latency>> {
  const file = join(dir, 'latency.log');
  await writeFile(file, 'an old line\n');
  const sent = new Map<number, number>();
  const received = new Map<Side, number[]>(sides.map((side) => [side, []]));
  const ready = new Set<Side>();
  const readers = await Promise.all(
    sides.map((side) =>
      side.follow(file, (line) => {
        const at = performance.now();
        if (line === 'ready') ready.add(side);
        const match = /^chat (\d+) /.exec(line);
        const t0 = match === null ? undefined : sent.get(Number(match[1]));
        if (t0 !== undefined) received.get(side)?.push(at - t0);
      }),
    ),
  );
  try {
    await whenFollowing(file, () => ready.size === sides.length);
    const total = LATENCY_RATE * LATENCY_SECONDS;
    const startedAt = performance.now();
    for (let n = 0; n < total; n++) {
      // Paced against the clock, not by sleeping a fixed step, so a slow append does not stretch the run.
      const due = startedAt + (n * 1000) / LATENCY_RATE;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
      sent.set(n, performance.now());
      await appendFile(file, `chat ${n} 2026.11.27-19.00.00: Spieler: hallo 🎉\r\n`);
    }
    // The slowest side's period and then some, for the last line to arrive.
    await new Promise((resolve) => setTimeout(resolve, 2000));
  } finally {
    await Promise.all(readers.map((reader) => reader.close()));
  }
  const result = new Map<Side, Latency>();
  for (const side of sides) {
    const values = (received.get(side) ?? []).sort((x, y) => x - y);
    const at = (p: number): number => values[Math.min(values.length - 1, Math.floor(values.length * p))] ?? Number.NaN;
    result.set(side, { p50: at(0.5), p99: at(0.99), max: values.at(-1) ?? Number.NaN, missed: sent.size - values.length });
  }
  return result;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-bench-'));
  const logdnaSide = logdna();
  const sides: Side[] = [ours(true), ours(false), tailF, ...(logdnaSide === undefined ? [] : [logdnaSide])];
  try {
    const perSecond = new Map<Side, number[]>(sides.map((side) => [side, []]));
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < sides.length; i++) {
        const side = sides[(i + round) % sides.length];
        if (side !== undefined) perSecond.get(side)?.push(await throughput(dir, side, round));
      }
    }
    const lat = await latency(dir, sides);
    const tailRate = median(perSecond.get(tailF) ?? []);
    console.log(`log tail: ${linesPerRound} CRLF chat lines per round written by another process as fast as it can, ${rounds} rounds (medians); then ${LATENCY_RATE} appends/s for ${LATENCY_SECONDS} s followed by all sides at once`);
    console.log('| reader | lines/s | × tail -F | p50 ms | p99 ms | max ms | missed |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const side of sides) {
      const rate = median(perSecond.get(side) ?? []);
      const l = lat.get(side);
      console.log(`| ${side.name} | ${rate.toFixed(0)} | ${(rate / tailRate).toFixed(2)} | ${l?.p50.toFixed(1)} | ${l?.p99.toFixed(1)} | ${l?.max.toFixed(1)} | ${l?.missed} |`);
    }
    const pollOnly = lat.get(sides[1] as Side);
    console.log(`goals: LogTail >= 0.8x tail -F throughput (watch: ${(median(perSecond.get(sides[0] as Side) ?? []) / tailRate).toFixed(2)}, polling: ${(median(perSecond.get(sides[1] as Side) ?? []) / tailRate).toFixed(2)}); p99 <= 250 ms with polling alone (${pollOnly?.p99.toFixed(1)} ms at pollIntervalMs ${DEFAULT_LOG_TAIL_POLL_INTERVAL_MS})`);
    if (logdnaSide === undefined) console.log(`@logdna/tail-file not found at ${logdnaPath}: its row is left out`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
