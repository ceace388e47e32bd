// /readyz's rules: an adapter not up, the service refusing the credentials (either API key) or not knowing a server, the service
// unreachable for longer than http.readiness.unreachableForMs, the outbox above its threshold; each reason names
// the server and the adapter ids. Fed by a real ServiceHealth and the client's own RequestEvent shape, on a
// hand-set clock.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RequestEvent } from '../../src/gsa/index.js';
import { silentLogger } from '../../src/log/logger.js';
import type { AdapterState } from '../../src/ops/metrics.js';
import { assessReadiness, DEFAULT_READINESS_RULES, type ReadinessSnapshot } from '../../src/ops/readiness.js';
import { ServiceHealth } from '../../src/ops/serviceHealth.js';
import { SystemKeyHealth } from '../../src/app/systemKeyHealth.js';

let now: number;
let health: ServiceHealth;

const ADAPTERS: AdapterState[] = [
  { server: 'ovddykvbs', id: 'mod-main', ready: true },
  { server: 'second', id: 'second-websocket-8788', ready: true },
];

function event(overrides: Partial<RequestEvent>): RequestEvent {
  return { endpoint: 'mute', target: 'ovddykvbs', status: 200, code: undefined, message: undefined, durationMs: 5, attempt: 1, ...overrides };
}

const down = event({ status: undefined, code: 'network', message: 'connect ECONNREFUSED 127.0.0.1:9' });

function snapshot(overrides: Partial<ReadinessSnapshot> = {}): ReadinessSnapshot {
  return { phase: 'running', servers: ['ovddykvbs', 'second'], adapters: ADAPTERS, serviceProblems: health.problems, outboxPending: 0, ...overrides };
}

function assess(overrides: Partial<ReadinessSnapshot> = {}) {
  return assessReadiness(snapshot(overrides), DEFAULT_READINESS_RULES, now);
}

beforeEach(() => {
  now = 1_000_000;
  health = new ServiceHealth({
    logger: silentLogger(),
    clock: { now: () => now },
    servers: [
      { name: 'ovddykvbs', id: 4711, configPath: 'servers[0]' },
      { name: 'second', configPath: 'servers[1]' },
    ],
  });
});

afterEach(() => {
  health.close();
});

describe('assessReadiness', () => {
  it('is ready with every adapter up and no traffic at all: no evidence of a problem is not a problem', () => {
    expect(assess()).toEqual({ ready: true, reasons: [] });
  });

  it('is not ready while starting or stopping', () => {
    expect(assess({ phase: 'starting' })).toEqual({ ready: false, reasons: ['the sidecar is starting'] });
    expect(assess({ phase: 'stopping' })).toEqual({ ready: false, reasons: ['the sidecar is stopping'] });
  });

  it('names the server and the adapter id of an adapter that is not up', () => {
    const adapters = [ADAPTERS[0]!, { ...ADAPTERS[1]!, ready: false }];
    expect(assess({ adapters })).toEqual({ ready: false, reasons: ['server second, adapter second-websocket-8788: not up'] });
  });

  it('is not ready at once when GSA refuses the credentials, naming every server and its adapters; ready again after a success', () => {
    health.observe(event({ status: 401, code: 'unauthorized', message: 'the service refused the API credentials (401)' }));
    const result = assess();
    expect(result.ready).toBe(false);
    expect(result.reasons).toHaveLength(2);
    expect(result.reasons[0]).toMatch(/^server ovddykvbs \(adapters mod-main\): GSA refused the API credentials \(401\): check api\.clientId/);
    expect(result.reasons[1]).toMatch(/^server second \(adapters second-websocket-8788\): GSA refused/);
    health.observe(event({}));
    expect(assess()).toEqual({ ready: true, reasons: [] });
  });

  it('is not ready at once when GSA refuses the System API key, as for the mod API key; ready again after its next success', () => {
    const systemKey = new SystemKeyHealth(silentLogger(), { now: () => now });
    const withSystemKey = (): ReturnType<typeof assess> => assess({ serviceProblems: [...health.problems, ...(systemKey.problem === undefined ? [] : [systemKey.problem])] });
    systemKey.observe(event({ endpoint: 'system-write', target: 'restart', status: 401, code: 'unauthorized', message: 'refused (401)' }));
    const result = withSystemKey();
    expect(result.ready).toBe(false);
    expect(result.reasons).toEqual([
      expect.stringMatching(/^server ovddykvbs \(adapters mod-main\): GSA refused the System API key \(401\): check api\.system\.key or GSA_SYSTEM_API_KEY/),
      expect.stringMatching(/^server second \(adapters second-websocket-8788\): GSA refused the System API key/),
    ]);
    systemKey.observe(event({ endpoint: 'system-read', target: 'players/find' }));
    expect(withSystemKey()).toEqual({ ready: true, reasons: [] });
  });

  it('names only the server GSA does not know', () => {
    health.observe(event({ target: 'second', status: 404, code: 'not_found', message: 'not found' }));
    const { reasons } = assess();
    expect(reasons).toEqual([expect.stringMatching(/^server second \(adapters second-websocket-8788\): GSA does not know the server "second"/)]);
  });

  it('rides out a short outage and is not ready once GSA stayed unreachable longer than unreachableForMs', () => {
    for (let attempt = 0; attempt < 3; attempt++) health.observe(down);
    expect(health.reachable).toBe(false);
    now += DEFAULT_READINESS_RULES.unreachableForMs - 1;
    expect(assess()).toEqual({ ready: true, reasons: [] });
    now += 1;
    const { ready, reasons } = assess();
    expect(ready).toBe(false);
    expect(reasons[0]).toMatch(/^server ovddykvbs \(adapters mod-main\): GSA is unreachable: connect ECONNREFUSED 127\.0\.0\.1:9 \(for 1 min\)$/);
    expect(reasons).toHaveLength(2);
    health.observe(event({}));
    expect(assess().ready).toBe(true);
  });

  it('uses a configured unreachableForMs', () => {
    for (let attempt = 0; attempt < 3; attempt++) health.observe(down);
    now += 5000;
    expect(assessReadiness(snapshot(), { ...DEFAULT_READINESS_RULES, unreachableForMs: 5000 }, now).ready).toBe(false);
  });

  it('ignores server-action problems and odd answers: chat and reviews go on', () => {
    health.observe(event({ endpoint: 'webhook', target: '4711', status: 401, code: 'unauthorized', message: 'refused' }));
    health.observe(event({ status: 200, code: 'bad_response', message: 'not JSON' }));
    expect(health.problems).toHaveLength(2);
    expect(assess()).toEqual({ ready: true, reasons: [] });
  });

  it('is not ready with more reviews pending than outboxPendingMax', () => {
    expect(assess({ outboxPending: 1000 }).ready).toBe(true);
    expect(assess({ outboxPending: 1001 })).toEqual({
      ready: false,
      reasons: ['review outbox: 1001 reviews pending, above http.readiness.outboxPendingMax (1000)'],
    });
  });

  it('lists every reason at once', () => {
    health.observe(event({ status: 401, code: 'unauthorized', message: 'refused' }));
    const adapters = [{ ...ADAPTERS[0]!, ready: false }, ADAPTERS[1]!];
    expect(assess({ adapters, outboxPending: 5000 }).reasons).toHaveLength(4);
  });
});
