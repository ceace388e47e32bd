// A host's setup that GSA refuses (a wrong secret, a wrong server name) must not silently switch gating off: a
// real sidecar against the emulator logs one error naming the key to fix, and a mod is told a generic line,
// never the service's raw words.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';
import { HOST_SIDE_MESSAGE } from '../../src/bridge/hostSideErrors.js';
import type { Adapter, ReviewOutcome } from '../../src/bridge/port.js';
import { ReviewOutbox } from '../../src/reviews/reviewOutbox.js';
import { ServerBridge } from '../../src/bridge/serverBridge.js';
import { parseConfig } from '../../src/app/config.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient } from '../../src/gsa/index.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { startSidecar, type Sidecar } from '../../src/sidecar.js';
import { unclaimedPort } from '../fixtures/ports.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { patientMs } from '../fixtures/patience.js';

const TOKEN = 'misconfigured-test-token';
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Line {
  readonly level: number;
  readonly msg: string;
}

async function setUp(options: { secret: string; serverName: string; baseUrl?: string; retries?: number }): Promise<{ mod: ModSocket; lines: Line[]; sidecar: Sidecar; emulator: GsaEmulator }> {
  const emulator = await GsaEmulator.start({ servers: [{ name: 'ovddykvbs', id: 4711 }] });
  cleanups.push(() => emulator.close());
  const dataDir = await mkdtemp(join(tmpdir(), 'gsa-bridge-misconfigured-'));
  cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
  const config = parseConfig(
    {
      api: {
        baseUrl: options.baseUrl ?? emulator.url,
        clientId: emulator.clientId,
        clientSecret: options.secret,
        retry: { retries: options.retries ?? 0, minDelayMs: 1, maxDelayMs: 2 },
      },
      servers: [{ name: options.serverName, id: 4711, allowActions: ['restart'], adapters: [{ type: 'websocket', port: 0, token: TOKEN }] }],
      reviews: { dataDir },
    },
    {},
  );
  const lines: Line[] = [];
  const logger = createLogger({ level: 'info', secrets: [options.secret, TOKEN], destination: { write: (line: string) => lines.push(JSON.parse(line) as Line) } });
  const sidecar = await startSidecar(config, { logger });
  cleanups.push(() => sidecar.stop());
  const adapter = sidecar.adapters[0];
  if (!(adapter instanceof WebSocketAdapter)) throw new Error('no WebSocket listener');
  const mod = await connectMod(`ws://127.0.0.1:${adapter.port}/`, TOKEN);
  cleanups.push(() => mod.close());
  await mod.waitFor((frame) => frame.type === 'welcome');
  return { mod, lines, sidecar, emulator };
}

function player(index: number): { steam_id: string } {
  return { steam_id: `7656119${String(index).padStart(10, '0')}` };
}

async function chatMany(mod: ModSocket, count: number): Promise<void> {
  for (let index = 0; index < count; index++) mod.send({ type: 'mute.check', id: `m${index}`, player: player(index) });
  for (let index = 0; index < count; index++) await mod.waitFor((frame) => frame.id === `m${index}`);
}

async function waitForLine(lines: Line[], predicate: (line: Line) => boolean): Promise<Line> {
  const deadline = Date.now() + patientMs(10_000);
  for (;;) {
    const found = lines.find(predicate);
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`no such log line; got ${JSON.stringify(lines.map((line) => line.msg))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a sidecar whose setup GSA refuses', () => {
  it('a wrong secret: one error line naming api.clientSecret for many refused checks', async () => {
    const { mod, lines, sidecar, emulator } = await setUp({ secret: 'not-the-emulator-secret', serverName: 'ovddykvbs' });
    await chatMany(mod, 20);
    // Every lookup sent has come back refused (a verdict may be the policy's, sent before its lookup ended). After the
    // first 401 the client sends no more (credentials_refused): only those already on their way reached GSA.
    const refused = (): number => emulator.calls.filter((call) => call.status === 401).length;
    await waitForLine(lines, () =>
      sidecar.health.problems.some((problem) => problem.key === 'credentials' && problem.failures === refused() && emulator.calls.every((call) => call.status !== 0)),
    );
    expect(refused()).toBeLessThan(20);
    const errors = lines.filter((line) => line.level >= 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toMatch(/401.*api\.clientId and api\.clientSecret/);
  });

  it('a wrong secret: a mod asking for a server action gets a generic line, not the service text', async () => {
    const { mod } = await setUp({ secret: 'not-the-emulator-secret', serverName: 'ovddykvbs' });
    mod.send({ type: 'server.action', id: 'a', action: 'restart' });
    const result = await mod.waitFor((frame) => frame.id === 'a');
    expect(result).toMatchObject({ type: 'server.action.result', ok: false, error: { code: 'unauthorized', message: HOST_SIDE_MESSAGE } });
    expect(JSON.stringify(result)).not.toMatch(/Unauthenticated|401/);
  });

  it('a wrong server name: an error line naming servers[0].name and the name', async () => {
    const { mod, lines, sidecar } = await setUp({ secret: 'demo-secret', serverName: 'nosuchserver' });
    await chatMany(mod, 5);
    await waitForLine(lines, () => sidecar.health.problems.some((problem) => problem.key === 'server:nosuchserver' && problem.failures === 5));
    const line = lines.find((candidate) => candidate.level >= 50);
    expect(line?.msg).toContain('check servers[0].name "nosuchserver"');
    expect(lines.filter((candidate) => candidate.level >= 50)).toHaveLength(1);
  });

  it('a wrong server name: the outbox holds the review and the sidecar names the config keys to fix', async () => {
    const { mod, lines } = await setUp({ secret: 'demo-secret', serverName: 'nosuchserver' });
    mod.send({ type: 'review', id: 'r', player: player(1), stars: 5, comment: 'held' });
    await mod.waitFor((frame) => frame.id === 'r' && frame.type === 'review.queued');
    const held = await waitForLine(lines, (line) => line.msg.includes('reviews stay pending'));
    expect(held.msg).toMatch(/^GSA does not know server nosuchserver: check servers\[\]\.name \(the GSA container name\) and api\.baseUrl/);
  });
});

describe('GSA unreachable', () => {
  it('is one warning for many failed checks and their retries, not one line per retry', async () => {
    const closed = await unclaimedPort();
    const { mod, lines, sidecar } = await setUp({ secret: 'demo-secret', serverName: 'ovddykvbs', baseUrl: `http://127.0.0.1:${closed}`, retries: 2 });
    await chatMany(mod, 10);
    // 10 checks × 3 attempts, all refused at the connection.
    await waitForLine(lines, () => sidecar.health.problems.some((problem) => problem.key === 'unreachable' && problem.failures === 30));
    const loud = lines.filter((line) => line.level >= 40);
    expect(loud).toHaveLength(1);
    expect(loud[0]?.msg).toMatch(/^GSA is unreachable: /);
  });
});

describe('a review result for a host-side refusal', () => {
  it('reaches the mod with the generic line; a player-side refusal keeps the service words', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'gsa-bridge-misconfigured-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const config = parseConfig({ api: { clientId: 'a', clientSecret: 'b' }, servers: [{ name: 'ovddykvbs', adapters: [] }], reviews: { dataDir } }, {});
    // Never called: the outcomes below are handed to the bridge as the outbox would.
    const client = new GsaClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'a', clientSecret: 'b' });
    cleanups.push(() => client.close());
    const outbox = await ReviewOutbox.open({ dataDir, send: () => Promise.resolve(), onResult: () => undefined, logger: silentLogger() });
    cleanups.push(() => outbox.close());
    const server = config.servers[0];
    if (server === undefined) throw new Error('no server');
    const bridge = new ServerBridge({ server, mute: config.mute, reviews: config.reviews, client, outbox, logger: silentLogger() });
    const results: ReviewOutcome[] = [];
    const adapter: Adapter = {
      type: 'test',
      id: 'test-adapter',
      ready: true,
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
      muteChanged: () => undefined,
      reviewResult: (_origin, outcome) => results.push(outcome),
    };
    bridge.attach(adapter);
    const origin = { adapter: 'test-adapter', ref: 'c' };
    const player = { steamId: '76561198000000001' };
    bridge.deliverReviewResult(origin, { ok: false, error: { code: 'unauthorized', message: 'Unauthenticated.' } }, player);
    bridge.deliverReviewResult(origin, { ok: false, error: { code: 'not_found', message: 'Server ovddykvbs not found' } }, player);
    bridge.deliverReviewResult(origin, { ok: false, error: { code: 'forbidden', message: 'Play 2 more hours before reviewing.' } }, player);
    expect(results).toEqual([
      { ok: false, error: { code: 'unauthorized', message: HOST_SIDE_MESSAGE } },
      { ok: false, error: { code: 'not_found', message: HOST_SIDE_MESSAGE } },
      { ok: false, error: { code: 'forbidden', message: 'Play 2 more hours before reviewing.' } },
    ]);
  });
});

