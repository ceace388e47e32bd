// What a person at a terminal sees, on a real pseudo-terminal (test/fixtures/pseudoTerminal.ts): `run` logs
// human-readable lines (time, level word, [server/adapter], message) with no raw JSON and no secret; `--pretty` does
// the same off a terminal, and without it a pipe gets JSON lines that each carry server and adapter once. A wipe on
// a terminal asks first: "n" sends nothing, "y" sends it, --yes skips the question, and without a terminal nothing is
// ever asked (a scheduled wipe keeps working).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { spawnOnTerminal, type TerminalProcess } from '../fixtures/pseudoTerminal.js';
import { spawnSidecar, waitForOutput, type SidecarProcess } from '../fixtures/sidecarProcess.js';
import { tempDir } from '../fixtures/tempDir.js';

const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));
const SERVER = 'tty-server';
const SERVER_ID = 5150;
const SECRET = 'tty-client-secret-9f3e1a';
const TOKEN = 'tty-mod-token-77c2b4d1e0';
// eslint-disable-next-line no-control-regex -- ANSI colour codes start with ESC
const ANSI = /\x1b\[[0-9;]*m/g;
/** "[2026-11-21 14:26:36.276 +0000] INFO: [scope] message": time with offset, the level word, where, what. */
const PRETTY_LINE = /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL): \[.+?\] \S/;

let emulator: GsaEmulator;
let dir: string;
let configPath: string;
const terminals: TerminalProcess[] = [];
const sidecars: SidecarProcess[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ clientId: 'tty-client', clientSecret: SECRET, servers: [{ name: SERVER, id: SERVER_ID }] });
  dir = await tempDir('terminal');
  configPath = join(dir, 'config.json');
  const config = {
    api: { baseUrl: emulator.url, clientId: 'tty-client', clientSecret: SECRET, retry: { retries: 0 } },
    servers: [{ name: SERVER, id: SERVER_ID, adapters: [{ type: 'websocket', port: 0, token: TOKEN }] }],
    reviews: { dataDir: 'data' },
    http: { port: 0 },
    log: { level: 'info' },
  };
  await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
});

afterEach(async () => {
  for (const running of [...terminals.splice(0).map((terminal) => terminal.child), ...sidecars.splice(0).map((sidecar) => sidecar.child)]) {
    if (running.exitCode === null && running.signalCode === null) {
      running.kill('SIGKILL');
      await once(running, 'exit');
    }
  }
  emulator.reset();
});

afterAll(async () => {
  await emulator.close();
});

function onTerminal(args: string[]): TerminalProcess {
  const terminal = spawnOnTerminal(args, { cwd: dir });
  terminals.push(terminal);
  return terminal;
}

function logLines(output: string): string[] {
  return output
    .replace(ANSI, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && line.trim() !== '^C');
}

describe('logs on a terminal', () => {
  it('run on a pseudo-terminal: coloured human-readable lines, no raw JSON, no secret; Ctrl-C stops it cleanly', async () => {
    const terminal = onTerminal(['run', '--config', configPath]);
    await terminal.waitFor(/gsa-bridge running/);
    terminal.type('\x03');
    expect(await terminal.exited()).toBe(0);
    const output = terminal.output();
    expect(output).toContain('\x1b[');
    const lines = logLines(output);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) expect(line.replace(/^\^C/, '')).toMatch(PRETTY_LINE);
    expect(output).not.toContain('{"level"');
    expect(lines).toContainEqual(expect.stringMatching(/ INFO: \[gsa-bridge\] gsa-bridge running: /));
    expect(lines).toContainEqual(expect.stringMatching(/ INFO: \[gsa-bridge\] stopped/));
    for (const secret of [SECRET, TOKEN]) expect(output).not.toContain(secret);
  });

  it('run --pretty off a terminal: the same lines, without colours', async () => {
    const child = spawn(process.execPath, [BIN, 'run', '--pretty', '--config', configPath], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exit = once(child, 'exit').then(([code]) => code as number);
    const sidecar: SidecarProcess = { child, output: () => output, exited: () => exit };
    sidecars.push(sidecar);
    await waitForOutput(sidecar, /gsa-bridge running/);
    child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
    expect(output).not.toContain('\x1b[');
    const lines = logLines(output);
    for (const line of lines) expect(line).toMatch(PRETTY_LINE);
    expect(output).not.toContain('{"level"');
    for (const secret of [SECRET, TOKEN]) expect(output).not.toContain(secret);
  });

  it('run off a terminal without --pretty: JSON lines, each with server and adapter exactly once', async () => {
    const sidecar = spawnSidecar(configPath);
    sidecars.push(sidecar);
    await waitForOutput(sidecar, /gsa-bridge running/);
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
    const lines = sidecar.output().split('\n').filter((line) => line !== '');
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const line of lines) {
      const record = JSON.parse(line) as Record<string, unknown>;
      expect(record).toHaveProperty('server');
      expect(record).toHaveProperty('adapter');
      // pino writes a binding and a field of the same name twice; a parser would keep only the last.
      expect(line.match(/"server":/g)).toHaveLength(1);
      expect(line.match(/"adapter":/g)).toHaveLength(1);
    }
    const running = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((record) => /gsa-bridge running/.test(String(record.msg)));
    expect(running).toMatchObject({ server: null, adapter: null });
  });
});

describe('one-shot commands on a terminal', () => {
  it('mute-check prints its JSON result and nothing else: no log line in between', async () => {
    const terminal = onTerminal(['mute-check', '--server', SERVER, '--steam-id', '76561198000000001', '--config', configPath]);
    expect(await terminal.exited()).toBe(0);
    expect(terminal.output().trim()).toBe(
      `{"server":"${SERVER}","steam_id":"76561198000000001","eos_id":null,"muted":false,"alert":null,"asked":{"steam_id":"76561198000000001"},"muted_by":null,"lookup_ids":"steam-first"}`,
    );
  });

  it('config check --connect prints its check lines for a person, no JSON log line, no secret', async () => {
    const terminal = onTerminal(['config', 'check', '--connect', '--config', configPath]);
    expect(await terminal.exited()).toBe(0);
    const output = terminal.output();
    expect(output).toMatch(/^ok {4}credentials: accepted by /m);
    expect(output).toMatch(/^ok {4}server tty-server: known to the service$/m);
    expect(output).not.toContain('{"level"');
    for (const secret of [SECRET, TOKEN]) expect(output).not.toContain(secret);
  });
});

describe('server wipe asks on a terminal', () => {
  it('"n": not confirmed, exit 1, nothing sent', async () => {
    const terminal = onTerminal(['server', 'wipe', '--server', SERVER, '--config', configPath]);
    await terminal.waitFor(/Wipe server tty-server \(id 5150\)\? This cannot be undone\. \[y\/N\] /);
    terminal.type('n\n');
    expect(await terminal.exited()).toBe(1);
    expect(terminal.output()).toMatch(/wipe of server tty-server \(id 5150\) not confirmed; nothing was sent/);
    expect(emulator.actions(SERVER_ID)).toEqual([]);
  });

  it('"y": sent, exit 0', async () => {
    const terminal = onTerminal(['server', 'wipe', '--server', SERVER, '--config', configPath]);
    await terminal.waitFor(/\[y\/N\] /);
    expect(emulator.actions(SERVER_ID)).toEqual([]);
    terminal.type('y\n');
    expect(await terminal.exited()).toBe(0);
    expect(terminal.output()).toMatch(/wipe server tty-server \(id 5150\): accepted \(200\)/);
    expect(emulator.actions(SERVER_ID).map((record) => record.action)).toEqual(['wipe']);
  });

  it('--yes: no question, sent', async () => {
    const terminal = onTerminal(['server', 'wipe', '--yes', '--server', SERVER, '--config', configPath]);
    expect(await terminal.exited()).toBe(0);
    expect(terminal.output()).not.toContain('[y/N]');
    expect(emulator.actions(SERVER_ID).map((record) => record.action)).toEqual(['wipe']);
  });

  it('without a terminal (a scheduled wipe): never asks, sent', async () => {
    const child = spawn(process.execPath, [BIN, 'server', 'wipe', '--server', SERVER, '--config', configPath], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir() },
      // A pipe that never ends: had it asked, it would wait here forever.
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    child.stdin.destroy();
    expect(code).toBe(0);
    expect(output).not.toContain('[y/N]');
    expect(emulator.actions(SERVER_ID).map((record) => record.action)).toEqual(['wipe']);
  });
});
