// GSA's webhook spacing for one-shot commands on a shared key (api.rateLimit.shared): real `gsa-bridge server
// restart` processes, a real `gsa-bridge run` whose mod asks for the same restart, one private Redis, and the
// emulator recording arrivals. Two restarts of one server arrive at least 3 s apart whoever sends them, in either
// order; a one-shot whose Redis cannot be reached says so in one line and still does its call.
// Before the fix a one-shot asked Redis before its connection was up ("The client is offline") and went on with no
// spacing at all: two restarts in a row arrived 1.7 s apart, a CLI restart during a mod's 0.7 s.
// Spawned processes run dist/: `npm run build` first.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@redis/client';
import { afterEach, expect, it } from 'vitest';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GSA_WEBHOOK_SPACING_MS } from '../../src/gsa/spacing/webhookSpacing.js';
import { unclaimedPort } from '../fixtures/ports.js';
import { useMultiNodeHarness, waitUntil, type SidecarNode } from '../fixtures/multiNodeHarness.js';
import { describeWithRedis, startRedis, type PrivateRedis } from '../fixtures/redisServer.js';
import { tempDir } from '../fixtures/tempDir.js';

const BIN = fileURLToPath(new URL('../../bin/gsa-bridge.js', import.meta.url));
const CLIENT_ID = 'one-shot-spacing-client';
const SECRET = 'one-shot-spacing-secret-91';
const SERVER = { name: 'spacing-node', id: 4711 };
const RESTART_PATH = `/api/v1/server/${String(SERVER.id)}/restart`;
const REQUESTS = 100;
const INTERVAL_MS = 60_000;
/** Process starts on a loaded 2-core machine, a sidecar, and a spacing of 3.25 s or two. */
const TEST_TIMEOUT_MS = 90_000;

const { startCluster } = useMultiNodeHarness();
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Setup {
  readonly redis: PrivateRedis;
  readonly emulator: GsaEmulator;
  readonly prefix: string;
}

let serial = 0;

async function startServices(): Promise<Setup> {
  const redis = await startRedis();
  cleanup.push(() => redis.stop());
  const emulator = await GsaEmulator.start({ clientId: CLIENT_ID, clientSecret: SECRET, servers: [SERVER] });
  cleanup.push(() => emulator.close());
  return { redis, emulator, prefix: `one-shot-spacing-${String(serial++)}` };
}

/** A one-shot command's config: the key shared through `redisUrl`, with the window settings the sidecars use. */
async function oneShotConfig(setup: Pick<Setup, 'emulator' | 'prefix'>, redisUrl: string): Promise<string> {
  const dir = await tempDir('one-shot-spacing');
  const configPath = join(dir, 'config.json');
  const config = {
    api: {
      baseUrl: setup.emulator.url,
      clientId: CLIENT_ID,
      clientSecret: SECRET,
      rateLimit: { requests: REQUESTS, intervalMs: INTERVAL_MS, shared: { redis: redisUrl, prefix: setup.prefix, nodes: 1 } },
      retry: { retries: 0, minDelayMs: 50, maxDelayMs: 100 },
    },
    servers: [{ name: SERVER.name, id: SERVER.id, adapters: [] }],
  };
  await writeFile(configPath, JSON.stringify(config));
  return configPath;
}

interface CliRun {
  readonly exited: Promise<{ code: number | string; stdout: string; stderr: string }>;
}

/** `gsa-bridge server restart --yes` on `configPath`, with only PATH and TMPDIR from this environment. */
function restartCommand(configPath: string): CliRun {
  const child = spawn(process.execPath, [BIN, 'server', 'restart', '--server', SERVER.name, '--yes', '--timeout', '30', '--config', configPath], {
    cwd: dirname(configPath),
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanup.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: (code as number | null) ?? (signal as string), stdout, stderr }));
  return { exited };
}

function restartArrivals(emulator: GsaEmulator): number[] {
  return emulator.calls.filter((call) => call.path === RESTART_PATH).map((call) => call.at);
}

/** The sidecar of the cluster, with the same key, prefix and window as the one-shot commands. */
async function startSidecar(setup: Setup): Promise<SidecarNode> {
  const [node] = await startCluster({
    baseUrl: setup.emulator.url,
    clientId: CLIENT_ID,
    clientSecret: SECRET,
    redisUrl: setup.redis.url,
    servers: [SERVER],
    requests: REQUESTS,
    intervalMs: INTERVAL_MS,
    prefix: setup.prefix,
    label: setup.prefix,
  });
  if (node === undefined) throw new Error('no sidecar started');
  return node;
}

function modRestart(node: SidecarNode, id: string): void {
  node.mod.send({ type: 'server.action', id, action: 'restart' });
}

async function expectAccepted(run: CliRun): Promise<void> {
  const result = await run.exited;
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^restart server spacing-node \(id 4711\): accepted \(200\)/);
}

describeWithRedis('one-shot commands keep the shared webhook spacing (real processes)', () => {
  it(
    'two `server restart` processes in a row arrive at least 3 s apart, and say nothing about Redis',
    async () => {
      const setup = await startServices();
      const configPath = await oneShotConfig(setup, setup.redis.url);
      const first = restartCommand(configPath);
      await expectAccepted(first);
      const second = restartCommand(configPath);
      await expectAccepted(second);
      const [a = 0, b = 0] = restartArrivals(setup.emulator);
      expect(restartArrivals(setup.emulator)).toHaveLength(2);
      expect(b - a).toBeGreaterThanOrEqual(GSA_WEBHOOK_SPACING_MS);
      expect((await first.exited).stderr + (await second.exited).stderr).toBe('');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a mod’s restart first, then a `server restart` of the same server: at least 3 s apart',
    async () => {
      const setup = await startServices();
      const node = await startSidecar(setup);
      const configPath = await oneShotConfig(setup, setup.redis.url);
      modRestart(node, 'mod-first');
      await waitUntil(() => restartArrivals(setup.emulator).length === 1, "the mod's restart arrives");
      const cli = restartCommand(configPath);
      await expectAccepted(cli);
      const result = await node.mod.waitFor((frame) => frame.type === 'server.action.result' && frame.id === 'mod-first');
      expect(result).toMatchObject({ ok: true });
      const [modAt = 0, cliAt = 0] = restartArrivals(setup.emulator);
      expect(cliAt - modAt).toBeGreaterThanOrEqual(GSA_WEBHOOK_SPACING_MS);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'a `server restart` first, then a mod’s restart asked while the command holds its turn in Redis: at least 3 s apart',
    async () => {
      const setup = await startServices();
      const node = await startSidecar(setup);
      const configPath = await oneShotConfig(setup, setup.redis.url);
      // Redis's MONITOR shows the writes inside scripts: the first lease written on the restart's key is the
      // command's (the sidecar has nothing to send yet). The mod asks the moment it appears.
      const monitor = createClient({ url: setup.redis.url });
      monitor.on('error', () => undefined);
      cleanup.push(() => {
        monitor.destroy();
        return Promise.resolve();
      });
      await monitor.connect();
      let leaseSeen = false;
      await monitor.monitor((line) => {
        if (leaseSeen || !/"HSET" "[^"]*:webhook:4711\/restart" "holder"/.test(line)) return;
        leaseSeen = true;
        modRestart(node, 'mod-second');
      });
      const cli = restartCommand(configPath);
      await expectAccepted(cli);
      expect(leaseSeen, 'the command took its turn in Redis').toBe(true);
      await node.mod.waitFor((frame) => frame.type === 'server.action.result' && frame.id === 'mod-second', 30_000);
      const [cliAt = 0, modAt = 0] = restartArrivals(setup.emulator);
      expect(restartArrivals(setup.emulator)).toHaveLength(2);
      expect(modAt - cliAt).toBeGreaterThanOrEqual(GSA_WEBHOOK_SPACING_MS);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'Redis cannot be reached: the command says so in one line, naming the Redis but not its password, and still restarts',
    async () => {
      const setup = await startServices();
      const password = 'one-shot-redis-password-77';
      // Nothing listens there, and no other test's listen(0) can be handed it.
      const port = await unclaimedPort();
      const configPath = await oneShotConfig(setup, `redis://:${password}@127.0.0.1:${String(port)}/0`);
      const result = await restartCommand(configPath).exited;
      expect(result.code, result.stderr).toBe(0);
      expect(restartArrivals(setup.emulator)).toHaveLength(1);
      const lines = result.stderr.split('\n').filter((line) => /webhook|spaced/.test(line));
      expect(lines).toEqual([
        expect.stringMatching(
          new RegExp(
            `^warning: Redis at redis://127\\.0\\.0\\.1:${String(port)}/0 cannot be reached \\(.+\\); the restart of server ${SERVER.name} \\(id 4711\\) is spaced within this process only, not with other sidecars or commands$`,
          ),
        ),
      ]);
      expect(result.stderr + result.stdout).not.toContain(password);
    },
    TEST_TIMEOUT_MS,
  );
});
