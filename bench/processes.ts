// Helpers for the benchmarks that measure real processes: start `gsa-bridge <command>` the way a host does and
// wait until it says it is ready, stop it, read its resident memory, find a free port.
// Nothing here measures anything itself, and nothing keeps a process's output beyond its start-up lines.

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));

export type CliProcess = ChildProcessByStdio<null, Readable, Readable>;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Spawns `gsa-bridge ...args` with default Node flags and resolves once its output matches `ready`, with the
 * match. BENCH_NODE_ARGS (e.g. "--trace-gc") adds Node flags, and BENCH_CHILD_LOG=<file> appends all the
 * processes' output to a file (to read that trace), for investigating only. `extra` adds Node flags and
 * environment variables of the caller's own (the child otherwise gets PATH only).
 */
export async function spawnCli(
  args: readonly string[],
  ready: RegExp,
  extra: { readonly nodeArgs?: readonly string[]; readonly env?: Readonly<Record<string, string>> } = {},
): Promise<{ child: CliProcess; match: RegExpExecArray }> {
  const nodeArgs = [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''), ...(extra.nodeArgs ?? [])];
  const childLog = process.env.BENCH_CHILD_LOG;
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', ...extra.env } });
  let output = '';
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      if (childLog !== undefined) appendFileSync(childLog, chunk);
      // Only the start-up output is kept: a long run must not grow this process's memory.
      if (output.length < 100_000) output += chunk.toString();
      const found = ready.exec(output);
      if (found !== null) resolve(found);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', () => {
      reject(new Error(`gsa-bridge ${args[0] ?? ''} exited before it was ready:\n${output}`));
    });
  });
  return { child, match };
}

/** The emulator in its own process; resolves with its URL. */
export async function spawnEmulator(): Promise<{ child: CliProcess; url: string }> {
  const { child, match } = await spawnCli(['emulator', '--port', '0'], /listening on (http:\/\/\S+)/);
  return { child, url: match[1] ?? '' };
}

export async function stopProcess(child: CliProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/**
 * A field of /proc/<pid>/status in MB: VmRSS (resident now), VmHWM (the peak), or VmRSS's parts RssAnon (the
 * process's own: heap, stacks) and RssFile (mapped files, mostly the node binary, shared with other processes).
 * Linux only.
 */
export async function residentMb(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssAnon' | 'RssFile' = 'VmRSS'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1];
  if (kb === undefined) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(kb) / 1024;
}

/** A port nothing listens on right now (the config schema refuses port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
