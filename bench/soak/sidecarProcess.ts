// The real sidecar under soak: `node bin/gsa-bridge.js run --config <file>` as a child process, as a host runs
// it. Captures every byte it logs into one file, samples its RSS and open descriptors from /proc (and its wait for
// a core, coreWait.ts), kills it with SIGKILL and restarts it on request, and tells deliberate deaths from crashes.
// With --trace-sidecar-loop, and only then, the process is started with loopProbe.ts preloaded.
// Must never restart silently: every exit is recorded, and only the ones this module caused are not crashes.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreWaitRecorder } from './coreWait.js';

const BIN = fileURLToPath(new URL('../../../bin/gsa-bridge.js', import.meta.url));
/** Preloaded into the sidecar only when the soak traces its event loop (--trace-sidecar-loop). */
const LOOP_PROBE = new URL('./loopProbe.js', import.meta.url).href;
const RUNNING = /gsa-bridge running/;
const START_TIMEOUT_MS = 20_000;

export interface ResourceSample {
  /** ms since the soak started (performance.now() clock). */
  readonly at: number;
  readonly pid: number;
  /** Which start of the sidecar this sample belongs to (0 = first). */
  readonly generation: number;
  readonly rssKb: number;
  readonly fds: number;
}

export interface ExitRecord {
  readonly at: number;
  readonly pid: number;
  readonly code: number | null;
  readonly signal: string | null;
  /** True when this module sent the signal (the scheduled kill -9, or the final SIGTERM). */
  readonly deliberate: boolean;
  /** The last lines the process logged, to explain a crash. */
  readonly tail: string;
}

export class SoakSidecar {
  readonly #configPath: string;
  readonly #log: WriteStream;
  readonly #now: () => number;
  #child: ChildProcess | undefined;
  #generation = -1;
  #deliberate = false;
  #tail = '';
  #allOutput: string[] = [];
  readonly exits: ExitRecord[] = [];
  readonly samples: ResourceSample[] = [];
  /** Its main thread's wait for a core, every few ms from the first start until close(). */
  readonly coreWait: CoreWaitRecorder;

  readonly #loopProbeDir: string | undefined;

  /** `loopProbeDir`: preload loopProbe.ts into every start, which writes its records there. */
  constructor(configPath: string, logPath: string, now: () => number, loopProbeDir?: string) {
    this.#configPath = configPath;
    this.#loopProbeDir = loopProbeDir;
    this.#log = createWriteStream(logPath, { flags: 'a' });
    this.#now = now;
    this.coreWait = new CoreWaitRecorder(now, () => (this.alive() ? this.pid : undefined));
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get generation(): number {
    return this.#generation;
  }

  /** When each generation logged "running", on the soak's clock. */
  readonly runningSince: number[] = [];

  /** Everything every generation wrote to stdout and stderr. */
  output(): string {
    return this.#allOutput.join('');
  }

  /** Starts a new generation and resolves once it logs "running". @throws when it exits or stays silent first. */
  async start(): Promise<void> {
    if (this.#generation < 0) this.coreWait.start();
    this.#generation += 1;
    this.#deliberate = false;
    this.#tail = '';
    const probe = this.#loopProbeDir === undefined ? [] : ['--import', LOOP_PROBE];
    const child = spawn(process.execPath, [...probe, BIN, 'run', '--config', this.#configPath], {
      cwd: dirname(this.#configPath),
      env: { PATH: process.env.PATH ?? '', ...(this.#loopProbeDir === undefined ? {} : { SOAK_LOOP_PROBE_DIR: this.#loopProbeDir }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    let seen = '';
    const collect = (chunk: Buffer): void => {
      const text = chunk.toString();
      this.#allOutput.push(text);
      this.#log.write(text);
      seen = (seen + text).slice(-64 * 1024);
      this.#tail = (this.#tail + text).slice(-4096);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    // A spawn that fails (its cwd, the soak's temp dir, was removed under it) must fail this start, not the soak.
    let spawnError: Error | undefined;
    child.once('error', (error) => {
      spawnError = error;
    });
    child.once('exit', (code, signal) => {
      const pid = child.pid ?? 0;
      this.exits.push({ at: this.#now(), pid, code, signal, deliberate: this.#deliberate, tail: this.#tail });
      if (this.#child === child) this.#child = undefined;
    });
    const deadline = this.#now() + START_TIMEOUT_MS;
    while (!RUNNING.test(seen)) {
      if (spawnError !== undefined) throw new Error(`the sidecar could not be started: ${spawnError.message} (does ${dirname(this.#configPath)} still exist?)`);
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the sidecar exited while starting:\n${this.#tail}`);
      if (this.#now() > deadline) throw new Error(`the sidecar did not log "running" within ${START_TIMEOUT_MS} ms:\n${this.#tail}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.runningSince.push(this.#now());
  }

  /** True while the current generation runs. */
  alive(): boolean {
    const child = this.#child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  /** `kill -9`, then waits for the exit. */
  async kill9(): Promise<void> {
    await this.#signal('SIGKILL');
  }

  /** SIGTERM and waits; resolves with the exit code (null when a signal ended it). */
  async stop(): Promise<number | null> {
    await this.#signal('SIGTERM');
    return this.exits.at(-1)?.code ?? null;
  }

  async #signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child;
    if (child === undefined || !this.alive()) return;
    this.#deliberate = true;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  /** Reads VmRSS and counts /proc/<pid>/fd of the current generation; skipped (false) when it is not running. */
  async sample(): Promise<boolean> {
    const pid = this.pid;
    if (pid === undefined || !this.alive()) return false;
    try {
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      const rssKb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN);
      const fds = (await readdir(`/proc/${pid}/fd`)).length;
      if (Number.isFinite(rssKb)) this.samples.push({ at: this.#now(), pid, generation: this.#generation, rssKb, fds });
      return true;
    } catch {
      // The process died between the check and the read; the exit handler records that.
      return false;
    }
  }

  async close(): Promise<void> {
    this.coreWait.stop();
    await new Promise<void>((resolve) => this.#log.end(resolve));
  }
}
