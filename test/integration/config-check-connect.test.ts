// `gsa-bridge config check --connect` through the real binary against the GSA emulator: one line per check and exit 0
// when all pass; exit 1 for a wrong secret (never printed), an unknown server name or a listener port in use; an RCON
// adapter logged in to (a dead port here; config-check-rcon.test.ts has the rest); placeholders from config.example.json
// warned about, not failed; and without --connect nothing is contacted.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { unclaimedPort } from '../fixtures/ports.js';
import { describeWithRedis, startRedis } from '../fixtures/redisServer.js';
import { tempDir } from '../fixtures/tempDir.js';

const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));
const SERVER = 'connect-srv';
const SECRET = 'connect-secret-4b7e0c9d';
const WRONG_SECRET = 'wrong-secret-1a2b3c4d5e';

let emulator: GsaEmulator;
let dir: string;
const blockers: Server[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ clientId: 'connect-client', clientSecret: SECRET, servers: [{ name: SERVER, id: 77 }] });
  dir = await tempDir('config-connect');
});

afterEach(async () => {
  emulator.reset();
  await Promise.all(blockers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

afterAll(async () => {
  await emulator.close();
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The check lines: "ok  ", "FAIL" or "skip", the subject, the detail. */
  readonly checks: string[];
}

async function writeConfig(name: string, overrides: { secret?: string; servers?: unknown[]; http?: unknown; rateLimit?: unknown } = {}): Promise<string> {
  const path = join(dir, name);
  const config = {
    api: { baseUrl: emulator.url, clientId: 'connect-client', clientSecret: overrides.secret ?? SECRET, timeoutMs: 3000, rateLimit: overrides.rateLimit ?? {} },
    servers: overrides.servers ?? [{ name: SERVER, adapters: [{ type: 'websocket', port: await unclaimedPort(), token: 'connect-token-0000' }] }],
    reviews: { dataDir: 'data' },
    http: overrides.http ?? { port: await unclaimedPort() },
  };
  await writeFile(path, JSON.stringify(config), { mode: 0o600 });
  return path;
}

async function check(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, 'config', 'check', ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr, checks: stdout.split('\n').filter((line) => /^(ok {2}|FAIL|skip) {2}/.test(line)) };
}

async function occupy(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  blockers.push(server);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('config check --connect', () => {
  it('good credentials, a known server and free ports: one line each, exit 0, one mute lookup spent', async () => {
    const path = await writeConfig('good.json');
    const run = await check(['--config', path, '--connect']);
    expect(run.code).toBe(0);
    expect(run.checks).toEqual([
      `ok    credentials: accepted by ${emulator.url} (v1)`,
      `ok    server ${SERVER}: known to the service`,
      expect.stringMatching(/^ok {4}listener connect-srv\/\S+ 127\.0\.0\.1:\d+: free$/),
      expect.stringMatching(/^ok {4}listener http\.port 127\.0\.0\.1:\d+: free$/),
    ]);
    expect(run.stderr).toMatch(/^every check passed \(1 read-only request to the service, of its 100 per 60 s\)$/m);
    expect(emulator.calls.map((call) => call.path)).toEqual([`/api/v1/gameserver/${SERVER}/mute`]);
  });

  it("a System API key: one read-only check of its own budget; a refused one FAILs naming the key, which appears nowhere", async () => {
    const path = await writeConfig('system.json');
    const good = await check(['--config', path, '--connect'], { GSA_SYSTEM_API_KEY: emulator.systemKey });
    expect(good.code).toBe(0);
    expect(good.checks[2]).toMatch(new RegExp(`^ok {4}System API key: accepted by ${emulator.url.replace(/[.]/g, '\\.')} \\(GET /system-api/v2/game/available listed \\d+ games?; 1 read-only call of its 100 per 60 s\\)$`));
    expect(emulator.calls.filter((call) => call.path === '/system-api/v2/game/available')).toHaveLength(1);
    emulator.reset();
    const wrongKey = 'wrong-system-key-9c1d';
    const refused = await check(['--config', path, '--connect'], { GSA_SYSTEM_API_KEY: wrongKey });
    expect(refused.code).toBe(1);
    expect(refused.checks[2]).toBe('FAIL  System API key: refused (401: Unauthenticated.): check api.system.key or GSA_SYSTEM_API_KEY against the dashboard\'s API page');
    expect(refused.stdout + refused.stderr).not.toContain(wrongKey);
  });

  it('a wrong secret: credentials FAIL, servers not checked, exit 1, and the secret appears nowhere', async () => {
    const path = await writeConfig('wrong.json', { secret: WRONG_SECRET });
    const run = await check(['--config', path, '--connect']);
    expect(run.code).toBe(1);
    expect(run.checks[0]).toBe(
      `FAIL  credentials: refused (401: Unauthenticated.): check api.clientId and api.clientSecret in ${path} against the dashboard's /configure/api, and that server ${SERVER} is bound to these keys`,
    );
    expect(run.checks[1]).toBe(`skip  server ${SERVER}: not checked: the credentials check failed`);
    expect(run.stdout + run.stderr).not.toContain(WRONG_SECRET);
    // One refused call, and no retry of it.
    expect(emulator.calls).toHaveLength(1);
  });

  it('prints the checks first, then the effective config, and ends with a verdict naming what failed', async () => {
    const path = await writeConfig('order.json', { secret: WRONG_SECRET });
    const run = await check(['--config', path, '--connect']);
    expect(run.code).toBe(1);
    const stdout = run.stdout.split('\n');
    // The checks lead: the verdict's details are the first thing a host sees, not 60 lines of config.
    expect(stdout.slice(0, run.checks.length)).toEqual(run.checks);
    const dump = JSON.parse(stdout.slice(run.checks.length).join('\n')) as { api: { clientSecret: string } };
    expect(dump.api.clientSecret).toBe('***');
    // The last line, on a terminal the one left in view: what failed, by subject.
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe('1 check failed: credentials (1 read-only request to the service, of its 100 per 60 s)');
  });

  it('a wrong secret from GSA_CLIENT_SECRET: the FAIL line names the variable, since fixing the file would change nothing', async () => {
    const path = await writeConfig('env-wrong.json');
    const run = await check(['--config', path, '--connect'], { GSA_CLIENT_SECRET: WRONG_SECRET });
    expect(run.code).toBe(1);
    expect(run.checks[0]).toBe(
      `FAIL  credentials: refused (401: Unauthenticated.): check api.clientId in ${path} and GSA_CLIENT_SECRET (set in the environment, it overrides api.clientSecret) against the dashboard's /configure/api, and that server ${SERVER} is bound to these keys`,
    );
    expect(run.stdout + run.stderr).not.toContain(WRONG_SECRET);
  });

  it('an unknown server name: that server FAILs with what to fix, the known one passes, exit 1', async () => {
    const path = await writeConfig('unknown.json', {
      servers: [
        { name: SERVER, adapters: [] },
        { name: 'not-a-container', adapters: [] },
      ],
    });
    const run = await check(['--config', path, '--connect']);
    expect(run.code).toBe(1);
    expect(run.checks.slice(0, 3)).toEqual([
      expect.stringMatching(/^ok {4}credentials: /),
      `ok    server ${SERVER}: known to the service`,
      expect.stringMatching(/^FAIL {2}server not-a-container: the service does not know it \(404: .*\); servers\[1\]\.name must be the container name/),
    ]);
  });

  it('a listener port in use (an adapter and http): FAIL naming the address, exit 1', async () => {
    const taken = await occupy();
    const takenToo = await occupy();
    const path = await writeConfig('busy.json', {
      servers: [{ name: SERVER, adapters: [{ type: 'websocket', port: taken, token: 'connect-token-0000' }] }],
      http: { port: takenToo },
    });
    const run = await check(['--config', path, '--connect']);
    expect(run.code).toBe(1);
    expect(run.checks).toContainEqual(
      expect.stringMatching(new RegExp(`^FAIL {2}listener ${SERVER}/\\S+ 127\\.0\\.0\\.1:${taken}: port in use \\(another program, or another adapter, listens there\\)`)),
    );
    expect(run.checks).toContainEqual(
      `FAIL  listener http.port 127.0.0.1:${takenToo}: port in use (another program listens there); if a sidecar with this config runs, that is expected`,
    );
    expect(run.stderr).toMatch(/2 checks failed/);
  });

  it('an RCON adapter is logged in to: a port nobody listens on FAILs with what to check, exit 1 (config-check-rcon.test.ts has the rest)', async () => {
    const port = await unclaimedPort();
    const path = await writeConfig('rcon.json', {
      servers: [{ name: SERVER, adapters: [{ type: 'rcon', profile: 'ark', port, password: 'rcon-secret-55aa' }] }],
    });
    const run = await check(['--config', path, '--connect']);
    expect(run.code).toBe(1);
    expect(run.checks).toContainEqual(expect.stringMatching(new RegExp(`^FAIL {2}rcon connect-srv/\\S+ 127\\.0\\.0\\.1:${port}: RCON login failed: cannot connect .*; check "host" and "port"`)));
    expect(run.stdout + run.stderr).not.toContain('rcon-secret-55aa');
  });

  it('without --connect nothing is contacted; placeholders from config.example.json are warnings, not failures', async () => {
    const path = await writeConfig('placeholders.json', {
      servers: [{ name: 'ovddykvbs', id: 4711, adapters: [{ type: 'websocket', port: 8787, token: 'change-me-to-a-long-random-string' }] }],
    });
    const run = await check(['--config', path]);
    expect(run.code).toBe(0);
    expect(run.checks).toEqual([]);
    expect(emulator.calls).toHaveLength(0);
    expect(run.stderr).toMatch(/^warning: servers\[0\]\.name is still the placeholder from config\.example\.json \("ovddykvbs"\)/m);
    expect(run.stderr).toMatch(/^warning: servers\[0\]\.id is still the placeholder/m);
    expect(run.stderr).toMatch(/^warning: servers\[0\]\.adapters\[0\]\.token is still the placeholder/m);
    expect(run.stderr).not.toContain('change-me-to-a-long-random-string');
  });
});

describeWithRedis('config check --connect with api.rateLimit.shared', () => {
  const REDIS_PASSWORD = 'redis-pw-5e1f0a';

  it('asks the shared Redis one PING: ok when it answers; FAIL with the driver\'s reason for a wrong password, which is never printed', async () => {
    const redis = await startRedis();
    try {
      expect(await redis.command('CONFIG', 'SET', 'requirepass', REDIS_PASSWORD)).toBe('+OK\r\n');
      const shared = (password: string): unknown => ({ requests: 100, intervalMs: 60000, shared: { redis: `redis://:${password}@127.0.0.1:${redis.port}/0`, nodes: 3 } });
      const good = await check(['--config', await writeConfig('shared-good.json', { rateLimit: shared(REDIS_PASSWORD) }), '--connect']);
      expect(good.checks).toContain(`ok    shared budget redis://127.0.0.1:${redis.port}/0: answered; 3 sidecars share 100 calls per 60000 ms (each keeps floor(100/3) = 33 while Redis is down)`);
      expect(good.code).toBe(0);

      const wrong = await check(['--config', await writeConfig('shared-wrong.json', { rateLimit: shared('not-the-password') }), '--connect']);
      expect(wrong.code).toBe(1);
      expect(wrong.checks).toContain(
        `FAIL  shared budget redis://127.0.0.1:${redis.port}/0: WRONGPASS invalid username-password pair or user is disabled: check api.rateLimit.shared.redis (host, port, password in the URL); until Redis answers, each sidecar keeps floor(100/3) = 33 calls per window on its own`,
      );
      for (const output of [good.stdout, good.stderr, wrong.stdout, wrong.stderr]) {
        expect(output).not.toContain(REDIS_PASSWORD);
        expect(output).not.toContain('not-the-password');
      }
    } finally {
      await redis.stop();
    }
  });
});
