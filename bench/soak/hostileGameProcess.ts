// Starts bench/soak/hostileGameServer.js as a child process and reads its ports and counters. Must never leave it
// running: close() ends it, and it ends by itself when its stdin closes (the soak died).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./hostileGameServer.js', import.meta.url));

export interface HostileGameStats {
  readonly floodLines: number;
  readonly endlessBytes: number;
  readonly logins: number;
  readonly refusedLogins: number;
  readonly sessions: number;
}

export class HostileGameProcess {
  readonly floodPort: number;
  readonly endlessPort: number;
  readonly #child: ChildProcess;
  #stats: HostileGameStats = { floodLines: 0, endlessBytes: 0, logins: 0, refusedLogins: 0, sessions: 0 };

  private constructor(child: ChildProcess, floodPort: number, endlessPort: number) {
    this.#child = child;
    this.floodPort = floodPort;
    this.endlessPort = endlessPort;
  }

  /** The password goes through the environment, never argv (`ps` would show it). */
  static start(password: string, floodLinesPerSecond: number, endlessKibPerSecond: number): Promise<HostileGameProcess> {
    const child = spawn(process.execPath, [SCRIPT, String(floodLinesPerSecond), String(endlessKibPerSecond)], {
      env: { ...process.env, SOAK_RCON_PASSWORD: password },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    return new Promise((resolve, reject) => {
      let buffer = '';
      let game: HostileGameProcess | undefined;
      child.once('exit', (code) => {
        if (game === undefined) reject(new Error(`the hostile game server exited with ${String(code)} before listening`));
      });
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        buffer += chunk;
        for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          const listening = /^listening flood=(\d+) endless=(\d+)$/.exec(line);
          if (listening !== null && game === undefined) {
            game = new HostileGameProcess(child, Number(listening[1]), Number(listening[2]));
            resolve(game);
          } else if (line.startsWith('stats ') && game !== undefined) {
            game.#stats = JSON.parse(line.slice(6)) as HostileGameStats;
          }
        }
      });
    });
  }

  /** The counters as of its last report (once a second). */
  get stats(): HostileGameStats {
    return this.#stats;
  }

  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.#child.once('exit', resolve));
    this.#child.kill('SIGTERM');
    await exited;
  }
}
