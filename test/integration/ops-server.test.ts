// The operations endpoints in-process, on a real loopback server: /readyz says "starting" until the sidecar runs and
// "stopping" once the drain begins, HEAD works, a failing metrics source is a 500 and a log line (never a crash),
// and close() is idempotent. startOperations reads the sidecar only through the sources it is given.
import { describe, expect, it, vi } from 'vitest';
import { BridgeEvents } from '../../src/bridge/events.js';
import { createLogger } from '../../src/log/logger.js';
import { startOperations, type OperationsSources } from '../../src/ops/operations.js';
import { startOpsServer } from '../../src/ops/opsServer.js';

function sources(overrides: Partial<OperationsSources> = {}): OperationsSources {
  return {
    servers: () => ['ovddykvbs'],
    adapters: () => [{ server: 'ovddykvbs', id: 'mod', ready: true }],
    serviceProblems: () => [],
    outboxPending: () => 0,
    budgetShared: () => false,
    budgetHoldSeconds: () => 0,
    ...overrides,
  };
}

describe('startOperations', () => {
  it("feeds the key gauges and the onUnknown summary from its sources, the outage's length on its own clock", async () => {
    const lines: { level: number; msg: string; cause?: string }[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg: string }) } });
    const clock = { at: 1_000_000, now: () => clock.at };
    const outage: { since?: number } = {};
    const events = new BridgeEvents();
    const operations = await startOperations({
      host: '127.0.0.1',
      port: 0,
      events,
      logger,
      clock,
      processDefaults: false,
      sources: sources({
        unreachableSince: () => outage.since,
        credentialsRefused: (api) => api === 'system',
        apiKeys: () => [{ api: 'mod', key: '00112233aabbccdd' }],
        budgetState: () => ({ waiting: { mute: 7, review: 1, action: 0 }, windowFree: 0 }),
      }),
    });
    const metrics = async (): Promise<string> => (await fetch(`${operations.server.url}/metrics`)).text();
    let text = await metrics();
    expect(text).toContain('gsa_bridge_gsa_unreachable_seconds 0\n');
    expect(text).toContain('gsa_bridge_credentials_refused{api="system"} 1\n');
    expect(text).toContain('gsa_bridge_api_key_info{api="mod",key="00112233aabbccdd"} 1\n');
    expect(text).toContain('gsa_bridge_budget_waiting{class="mute"} 7\n');
    outage.since = clock.at - 301_000;
    text = await metrics();
    expect(text).toContain('gsa_bridge_gsa_unreachable_seconds 301\n');

    // The summary's minute on fake timers (only setTimeout: the server's sockets keep real time).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      for (let index = 0; index < 3; index++) {
        events.emit('verdict', { server: 'ovddykvbs', player: { steamId: '76561198000000001' }, verdict: 'allow', reason: 'unknown', source: 'policy', durationMs: 300 });
      }
      vi.advanceTimersByTime(60_000);
    } finally {
      vi.useRealTimers();
    }
    expect(lines.filter((line) => line.level === 40)).toMatchObject([{ cause: 'unreachable', msg: '3 chat lines decided by mute.onUnknown in the last minute: GSA is unreachable; 7 lookups waiting' }]);
    await operations.close();
  });

  it('answers /readyz by phase and by its sources, on any free port, and closes once', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } });
    let ready = true;
    const operations = await startOperations({
      host: '127.0.0.1',
      port: 0,
      events: new BridgeEvents(),
      logger,
      processDefaults: false,
      sources: sources({ adapters: () => [{ server: 'ovddykvbs', id: 'mod', ready }] }),
    });
    const { url } = operations.server;
    expect(operations.server.address.port).toBeGreaterThan(0);
    expect(lines.join('')).toContain(`operations endpoints on ${url}`);

    const readyz = async (): Promise<{ status: number; body: unknown }> => {
      const response = await fetch(`${url}/readyz`);
      return { status: response.status, body: await response.json() };
    };
    expect(await readyz()).toEqual({ status: 503, body: { ready: false, reasons: ['the sidecar is starting'] } });
    operations.setPhase('running');
    expect(await readyz()).toEqual({ status: 200, body: { ready: true } });
    ready = false;
    expect(await readyz()).toEqual({ status: 503, body: { ready: false, reasons: ['server ovddykvbs, adapter mod: not up'] } });
    operations.setPhase('stopping');
    expect(await readyz()).toEqual({ status: 503, body: { ready: false, reasons: ['the sidecar is stopping'] } });

    const head = await fetch(`${url}/healthz`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    // A query string is ignored.
    expect((await fetch(`${url}/metrics?x=1`)).status).toBe(200);

    operations.recordReload('failed');
    expect(await (await fetch(`${url}/metrics`)).text()).toContain('gsa_bridge_config_reloads_total{result="failed"} 1');

    await Promise.all([operations.close(), operations.close()]);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });
});

describe('startOpsServer', () => {
  it('answers 500 and logs when the metrics source fails, and keeps serving', async () => {
    const lines: string[] = [];
    const server = await startOpsServer({
      host: '127.0.0.1',
      port: 0,
      logger: createLogger({ level: 'info', destination: { write: (line: string) => lines.push(line) } }),
      readiness: () => ({ ready: true, reasons: [] }),
      metrics: () => Promise.reject(new Error('collector broke')),
    });
    try {
      const response = await fetch(`${server.url}/metrics`);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: 'internal error' });
      expect(lines.join('')).toContain('an operations endpoint failed');
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('rejects with the listen error when the port is taken, for the one-line exit 2', async () => {
    const first = await startOpsServer({ host: '127.0.0.1', port: 0, logger: createLogger({ level: 'silent' }), readiness: () => ({ ready: true, reasons: [] }), metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }) });
    try {
      await expect(
        startOpsServer({ host: '127.0.0.1', port: first.address.port, logger: createLogger({ level: 'silent' }), readiness: () => ({ ready: true, reasons: [] }), metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }) }),
      ).rejects.toMatchObject({ code: 'EADDRINUSE', syscall: 'listen' });
    } finally {
      await first.close();
    }
  });
});
