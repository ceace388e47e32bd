// The CLI as hosts use it: commands, exit codes and output, against the emulator over loopback.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliContext } from '../../src/cli/context.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { connectMod } from '../fixtures/modSocket.js';
import { tempDir } from '../fixtures/tempDir.js';

const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));
const SERVER = 'ovddykvbs';
const SERVER_ID = 4711;
const MUTED = '76561198000000002';
const SECRET = 'cli-test-secret-5c1d';

let emulator: GsaEmulator;
let workDir: string;

beforeAll(async () => {
  emulator = await GsaEmulator.start({ clientId: 'cli-client', clientSecret: SECRET, servers: [{ name: SERVER, id: SERVER_ID }] });
  // Commands run with this as their working directory: a config.json in the project root must not leak in.
  workDir = await tempDir('cli');
});

afterEach(() => {
  emulator.reset();
});

afterAll(async () => {
  await emulator.close();
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function serviceEnv(): Record<string, string> {
  return { GSA_API_URL: emulator.url, GSA_CLIENT_ID: 'cli-client', GSA_CLIENT_SECRET: SECRET, GSA_BRIDGE_LOG_LEVEL: 'warn' };
}

async function cli(args: string[], env: Record<string, string> = serviceEnv()): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const context: CliContext = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
    cwd: workDir,
  };
  const code = await main(args, context);
  return { code, stdout, stderr };
}

async function writeConfig(name: string, config: unknown): Promise<string> {
  const path = join(workDir, name);
  await writeFile(path, JSON.stringify(config));
  return path;
}

describe('server', () => {
  it('runs a webhook and prints the service message; exit 0', async () => {
    const run = await cli(['server', 'update', '--id', String(SERVER_ID), '--countdown', '10']);
    expect(run).toMatchObject({ code: 0, stdout: `update server ${SERVER_ID}: accepted (200): Update queued.\n` });
    expect(emulator.actions(SERVER_ID).map((record) => [record.action, record.countdownMinutes])).toEqual([['update', 10]]);
  });

  it('runs every action', async () => {
    for (const action of ['start', 'stop', 'restart', 'wipe', 'cancel-scheduled']) {
      expect((await cli(['server', action, '--id', String(SERVER_ID)])).code).toBe(0);
    }
    expect(emulator.calls.map((call) => call.path)).toEqual(
      ['start', 'stop', 'restart', 'wipe', 'cancel-scheduled'].map((action) => `/api/v1/server/${SERVER_ID}/${action}`),
    );
  });

  it('exits 1 with status and message when the service refuses', async () => {
    emulator.lock(SERVER_ID, true);
    const run = await cli(['server', 'cancel-scheduled', '--id', String(SERVER_ID)]);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\(409\).*cannot be cancelled/);
  });

  it('a 401 for a server id not bound to the keys names both causes, the id first, not only the secret', async () => {
    const run = await cli(['server', 'restart', '--id', '4712']);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error (unauthorized): GSA refused the server action for server id 4712 (401): either this server is not bound to these API keys in the GSA dashboard (check --id / servers[].id), or the client id and secret are wrong (GSA said: Unauthenticated.)\n',
    );
    expect(run.stderr).not.toContain(SECRET);
  });

  it('takes the id from a config with one server', async () => {
    const path = await writeConfig('one-server.json', {
      api: { baseUrl: emulator.url, clientId: 'cli-client', clientSecret: SECRET },
      servers: [{ name: SERVER, id: SERVER_ID, adapters: [] }],
    });
    expect((await cli(['server', 'restart', '--config', path], {})).code).toBe(0);
    expect(emulator.actions(SERVER_ID).map((record) => record.action)).toEqual(['restart']);
  });

  it('reads the default ./config.json from its working directory, never from the project root', async () => {
    const path = await writeConfig('config.json', {
      api: { baseUrl: emulator.url, clientId: 'cli-client', clientSecret: SECRET },
      servers: [{ name: SERVER, id: SERVER_ID, adapters: [] }],
    });
    try {
      expect((await cli(['server', 'restart'], {})).code).toBe(0);
    } finally {
      await rm(path);
    }
    expect(emulator.actions(SERVER_ID).map((record) => record.action)).toEqual(['restart']);
    // Without it the same command has no id to act on, whatever config.json the project root holds.
    expect((await cli(['server', 'restart'])).code).toBe(2);
  });

  describe('--server NAME', () => {
    async function twoServers(): Promise<string> {
      return writeConfig('two-servers.json', {
        api: { baseUrl: emulator.url, clientId: 'cli-client', clientSecret: SECRET, timeoutMs: 300, retry: { retries: 0 } },
        servers: [
          { name: SERVER, id: SERVER_ID, adapters: [] },
          { name: 'no-id-server', adapters: [] },
        ],
      });
    }

    it('acts on the id the config gives that server', async () => {
      const run = await cli(['server', 'restart', '--server', SERVER, '--config', await twoServers()], {});
      expect(run).toMatchObject({ code: 0, stdout: `restart server ${SERVER} (id ${SERVER_ID}): accepted (200): Restart queued.\n` });
      expect(emulator.actions(SERVER_ID).map((record) => record.action)).toEqual(['restart']);
    });

    it.each([
      [['--server', 'nosuch'], 'error: --server nosuch: no such server in the config (it has: ovddykvbs, no-id-server); or pass --id GAMESERVER_ID'],
      [['--server', 'no-id-server'], 'error: --server no-id-server: this server has no "id" in the config; add its GAMESERVER_ID there, or pass --id GAMESERVER_ID'],
      [['--server', SERVER, '--id', String(SERVER_ID)], 'error: give --id GAMESERVER_ID or --server NAME, not both'],
    ])('exits 2 and sends nothing: %j', async (flags, message) => {
      const run = await cli(['server', 'restart', ...flags, '--config', await twoServers()], {});
      expect(run.code).toBe(2);
      expect(run.stderr.split('\n')[0]).toBe(message);
      expect(emulator.calls).toHaveLength(0);
    });

    it('a timed-out action says it may have run; exit 1', async () => {
      // The emulator acts on the webhook first and answers late: the action ran although the CLI got no answer.
      emulator.injectFault({ kind: 'latency', ms: 1500, endpoint: 'webhook' });
      const run = await cli(['server', 'stop', '--server', SERVER, '--config', await twoServers()], {});
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/^error \(timeout\): /m);
      expect(run.stderr).toContain(`the stop of server ${SERVER} (id ${SERVER_ID}) may have run anyway; check the server or the dashboard before sending it again`);
      expect(emulator.actions(SERVER_ID).map((record) => record.action)).toEqual(['stop']);
    });
  });

  it.each([
    [['server'], /name an action/],
    [['server', 'explode', '--id', '1'], /unknown action "explode"/],
    [['server', 'restart'], /--id GAMESERVER_ID or --server NAME is required/],
    [['server', 'restart', '--id', 'abc'], /--id must be a whole number/],
    [['server', 'restart', '--id', '1', '--countdown', '5'], /--countdown applies to update only/],
    [['server', 'restart', '--id', '0'], /--id must be a whole number of at least 1, got "0"/],
  ])('exits 2 on usage errors: %j', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(emulator.calls).toHaveLength(0);
  });
});

describe('mute-check', () => {
  it('prints JSON for muted and unmuted players; exit 0 for both', async () => {
    emulator.mute(SERVER, MUTED, 'Muted by admin');
    const muted = await cli(['mute-check', '--server', SERVER, '--steam-id', MUTED]);
    expect(muted.code).toBe(0);
    expect(JSON.parse(muted.stdout)).toEqual({
      server: SERVER,
      steam_id: MUTED,
      eos_id: null,
      muted: true,
      alert: 'Muted by admin',
      asked: { steam_id: MUTED },
      muted_by: { steam_id: MUTED },
      lookup_ids: 'steam-first',
    });
    const free = await cli(['mute-check', '--server', SERVER, '--eos-id', '0123456789abcdef0123456789abcdef']);
    expect(JSON.parse(free.stdout)).toMatchObject({ muted: false, alert: null, eos_id: '0123456789abcdef0123456789abcdef' });
  });

  it('exits 1 when the service refuses, 2 on a bad id or no id', async () => {
    const unknown = await cli(['mute-check', '--server', 'nosuch', '--steam-id', MUTED]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/not_found/);
    expect((await cli(['mute-check', '--server', SERVER, '--steam-id', '123'])).code).toBe(2);
    expect((await cli(['mute-check', '--server', SERVER])).stderr).toMatch(/give --steam-id ID, --eos-id ID, or both/);
    expect((await cli(['mute-check', '--steam-id', MUTED])).stderr).toMatch(/--server NAME is required/);
  });

  it('refuses secrets on the command line', async () => {
    const run = await cli(['mute-check', '--server', SERVER, '--steam-id', MUTED, '--client-secret', SECRET]);
    expect(run.code).toBe(2);
    expect(emulator.calls).toHaveLength(0);
  });

  it('exits 2 naming the missing credentials when neither file nor environment has them', async () => {
    const run = await cli(['mute-check', '--server', SERVER, '--steam-id', MUTED], { GSA_API_URL: emulator.url });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^api\.clientId: required/m);
    expect(run.stderr).toMatch(/^api\.clientSecret: required/m);
  });

  it('uses the v2 flavour from the config file', async () => {
    const path = await writeConfig('v2.json', {
      api: { baseUrl: emulator.url, flavor: 'v2', clientId: 'cli-client', clientSecret: SECRET },
      servers: [{ name: SERVER, adapters: [] }],
    });
    expect((await cli(['mute-check', '--config', path, '--server', SERVER, '--steam-id', MUTED], {})).code).toBe(0);
    expect(emulator.calls[0]).toMatchObject({ flavor: 'v2', path: `/mod-api/v2/gameserver/${SERVER}/mute` });
  });
});

describe('review', () => {
  it('delivers the review exactly as typed', async () => {
    const run = await cli(['review', '--server', SERVER, '--steam-id', MUTED, '--stars', '5', '--comment', 'Top "server" | 10/10']);
    expect(run).toMatchObject({ code: 0, stdout: 'review delivered: Done!\n' });
    expect(emulator.reviews).toMatchObject([{ stars: 5, comment: 'Top "server" | 10/10' }]);
  });

  it('cleans control characters as the mod path does: line breaks and tabs become one space, the rest go', async () => {
    const run = await cli(['review', '--server', SERVER, '--steam-id', MUTED, '--stars', '4', '--comment', 'good\r\n\tfun\u0007\u001b[31m!']);
    expect(run.code).toBe(0);
    expect(emulator.reviews).toMatchObject([{ stars: 4, comment: 'good fun[31m!' }]);
  });

  it('requires --comment, as the contract says (an empty one is a comment), and its help says so', async () => {
    const missing = await cli(['review', '--server', SERVER, '--steam-id', MUTED, '--stars', '5']);
    expect(missing.code).toBe(2);
    expect(missing.stderr.split('\n')[0]).toBe('error: --comment TEXT is required');
    expect(emulator.calls).toHaveLength(0);
    const help = await cli(['review', '--help']);
    expect(help.stdout).toContain('usage: gsa-bridge review --server NAME (--steam-id ID | --eos-id ID) --stars N --comment TEXT [--timeout SECONDS]');
    expect(help.stdout).toMatch(/^ {2}--comment TEXT +what the player wrote; "" for none \(required\)$/m);
    expect(await cli(['review', '--server', SERVER, '--steam-id', MUTED, '--stars', '5', '--comment', ''])).toMatchObject({ code: 0 });
    expect(emulator.reviews).toMatchObject([{ stars: 5, comment: '' }]);
  });

  it('exits 2 on stars out of range, sending nothing', async () => {
    const run = await cli(['review', '--server', SERVER, '--steam-id', MUTED, '--stars', '6', '--comment', '']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/stars: must be a whole number from 1 to 5/);
    expect(emulator.calls).toHaveLength(0);
  });

  it('says the review may be stored after an ambiguous failure; exit 1', async () => {
    emulator.injectFault({ kind: 'drop', endpoint: 'review', afterProcessing: true });
    const run = await cli(['review', '--server', SERVER, '--steam-id', MUTED, '--stars', '3', '--comment', 'x']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/may have stored this review/);
    expect(emulator.reviews).toHaveLength(1);
  });
});

describe('config check', () => {
  it('prints the effective config with secrets masked; exit 0', async () => {
    const path = await writeConfig('good.json', {
      api: { clientId: 'id', clientSecret: SECRET },
      servers: [{ name: SERVER, adapters: [{ type: 'websocket', token: 'mod-token-123' }, { type: 'rcon', profile: 'ark', port: 27020, password: 'rcon-pass-456' }] }],
    });
    const run = await cli(['config', 'check', '--config', path], {});
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.stdout) as { api: { clientSecret: string; rateLimit: { requests: number } }; mute: { decisionTimeoutMs: number } };
    expect(printed.api.clientSecret).toBe('***');
    expect(printed.api.rateLimit.requests).toBe(100);
    expect(printed.mute.decisionTimeoutMs).toBe(300);
    for (const secret of [SECRET, 'mod-token-123', 'rcon-pass-456']) expect(run.stdout + run.stderr).not.toContain(secret);
  });

  it("refuses Minecraft without a System API key, saying why (it could gate nobody); accepts it with one", async () => {
    const minecraft = { type: 'rcon', id: 'mc', profile: 'minecraft', port: 25575, password: 'rcon-pass-456', logFile: '/srv/mc/logs/latest.log' };
    const path = await writeConfig('minecraft.json', { api: { clientId: 'id', clientSecret: SECRET }, servers: [{ name: SERVER, adapters: [minecraft] }] });
    const run = await cli(['config', 'check', '--config', path], {});
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      "servers[0].adapters[0]: cannot gate chat without GSA's System API: Minecraft players have Mojang ids, which GSA's mod API cannot check for a mute; only GSA's System API can. " +
        'Set api.system.key (or GSA_SYSTEM_API_KEY)',
    ]);
    const withKey = await cli(['config', 'check', '--config', path], { GSA_SYSTEM_API_KEY: 'system-key-789' });
    expect(withKey.code).toBe(0);
    expect(withKey.stderr).not.toContain('System API');
    expect(withKey.stdout + withKey.stderr).not.toContain('system-key-789');
  });

  it('exits 2 with one line per problem and its JSON path', async () => {
    const path = await writeConfig('bad.json', {
      api: { clientId: 'id', clientSecret: SECRET, flavor: 'v3' },
      servers: [{ name: SERVER, adapters: [{ type: 'websocket', port: 70000 }] }],
    });
    const run = await cli(['config', 'check', '--config', path], {});
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual(['api.flavor: must be one of: v1, v2', 'servers[0].adapters[0].port: must be 0–65535 (0: any free port)']);
  });

  it('exits 2 for a base URL pasted with its version path, from the file or from GSA_API_URL, contacting nothing', async () => {
    const path = await writeConfig('versioned.json', { api: { clientId: 'id', clientSecret: SECRET, baseUrl: `${emulator.url}/api/v1` }, servers: [{ name: SERVER, adapters: [] }] });
    const fromFile = await cli(['config', 'check', '--config', path, '--connect'], {});
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr.trim().split('\n')).toEqual([
      "api.baseUrl: must be the service's root, without the version path: drop /api/v1 (the sidecar adds the version path for api.flavor v1), like https://api.gameserverapp.com",
    ]);
    const plain = await writeConfig('plain.json', { api: { clientId: 'id', clientSecret: SECRET }, servers: [{ name: SERVER, adapters: [] }] });
    const fromEnv = await cli(['config', 'check', '--config', plain], { GSA_API_URL: `${emulator.url}/MOD-API/V2/` });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.stderr).toContain('drop /MOD-API/V2/ (the sidecar adds the version path for api.flavor v2), like https://api.gameserverapp.com (from GSA_API_URL)');
    expect(emulator.calls).toHaveLength(0);
  });

  it('exits 2 for a missing file and for an unknown subcommand', async () => {
    expect((await cli(['config', 'check', '--config', join(workDir, 'missing.json')], {})).stderr).toMatch(/config file not found/);
    expect((await cli(['config', 'lint'], {})).code).toBe(2);
  });
});

describe('emulator --rate-limit', () => {
  it('refuses a value that is not REQUESTS/INTERVAL_MS with a usage error naming the flag, exit 2, before listening', async () => {
    for (const value of ['100', '100/', '/60000', '0/60000', '100/0', '1.5/60000', '-1/60000', '100/60s', 'abc', '100/60000/1', '99999999999999999999/1']) {
      const run = await cli(['emulator', '--port', '0', '--rate-limit', value], {});
      expect(run.code, value).toBe(2);
      expect(run.stderr, value).toContain(
        `error: --rate-limit must be REQUESTS/INTERVAL_MS, two whole numbers of 1 or more (for example 100/60000: 100 calls a minute), got "${value}"`,
      );
      expect(run.stderr, value).toContain('usage: gsa-bridge emulator');
      expect(run.stdout, value).toBe('');
    }
  });
});

describe('the binary', () => {
  function spawnCli(args: string[], env: Record<string, string> = {}): ReturnType<typeof spawn> {
    return spawn(process.execPath, [BIN, ...args], {
      cwd: workDir,
      env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }

  async function runBinary(args: string[], env: Record<string, string> = {}): Promise<Run> {
    const child = spawnCli(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    return { code, stdout, stderr };
  }

  it('prints its version and help; exit 0', async () => {
    expect(await runBinary(['--version'])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^gsa-bridge \d+\.\d+\.\d+\n$/) as unknown });
    const help = await runBinary(['--help']);
    expect(help.code).toBe(0);
    for (const command of ['run', 'demo', 'emulator', 'server', 'mute-check', 'review', 'config check']) expect(help.stdout).toContain(`gsa-bridge ${command}`);
  });

  it('run refuses a base URL with its version path: exit 2, one line naming the key and the variable', async () => {
    const path = await writeConfig('run-versioned.json', { api: { clientId: 'id', clientSecret: SECRET }, servers: [{ name: SERVER, adapters: [] }], http: { port: 0 } });
    const run = await runBinary(['run', '--config', path], { GSA_API_URL: `${emulator.url}/api/v1` });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^api\.baseUrl: must be the service's root, without the version path: drop \/api\/v1 .*\(from GSA_API_URL\)$/m);
    expect(emulator.calls).toHaveLength(0);
  });

  it('exits 2 on an unknown command and 1 with the reason on a refused call', async () => {
    expect((await runBinary(['frobnicate'])).code).toBe(2);
    const refused = await runBinary(['server', 'restart', '--id', '9999'], serviceEnv());
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/unauthorized/);
  });

  it('plays the demo once and exits 0', async () => {
    const run = await runBinary(['demo', '--once']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Alice says .* -> allowed \(reason: ok\)/);
    expect(run.stdout).toMatch(/Mallory says .* -> blocked \(reason: muted\)/);
    expect(run.stdout).toMatch(/the mod shows Mallory: "You are muted/);
    expect(run.stdout).toMatch(/review\.queued/);
    expect(run.stdout).toMatch(/review\.result: delivered/);
    expect(run.stdout).toMatch(/GSA \(emulator\) now holds: 5 stars/);
  });

  it('without --once, stays up for a real mod with the printed URL and token, until SIGTERM', async () => {
    const child = spawnCli(['demo']);
    let stdout = '';
    const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const url = /mod URL: (ws:\S+)/.exec(stdout)?.[1];
        const token = /token: {3}([0-9a-f]+)/.exec(stdout)?.[1];
        if (url !== undefined && token !== undefined) resolve({ url, token });
      });
      child.once('exit', () => {
        reject(new Error(`demo exited early: ${stdout}`));
      });
    });
    const mod = await connectMod(url, token);
    await mod.waitFor((frame) => frame.type === 'welcome');
    mod.send({ type: 'chat', id: 'x', player: { steam_id: '76561198000000002' }, channel: 'global', text: 'hi' });
    expect(await mod.waitFor((frame) => frame.id === 'x')).toMatchObject({ allow: false, reason: 'muted' });
    await mod.close();
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
  });

  it('emulator --rate-limit enforces the budget per key: the banner says so, and a call past it is a 429', async () => {
    const child = spawnCli(['emulator', '--port', '0', '--rate-limit', '2/60000'], { GSA_CLIENT_SECRET: SECRET });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (\S+)[\s\S]*Ctrl-C/.exec(stdout);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.once('exit', () => {
        reject(new Error(`emulator exited early: ${stdout}`));
      });
    });
    expect(stdout).toContain('rate limit:    2 calls per 60000 ms per API key, the system key apart (429 with Retry-After past it)');
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${url}/api/v1/gameserver/ovddykvbs/mute`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({ client_id: 'demo-client', client_secret: SECRET, steam_id: '76561198000000001' }).toString(),
      });
      await response.text();
      statuses.push(response.status);
      if (response.status === 429) expect(response.headers.get('retry-after')).toBe('60');
    }
    expect(statuses).toStrictEqual([200, 200, 429]);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
  });

  it('runs the emulator until SIGTERM, then exits 0', async () => {
    const child = spawnCli(['emulator', '--port', '0'], { GSA_CLIENT_SECRET: SECRET });
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /listening on (\S+)/.exec(stdout);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.once('exit', () => {
        reject(new Error(`emulator exited early: ${stdout}`));
      });
    });
    expect(stdout).not.toContain(SECRET);
    const response = await fetch(`${url}/_emulator/state`);
    expect(response.status).toBe(200);
    child.kill('SIGTERM');
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(0);
  });
});
