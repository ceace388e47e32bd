// `gsa-bridge rcon --server NAME [--adapter ID] -- COMMAND…` through the real binary against the fake game servers:
// the answer printed exactly (ARK, a multi-packet Squad answer split across reads, Rust WebRCON), the command sent as
// typed, one login and one command per run; Conan (a session per command, closed by the game after its answer) as
// one session that exits with its answer; a wrong password (ARK's silence, SRCDS's id -1, Rust's refusal), an
// unreachable port and a port that speaks another protocol exit 1 with one line naming the adapter and the config key;
// usage mistakes exit 2. The password appears in no output, not even in the session's debug log.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GAME_CONSOLES } from '../../src/gameEmulator/gameConsoles.js';
import { FakeRustWebRconServer } from '../fixtures/fakeRustWebRconServer.js';
import { ForeignProtocolServer } from '../fixtures/foreignProtocolServer.js';
import { FakeSourceRconServer, type FakeRconQuirks, type FakeReply } from '../fixtures/fakeSourceRconServer.js';
import { unclaimedPort } from '../fixtures/ports.js';
import { tempDir } from '../fixtures/tempDir.js';

const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));
const SERVER = 'rcon-srv';
const PASSWORD = 'rcon-pass-3f9a1c77';
const WRONG_PASSWORD = 'wrong-rcon-pass-8d2e44';
const API_SECRET = 'rcon-cli-api-secret-0b1c';

let dir: string;
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = await tempDir('rcon-command');
});

afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function sourceFake(quirks: FakeRconQuirks, respond?: (command: string) => FakeReply | undefined, extra: { splitBodyAt?: number; writeMode?: 'whole' | 'split' } = {}): Promise<FakeSourceRconServer> {
  const fake = await FakeSourceRconServer.start({ quirks, password: PASSWORD, respond, ...extra });
  stops.push(() => fake.stop());
  return fake;
}

async function rustFake(respond?: (command: string) => string | undefined): Promise<FakeRustWebRconServer> {
  const fake = await FakeRustWebRconServer.start(respond === undefined ? { password: PASSWORD } : { password: PASSWORD, respond });
  stops.push(() => fake.stop());
  return fake;
}

let configs = 0;
async function writeConfig(adapters: unknown[], servers: unknown[] = []): Promise<string> {
  const path = join(dir, `config-${++configs}.json`);
  const config = {
    // A System API key: a Minecraft adapter gates nobody without one, so its config would be refused.
    api: { baseUrl: 'http://127.0.0.1:9', clientId: 'rcon-client', clientSecret: API_SECRET, system: { key: 'rcon-system-key' } },
    servers: [{ name: SERVER, adapters }, ...servers],
    reviews: { dataDir: 'data' },
  };
  await writeFile(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function rcon(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, 'rcon', ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

function expectNoSecret(run: Run): void {
  for (const secret of [PASSWORD, WRONG_PASSWORD, API_SECRET]) expect(run.stdout + run.stderr).not.toContain(secret);
}

describe('gsa-bridge rcon: answers', () => {
  it('ark: prints the answer exactly, one login and the one command, exit 0', async () => {
    const answer = '0. Bob (the builder), 76561198000000001\n1. Zoë: [Ω], 76561198000000002\n';
    const fake = await sourceFake('ark', (command) => (command === 'ListPlayers' ? answer : undefined));
    const path = await writeConfig([{ type: 'rcon', id: 'ark-main', profile: 'ark', port: fake.port, password: PASSWORD }]);
    const run = await rcon(['--config', path, '--server', SERVER, '--', 'ListPlayers']);
    expect(run).toEqual({ code: 0, stdout: answer, stderr: '' });
    expect(fake.loginAttempts).toBe(1);
    expect(fake.logins).toBe(1);
    expect(fake.commands).toEqual(['ListPlayers']);
  });

  it('sends the words after -- joined by spaces, as typed (not sanitised), with --adapter choosing among several', async () => {
    const fake = await sourceFake('ark');
    const path = await writeConfig([
      { type: 'rcon', id: 'ark-main', profile: 'ark', port: fake.port, password: PASSWORD },
      { type: 'rcon', profile: 'ark', port: await unclaimedPort(), password: PASSWORD },
    ]);
    const run = await rcon(['--config', path, '--server', SERVER, '--adapter', 'ark-main', '--', 'ServerChatTo', '"76561198000000001"', 'hi | there;', '--help']);
    expect(run.code).toBe(0);
    const command = 'ServerChatTo "76561198000000001" hi | there; --help';
    expect(fake.commands).toEqual([command]);
    expect(run.stdout).toBe(`reply to ${command}\n`);
  });

  it('squad: a multi-packet answer split across reads is printed whole and exactly', async () => {
    const rows = Array.from({ length: 100 }, (_, index) => `ID: ${index} | Online IDs: EOS: ${index.toString(16).padStart(32, '0')} steam: 765611980000${String(index).padStart(5, '0')} | Name: Spieler Ärger ${index} | Team ID: 1 | Squad ID: N/A`);
    const answer = `----- Active Players -----\n${rows.join('\n')}\n----- Recently Disconnected Players [Max of 15] -----\n`;
    const fake = await sourceFake('squad', (command) => (command === 'ListPlayers' ? answer : undefined), { splitBodyAt: 1000, writeMode: 'split' });
    const path = await writeConfig([{ type: 'rcon', profile: 'squad', port: fake.port, password: PASSWORD }]);
    expect(Buffer.byteLength(answer)).toBeGreaterThan(4 * 1000);
    const run = await rcon(['--config', path, '--server', SERVER, '--', 'ListPlayers']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(answer);
    expect(fake.logins).toBe(1);
    expect(fake.commands).toEqual(['ListPlayers']);
  });

  it('rust: WebRCON answer printed (a newline added when it has none), one session', async () => {
    const answer = 'hostname: Fake Rust\nversion : 2600 secure (secure mode enabled, connected to Steam3)\nplayers : 0 (100 max)';
    const fake = await rustFake((command) => (command === 'status' ? answer : undefined));
    const path = await writeConfig([{ type: 'rcon', id: 'rust-main', profile: 'rust', port: fake.port, password: PASSWORD }]);
    const run = await rcon(['--config', path, '--server', SERVER, '--', 'status']);
    expect(run).toEqual({ code: 0, stdout: `${answer}\n`, stderr: '' });
    expect(fake.sessionsOpened).toBe(1);
    // The client's own liveness probe (its keepalive command) comes first; then the host's command, once.
    expect(fake.commandTexts({ withoutKeepalive: 'serverinfo' })).toEqual(['status']);
    expect(fake.maxConcurrentSessions).toBe(1);
  });
});

describe('gsa-bridge rcon: conan, one short session per command', () => {
  it('prints the listplayers answer exactly and exits 0 after one login and the one command (Conan closes after it)', async () => {
    const answer = 'Idx | Char name | Player name | User ID | Platform ID | Platform Name\n  0 | Conan | Bob | 76561198000000001 | 76561198000000001 | Steam\n';
    const fake = await sourceFake('conan', (command) => (command === 'listplayers' ? answer : undefined), { writeMode: 'split' });
    const logFile = join(dir, 'ConanSandbox.log');
    await writeFile(logFile, '\uFEFF');
    const path = await writeConfig([{ type: 'rcon', id: 'conan-main', profile: 'conan', port: fake.port, password: PASSWORD, logFile }]);
    // Exit 13 was Node's "unsettled top-level await": the pace between the probe and the command was an unref'd timer.
    const run = await rcon(['--config', path, '--server', SERVER, '--', 'listplayers'], { GSA_BRIDGE_LOG_LEVEL: 'debug' });
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 0, stdout: answer });
    expect(run.stderr).not.toMatch(/"level":(40|50)/);
    // One session: the login the run waits for is the one the command goes on, so no 3 s pace is waited.
    expect([fake.connections, fake.loginAttempts, fake.logins, fake.commands]).toEqual([1, 1, 1, ['listplayers']]);
    expectNoSecret(run);
  });
});

describe("gsa-bridge rcon: every profile's one-shot path exits with its answer against the emulator's console", () => {
  it.each([
    ['ark', 'ListPlayers', /^No Players Connected/],
    ['squad', 'ListPlayers', /^----- Active Players -----/],
    ['rust', 'serverinfo', /"Hostname": "Fake Rust Server"/],
    ['conan', 'listplayers', /^Idx \| Char name \| Player name/],
    ['7dtd', 'lp', /^Total of 0 in the game\n$/],
    ['minecraft', 'list', /^There are 0 of a max of \d+ players online/],
  ] as const)('%s: %s printed, exit 0 (no command left waiting on a timer that lets Node exit with 13)', async (profile, command, printed) => {
    const game = await GAME_CONSOLES[profile].start({ host: '127.0.0.1', port: 0, password: PASSWORD, writeMode: 'split' });
    stops.push(() => game.close());
    const logFile = join(dir, profile === 'conan' ? 'ConanSandbox.log' : 'latest.log');
    await writeFile(logFile, '');
    const logKeys = profile === 'conan' || profile === 'minecraft' ? { logFile } : {};
    const path = await writeConfig([{ type: 'rcon', id: `${profile}-main`, profile, port: game.port, password: PASSWORD, ...logKeys }]);
    const run = await rcon(['--config', path, '--server', SERVER, '--', command]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(printed);
    expect(run.code).toBe(0);
    expect(game.commands).toContain(command);
    expectNoSecret(run);
  });
});

describe('gsa-bridge rcon: failures exit 1 with what to check, and never the password', () => {
  it.each([
    ['ark', 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n', 'first-read', 'text that looks like HTTP ("HTTP/1.1 400 Bad Request"), not Source RCON', "the RCON port (RCONPort, RconPort or rcon.port in the game's settings), not the game or query port"],
    ['conan', 'Please enter password:\r\n', 'connect', `a telnet password prompt (7 Days to Die's console) ("Please enter password:"), not Source RCON`, "the RCON port (RCONPort, RconPort or rcon.port in the game's settings), not the game or query port"],
    ['7dtd', Buffer.from([0x0a, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0]), 'connect', 'bytes that look like a Source RCON packet, not a 7 Days to Die telnet console', 'the telnet port (TelnetPort in serverconfig.xml, 8081 by default), not the game or web dashboard port'],
    ['rust', 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok', 'first-read', "an HTTP 200 page (no WebSocket upgrade), not Rust's WebRCON", 'the WebRCON port (rcon.port, with rcon.web 1), not the game or query port'],
  ] as const)('%s on a port that speaks another protocol: what answered and which key to check, at once', async (profile, answer, when, seen, port) => {
    const server = await ForeignProtocolServer.start({ answer, when, writeMode: 'split', closeAfter: false });
    stops.push(() => server.stop());
    const logFile = join(dir, 'ConanSandbox.log');
    await writeFile(logFile, '\uFEFF');
    const path = await writeConfig([{ type: 'rcon', id: 'wrong-port', profile, port: server.port, password: PASSWORD, ...(profile === 'conan' ? { logFile } : {}) }]);
    const run = await rcon(['--config', path, '--server', SERVER, '--', 'listplayers'], { GSA_BRIDGE_LOG_LEVEL: 'debug' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const errors = run.stderr.split('\n').filter((line) => line.startsWith('error:'));
    expect(errors).toEqual([
      `error: rcon adapter wrong-port (${profile} at 127.0.0.1:${server.port}): RCON login failed: the server at 127.0.0.1:${server.port} answered with ${seen}: is servers[0].adapters[0].port of adapter wrong-port ${port}?`,
    ]);
    expect(server.connections).toBe(1);
    expectNoSecret(run);
  });


  it('ark, wrong password: ARK says nothing; after the login bound, the auth-timeout line names the adapter and the key', async () => {
    const fake = await sourceFake('ark');
    const path = await writeConfig([{ type: 'rcon', id: 'ark-main', profile: 'ark', port: fake.port, password: WRONG_PASSWORD }]);
    const run = await rcon(['--config', path, '--server', SERVER, '--', 'ListPlayers'], { GSA_BRIDGE_LOG_LEVEL: 'debug' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      /^error: rcon adapter ark-main \(ark at 127\.0\.0\.1:\d+\): RCON login failed: no answer to the RCON login within 5 s: the password \(servers\[0\]\.adapters\[0\]\.password of adapter ark-main\) is probably wrong \(ARK says nothing to a wrong password\), or the port is not an RCON port$/m,
    );
    expect(fake.loginAttempts).toBe(1);
    expect(fake.commands).toEqual([]);
    expectNoSecret(run);
    // The debug log does not carry the command text either (only the one-line error is for a person).
    expect(run.stderr).not.toContain('ListPlayers');
  });

  it('srcds-like, wrong password: id -1 is a refusal at once, naming the key', async () => {
    const fake = await sourceFake('srcds');
    const path = await writeConfig([{ type: 'rcon', profile: 'squad', port: fake.port, password: WRONG_PASSWORD }]);
    const run = await rcon(['--config', path, '--server', SERVER, '--', 'ListPlayers'], { GSA_BRIDGE_LOG_LEVEL: 'debug' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(
      new RegExp(
        `^error: rcon adapter ${SERVER}-rcon-${fake.port} \\(squad at 127\\.0\\.0\\.1:${fake.port}\\): RCON login failed: the RCON server refused the login of ${SERVER}-rcon-${fake.port} \\(wrong password\\): check servers\\[0\\]\\.adapters\\[0\\]\\.password of adapter ${SERVER}-rcon-${fake.port}$`,
        'm',
      ),
    );
    expect(fake.loginAttempts).toBe(1);
    expect(fake.commands).toEqual([]);
    expectNoSecret(run);
  });

  it('rust, wrong password: the refused upgrade names the key; the password (in the URL) is nowhere', async () => {
    const fake = await rustFake();
    const path = await writeConfig([{ type: 'rcon', id: 'rust-main', profile: 'rust', port: fake.port, password: WRONG_PASSWORD }]);
    const run = await rcon(['--config', path, '--server', SERVER, '--', 'status'], { GSA_BRIDGE_LOG_LEVEL: 'debug' });
    expect(run.code).toBe(1);
    const [line] = run.stderr.split('\n').filter((text) => text.startsWith('error:'));
    expect(line).toBe(
      `error: rcon adapter rust-main (rust at 127.0.0.1:${fake.port}): RCON login failed: authentication failed: rust webrcon at ws://127.0.0.1:${fake.port}/*** refused the connection of adapter rust-main (the server cut the connection instead of answering the WebSocket upgrade). The rcon password is probably wrong: check servers[0].adapters[0].password of adapter rust-main against the server's rcon.password. Rust also refuses an address for a while after 5 wrong passwords (rcon.maxpasswordfailures, rcon.banduration)`,
    );
    expect(fake.wrongPasswordAttempts).toBe(1);
    expect(fake.commands).toEqual([]);
    expectNoSecret(run);
  });

  it('a command the game never answers: after commandTimeoutMs, one line saying it may have run, exit 1', async () => {
    const fake = await sourceFake('ark', (command) => (command === 'SaveWorld' ? { silent: true } : undefined));
    const path = await writeConfig([{ type: 'rcon', id: 'ark-main', profile: 'ark', port: fake.port, password: PASSWORD, commandTimeoutMs: 1000 }]);
    const run = await rcon(['--config', path, '--server', SERVER, '--', 'SaveWorld']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: rcon adapter ark-main \(ark at 127\.0\.0\.1:\d+\): the command got no answer: .*; the command may have run; servers\[0\]\.adapters\[0\]\.commandTimeoutMs bounds the wait for its answer$/m);
    expect([fake.logins, fake.commands]).toEqual([1, ['SaveWorld']]);
    expectNoSecret(run);
  });

  it('an unreachable port: one line naming host and port to check (Source at once, Rust after its bound)', async () => {
    const arkPort = await unclaimedPort();
    const rustPort = await unclaimedPort();
    const path = await writeConfig([
      { type: 'rcon', id: 'ark-down', profile: 'ark', port: arkPort, password: PASSWORD },
      { type: 'rcon', id: 'rust-down', profile: 'rust', port: rustPort, password: PASSWORD, commandTimeoutMs: 1000 },
    ]);
    const ark = await rcon(['--config', path, '--server', SERVER, '--adapter', 'ark-down', '--', 'ListPlayers']);
    expect(ark.code).toBe(1);
    expect(ark.stderr).toMatch(
      new RegExp(`^error: rcon adapter ark-down \\(ark at 127\\.0\\.0\\.1:${arkPort}\\): RCON login failed: cannot connect .*; check servers\\[0\\]\\.adapters\\[0\\]\\.host and servers\\[0\\]\\.adapters\\[0\\]\\.port \\(127\\.0\\.0\\.1:${arkPort}\\)`, 'm'),
    );
    const rust = await rcon(['--config', path, '--server', SERVER, '--adapter', 'rust-down', '--', 'status']);
    expect(rust.code).toBe(1);
    expect(rust.stderr).toMatch(
      new RegExp(`^error: rcon adapter rust-down \\(rust at 127\\.0\\.0\\.1:${rustPort}\\): RCON login failed: .*did not connect within 3000 ms.*; check servers\\[0\\]\\.adapters\\[1\\]\\.host and`, 'm'),
    );
    expectNoSecret(ark);
    expectNoSecret(rust);
  });
});

describe('gsa-bridge rcon: usage errors exit 2 and contact nothing', () => {
  it('an unknown server lists the configured ones', async () => {
    const fake = await sourceFake('ark');
    const path = await writeConfig([{ type: 'rcon', profile: 'ark', port: fake.port, password: PASSWORD }], [{ name: 'other-srv', adapters: [] }]);
    const run = await rcon(['--config', path, '--server', 'nosuch', '--', 'ListPlayers']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: --server nosuch: no such server in the config \(it has: rcon-srv, other-srv\)$/m);
    expect(fake.connections).toBe(0);
  });

  it('several rcon adapters and no --adapter: the ids are listed; an unknown or non-rcon id is refused', async () => {
    const fake = await sourceFake('ark');
    const path = await writeConfig([
      { type: 'websocket', id: 'ws-main', port: await unclaimedPort(), token: 'rcon-test-token-0000' },
      { type: 'rcon', id: 'ark-main', profile: 'ark', port: fake.port, password: PASSWORD },
      { type: 'rcon', profile: 'ark', port: 27020, password: PASSWORD },
    ]);
    const ambiguous = await rcon(['--config', path, '--server', SERVER, '--', 'ListPlayers']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toMatch(/^error: server rcon-srv has 2 rcon adapters: choose one with --adapter ID \(ark-main, rcon-srv-rcon-27020\)$/m);
    const unknown = await rcon(['--config', path, '--server', SERVER, '--adapter', 'nosuch', '--', 'ListPlayers']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no such adapter \(rcon adapters: ark-main, rcon-srv-rcon-27020\)/);
    const websocket = await rcon(['--config', path, '--server', SERVER, '--adapter', 'ws-main', '--', 'ListPlayers']);
    expect(websocket.code).toBe(2);
    expect(websocket.stderr).toMatch(/--adapter ws-main: that is a websocket adapter, not rcon/);
    expect(fake.connections).toBe(0);
  });

  it('no command, words before --, a server without rcon, and a password flag are refused', async () => {
    const path = await writeConfig([]);
    const none = await rcon(['--config', path, '--server', SERVER]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no game command: give it after --/);
    const early = await rcon(['--config', path, '--server', SERVER, 'ListPlayers']);
    expect(early.code).toBe(2);
    expect(early.stderr).toMatch(/"ListPlayers": the game command goes after --/);
    const noRcon = await rcon(['--config', path, '--server', SERVER, '--', 'ListPlayers']);
    expect(noRcon.code).toBe(2);
    expect(noRcon.stderr).toMatch(/server rcon-srv has no rcon adapter in the config/);
    const secretFlag = await rcon(['--config', path, '--server', SERVER, '--password', WRONG_PASSWORD, '--', 'ListPlayers']);
    expect(secretFlag.code).toBe(2);
    expect(secretFlag.stderr).toMatch(/has no option --password/);
    expect(secretFlag.stderr).not.toContain(WRONG_PASSWORD);
  });

  it('--help lists every flag with its default and contacts nothing', async () => {
    const run = await rcon(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: gsa-bridge rcon --server NAME \[--adapter ID\]/);
    expect(run.stdout).toMatch(/--adapter ID +.*\(default: the server's only rcon adapter\)/);
  });
});
