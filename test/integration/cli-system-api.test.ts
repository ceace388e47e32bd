// The System API commands as hosts use them, in-process against the emulator's System API over loopback: mute,
// unmute, broadcast, and server actions through the System API when a key is set (wipe still on the webhook); the
// refusals a host must read (unknown player, cooldown, offline server, wrong key) and usage errors (period codes,
// dates, no key); the key never printed; and, with a shared Redis, a server call that would wait past --timeout.
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import type { CliContext } from '../../src/cli/context.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { describeWithRedis, startRedis } from '../fixtures/redisServer.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const SERVER_ID = 4711;
const SECRET = 'cli-sys-secret-77a1';
const KEY = 'cli-system-key-Zq81x';
const STEAM = '76561198000000042';
const UUID = '0b6f8a0e-3c1a-4d8e-9d55-5a0e6c2b7f11';

let emulator: GsaEmulator;
let workDir: string;
const printed: string[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ clientId: 'cli-client', clientSecret: SECRET, systemKey: KEY, servers: [{ name: SERVER, id: SERVER_ID }] });
  emulator.addPlayer({ ids: [{ type: 'steam', id: STEAM }], name: 'Rex', uuid: UUID });
  workDir = await tempDir('cli-system');
});

afterEach(() => {
  emulator.reset();
});

afterAll(async () => {
  // Whatever was printed over the whole file, at debug level too: never the System API key.
  for (const text of printed) expect(text).not.toContain(KEY);
  await emulator.close();
});

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function env(extra: Record<string, string> = {}): Record<string, string> {
  return { GSA_API_URL: emulator.url, GSA_CLIENT_ID: 'cli-client', GSA_CLIENT_SECRET: SECRET, GSA_SYSTEM_API_KEY: KEY, GSA_BRIDGE_LOG_LEVEL: 'debug', ...extra };
}

function envWithoutKey(): Record<string, string> {
  return Object.fromEntries(Object.entries(env()).filter(([name]) => name !== 'GSA_SYSTEM_API_KEY'));
}

async function cli(args: string[], environment: Record<string, string> = env()): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const context: CliContext = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: environment,
    cwd: workDir,
  };
  const code = await main(args, context);
  printed.push(stdout, stderr);
  return { code, stdout, stderr };
}

describe('mute and unmute', () => {
  it('mutes a player found by Steam id; a second mute within 120 s is GSA refusing with when (exit 1)', async () => {
    const first = await cli(['mute', '--steam-id', STEAM, '--period', '1h', '--note', 'language']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/error|warn/);
    expect(first.stdout).toBe(`mute player ${UUID} (Rex): accepted (200): Player will be muted shortly.\n`);
    expect(emulator.snapshot().system.mutes).toEqual([expect.objectContaining({ uuid: UUID, note: 'language' })]);

    const again = await cli(['unmute', '--player', UUID]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error \(cooldown\): GSA allows one mute or unmute per player every 120 s: this player can be muted or unmuted again at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
  });

  it('unmutes by uuid, and mutes until a date or for good', async () => {
    expect((await cli(['unmute', '--player', UUID, '--note', 'ok'])).stdout).toMatch(/accepted \(200\): Player will be unmuted shortly\./);
    emulator.reset();
    expect((await cli(['mute', '--player', UUID, '--until', '2099-12-31'])).code).toBe(0);
    emulator.reset();
    expect((await cli(['mute', '--player', UUID, '--permanent'])).code).toBe(0);
  });

  it('writes each mute and unmute, accepted or refused, to the moderation log that moderation list shows', async () => {
    const dir = await tempDir('cli-moderation');
    const dataDir = join(dir, 'data');
    await mkdir(dataDir);
    const config = join(dir, 'config.json');
    await writeFile(config, JSON.stringify({ api: { baseUrl: emulator.url, clientId: 'cli-client', clientSecret: SECRET, system: { key: KEY } }, servers: [], reviews: { dataDir } }));
    const withFile = { GSA_BRIDGE_LOG_LEVEL: 'debug' };
    expect((await cli(['mute', '--steam-id', STEAM, '--period', '30m', '--config', config], withFile)).code).toBe(0);
    expect((await cli(['unmute', '--steam-id', STEAM, '--config', config], withFile)).code).toBe(1);
    expect((await cli(['mute', '--steam-id', '76561198999999999', '--period', '1d', '--config', config], withFile)).code).toBe(1);
    const listed = await cli(['moderation', 'list', '--json', '--config', config], withFile);
    expect(listed.code).toBe(0);
    const records = listed.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records).toMatchObject([
      { by: 'command', server: null, player: STEAM, action: 'mute', period: '30m', result: 'ok', answer: 'Player will be muted shortly.' },
      { by: 'command', player: STEAM, action: 'unmute', period: null, result: 'refused', answer: expect.stringContaining('120 s') as unknown },
      { by: 'command', player: '76561198999999999', action: 'mute', period: '1d', result: 'refused', answer: expect.stringContaining('GSA does not know this player') as unknown },
    ]);
  });

  it('records nothing when the data directory does not exist (a command run from elsewhere makes no ./data)', async () => {
    const run = await cli(['mute', '--steam-id', STEAM, '--period', '15m']);
    expect(run.code).toBe(0);
    expect(await readdir(workDir)).toEqual([]);
  });

  it('a player GSA does not know: exit 1, "GSA does not know this player"', async () => {
    const run = await cli(['mute', '--steam-id', '76561198999999999', '--period', '1d']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error \(not_found\): GSA does not know this player \(404\)/m);
  });

  it.each([
    [['mute', '--player', UUID, '--period', '7d'], /--period "7d" is not one of GSA's period codes \(a week is 1w\): 15m 30m 45m/],
    [['mute', '--player', UUID, '--until', '2001-01-01'], /--until 2001-01-01 is in the past/],
    [['mute', '--player', UUID, '--until', '2030-02-30'], /--until must be a day as YYYY-MM-DD/],
    [['mute', '--player', UUID, '--until', 'tomorrow'], /--until must be a day as YYYY-MM-DD/],
    [['mute', '--player', UUID], /give exactly one of --period P, --until YYYY-MM-DD or --permanent/],
    [['mute', '--player', UUID, '--steam-id', STEAM, '--permanent'], /give exactly one of --steam-id ID, --eos-id ID or --player UUID/],
    [['broadcast', '--id', String(SERVER_ID)], /give the text after --/],
    [['broadcast', '--id', String(SERVER_ID), '--type', 'loud', '--', 'hi'], /--type must be one of broadcast, success, warning, error/],
    [['server', 'restart', '--id', String(SERVER_ID), '--countdown', '91'], /--countdown must be from 0 to 90/],
    [['server', 'start', '--id', String(SERVER_ID), '--message', 'hi'], /--countdown and --message apply to update, restart and stop/],
  ])('exits 2 on a usage error, nothing sent: %j', async (args, message) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(emulator.calls).toHaveLength(0);
  });

  it.each([['mute', '--player', UUID, '--permanent'], ['unmute', '--player', UUID], ['broadcast', '--id', '4711', '--', 'hi']])(
    'without a System API key, %s exits 2 naming the setting',
    async (...args) => {
      const run = await cli(args, envWithoutKey());
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/needs GSA's System API key: set api\.system\.key or GSA_SYSTEM_API_KEY/);
      expect(emulator.calls).toHaveLength(0);
    },
  );

  it('a wrong key: exit 1, GSA refused the System API key', async () => {
    const run = await cli(['unmute', '--player', UUID], env({ GSA_SYSTEM_API_KEY: 'not-the-key' }));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/GSA refused the System API key \(401\): check api\.system\.key or GSA_SYSTEM_API_KEY/);
  });
});

describe('broadcast and server actions', () => {
  it('broadcasts by --server with its type; an offline server is refused (exit 1)', async () => {
    const path = join(workDir, 'servers.json');
    await writeFile(path, JSON.stringify({ servers: [{ name: SERVER, id: SERVER_ID, adapters: [] }] }));
    const run = await cli(['broadcast', '--server', SERVER, '--type', 'success', '--config', path, '--', 'Restart', 'in', '5']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`broadcast to server ${SERVER} (id ${SERVER_ID}): accepted (200): Broadcast sent to game server\n`);
    expect(emulator.systemActions()).toEqual([expect.objectContaining({ serverId: SERVER_ID, action: 'broadcast', message: 'Restart in 5', type: 'success' })]);
    emulator.reset();
    emulator.setServerOnline(SERVER_ID, false);
    const offline = await cli(['broadcast', '--id', String(SERVER_ID), '--', 'hi']);
    expect(offline.code).toBe(1);
    expect(offline.stderr).toMatch(/game server 4711 is offline \(400\)/);
  });

  it('with a key, server restart goes through the System API with countdown and message; a second call is GSA\'s 60 s cooldown', async () => {
    const run = await cli(['server', 'restart', '--id', String(SERVER_ID), '--countdown', '5', '--message', 'brb']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^restart server 4711: accepted \(200\): Restart request sent to game server\n$/);
    expect(emulator.systemActions()).toEqual([expect.objectContaining({ action: 'restart', countdown: 5, message: 'brb' })]);
    expect(emulator.actions(SERVER_ID)).toEqual([]);
    const again = await cli(['server', 'stop', '--id', String(SERVER_ID)]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/game server 4711 can be called again at \d{4}-/);
  });

  it('wipe stays on the webhook, and without a key every action does', async () => {
    expect((await cli(['server', 'wipe', '--id', String(SERVER_ID), '--yes'])).code).toBe(0);
    const withoutKey = envWithoutKey();
    expect((await cli(['server', 'restart', '--id', String(SERVER_ID)], withoutKey)).code).toBe(0);
    expect(emulator.actions(SERVER_ID).map((record) => record.action)).toEqual(['wipe', 'restart']);
    expect(emulator.systemActions()).toEqual([]);
    const message = await cli(['server', 'restart', '--id', String(SERVER_ID), '--message', 'x'], withoutKey);
    expect(message.code).toBe(2);
    expect(message.stderr).toMatch(/--message needs GSA's System API key/);
  });

  it('with only a System API key (no client id or secret), server actions work; wipe, on the webhook, asks for the credentials', async () => {
    const onlyKey = { GSA_API_URL: emulator.url, GSA_SYSTEM_API_KEY: KEY };
    const restart = await cli(['server', 'restart', '--id', String(SERVER_ID)], onlyKey);
    expect(restart.code, restart.stderr).toBe(0);
    expect(emulator.systemActions().map((record) => record.action)).toEqual(['restart']);
    const wipe = await cli(['server', 'wipe', '--id', String(SERVER_ID), '--yes'], onlyKey);
    expect(wipe.code).toBe(2);
    expect(wipe.stderr).toContain('api.clientId: required: set it in the config file or the GSA_CLIENT_ID environment variable');
    expect(emulator.actions(SERVER_ID)).toEqual([]);
  });

  it('--help says wipe stays on the webhook', async () => {
    expect((await cli(['server', '--help'])).stdout).toMatch(/wipe always uses the webhook/);
    expect((await cli(['--help'])).stdout).toMatch(/gsa-bridge mute .*\n.*gsa-bridge unmute .*\n.*gsa-bridge broadcast /s);
  });
});

describeWithRedis('a shared System API cooldown seen before calling', () => {
  it('a second server call within 60 s, with --timeout shorter than the wait, says when and sends nothing', async () => {
    const redis = await startRedis();
    try {
      const path = join(workDir, 'shared.json');
      await writeFile(path, JSON.stringify({ api: { rateLimit: { shared: { redis: redis.url, nodes: 1 } } }, servers: [] }));
      expect((await cli(['broadcast', '--id', String(SERVER_ID), '--config', path, '--', 'first'])).code).toBe(0);
      const calls = emulator.calls.length;
      const late = await cli(['server', 'restart', '--id', String(SERVER_ID), '--config', path, '--timeout', '5']);
      expect(late.code).toBe(1);
      expect(late.stderr).toMatch(/^error \(cooldown\): GSA allows one action or broadcast per game server every 60 s: game server 4711 can be called again at \S+, after the --timeout of 5 s: nothing was sent$/m);
      expect(emulator.calls).toHaveLength(calls);
    } finally {
      await redis.stop();
    }
  });
});
