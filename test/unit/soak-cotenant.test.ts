// The three-node soak's hostile co-tenant (bench/soak/coTenant.ts) against a real private redis-server with a
// password (bench/privateRedis.ts): the password never on redis-server's command line, clients AUTH, a restart keeps
// it; the co-tenant's forged hold set and deleted, its forged claims on every class and when they were removed, the
// window's room as Redis holds it, FLUSHALL, and a failed act recorded without the password.
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, expect, it } from 'vitest';
import { CoTenant, GHOST_NODE, TEN_YEARS_MS } from '../../bench/soak/coTenant.js';
import { startPrivateRedis, type PrivateRedis } from '../../bench/privateRedis.js';
import { describeWithRedis, REDIS_SERVER_BINARY } from '../fixtures/redisServer.js';
import { tempDir } from '../fixtures/tempDir.js';

const PASSWORD = 'soak-test-password-4f2a9c';
const KEY = 'soak-test:{0123456789abcdef}';
const now = (): number => performance.now();

let redis: PrivateRedis | undefined;
let cotenant: CoTenant | undefined;
let processes: ChildProcess[] = [];

afterEach(async () => {
  await cotenant?.close();
  cotenant = undefined;
  await redis?.stop();
  redis = undefined;
  for (const child of processes) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  processes = [];
});

async function start(): Promise<PrivateRedis> {
  redis = await startPrivateRedis({
    binary: REDIS_SERVER_BINARY,
    dir: await tempDir('redis'),
    password: PASSWORD,
    onProcess: (child) => processes.push(child),
  });
  return redis;
}

async function until(check: () => Promise<boolean>, what: string, withinMs = 10_000): Promise<void> {
  const deadline = now() + withinMs;
  while (!(await check())) {
    if (now() > deadline) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function redisNow(server: PrivateRedis): Promise<number> {
  const parts = (await server.command('TIME')).split('\r\n').filter((part) => /^\d+$/.test(part));
  return Number(parts[0]) * 1000 + Math.floor(Number(parts[1]) / 1000);
}

const integer = (reply: string): number => Number(/^:(-?\d+)/.exec(reply)?.[1] ?? Number.NaN);

/** What a client that does not AUTH is told. */
function unauthenticatedPing(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write('*1\r\n$4\r\nPING\r\n'));
    socket.on('data', (reply: string) => {
      socket.end();
      resolve(reply);
    });
    socket.on('error', reject);
  });
}

describeWithRedis('the soak\'s private Redis with a password, and its hostile co-tenant', () => {
  it('keeps the password off the command line, in the URL only, and asks every client for it, also after a restart', async () => {
    const server = await start();
    expect(server.url).toBe(`redis://:${PASSWORD}@127.0.0.1:${server.port}/0`);
    expect(server.label).toBe(`redis://127.0.0.1:${server.port}/0`);
    // What `ps` shows until redis-server retitles itself: the arguments it was started with.
    const cmdline = (): string => processes.at(-1)?.spawnargs.join(' ') ?? '';
    expect(cmdline()).toContain(String(server.port));
    expect(cmdline()).not.toContain(PASSWORD);
    expect(await server.command('PING')).toBe('+PONG\r\n');
    expect(await unauthenticatedPing(server.port)).toMatch(/^-NOAUTH/);
    await server.restart();
    expect(cmdline()).not.toContain(PASSWORD);
    expect(await server.command('PING')).toBe('+PONG\r\n');
    expect(await unauthenticatedPing(server.port)).toMatch(/^-NOAUTH/);
  });

  it('forges a hold within the cap with its expiry, and one 10 years ahead without, each deleted after it was kept', async () => {
    const server = await start();
    cotenant = await CoTenant.connect(server.url, KEY, now);
    const believable = cotenant.forgeHold('forged hold within the cap', 8000, 300, true);
    await until(async () => integer(await server.command('EXISTS', `${KEY}:hold`)) === 1, 'the forged hold in Redis');
    const [value, redisTime] = [Number((await server.command('GET', `${KEY}:hold`)).split('\r\n')[1]), await redisNow(server)];
    expect(value - redisTime).toBeGreaterThan(6000);
    expect(value - redisTime).toBeLessThanOrEqual(8000);
    expect(integer(await server.command('PTTL', `${KEY}:hold`))).toBeGreaterThan(0);
    const act = await believable;
    expect(act).toMatchObject({ kind: 'forged hold within the cap' });
    expect(act.error).toBeUndefined();
    expect(act.deletedAt ?? 0).toBeGreaterThanOrEqual(act.at + 300 - 1);
    expect(act.endsAt).toBe(act.at + 8000);
    expect(integer(await server.command('EXISTS', `${KEY}:hold`))).toBe(0);

    const far = cotenant.forgeHold('forged hold 10 years ahead', TEN_YEARS_MS, 300, false);
    await until(async () => integer(await server.command('EXISTS', `${KEY}:hold`)) === 1, 'the far hold in Redis');
    expect(integer(await server.command('PTTL', `${KEY}:hold`))).toBe(-1);
    expect((await far).error).toBeUndefined();
    expect(integer(await server.command('EXISTS', `${KEY}:hold`))).toBe(0);
    expect(cotenant.acts.map((recorded) => recorded.kind)).toEqual(['forged hold within the cap', 'forged hold 10 years ahead']);
  });

  it('reads, at the delete, when the window as Redis holds it has room again', async () => {
    const server = await start();
    cotenant = await CoTenant.connect(server.url, KEY, now);
    const redisTime = await redisNow(server);
    // Three starts, the oldest 2 s old, the others 1 s: with room for 2, room comes when the oldest two have left.
    await server.command('ZADD', `${KEY}:window`, String(redisTime - 2000), 'a:1', String(redisTime - 1000), 'b:1', String(redisTime - 1000), 'c:1');
    const full = await cotenant.forgeHold('forged hold within the cap', 8000, 10, true, { requests: 2, spanMs: 10_000 });
    expect((full.roomAt ?? 0) - (full.deletedAt ?? 0)).toBeGreaterThan(7000);
    expect((full.roomAt ?? 0) - (full.deletedAt ?? 0)).toBeLessThanOrEqual(9000);
    const roomy = await cotenant.forgeHold('forged hold within the cap', 8000, 10, true, { requests: 4, spanMs: 10_000 });
    expect(roomy.roomAt).toBe(roomy.deletedAt);
    expect((await cotenant.forgeHold('forged hold within the cap', 8000, 10, true)).roomAt).toBeUndefined();
  });

  it('forges a claim on every class for a node that does not exist, and says when they were all removed, or that they were not', async () => {
    const server = await start();
    cotenant = await CoTenant.connect(server.url, KEY, now);
    const fields = ['lookup', 'refresh', 'review', 'action'].map((kind) => `${GHOST_NODE}:${kind}`);
    const removed = cotenant.forgeClaims(20, 10_000);
    await until(async () => integer(await server.command('HLEN', `${KEY}:demand`)) === 4, 'the four claims in Redis');
    const expiry = Number((await server.command('HGET', `${KEY}:demand`, `${GHOST_NODE}:review`)).split('\r\n')[1]);
    expect(expiry - (await redisNow(server))).toBeGreaterThan(TEN_YEARS_MS - 60_000);
    // What a sidecar's decision does with them.
    expect(await server.command('HDEL', `${KEY}:demand`, ...fields)).toBe(':4\r\n');
    const act = await removed;
    expect(act.removedAfterMs).toBeGreaterThanOrEqual(0);
    expect(act.removedAfterMs).toBeLessThan(10_000);
    // Nobody removes them this time: the poll ends without a removal.
    expect((await cotenant.forgeClaims(10, 100)).removedAfterMs).toBeUndefined();
  });

  it('reads the room the window will have, wipes everything with FLUSHALL, and records a failed act without the password', async () => {
    const server = await start();
    cotenant = await CoTenant.connect(server.url, KEY, now);
    const redisTime = await redisNow(server);
    for (const member of ['a:1', 'b:1', 'c:1']) await server.command('ZADD', `${KEY}:window`, String(redisTime - 1000), member);
    // Three starts a second old, a span of 10.35 s: no room for 3 now, room for 4; room for 3 in 10 s (they are gone).
    expect(await cotenant.roomIn(0, 3, 10_350)).toBe(false);
    expect(await cotenant.roomIn(0, 4, 10_350)).toBe(true);
    expect(await cotenant.roomIn(10_000, 3, 10_350)).toBe(true);
    await server.command('SET', 'someone-else', 'x');
    expect((await cotenant.flushAll()).error).toBeUndefined();
    expect(integer(await server.command('DBSIZE'))).toBe(0);
    await cotenant.close();
    const failed = await cotenant.flushAll();
    expect(failed.error).toBeDefined();
    expect(failed.error).not.toContain(PASSWORD);
    cotenant = undefined;
  });
});
