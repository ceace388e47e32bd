// One-shot commands against a service that accepts connections and never answers (a node:http server on loopback):
// each gives up after its --timeout with exit 1 and one line saying so (before the fix, mute-check went through 6
// attempts of 5 s each, about 44 s, in silence). `server` and `review` also say the call may have been acted on.
// On a terminal (a real pseudo-terminal through `script`) every retry is one line on stderr.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnOnTerminal, type TerminalProcess } from '../fixtures/pseudoTerminal.js';
import { tempDir } from '../fixtures/tempDir.js';
import { patientMs } from '../fixtures/patience.js';

const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));
const STEAM = '76561198000000001';

let hung: Server;
let hungUrl: string;
let dir: string;
/** How many requests reached the hung service. */
let requests = 0;
const terminals: TerminalProcess[] = [];

beforeAll(async () => {
  // Reads nothing and answers nothing: the request stays open until the client gives up.
  hung = createServer(() => {
    requests += 1;
  });
  hung.listen(0, '127.0.0.1');
  await once(hung, 'listening');
  hungUrl = `http://127.0.0.1:${String((hung.address() as AddressInfo).port)}`;
  dir = await tempDir('one-shot-deadline');
});

afterEach(async () => {
  for (const terminal of terminals.splice(0)) {
    if (terminal.child.exitCode === null && terminal.child.signalCode === null) {
      terminal.child.kill('SIGKILL');
      await once(terminal.child, 'exit');
    }
  }
});

afterAll(async () => {
  hung.closeAllConnections();
  await new Promise((resolve) => hung.close(resolve));
});

/** The service comes from the environment only: the default request timeout (5 s) and retries (5) apply. */
const SERVICE_ENV = (): Record<string, string> => ({ GSA_API_URL: hungUrl, GSA_CLIENT_ID: 'deadline-client', GSA_CLIENT_SECRET: 'deadline-secret-3c' });

async function runBinary(args: readonly string[]): Promise<{ code: number | string; stdout: string; stderr: string; elapsedMs: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), ...SERVICE_ENV() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
  return { code: code ?? signal ?? 'none', stdout, stderr, elapsedMs: performance.now() - started };
}

describe('one-shot commands against a hung service', () => {
  it('mute-check gives up after --timeout with exit 1 and one line', async () => {
    const before = requests;
    const result = await runBinary(['mute-check', '--server', 'ovddykvbs', '--steam-id', STEAM, '--timeout', '1']);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('error (timeout): mute check: no answer within 1 s (--timeout SECONDS), 1 attempt; gave up\n');
    expect(requests).toBe(before + 1);
    // Generous: the process start and teardown on a loaded machine; the old behaviour took about 44 s.
    expect(result.elapsedMs).toBeLessThan(patientMs(15_000, 44_000));
  });

  it('server restart says the action may have run anyway', async () => {
    const result = await runBinary(['server', 'restart', '--id', '4711', '--timeout', '1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'note: no clear answer came, so the restart of server 4711 may have run anyway; check the server or the dashboard before sending it again\n' +
        'error (timeout): restart of server 4711: no answer within 1 s (--timeout SECONDS), 1 attempt; gave up\n',
    );
  });

  it('review says the service may have stored it anyway', async () => {
    const result = await runBinary(['review', '--server', 'ovddykvbs', '--steam-id', STEAM, '--stars', '5', '--comment', 'hi', '--timeout', '1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'note: the service may have stored this review before the failure; check the dashboard before sending it again\n' +
        'error (timeout): review: no answer within 1 s (--timeout SECONDS), 1 attempt; gave up\n',
    );
  });

  it('refuses a --timeout that is not a whole number of seconds from 1 to 3600', async () => {
    const result = await runBinary(['mute-check', '--server', 'ovddykvbs', '--steam-id', STEAM, '--timeout', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --timeout must be a whole number from 1 to 3600, got "0"$/m);
  });

  it('on a terminal, prints one line per retry before giving up', async () => {
    // Attempts end after 1 s each, 0.1 s apart: the 3 s deadline falls inside the third attempt.
    const configPath = join(dir, 'retrying.json');
    const config = {
      api: { baseUrl: hungUrl, clientId: 'deadline-client', clientSecret: 'deadline-secret-3c', timeoutMs: 1000, retry: { retries: 5, minDelayMs: 100, maxDelayMs: 100 } },
      servers: [{ name: 'ovddykvbs', adapters: [] }],
    };
    await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
    const terminal = spawnOnTerminal(['mute-check', '--server', 'ovddykvbs', '--steam-id', STEAM, '--timeout', '3', '--config', configPath], { cwd: dir });
    terminals.push(terminal);
    expect(await terminal.exited()).toBe(1);
    const lines = terminal.output().trim().split('\n');
    const retries = lines.filter((line) => line.startsWith('mute check: '));
    expect(retries.length).toBeGreaterThanOrEqual(1);
    expect(retries[0]).toBe('mute check: no answer (timeout); retrying in 0.1 s (attempt 2 of 6)');
    retries.forEach((line, index) => {
      expect(line).toBe(`mute check: no answer (timeout); retrying in 0.1 s (attempt ${String(index + 2)} of 6)`);
    });
    expect(lines.at(-1)).toBe(`error (timeout): mute check: no answer within 3 s (--timeout SECONDS), ${String(retries.length + 1)} attempts; gave up`);
  });
});
