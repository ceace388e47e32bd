// Failures a host must see plainly, against real `gsa-bridge` processes: a sidecar with no listener stays up
// until it is told to stop, and a port in use is one line naming the address (exit 2) for every command that
// listens, never a stack trace.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSidecar, waitForOutput, type SidecarProcess } from '../fixtures/sidecarProcess.js';

const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));

const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gsa-bridge-failures-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A port held by another listener for the duration of the test. */
async function occupiedPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function track(sidecar: SidecarProcess): SidecarProcess {
  cleanups.push(async () => {
    if (sidecar.child.exitCode === null && sidecar.child.signalCode === null) sidecar.child.kill('SIGKILL');
    await sidecar.exited();
  });
  return sidecar;
}

async function runCli(args: readonly string[]): Promise<{ code: number | null; output: string }> {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, output };
}

async function writeConfig(dir: string, servers: unknown[]): Promise<string> {
  const path = join(dir, 'config.json');
  const config = {
    // Nothing listens here; no call is made in these tests anyway.
    api: { baseUrl: 'http://127.0.0.1:9', clientId: 'id', clientSecret: 'secret-of-the-failure-tests' },
    servers,
    reviews: { dataDir: join(dir, 'data') },
    http: { port: 0 },
  };
  await writeFile(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

describe('gsa-bridge run without a WebSocket adapter', () => {
  it('stays up with "adapters": [] (answers a SIGHUP reload) and exits 0 on SIGTERM', async () => {
    const dir = await tempDir();
    const sidecar = track(spawnSidecar(await writeConfig(dir, [{ name: 'ovddykvbs', adapters: [] }])));
    await waitForOutput(sidecar, /gsa-bridge running/);
    // Before the fix the process ended here with exit 13 (nothing held the event loop open).
    sidecar.child.kill('SIGHUP');
    await waitForOutput(sidecar, /SIGHUP: config reloaded/);
    await waitForOutput(sidecar, /running[^\n]*\n[\s\S]*running/);
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });

  it('stays up with only RCON adapters and exits 0 on SIGTERM', async () => {
    const dir = await tempDir();
    const rcon = { type: 'rcon', profile: 'ark', port: 27020, password: 'rcon-password-x' };
    const sidecar = track(spawnSidecar(await writeConfig(dir, [{ name: 'ovddykvbs', adapters: [rcon] }])));
    await waitForOutput(sidecar, /gsa-bridge running/);
    sidecar.child.kill('SIGHUP');
    await waitForOutput(sidecar, /SIGHUP: config reloaded/);
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });
});

describe.skipIf(process.platform === 'win32')('gsa-bridge run with files others can read', () => {
  it('warns at start about the config file holding the secret and the data directory', async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, [{ name: 'ovddykvbs', adapters: [] }]);
    await chmod(path, 0o644);
    await mkdir(join(dir, 'data'), { mode: 0o755 });
    await chmod(join(dir, 'data'), 0o755);
    const sidecar = track(spawnSidecar(path));
    await waitForOutput(sidecar, /gsa-bridge running/);
    expect(sidecar.output()).toMatch(/"level":40[^\n]*config file [^\n]*readable by group or others \(mode 0644\): run chmod 600/);
    expect(sidecar.output()).toMatch(/"level":40[^\n]*review data directory [^\n]*\(mode 0755\)[^\n]*chmod 700/);
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });
});

describe('a listener that cannot bind', () => {
  function expectOneLine(output: string, port: number): void {
    // run may log a JSON line or two before it gives up (the journal it opened); the failure itself is one plain line.
    // JSON log lines may name the port too (a derived adapter id carries it); the failure is the one plain line.
    const lines = output.trim().split('\n').filter((line) => line.includes(String(port)) && !line.startsWith('{'));
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^error: cannot listen on 127\\.0\\.0\\.1:${port}\\b.*port in use`))]);
    expect(output).not.toMatch(/\n\s+at /);
  }

  it('run: one line naming the address, exit 2', async () => {
    const dir = await tempDir();
    const port = await occupiedPort();
    const path = await writeConfig(dir, [{ name: 'ovddykvbs', adapters: [{ type: 'websocket', port, token: 'a-token-for-this-test' }] }]);
    const { code, output } = await runCli(['run', '--config', path]);
    expect(code).toBe(2);
    expectOneLine(output, port);
  });

  it('emulator: one line naming the address, exit 2', async () => {
    const port = await occupiedPort();
    const { code, output } = await runCli(['emulator', '--port', String(port)]);
    expect(code).toBe(2);
    expectOneLine(output, port);
  });

  it('demo: one line naming the address, exit 2', async () => {
    const port = await occupiedPort();
    const { code, output } = await runCli(['demo', '--once', '--port', String(port)]);
    expect(code).toBe(2);
    expectOneLine(output, port);
  });
});
