// Benchmark: Source RCON commands per second through SourceRconClient next to the `rcon-client` npm package (a
// devDependency used here only), in one run against the same fake SRCDS-like server in its own process
// (bench/sourceRconBenchServer.ts). Serially (each command awaited before the next) and pipelined (N in flight).
// Rounds rotate the order of the sides and ratios are taken round by round, so machine noise hits all sides alike;
// the ratio matters, absolute numbers on a shared 2-core machine do not. Then the same server's quirks, each tried
// on both clients: a multi-packet reply, packets split over many TCP reads, SRCDS's empty packet before the answer
// to a wrong password, and a connection reset by the server. Every reply is checked against the command it
// answers, so speed never hides a wrong answer. Measures only; never used by the product.
//
//   npm run bench            (after npm ci, which builds dist/)
//   node dist/bench/rcon-throughput.js [serialPerRound] [pipelinedPerRound] [inFlight] [rounds]

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Rcon } from 'rcon-client';
import { RconError } from '../adapters/rcon/errors.js';
import { SourceRconClient, type ReplyEndRule } from '../adapters/rcon/sourceRconClient.js';

const serialPerRound = Number(process.argv[2] ?? 2000);
const pipelinedPerRound = Number(process.argv[3] ?? 10000);
const inFlight = Number(process.argv[4] ?? 16);
const rounds = Number(process.argv[5] ?? 5);

const HOST = '127.0.0.1';
const PASSWORD = 'bench-password';
const LONG_REPLY_BYTES = 10_000;

/** What a benchmark side needs: send one command, and stop. */
interface BenchClient {
  send(command: string): Promise<string>;
  close(): Promise<void>;
}

async function startServer(): Promise<{ child: ChildProcessByStdio<null, Readable, null>; whole: number; split: number }> {
  const script = fileURLToPath(new URL('./sourceRconBenchServer.js', import.meta.url));
  const child = spawn(process.execPath, [script, PASSWORD], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      const match = /listening whole=(\d+) split=(\d+)/.exec(output);
      if (match !== null) resolve({ child, whole: Number(match[1]), split: Number(match[2]) });
    });
    child.once('exit', () => {
      reject(new Error(`the bench RCON server did not start: ${output}`));
    });
  });
}

interface ConnectOptions {
  readonly password?: string | undefined;
  /** SourceRconClient only. @default the mirror trick */
  readonly replyEnd?: ReplyEndRule | undefined;
  /** SourceRconClient: reconnect after a drop (what the adapter does); rcon-client cannot. @default false */
  readonly reconnect?: boolean | undefined;
  /** rcon-client: listen to its `error` event (its README does not say it must). @default true */
  readonly errorListener?: boolean | undefined;
}
type Connect = (port: number, depth: number, options?: ConnectOptions) => Promise<BenchClient>;

async function ours(port: number, depth: number, options: ConnectOptions = {}): Promise<BenchClient> {
  const reconnect = options.reconnect ?? false;
  const client = new SourceRconClient({
    host: HOST,
    port,
    password: options.password ?? PASSWORD,
    label: 'bench',
    replyEnd: options.replyEnd ?? { kind: 'mirror' },
    maxInFlight: depth,
    maxQueuedCommands: 1_000_000,
    commandTimeoutMs: 30_000,
    reconnect,
    reconnectMinDelayMs: 100,
  });
  client.start();
  try {
    await client.whenReady({ failFast: !reconnect });
  } catch (error) {
    await client.close();
    throw error;
  }
  return {
    // Like the adapter's pollers: a command while reconnecting fails at once, so wait for the session first.
    send: async (command) => {
      if (reconnect) await client.whenReady({ timeoutMs: 10_000 });
      return client.command(command);
    },
    close: () => client.close(),
  };
}

async function theirs(port: number, depth: number, options: ConnectOptions = {}): Promise<BenchClient> {
  const rcon = new Rcon({ host: HOST, port, password: options.password ?? PASSWORD, maxPending: depth, timeout: 2_000 });
  // Without a listener, a socket error crashes the process (one of rcon-client's known faults; its own row below).
  if (options.errorListener ?? true) rcon.on('error', () => undefined);
  await rcon.connect();
  return {
    send: (command) => rcon.send(command),
    close: async () => {
      if (rcon.socket !== null) await rcon.end();
    },
  };
}

interface RoundResult {
  readonly perSecond: number;
  /** CPU time of this (the client's) process per command: what the client itself costs, whatever the server does. */
  readonly cpuMicros: number;
  /** Replies that were not the answer to the command sent (must be 0). */
  readonly wrong: number;
}

async function runRound(client: BenchClient, commands: number, concurrency: number): Promise<RoundResult> {
  let next = 0;
  let wrong = 0;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < commands) {
      const command = `status ${next++}`;
      if ((await client.send(command)) !== `reply to ${command}`) wrong++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedS = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return { perSecond: commands / elapsedS, cpuMicros: (cpu.user + cpu.system) / commands, wrong };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const describeError = (error: unknown): string =>
  error instanceof RconError ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);

/** One quirk, both clients: what each returned. */
async function quirk(
  name: string,
  attempt: (connect: Connect) => Promise<{ works: boolean; got: string }>,
): Promise<void> {
  const sides: readonly (readonly [string, Connect])[] = [['SourceRconClient', ours], ['rcon-client', theirs]];
  for (const [side, connect] of sides) {
    let outcome: { works: boolean; got: string };
    try {
      outcome = await attempt(connect);
    } catch (error) {
      outcome = { works: false, got: `threw ${describeError(error)}` };
    }
    console.log(`| ${name} | ${side} | ${outcome.works ? 'works' : 'FAILS'} | ${outcome.got} |`);
  }
}

async function main(): Promise<void> {
  const server = await startServer();
  try {
    // SourceRconClient twice: with the mirror trick (exact: one empty packet more per command, two more answered,
    // what the squad profile uses), and with a reply that ends on a packet shorter than 4096 body bytes (one packet
    // each way, as rcon-client sends; exact only for a game that splits at 4096, as this server does).
    const belowFull: ReplyEndRule = { kind: 'quiet', endsBelowBodyBytes: 4096 };
    const sides = [
      { name: 'SourceRconClient, mirror', serial: await ours(server.whole, 1), pipelined: await ours(server.whole, inFlight) },
      {
        name: 'SourceRconClient, ends below 4096 B',
        serial: await ours(server.whole, 1, { replyEnd: belowFull }),
        pipelined: await ours(server.whole, inFlight, { replyEnd: belowFull }),
      },
      { name: 'rcon-client 4.2.5', serial: await theirs(server.whole, 1), pipelined: await theirs(server.whole, inFlight) },
    ];
    const results = new Map(sides.map((side) => [side.name, { serial: [] as RoundResult[], pipelined: [] as RoundResult[] }]));
    // Warm-up: connections, JIT.
    for (const side of sides) {
      await runRound(side.serial, 500, 1);
      await runRound(side.pipelined, 2_000, inFlight);
    }
    for (let round = 0; round < rounds; round++) {
      // Each round in another order, so a slow moment of the machine does not always hit the same side.
      const order = sides.map((_, index) => sides[(index + round) % sides.length]!);
      for (const side of order) {
        results.get(side.name)?.serial.push(await runRound(side.serial, serialPerRound, 1));
        results.get(side.name)?.pipelined.push(await runRound(side.pipelined, pipelinedPerRound, inFlight));
      }
    }
    for (const side of sides) {
      await side.serial.close();
      await side.pipelined.close();
    }

    // Ratios are taken round by round (the sides of a round ran back to back), then their median: a slow moment of
    // the shared machine moves both sides of a round alike.
    const theirName = sides[sides.length - 1]?.name ?? '';
    const summary = (name: string, kind: 'serial' | 'pipelined', baseKind: 'serial' | 'pipelined' = kind): { cells: string; ratio: string } => {
      const list = results.get(name)?.[kind] ?? [];
      const base = results.get(theirName)?.[baseKind] ?? [];
      const perSecond = median(list.map((result) => result.perSecond));
      const cpu = median(list.map((result) => result.cpuMicros));
      const wrong = list.reduce((sum, result) => sum + result.wrong, 0);
      const ratio = median(list.map((result, round) => result.perSecond / (base[round]?.perSecond ?? Number.NaN)));
      return { cells: `${perSecond.toFixed(0)} (${list.map((result) => result.perSecond.toFixed(0)).join(', ')}) | ${cpu.toFixed(1)} | ${wrong}`, ratio: `${ratio.toFixed(2)}×` };
    };
    console.log(
      `\nSource RCON commands/s, median of ${rounds} rounds (each round's value); ${serialPerRound} commands a serial round, ` +
        `${pipelinedPerRound} a pipelined round with ${inFlight} in flight; all against the same server process; ratios: median of per-round ratios\n`,
    );
    console.log('| client | mode | commands/s | client CPU µs/command | wrong replies | ratio to rcon-client, same mode | ratio to rcon-client serial (its default) |');
    console.log('|---|---|---:|---:|---:|---:|---:|');
    for (const kind of ['serial', 'pipelined'] as const) {
      for (const side of sides) {
        const mode = kind === 'serial' ? 'serial' : side.name === theirName ? `maxPending ${inFlight}` : `${inFlight} in flight`;
        const same = summary(side.name, kind);
        console.log(`| ${side.name} | ${mode} | ${same.cells} | ${same.ratio} | ${summary(side.name, kind, 'serial').ratio} |`);
      }
    }
    const theirSerial = median((results.get(theirName)?.serial ?? []).map((result) => result.perSecond));

    // ARK's rule: it never mirrors and sends a long reply as one big packet, so a reply ends 100 ms after its
    // packet (the ark profile). That, not the client, bounds ARK's serial rate.
    const ark = await ours(server.whole, 1, { replyEnd: { kind: 'quiet', quietMs: 100 } });
    const arkRound = await runRound(ark, 20, 1);
    await ark.close();
    console.log(`| SourceRconClient, ark rule (quiet 100 ms) | serial, 20 commands | ${arkRound.perSecond.toFixed(1)} | ${arkRound.cpuMicros.toFixed(1)} | ${arkRound.wrong} | | ${(arkRound.perSecond / theirSerial).toPrecision(2)}× |`);

    console.log('\nWhere rcon-client fails outright (same server; SourceRconClient for contrast)\n');
    console.log('| case | client | result | what it returned |');
    console.log('|---|---|---|---|');
    await quirk(`multi-packet reply (${LONG_REPLY_BYTES} bytes in 3 packets)`, async (connect) => {
      const client = await connect(server.whole, 1);
      try {
        const reply = await client.send(`long ${LONG_REPLY_BYTES}`);
        const after = await client.send('status after');
        const works = reply.length === LONG_REPLY_BYTES && after === 'reply to status after';
        return { works, got: `${reply.length} of ${LONG_REPLY_BYTES} bytes; the next command got ${JSON.stringify(after.slice(0, 30))}` };
      } finally {
        await client.close();
      }
    });
    await quirk('split TCP reads (1–7 bytes a read): 200 pipelined commands and a 4000-byte one-packet reply', async (connect) => {
      const client = await connect(server.split, 4);
      try {
        const commands = Array.from({ length: 200 }, (_, index) => `status ${index}`);
        const replies = await Promise.all(commands.map((command) => client.send(command)));
        const right = replies.filter((reply, index) => reply === `reply to ${commands[index] ?? ''}`).length;
        const long = await client.send('long 4000');
        return { works: right === 200 && long.length === 4000, got: `${right}/200 right replies; the long reply ${long.length} of 4000 bytes` };
      } finally {
        await client.close();
      }
    });
    await quirk('SRCDS wrong password (empty packet, then id -1)', async (connect) => {
      const started = performance.now();
      const seconds = (): string => ((performance.now() - started) / 1000).toFixed(1);
      let client: BenchClient;
      try {
        client = await connect(server.whole, 1, { password: 'not-the-password' });
      } catch (error) {
        return { works: true, got: `login refused after ${seconds()} s: ${describeError(error)}` };
      }
      // Logged in, it says. Then a command: the server ignores a session that is not logged in.
      try {
        const reply = await client.send('status');
        return { works: false, got: `login accepted; a command then answered ${JSON.stringify(reply)}` };
      } catch (error) {
        return { works: false, got: `login accepted; the first command then failed after ${seconds()} s: ${describeError(error)}` };
      } finally {
        await client.close().catch(() => undefined);
      }
    });
    await quirk('the server resets the connection (a crash, a restart), then the next command', async (connect) => {
      // rcon-client as its README shows it: no `error` listener. The reset then surfaces as an uncaught
      // exception, which would end a real sidecar; caught here only to be counted.
      let uncaught: unknown;
      const onUncaught = (error: unknown): void => {
        uncaught = error;
      };
      process.on('uncaughtException', onUncaught);
      try {
        const client = await connect(server.whole, 1, { reconnect: true, errorListener: false });
        try {
          const dropped = await client.send('reset').then(
            (reply) => `answered ${JSON.stringify(reply)}`,
            (error: unknown) => `failed: ${describeError(error)}`,
          );
          await new Promise((resolve) => setTimeout(resolve, 300));
          const next = await client.send('status after').then(
            (reply) => ({ ok: reply === 'reply to status after', text: `next command: ${JSON.stringify(reply)}` }),
            (error: unknown) => ({ ok: false, text: `next command failed: ${describeError(error)}` }),
          );
          const crash = uncaught === undefined ? 'no uncaught error' : `UNCAUGHT ${describeError(uncaught)} (the process would have crashed)`;
          return { works: next.ok && uncaught === undefined, got: `the command ${dropped}; ${crash}; ${next.text}` };
        } finally {
          await client.close().catch(() => undefined);
        }
      } finally {
        process.off('uncaughtException', onUncaught);
      }
    });
  } finally {
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    await exited;
  }
}

await main();
