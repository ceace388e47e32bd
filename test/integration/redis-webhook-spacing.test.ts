// GSA's webhook spacing across sidecars on one Redis: two sidecars (two spacings, two Redis connections, two
// clients) send a restart of one server; the emulator sees them arrive at least 3 s apart, and nothing else is held.
// A holder that dies blocks its key for one lease TTL at most; a live one keeps it while it waits. Redis dead or
// silent: calls go on with the local spacing, one warning per outage, and shared again once Redis answers.
// Times are read from Redis's own clock and lease fields, never compared with the machine's clock.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createClient } from '@redis/client';
import { afterEach, expect, it } from 'vitest';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient } from '../../src/gsa/index.js';
import { RedisWebhookSpacing, type RedisWebhookSpacingOptions } from '../../src/gsa/spacing/redisWebhookSpacing.js';
import { SharedApiKey, type SharedApiKeyOptions } from '../../src/gsa/sharedApiKey.js';
import { sharedKeyName } from '../../src/gsa/redis/sharedKeyName.js';
import { GSA_WEBHOOK_SPACING_MS, type WebhookSpacing, type WebhookTurn } from '../../src/gsa/spacing/webhookSpacing.js';
import { captureLogger, type LogLine } from '../fixtures/capturedLogLines.js';
import { describeWithRedis, startRedis, type PrivateRedis } from '../fixtures/redisServer.js';
import { patientMs } from '../fixtures/patience.js';

const SECRET = 'redis-webhook-spacing-secret-42';
const CLIENT_ID = 'spacing-client-id-7';
const PREFIX = 'gsa-bridge';
const newConnection = (url: string) => createClient({ url, disableOfflineQueue: true });
type Redis = ReturnType<typeof newConnection>;

interface Sidecar {
  readonly redis: Redis;
  readonly spacing: RedisWebhookSpacing;
  readonly lines: LogLine[];
}

let redis: PrivateRedis | undefined;
let emulator: GsaEmulator | undefined;
const clients: GsaClient[] = [];
const connections: Redis[] = [];
const turns: WebhookTurn[] = [];
const sharedKeys: SharedApiKey[] = [];

afterEach(async () => {
  for (const turn of turns.splice(0)) turn.release();
  await Promise.all(sharedKeys.splice(0).map((key) => key.close()));
  await Promise.all(clients.splice(0).map((client) => client.close()));
  for (const connection of connections.splice(0)) connection.destroy();
  await emulator?.close();
  await redis?.stop();
  emulator = undefined;
  redis = undefined;
});

async function connection(url: string): Promise<Redis> {
  const client = newConnection(url);
  // The owner of a connection listens for its errors (node-redis reconnects by itself); the spacing sees them as failed calls.
  client.on('error', () => undefined);
  connections.push(client);
  await client.connect();
  return client;
}

async function sidecar(url: string, options: Partial<RedisWebhookSpacingOptions> = {}): Promise<Sidecar> {
  const lines: LogLine[] = [];
  const client = await connection(url);
  const spacing = new RedisWebhookSpacing({ redis: client, prefix: PREFIX, clientId: CLIENT_ID, logger: captureLogger(lines), ...options });
  return { redis: client, spacing, lines };
}

async function turnOf(spacing: WebhookSpacing, key: string, signal = AbortSignal.timeout(15_000)): Promise<WebhookTurn> {
  const turn = await spacing.turn(key, signal);
  turns.push(turn);
  return turn;
}

function webhookKeyName(key: string, clientId = CLIENT_ID): string {
  return `${sharedKeyName(PREFIX, clientId)}:webhook:${key}`;
}

async function redisNow(client: Redis): Promise<number> {
  const [seconds, micros] = await client.time().then((time) => [Number(time[0]), Number(time[1])]);
  return (seconds ?? 0) * 1000 + Math.floor((micros ?? 0) / 1000);
}

async function field(client: Redis, key: string, name: string): Promise<number | undefined> {
  const value = await client.hGet(webhookKeyName(key), name);
  return value === null ? undefined : Number(value);
}

async function until(what: string, condition: () => Promise<boolean>, timeoutMs = patientMs(10_000)): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`gave up waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** How many scripts Redis has run: a sidecar's claim shows as one more. */
async function scriptCalls(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  return [...stats.matchAll(/cmdstat_(?:evalsha|eval):calls=(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
}

/** HEXISTS of a lease's holder, asked by a child process: this process's event loop is blocked while it asks. */
function leaseHeldBlocking(port: number, name: string): boolean {
  const command = ['HEXISTS', name, 'holder'].map((part) => `$${String(Buffer.byteLength(part))}\\r\\n${part}\\r\\n`).join('');
  const script = `
    const socket = require('node:net').connect(${String(port)}, '127.0.0.1', () => socket.write('*3\\r\\n${command}'));
    socket.on('data', (data) => { process.stdout.write(String(data)); socket.end(); });`;
  const { stdout } = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: patientMs(10_000) });
  return stdout.startsWith(':1');
}

/** Takes turns on a probe key until the spacing works through Redis again (node-redis reconnects on its own). */
async function untilShared(spacing: RedisWebhookSpacing): Promise<void> {
  await until('the spacing uses Redis again', async () => {
    const turn = await spacing.turn('0/probe', AbortSignal.timeout(5_000));
    turn.release();
    return spacing.shared;
  });
}

/**
 * Timeouts for tests about something else than timeouts: on a loaded machine an answer or a connection may take
 * longer than the defaults (250 ms, 1 s), which would add an unrelated "Redis did not answer" line.
 */
const PATIENT = { answerTimeoutMs: 2000, connectTimeoutMs: 5000 } as const;

/** What a one-shot command or a sidecar opens: the shared key on `url`, its connection only just started. */
function sharedKey(url: string, options: Partial<SharedApiKeyOptions> = {}): SharedApiKey {
  const key = new SharedApiKey({ url, prefix: PREFIX, clientId: CLIENT_ID, nodes: 1, requests: 100, intervalMs: 60_000, ...options });
  sharedKeys.push(key);
  return key;
}

/** The lines a spacing logged, as `level: message`. */
function logged(lines: readonly LogLine[]): string[] {
  return lines.map((line) => `${line.level}: ${line.message}`);
}

/** When the lease held on `key` began, on Redis's clock (its end less the TTL). */
async function leaseStart(client: Redis, key: string, leaseTtlMs = 30_000): Promise<number> {
  const heldUntil = await field(client, key, 'heldUntil');
  if (heldUntil === undefined) throw new Error(`no lease on ${key}`);
  return heldUntil - leaseTtlMs;
}

describeWithRedis('webhook spacing shared on Redis', () => {
  it('two sidecars’ restarts of one server arrive at least 3 s apart; other webhooks are not held; Redis holds only hashed names and times', async () => {
    redis = await startRedis();
    emulator = await GsaEmulator.start({ clientId: CLIENT_ID, clientSecret: SECRET, servers: [{ name: 'ovddykvbs', id: 4711 }, { name: 'second', id: 4712 }] });
    const [a, b] = [await sidecar(redis.url), await sidecar(redis.url)];
    const gsa = (spacing: RedisWebhookSpacing): GsaClient => {
      const client = new GsaClient({ baseUrl: emulator?.url ?? '', clientId: CLIENT_ID, clientSecret: SECRET, webhookSpacing: spacing });
      clients.push(client);
      return client;
    };
    const [clientA, clientB] = [gsa(a.spacing), gsa(b.spacing)];
    const results = await Promise.all([clientA.restart(4711), clientB.restart(4711), clientB.stop(4711), clientB.restart(4712)]);
    expect(results.map((result) => result.status)).toEqual([200, 200, 200, 200]);

    const webhooks = emulator.calls.filter((call) => call.endpoint === 'webhook');
    const restarts = webhooks.filter((call) => call.path === '/api/v1/server/4711/restart').map((call) => call.at);
    expect(restarts).toHaveLength(2);
    const [first = 0, second = 0] = restarts;
    expect(second - first).toBeGreaterThanOrEqual(GSA_WEBHOOK_SPACING_MS);
    const order = webhooks.map((call) => call.path);
    expect(order.indexOf('/api/v1/server/4711/stop')).toBeLessThan(order.lastIndexOf('/api/v1/server/4711/restart'));
    expect(order.indexOf('/api/v1/server/4712/restart')).toBeLessThan(order.lastIndexOf('/api/v1/server/4711/restart'));
    expect([...a.lines, ...b.lines]).toEqual([]);

    // What Redis holds: one hash per webhook key, named by the prefix, the client id's hash and the key; inside only
    // times. Neither the client id nor the secret appears anywhere.
    const inspect = await connection(redis.url);
    const names = (await inspect.keys('*')).sort();
    expect(names).toEqual([webhookKeyName('4711/restart'), webhookKeyName('4711/stop'), webhookKeyName('4712/restart')].sort());
    for (const name of names) {
      expect(name).toMatch(/^gsa-bridge:\{[0-9a-f]{16}\}:webhook:\d+\/[a-z-]+$/);
      const fields = await inspect.hGetAll(name);
      expect(Object.keys(fields)).toEqual(['left']);
      expect(fields.left).toMatch(/^\d{13}$/);
      expect(JSON.stringify(fields) + name).not.toContain(CLIENT_ID);
      expect(JSON.stringify(fields) + name).not.toContain(SECRET);
      // Kept a few spacings after the call left, then gone.
      const ttl = await inspect.pTTL(name);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(3 * 3250);
    }
  });

  it('a holder that dies (its lease never released or renewed) blocks the key for one lease TTL, no longer', async () => {
    redis = await startRedis();
    const leaseTtlMs = 1000;
    const a = await sidecar(redis.url, { spacingMs: 100, leaseTtlMs });
    const b = await sidecar(redis.url, { spacingMs: 100, leaseTtlMs });
    const inspect = await connection(redis.url);
    await turnOf(a.spacing, '4711/restart');
    const heldUntil = await field(inspect, '4711/restart', 'heldUntil');
    expect(heldUntil).toBeDefined();
    // Another key of the same server is not held by it.
    (await turnOf(b.spacing, '4711/stop')).release();

    // kill -9 of the holder: its connection goes, nothing is released, nothing renews the lease.
    a.redis.destroy();
    await turnOf(b.spacing, '4711/restart', AbortSignal.timeout(leaseTtlMs + 10_000));
    const bHeldUntil = await field(inspect, '4711/restart', 'heldUntil');
    // B's lease began (heldUntil - TTL, on Redis's clock) no earlier than A's ended.
    expect((bHeldUntil ?? 0) - leaseTtlMs).toBeGreaterThanOrEqual(heldUntil ?? Infinity);
    expect(b.spacing.shared).toBe(true);
  });

  it('a live holder keeps its key past the lease TTL while it waits; another waits for it as long as an honest holder can take (longestTurnMs), no longer', async () => {
    redis = await startRedis();
    // Where the test looks (the end of A's first TTL, 1 s) is two seconds before B's bound (3 s), which is longer
    // than one spacing and one TTL: a holder still waiting for the budget past its first TTL is waited for.
    const leaseTtlMs = 1000;
    const spacingMs = 1000;
    const longestTurnMs = 3000;
    // Answers may take up to half a TTL (a loaded machine): a late one is not taken for Redis being away.
    const a = await sidecar(redis.url, { spacingMs, leaseTtlMs, commandTimeoutMs: leaseTtlMs / 2, longestTurnMs });
    const b = await sidecar(redis.url, { spacingMs, leaseTtlMs, commandTimeoutMs: leaseTtlMs / 2, longestTurnMs });
    const inspect = await connection(redis.url);
    const turnA = await turnOf(a.spacing, '4711/restart');
    const firstUntil = (await field(inspect, '4711/restart', 'heldUntil')) ?? 0;
    const holder = await inspect.hGet(webhookKeyName('4711/restart'), 'holder');
    let bTurned = false;
    const askedAt = Date.now();
    const turnB = turnOf(b.spacing, '4711/restart').then((turn) => {
      bTurned = true;
      return turn;
    });
    // A's first TTL is over on Redis's clock: A renewed and still holds the key; B still waits.
    await until('one lease TTL has passed on Redis', async () => (await redisNow(inspect)) >= firstUntil);
    expect(await inspect.hGet(webhookKeyName('4711/restart'), 'holder')).toBe(holder);
    expect(await field(inspect, '4711/restart', 'heldUntil')).toBeGreaterThan(firstUntil);
    expect(bTurned).toBe(false);

    // A lease renewed for ever may be a forgery: past longestTurnMs, B goes on without it, and says so once.
    await turnB;
    expect(Date.now() - askedAt).toBeGreaterThanOrEqual(longestTurnMs - 5);
    expect(await inspect.hGet(webhookKeyName('4711/restart'), 'holder')).toBe(holder);
    expect(b.lines.map((line) => `${line.level}: ${line.message}`)).toEqual([
      'warn: webhook spacing: the turn of 4711/restart was held in Redis for 3000 ms, longer than an honest holder waits for the budget; this call goes on with the spacing within this process only',
    ]);
    expect(b.spacing.shared).toBe(true);
    turnA.leaving();
  });

  it('a sidecar waiting behind another’s lease goes a spacing after that call left, not when the lease would lapse', async () => {
    redis = await startRedis();
    const spacingMs = 200;
    const a = await sidecar(redis.url, { spacingMs });
    const b = await sidecar(redis.url, { spacingMs });
    const inspect = await connection(redis.url);
    const turnA = await turnOf(a.spacing, '4711/restart');
    const before = await scriptCalls(inspect);
    // B asks while A holds the lease (30 s by default) ...
    const turnB = turnOf(b.spacing, '4711/restart', AbortSignal.timeout(10_000));
    await until('B has asked for the key', async () => (await scriptCalls(inspect)) > before);
    // ... and A's call leaves: B goes a spacing later, not 30 s later.
    turnA.leaving();
    await turnB;
    const left = (await field(inspect, '4711/restart', 'left')) ?? Infinity;
    const bUntil = (await field(inspect, '4711/restart', 'heldUntil')) ?? 0;
    expect(bUntil - 30_000).toBeGreaterThanOrEqual(left + spacingMs);
  });

  it('Redis killed: calls go on with the local spacing, one warning per sidecar; shared again once it is back', async () => {
    redis = await startRedis();
    const spacingMs = 100;
    const clock = { now: () => performance.now() };
    const a = await sidecar(redis.url, { spacingMs, clock });
    const b = await sidecar(redis.url, { spacingMs, clock });
    expect(a.spacing.shared).toBe(true);
    await redis.kill();

    const leftAt: number[] = [];
    for (let call = 0; call < 3; call++) {
      const turn = await turnOf(a.spacing, '4711/restart');
      if (call > 0) expect(clock.now() - (leftAt.at(-1) ?? 0)).toBeGreaterThanOrEqual(spacingMs - 2);
      leftAt.push(clock.now());
      turn.leaving();
      turn.release();
    }
    (await turnOf(b.spacing, '4711/restart')).release();
    expect(a.spacing.shared).toBe(false);
    const warnings = a.lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/^webhook spacing: Redis did not answer \(.+\); webhook calls are spaced within this sidecar only until it does$/);
    expect(b.lines.filter((line) => line.level === 'warn')).toHaveLength(1);

    await redis.restart();
    await untilShared(a.spacing);
    await untilShared(b.spacing);
    expect(a.lines.filter((line) => line.level === 'warn')).toHaveLength(1);
    expect(a.lines.filter((line) => line.level === 'info').map((line) => line.message)).toEqual(['webhook spacing: Redis answers again; webhook calls are spaced across sidecars again']);

    // Across sidecars again: B's turn comes a spacing after A's call left, on Redis's clock.
    const inspect = await connection(redis.url);
    const turnA = await turnOf(a.spacing, '4711/restart');
    turnA.leaving();
    await turnOf(b.spacing, '4711/restart');
    const left = (await field(inspect, '4711/restart', 'left')) ?? Infinity;
    const bUntil = (await field(inspect, '4711/restart', 'heldUntil')) ?? 0;
    expect(bUntil - 30_000).toBeGreaterThanOrEqual(left + spacingMs);
  });

  it('Redis silent: a call waits a short timeout, goes on with the local spacing, and a claim answered late is given back', async () => {
    redis = await startRedis();
    const a = await sidecar(redis.url, { spacingMs: 100 });
    const inspect = await connection(redis.url);
    // Scripts (writes) wait; reads still answer, so the test can look.
    await inspect.sendCommand(['CLIENT', 'PAUSE', '20000', 'WRITE']);
    await turnOf(a.spacing, '4711/restart');
    expect(a.spacing.shared).toBe(false);
    expect(a.lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'webhook spacing: Redis did not answer (no answer within 250 ms); webhook calls are spaced within this sidecar only until it does',
    ]);
    await inspect.sendCommand(['CLIENT', 'UNPAUSE']);
    // A's connection answers in order: once this PING is answered, the late claim has run.
    await a.redis.ping();
    await until('the late lease is given back', async () => (await inspect.hGet(webhookKeyName('4711/restart'), 'holder')) === null, 5_000);
  });

  it('a lease Redis granted while this sidecar\u2019s loop was busy past the timeout is taken, not mistaken for Redis being away', async () => {
    redis = await startRedis();
    // Short enough to be long overdue once the loop is free, long enough that no other command of this sidecar (the
    // first claim's NOSCRIPT and EVAL, a release) runs out of it on a busy machine.
    const commandTimeoutMs = patientMs(300);
    const a = await sidecar(redis.url, { spacingMs: 100, commandTimeoutMs });
    // The script is loaded (NOSCRIPT, then EVAL, on the first claim): from then on one round trip per claim.
    (await turnOf(a.spacing, '4711/start')).release();
    await untilShared(a.spacing);
    const turn = turnOf(a.spacing, '4711/restart');
    // The claim is written at the end of this tick; then the loop is blocked until Redis holds the lease and the
    // timeout is long overdue, as when a burst of chat keeps the sidecar busy.
    await new Promise((resolve) => setImmediate(resolve));
    const blockedFrom = performance.now();
    let held = false;
    while (!held || performance.now() - blockedFrom < commandTimeoutMs + 200) {
      if (!held) held = leaseHeldBlocking(redis.port, webhookKeyName('4711/restart'));
      if (performance.now() - blockedFrom > patientMs(10_000)) throw new Error('Redis did not grant the lease in time');
    }
    await turn;
    expect(a.spacing.shared).toBe(true);
    expect(a.lines.filter((line) => line.level === 'warn')).toEqual([]);
  });

  it('a call given up while waiting for its shared turn leaves nothing held, here or in Redis', async () => {
    redis = await startRedis();
    const a = await sidecar(redis.url, { spacingMs: 100 });
    const b = await sidecar(redis.url, { spacingMs: 100 });
    const inspect = await connection(redis.url);
    const turnA = await turnOf(a.spacing, '4711/restart');
    const holder = await inspect.hGet(webhookKeyName('4711/restart'), 'holder');
    const abort = new AbortController();
    const before = await scriptCalls(inspect);
    const waiting = b.spacing.turn('4711/restart', abort.signal);
    // Given up once B waits on Redis (A holds the key there), not while it waits for its local turn.
    await until('B has asked for the key', async () => (await scriptCalls(inspect)) > before);
    abort.abort(new Error('the caller gave up'));
    await expect(waiting).rejects.toThrow('the caller gave up');
    expect(await inspect.hGet(webhookKeyName('4711/restart'), 'holder')).toBe(holder);

    turnA.leaving();
    turnA.release();
    // B's local turn was given back: its next call gets the key.
    await turnOf(b.spacing, '4711/restart', AbortSignal.timeout(5_000));
    expect(await inspect.hGet(webhookKeyName('4711/restart'), 'holder')).not.toBe(holder);
  });

  it('a call made while the connection is still being made waits for it and takes its turn in Redis', async () => {
    redis = await startRedis();
    const lines: LogLine[] = [];
    // As a one-shot command does: the first call right after the connection was started, not after it is up.
    const key = sharedKey(redis.url, { logger: captureLogger(lines), ...PATIENT });
    await turnOf(key.webhookSpacing, '4711/restart');
    const inspect = await connection(redis.url);
    expect(await inspect.hGet(webhookKeyName('4711/restart'), 'holder')).toMatch(/^[0-9a-f-]{36}$/);
    expect(logged(lines)).toEqual([]);
  });

  it('a call waiting for a connection that does not come goes on when its signal aborts, or after the connect timeout with one report', async () => {
    // Accepts connections and never answers: the handshake never ends, so no error comes either.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    silent.listen(0, '127.0.0.1');
    await once(silent, 'listening');
    try {
      const url = `redis://127.0.0.1:${String((silent.address() as AddressInfo).port)}/0`;
      const reasons: string[] = [];
      const key = sharedKey(url, { connectTimeoutMs: 300, onWebhookSpacingLocal: (reason) => reasons.push(reason) });
      await expect(key.webhookSpacing.turn('4711/restart', AbortSignal.timeout(100))).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(reasons).toEqual([]);
      const turn = await key.webhookSpacing.turn('4711/restart', AbortSignal.timeout(10_000));
      turn.release();
      expect(reasons).toEqual(['no connection within 300 ms']);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });

  it('close() sends a departure still on its way before the connection goes: the next process sees when the call left', async () => {
    redis = await startRedis();
    const key = sharedKey(redis.url, PATIENT);
    await until('the connection is up', () => Promise.resolve(key.budget.redis.isReady));
    const turn = await key.webhookSpacing.turn('4711/restart', AbortSignal.timeout(10_000));
    // A one-shot command: the call leaves, its answer comes, the process closes and exits.
    turn.leaving();
    turn.release();
    await key.close();
    const inspect = await connection(redis.url);
    expect(await field(inspect, '4711/restart', 'left')).toBeGreaterThan(0);
    expect(await inspect.hGet(webhookKeyName('4711/restart'), 'holder')).toBeNull();
  });

  it('a `left` forged far ahead is dropped: the call goes at once, and one line names the key, once', async () => {
    redis = await startRedis();
    const spacingMs = 1000;
    const a = await sidecar(redis.url, { spacingMs, commandTimeoutMs: PATIENT.answerTimeoutMs });
    const inspect = await connection(redis.url);
    const forgedAt = await redisNow(inspect);
    // Before: the claim answered "wait a day" and the call asked again every spacing, for ever.
    await inspect.hSet(webhookKeyName('4711/restart'), { left: String(forgedAt + 86_400_000) });
    const turn = await turnOf(a.spacing, '4711/restart');
    expect((await leaseStart(inspect, '4711/restart')) - forgedAt).toBeLessThan(spacingMs);
    expect(logged(a.lines)).toEqual([
      "warn: webhook spacing: a bad value in Redis for 4711/restart: the time the last call left is more than one spacing ahead of Redis's clock; it was dropped",
    ]);
    expect(a.lines[0]?.bindings).toEqual({ key: '4711/restart', problem: 'left:future' });
    turn.leaving();
    turn.release();

    // The same forgery again: dropped again, and not logged again.
    await until('the call has left', async () => (await inspect.hGet(webhookKeyName('4711/restart'), 'holder')) === null);
    const again = await redisNow(inspect);
    await inspect.hSet(webhookKeyName('4711/restart'), { left: String(again + 86_400_000) });
    await turnOf(a.spacing, '4711/restart');
    expect((await leaseStart(inspect, '4711/restart')) - again).toBeLessThan(2 * spacingMs);
    expect(a.lines).toHaveLength(1);
    expect(a.spacing.shared).toBe(true);
  });

  it('a lease forged to end in ten years is dropped: the call goes at once, with one line', async () => {
    redis = await startRedis();
    const a = await sidecar(redis.url, { spacingMs: 1000, commandTimeoutMs: PATIENT.answerTimeoutMs });
    const inspect = await connection(redis.url);
    const forgedAt = await redisNow(inspect);
    // Before: the claim answered "wait one spacing" while the forged holder held it, for ever.
    await inspect.hSet(webhookKeyName('4711/restart'), { holder: 'co-tenant', heldUntil: String(forgedAt + 10 * 365 * 86_400_000) });
    await turnOf(a.spacing, '4711/restart');
    expect(await inspect.hGet(webhookKeyName('4711/restart'), 'holder')).not.toBe('co-tenant');
    expect((await leaseStart(inspect, '4711/restart')) - forgedAt).toBeLessThan(1000);
    expect(logged(a.lines)).toEqual([
      "warn: webhook spacing: a bad value in Redis for 4711/restart: a lease ending more than one lease TTL after Redis's clock; it was dropped",
    ]);
  });

  it('garbage in the fields or a key of another type is dropped, each named once; Redis is not taken for gone', async () => {
    redis = await startRedis();
    const a = await sidecar(redis.url, { spacingMs: 1000, commandTimeoutMs: PATIENT.answerTimeoutMs });
    const inspect = await connection(redis.url);
    // Before: tonumber() of these failed inside the script, the call went on alone and the line blamed Redis.
    await inspect.hSet(webhookKeyName('4711/restart'), { holder: 'co-tenant', heldUntil: 'nan', left: 'soon' });
    await inspect.set(webhookKeyName('4711/stop'), 'not a hash');
    await inspect.hSet(webhookKeyName('4711/start'), { left: '-1.5' });
    await turnOf(a.spacing, '4711/restart');
    await turnOf(a.spacing, '4711/stop');
    await turnOf(a.spacing, '4711/start');
    expect(a.spacing.shared).toBe(true);
    for (const key of ['4711/restart', '4711/stop', '4711/start']) {
      expect(await inspect.hGet(webhookKeyName(key), 'holder')).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(logged(a.lines).sort()).toEqual(
      [
        'warn: webhook spacing: a bad value in Redis for 4711/restart: a lease without a whole number of ms as its end; it was dropped',
        'warn: webhook spacing: a bad value in Redis for 4711/restart: the time the last call left is not a whole number of ms; it was dropped',
        'warn: webhook spacing: a bad value in Redis for 4711/stop: the key is not a hash; it was deleted',
        'warn: webhook spacing: a bad value in Redis for 4711/start: the time the last call left is not a whole number of ms; it was dropped',
      ].sort(),
    );
  });

  it('a clock stepped back (a `left` just ahead of Redis\u2019s now) costs one spacing, not two, with one line', async () => {
    redis = await startRedis();
    const spacingMs = 2000;
    const a = await sidecar(redis.url, { spacingMs, commandTimeoutMs: PATIENT.answerTimeoutMs });
    const inspect = await connection(redis.url);
    const forgedAt = await redisNow(inspect);
    // What a failover to a replica whose clock lags by 1.95 s looks like. Before: the call waited 3.95 s.
    await inspect.hSet(webhookKeyName('4711/restart'), { left: String(forgedAt + spacingMs - 50) });
    await turnOf(a.spacing, '4711/restart');
    const waited = (await leaseStart(inspect, '4711/restart')) - forgedAt;
    expect(waited).toBeGreaterThanOrEqual(spacingMs);
    // Before, the wait was the step and a spacing, 3.95 s at least; what is left of that is a loaded machine's lag
    // between the forgery and the claim, and between two asks (1.95 s of it allowed).
    expect(waited).toBeLessThan(2 * spacingMs - 50);
    expect(logged(a.lines)).toEqual([
      "warn: webhook spacing: a bad value in Redis for 4711/restart: the time the last call left is ahead of Redis's clock (its clock stepped back: a failover?); taken as now, so the next call waits one spacing",
    ]);
  });

  it('refuses options it cannot keep, naming them', async () => {
    redis = await startRedis();
    const client = await connection(redis.url);
    const make = (options: Partial<RedisWebhookSpacingOptions>) => () => new RedisWebhookSpacing({ redis: client, prefix: PREFIX, clientId: CLIENT_ID, ...options });
    expect(make({ prefix: '' })).toThrow('prefix must be a non-empty string');
    expect(make({ clientId: '' })).toThrow('clientId must be a non-empty string');
    expect(make({ spacingMs: 0 })).toThrow('spacingMs must be a whole number of 1 or more, got 0');
    expect(make({ leaseTtlMs: 1.5 })).toThrow('leaseTtlMs must be a whole number of 1 or more, got 1.5');
    expect(make({ commandTimeoutMs: -1 })).toThrow('commandTimeoutMs must be a whole number of 1 or more, got -1');
    expect(make({ leaseTtlMs: 400, commandTimeoutMs: 250 })).toThrow('leaseTtlMs (400) must be at least twice commandTimeoutMs (250): a renewal must land before the lease lapses');
  });
});
