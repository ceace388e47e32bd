// `gsa-bridge config check --connect` logs in to every RCON adapter, through the real binary against the fake game
// servers and the GSA emulator: a good adapter is one `ok` line after exactly one login and the profile's harmless
// command (ark and squad ListPlayers, rust serverinfo, conan listplayers on the emulator's console; never GetChat), a
// wrong password, a dead port or a port that speaks another protocol one `FAIL` line naming the adapter and the config
// key; any FAIL exits 1. The password appears nowhere, and nothing is left open (the fakes see every session closed).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GAME_CONSOLES } from '../../src/gameEmulator/gameConsoles.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { FakeRustWebRconServer } from '../fixtures/fakeRustWebRconServer.js';
import { ForeignProtocolServer, seededBytes } from '../fixtures/foreignProtocolServer.js';
import { FakeSourceRconServer, type FakeRconQuirks } from '../fixtures/fakeSourceRconServer.js';
import { unclaimedPort } from '../fixtures/ports.js';
import { tempDir } from '../fixtures/tempDir.js';

const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));
const SERVER = 'rcon-check-srv';
const API_SECRET = 'rcon-check-api-secret-7e21';
const PASSWORD = 'rcon-check-pass-5d0c9a';
const WRONG_PASSWORD = 'rcon-check-wrong-pass-31f8';

let emulator: GsaEmulator;
let dir: string;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ clientId: 'rcon-check-client', clientSecret: API_SECRET, servers: [{ name: SERVER, id: 78 }] });
  dir = await tempDir('config-check-rcon');
});

afterEach(async () => {
  emulator.reset();
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

afterAll(async () => {
  await emulator.close();
});

async function sourceFake(quirks: FakeRconQuirks): Promise<FakeSourceRconServer> {
  const fake = await FakeSourceRconServer.start({ quirks, password: PASSWORD, respond: (command) => (command === 'ListPlayers' ? 'No Players Connected\n' : undefined) });
  stops.push(() => fake.stop());
  return fake;
}

async function rustFake(): Promise<FakeRustWebRconServer> {
  const fake = await FakeRustWebRconServer.start({ password: PASSWORD });
  stops.push(() => fake.stop());
  return fake;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly checks: string[];
}

let configs = 0;
async function check(adapters: unknown[]): Promise<Run> {
  const path = join(dir, `config-${++configs}.json`);
  const config = {
    api: { baseUrl: emulator.url, clientId: 'rcon-check-client', clientSecret: API_SECRET, timeoutMs: 3000 },
    servers: [{ name: SERVER, adapters }],
    reviews: { dataDir: 'data' },
    http: { port: await unclaimedPort() },
  };
  await writeFile(path, JSON.stringify(config), { mode: 0o600 });
  const child = spawn(process.execPath, [BIN, 'config', 'check', '--config', path, '--connect'], {
    cwd: dir,
    // debug: the sessions' own logs would show here, and must not carry the password either.
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), GSA_BRIDGE_LOG_LEVEL: 'debug' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr, checks: stdout.split('\n').filter((line) => /^(ok {2}|FAIL|skip) {2}/.test(line)) };
}

function rconChecks(run: Run): string[] {
  return run.checks.filter((line) => / rcon /.test(line));
}

function expectNoSecret(run: Run): void {
  for (const secret of [PASSWORD, WRONG_PASSWORD, API_SECRET]) expect(run.stdout + run.stderr).not.toContain(secret);
}

describe('config check --connect: RCON adapters', () => {
  it('a good ark adapter and a squad adapter with a wrong password: one ok, one FAIL naming the key; exit 1', async () => {
    const ark = await sourceFake('ark');
    const squad = await sourceFake('srcds');
    const run = await check([
      { type: 'rcon', id: 'ark-main', profile: 'ark', port: ark.port, password: PASSWORD },
      { type: 'rcon', id: 'squad-main', profile: 'squad', port: squad.port, password: WRONG_PASSWORD },
    ]);
    expect(run.code).toBe(1);
    expect(rconChecks(run)).toEqual([
      `ok    rcon ${SERVER}/ark-main 127.0.0.1:${ark.port}: logged in; ark answered ListPlayers`,
      // The key once: the client's message names it, and no advice repeats it.
      `FAIL  rcon ${SERVER}/squad-main 127.0.0.1:${squad.port}: RCON login failed: the RCON server refused the login of squad-main (wrong password): check "password" of adapter squad-main`,
    ]);
    expect(run.stderr).toMatch(/^1 check failed/m);
    // Exactly one login and the one harmless command; the refused adapter tried once and sent nothing.
    expect([ark.loginAttempts, ark.logins, ark.commands]).toEqual([1, 1, ['ListPlayers']]);
    expect([squad.loginAttempts, squad.logins, squad.commands]).toEqual([1, 0, []]);
    expect([ark.sessions, squad.sessions]).toEqual([0, 0]);
    expectNoSecret(run);
  });

  it('rust with a wrong password: one FAIL naming the key once', async () => {
    const rust = await rustFake();
    const run = await check([{ type: 'rcon', id: 'rust-main', profile: 'rust', port: rust.port, password: WRONG_PASSWORD }]);
    expect(run.code).toBe(1);
    expect(rconChecks(run)).toEqual([
      `FAIL  rcon ${SERVER}/rust-main 127.0.0.1:${rust.port}: RCON login failed: authentication failed: rust webrcon at ws://127.0.0.1:${rust.port}/*** refused the connection of adapter rust-main (the server cut the connection instead of answering the WebSocket upgrade). The rcon password is probably wrong: check "password" of adapter rust-main against the server's rcon.password. Rust also refuses an address for a while after 5 wrong passwords (rcon.maxpasswordfailures, rcon.banduration)`,
    ]);
    expectNoSecret(run);
  });

  it('squad and rust that log in pass; every check passed, exit 0', async () => {
    const squad = await sourceFake('squad');
    const rust = await rustFake();
    const run = await check([
      { type: 'rcon', profile: 'squad', port: squad.port, password: PASSWORD },
      { type: 'rcon', id: 'rust-main', profile: 'rust', port: rust.port, password: PASSWORD },
    ]);
    expect(rconChecks(run)).toEqual([
      `ok    rcon ${SERVER}/${SERVER}-rcon-${squad.port} 127.0.0.1:${squad.port}: logged in; squad answered ListPlayers`,
      `ok    rcon ${SERVER}/rust-main 127.0.0.1:${rust.port}: logged in; rust answered serverinfo`,
    ]);
    expect(run.code).toBe(0);
    expect([squad.logins, squad.commands]).toEqual([1, ['ListPlayers']]);
    // Rust: one session; its liveness probe and the check's command are both serverinfo.
    expect(rust.sessionsOpened).toBe(1);
    expect(rust.commandTexts({ withoutKeepalive: 'serverinfo' })).toEqual([]);
    expect(rust.commandTexts().length).toBeGreaterThanOrEqual(1);
    expectNoSecret(run);
  });

  it('ARK silent on a wrong password, and a port nobody listens on: both FAIL with what to check', async () => {
    const ark = await sourceFake('ark');
    const deadPort = await unclaimedPort();
    const run = await check([
      { type: 'rcon', id: 'ark-wrong', profile: 'ark', port: ark.port, password: WRONG_PASSWORD },
      { type: 'rcon', id: 'ark-down', profile: 'ark', port: deadPort, password: PASSWORD },
    ]);
    expect(run.code).toBe(1);
    expect(rconChecks(run)).toEqual([
      expect.stringMatching(
        /^FAIL {2}rcon \S+\/ark-wrong \S+: RCON login failed: no answer to the RCON login within 5 s: the password \("password" of adapter ark-wrong\) is probably wrong \(ARK says nothing to a wrong password\), or the port is not an RCON port$/,
      ),
      expect.stringMatching(
        new RegExp(`^FAIL {2}rcon \\S+/ark-down 127\\.0\\.0\\.1:${deadPort}: RCON login failed: cannot connect .*; check "host" and "port" of rcon adapter ark-down \\(127\\.0\\.0\\.1:${deadPort}\\)`),
      ),
    ]);
    expect([ark.loginAttempts, ark.logins, ark.commands, ark.sessions]).toEqual([1, 0, [], 0]);
    expectNoSecret(run);
  });

  it("conan against the emulator's console (a session per command, closed after the answer): ok, one listplayers, exit 0", async () => {
    const game = await GAME_CONSOLES.conan.start({ host: '127.0.0.1', port: 0, password: PASSWORD, writeMode: 'split' });
    stops.push(() => game.close());
    const logFile = join(dir, 'ConanSandbox.log');
    await writeFile(logFile, '\uFEFF');
    const run = await check([{ type: 'rcon', id: 'conan-main', profile: 'conan', port: game.port, password: PASSWORD, logFile }]);
    // Exit 13 was Node's "unsettled top-level await", with no line at all.
    expect(rconChecks(run)).toEqual([`ok    rcon ${SERVER}/conan-main 127.0.0.1:${game.port}: logged in; conan answered listplayers; chat is read from ${logFile}`]);
    expect(run.code).toBe(0);
    expect(game.commands).toEqual(['listplayers']);
    expectNoSecret(run);
  });

  it('ports that speak another protocol: one FAIL each saying what answered and which key and setting to check', async () => {
    const notFound = { answer: 'HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n', when: 'first-read', writeMode: 'merged', closeAfter: false } as const;
    const web = await ForeignProtocolServer.start(notFound);
    const web2 = await ForeignProtocolServer.start(notFound);
    const telnet = await ForeignProtocolServer.start({ answer: 'Please enter password:\r\n', when: 'connect', writeMode: 'split', closeAfter: false });
    const noise = await ForeignProtocolServer.start({ answer: seededBytes(64), when: 'connect', closeAfter: false });
    for (const server of [web, web2, telnet, noise]) stops.push(() => server.stop());
    const logFile = join(dir, 'ConanSandbox.log');
    await writeFile(logFile, '\uFEFF');
    const run = await check([
      { type: 'rcon', id: 'ark-web', profile: 'ark', port: web.port, password: PASSWORD },
      { type: 'rcon', id: 'rust-web', profile: 'rust', port: web2.port, password: PASSWORD },
      { type: 'rcon', id: 'conan-telnet', profile: 'conan', port: telnet.port, password: PASSWORD, logFile },
      { type: 'rcon', id: '7dtd-noise', profile: '7dtd', port: noise.port, password: PASSWORD },
    ]);
    expect(run.code).toBe(1);
    const source = "the RCON port (RCONPort, RconPort or rcon.port in the game's settings), not the game or query port?";
    expect(rconChecks(run)).toEqual([
      `FAIL  rcon ${SERVER}/ark-web 127.0.0.1:${web.port}: RCON login failed: the server at 127.0.0.1:${web.port} answered with text that looks like HTTP ("HTTP/1.1 404 Not Found"), not Source RCON: is "port" of adapter ark-web ${source}`,
      `FAIL  rcon ${SERVER}/rust-web 127.0.0.1:${web2.port}: RCON login failed: the server at 127.0.0.1:${web2.port} answered with an HTTP 404 page (no WebSocket upgrade), not Rust's WebRCON: is "port" of adapter rust-web the WebRCON port (rcon.port, with rcon.web 1), not the game or query port?`,
      `FAIL  rcon ${SERVER}/conan-telnet 127.0.0.1:${telnet.port}: RCON login failed: the server at 127.0.0.1:${telnet.port} answered with a telnet password prompt (7 Days to Die's console) ("Please enter password:"), not Source RCON: is "port" of adapter conan-telnet ${source}; chat is read from ${logFile}`,
      `FAIL  rcon ${SERVER}/7dtd-noise 127.0.0.1:${noise.port}: RCON login failed: the server at 127.0.0.1:${noise.port} answered with binary data, not a 7 Days to Die telnet console: is "port" of adapter 7dtd-noise the telnet port (TelnetPort in serverconfig.xml, 8081 by default), not the game or web dashboard port?`,
    ]);
    // One attempt each, at once: no wait for a login bound, no retry.
    expect([web.connections, web2.connections, telnet.connections, noise.connections]).toEqual([1, 1, 1, 1]);
    expectNoSecret(run);
  });
});
