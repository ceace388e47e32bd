// A private redis-server for one bench run or one test (test/fixtures/redisServer.ts wraps it): the binary from PATH,
// on a free loopback port, keeping nothing on disk (`--save "" --appendonly no`, its working directory a temp dir
// removed at the end). Never the machine's Redis on 127.0.0.1:6379, which other programs use. It can be killed and
// started again on its port, empty, as a crash would leave it. Also reads its command counters, so a bench can say
// how many commands a load cost. Nothing here measures time. With a password it requires AUTH (`requirepass`, from a
// 0600 config file in its directory, never on its command line, so `ps` does not show it).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, sleep } from './processes.js';

export interface PrivateRedis {
  readonly port: number;
  /** redis://127.0.0.1:<port>/0, with `:<password>@` before the host when it has one. */
  readonly url: string;
  /** redis://127.0.0.1:<port>/0, never with the password: for printing. */
  readonly label: string;
  /** Runs one command on a fresh connection; resolves with the raw reply once it is complete (a simple or bulk reply). */
  command(...args: string[]): Promise<string>;
  /** Calls per command name (lower case) from `INFO commandstats`; the INFO calls themselves are in it. */
  commandCounts(): Promise<Map<string, number>>;
  /** SIGKILL and wait for the exit, as in a crash: everything it held is lost. Idempotent. */
  kill(): Promise<void>;
  /** Stops it if it runs, then starts it again on the same port, empty (it keeps nothing on disk); resolves once it answers PING. */
  restart(): Promise<void>;
  /** SIGTERM, wait for the exit, remove its directory. Idempotent. */
  stop(): Promise<void>;
}

const resp = (args: readonly string[]): string => `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;

function respCommand(port: number, args: readonly string[], password: string | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    // AUTH's own answer comes first: "+OK", or an error that is the reply.
    let authPending = password !== undefined;
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      socket.write((password === undefined ? '' : resp(['AUTH', password])) + resp(args));
    });
    socket.on('data', (chunk: string) => {
      reply += chunk;
      if (authPending) {
        if (!reply.includes('\r\n')) return;
        if (!reply.startsWith('+OK\r\n')) {
          socket.end();
          resolve(reply);
          return;
        }
        authPending = false;
        reply = reply.slice('+OK\r\n'.length);
        if (reply === '') return;
      }
      // A bulk reply ($<length>\r\n<body>\r\n) is complete once its body is in; any other reply at its first line end.
      const bulk = /^\$(\d+)\r\n/.exec(reply);
      const complete = bulk === null ? reply.endsWith('\r\n') : Buffer.byteLength(reply) >= bulk[0].length + Number(bulk[1]) + 2;
      if (complete) {
        socket.end();
        resolve(reply);
      }
    });
    socket.on('error', reject);
  });
}

export interface PrivateRedisOptions {
  /** The redis-server binary. @default 'redis-server', from PATH */
  readonly binary?: string | undefined;
  /** Its working directory, the caller's to remove. @default a new temp dir, removed by stop() */
  readonly dir?: string | undefined;
  /** Told of every redis-server process started (the first, and each restart), e.g. to kill the ones a test left. */
  readonly onProcess?: ((child: ChildProcess) => void) | undefined;
  /**
   * Its port, for a caller that can pick one no other process is handed meanwhile (the tests take one outside the
   * ephemeral range). @default a port free now, which another process's listen(0) could take before redis-server binds it
   */
  readonly port?: number | undefined;
  /** Clients must AUTH with it (`requirepass`). Letters, digits, `-` and `_` only. @default none */
  readonly password?: string | undefined;
}

/** Starts redis-server on a free port. Throws naming the cause when it is not installed or does not answer. */
export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
  const port = options.port ?? (await freePort());
  if (port === 6379) throw new Error('refusing port 6379: the machine Redis is there');
  const password = options.password;
  if (password !== undefined && !/^[A-Za-z0-9_-]{1,128}$/.test(password)) throw new Error('the private Redis password must be 1 to 128 letters, digits, "-" or "_"');
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'gsa-bridge-bench-redis-')));
  const configFile = join(dir, 'redis.conf');
  if (password !== undefined) await writeFile(configFile, `requirepass ${password}\n`, { mode: 0o600 });
  let child: ChildProcess | undefined;
  const end = async (signal: NodeJS.Signals): Promise<void> => {
    const running = child;
    if (running !== undefined && running.exitCode === null && running.signalCode === null && running.pid !== undefined) {
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill(signal);
      await exited;
    }
  };
  const stop = async (): Promise<void> => {
    await end('SIGTERM');
    if (ownDir) await rm(dir, { recursive: true, force: true });
  };
  const launch = async (): Promise<void> => {
    const started: ChildProcess = spawn(options.binary ?? 'redis-server', [...(password === undefined ? [] : [configFile]), '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', ''], {
      stdio: 'ignore',
    });
    child = started;
    options.onProcess?.(started);
    const failed = new Promise<never>((_, reject) => {
      started.once('error', (error) => {
        reject(new Error(`redis-server could not be started (${error.message}); install it from the system packages (Debian: apt-get install redis-server)`));
      });
    });
    failed.catch(() => undefined);
    for (let attempt = 0; ; attempt++) {
      try {
        const pong = await Promise.race([respCommand(port, ['PING'], password), failed]);
        if (pong.startsWith('+PONG')) return;
      } catch (error) {
        if (started.exitCode !== null || (error instanceof Error && error.message.startsWith('redis-server could not'))) throw error;
      }
      if (attempt > 500) throw new Error(`redis-server on port ${port} did not answer PING within 5 s`);
      await sleep(10);
    }
  };
  try {
    await launch();
  } catch (error) {
    await stop();
    throw error;
  }
  const command = (...args: string[]): Promise<string> => respCommand(port, args, password);
  const label = `redis://127.0.0.1:${port}/0`;
  return {
    port,
    url: password === undefined ? label : `redis://:${password}@127.0.0.1:${port}/0`,
    label,
    command,
    commandCounts: async () => {
      const text = await command('INFO', 'commandstats');
      const counts = new Map<string, number>();
      for (const match of text.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) counts.set(match[1] ?? '', Number(match[2]));
      return counts;
    },
    kill: () => end('SIGKILL'),
    restart: async () => {
      await end('SIGTERM');
      await launch();
    },
    stop,
  };
}

/**
 * Commands run between two readings of commandCounts(), leaving out the INFO readings themselves. Redis counts the
 * commands a script runs too, so `scripts` (EVALSHA and EVAL) says how many round trips there were.
 */
export function commandsBetween(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): { total: number; scripts: number; byName: Map<string, number> } {
  const byName = new Map<string, number>();
  let total = 0;
  for (const [name, calls] of after) {
    if (name === 'info') continue;
    const delta = calls - (before.get(name) ?? 0);
    if (delta > 0) {
      byName.set(name, delta);
      total += delta;
    }
  }
  return { total, scripts: (byName.get('evalsha') ?? 0) + (byName.get('eval') ?? 0), byName };
}
