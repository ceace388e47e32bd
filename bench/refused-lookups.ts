// Benchmark: what a mute lookup that the client's own rate limiter refuses costs this process, the case of a chat
// flood from new players while the API budget is spent: each new lookup makes the oldest waiting one give way
// (QueueFullError, nothing sent). The client is the real GsaClient; its one call in flight goes to a local server
// that never answers, so the window stays spent and every later lookup ends as a refusal. Prints CPU µs per refused
// lookup and how many stack frames a refusal carries. Absolute numbers on a shared 2-core machine mean little:
// compare two builds on the same machine, one right after the other.
//
//   node dist/bench/refused-lookups.js [lookupsPerRound] [rounds]

import { createServer } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { GsaClient, QueueFullError } from '../src/gsa/index.js';
import { median } from './processes.js';

const lookupsPerRound = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 5);
/** Lookups issued before the event loop turns, so the refusals' rejections are handled as they come under a flood. */
const BATCH = 1000;

/** Frames below the header line of an error's stack. */
function framesOf(error: unknown): number {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  return stack.split('\n').filter((line) => /^\s+at /.test(line)).length;
}

async function main(): Promise<void> {
  // Takes the one call the window lets go and never answers it.
  const server = createServer(() => undefined);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const client = new GsaClient({
    baseUrl: `http://127.0.0.1:${String(port)}`,
    clientId: 'bench-client',
    clientSecret: 'bench-secret',
    timeoutMs: 3_600_000,
    rateLimit: { requests: 1, intervalMs: 3_600_000, maxQueued: 1 },
    retry: { retries: 0 },
  });
  const first = client.checkMuted('ovddykvbs', { steamId: '76561198000000000' }).catch(() => undefined);

  let refused = 0;
  let other = 0;
  let sample: unknown;
  const count = (error: unknown): void => {
    if (error instanceof QueueFullError) {
      refused += 1;
      sample ??= error;
    } else other += 1;
  };
  let player = 1;
  const perLookupUs: number[] = [];
  console.log(`refused mute lookups through GsaClient on node ${process.version}: ${String(lookupsPerRound)} lookups a round, ${String(rounds)} rounds`);
  console.log('| round | refused | other outcomes | CPU µs per refused lookup |');
  console.log('|---:|---:|---:|---:|');
  for (let round = 1; round <= rounds; round++) {
    const refusedBefore = refused;
    const cpu = process.cpuUsage();
    for (let issued = 0; issued < lookupsPerRound; issued += BATCH) {
      for (let index = 0; index < BATCH; index++) {
        client.checkMuted('ovddykvbs', { steamId: `7656119${String(player++).padStart(10, '0')}` }).then(() => {
          other += 1;
        }, count);
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    await new Promise((resolve) => setImmediate(resolve));
    const used = process.cpuUsage(cpu);
    const inRound = refused - refusedBefore;
    const us = (used.user + used.system) / Math.max(1, inRound);
    perLookupUs.push(us);
    console.log(`| ${String(round)} | ${String(inRound)} | ${String(other)} | ${us.toFixed(2)} |`);
  }
  console.log(`\nmedian: ${median(perLookupUs).toFixed(2)} µs CPU per refused lookup; a refusal carries ${String(framesOf(sample))} stack frame(s)`);

  // The call in flight first: the client's close waits for it.
  server.closeAllConnections();
  server.close();
  await first;
  await client.close();
}

await main();
