// The service health tracker: a wrong key or server name is an error line naming the key to fix, at most once
// a minute per cause; an outage is one warning, a summary a minute, one line when it ends. Driven by fake
// timers and fed the client's own RequestEvent shape.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RequestEvent } from '../../src/gsa/index.js';
import { createLogger } from '../../src/log/logger.js';
import { ServiceHealth } from '../../src/ops/serviceHealth.js';

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly problem?: string;
}

const ERROR = 50;
const WARN = 40;
const INFO = 30;

let lines: Line[];
let health: ServiceHealth;

function event(overrides: Partial<RequestEvent>): RequestEvent {
  return { endpoint: 'mute', target: 'ovddykvbs', status: 200, code: undefined, message: undefined, durationMs: 5, attempt: 1, ...overrides };
}

const unauthorized = event({ status: 401, code: 'unauthorized', message: 'the service refused the API credentials (401)' });
const down = event({ status: undefined, code: 'network', message: 'connection refused' });
const ok = event({});

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  lines = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Line) } });
  health = new ServiceHealth({
    logger,
    clock: { now: () => Date.now() },
    servers: [
      { name: 'ovddykvbs', id: 4711, configPath: 'servers[0]' },
      { name: 'second', configPath: 'servers[1]' },
    ],
  });
});

afterEach(() => {
  health.close();
  vi.useRealTimers();
});

describe('host-side problems', () => {
  it('a 401 is an error line naming api.clientId and api.clientSecret, repeated at most once a minute', () => {
    for (let index = 0; index < 50; index++) health.observe(unauthorized);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: ERROR, problem: 'credentials' });
    expect(lines[0]?.msg).toMatch(/401.*api\.clientId and api\.clientSecret/);

    vi.advanceTimersByTime(59_999);
    health.observe(unauthorized);
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(1);
    health.observe(unauthorized);
    expect(lines).toHaveLength(2);
    expect(lines[1]?.msg).toMatch(/still failing: 52 requests in 1 min/);
    expect(health.problems).toEqual([expect.objectContaining({ key: 'credentials', kind: 'credentials', failures: 52, since: 0 })]);
  });

  it('a 404 on a mute or review names servers[i].name and the name; each server is its own cause', () => {
    health.observe(event({ status: 404, code: 'not_found', target: 'second' }));
    health.observe(event({ endpoint: 'review', status: 404, code: 'not_found', target: 'ovddykvbs' }));
    health.observe(event({ status: 404, code: 'not_found', target: 'second' }));
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      [ERROR, expect.stringContaining('check servers[1].name "second"')],
      [ERROR, expect.stringContaining('check servers[0].name "ovddykvbs"')],
    ]);
  });

  it('a 401 on a webhook says the server may not be bound to the keys, naming its id', () => {
    health.observe(event({ endpoint: 'webhook', target: '4711', status: 401, code: 'unauthorized' }));
    expect(lines[0]?.msg).toMatch(/servers\[0\]\.id 4711 \(401\).*bound to these API keys/);
  });

  it('a 401 on a webhook before any lookup passed names both causes, the unbound id and the credentials', () => {
    health.observe(event({ endpoint: 'webhook', target: '4712', status: 401, code: 'unauthorized' }));
    expect(lines[0]?.msg).toBe(
      'GSA refused a server action for server id 4712 (401): either this server is not bound to these API keys in the GSA dashboard (check servers[].id), or the API credentials are wrong (check api.clientId and api.clientSecret (or GSA_CLIENT_ID / GSA_CLIENT_SECRET))',
    );
  });

  it('a 401 on a webhook after a mute lookup passed names the id first: the credentials are known good', () => {
    health.observe(ok);
    health.observe(event({ endpoint: 'webhook', target: '4711', status: 401, code: 'unauthorized' }));
    expect(lines[0]?.msg).toMatch(
      /^GSA refused a server action for servers\[0\]\.id 4711 \(401\) although it accepts these API credentials for mute lookups: most likely this server is not bound to these API keys in the GSA dashboard \(check servers\[0\]\.id\); else the API credentials are wrong/,
    );
    // A later 401 on a lookup says the credentials themselves are refused: both causes again.
    health.observe(unauthorized);
    health.observe(event({ endpoint: 'webhook', target: '4712', status: 401, code: 'unauthorized' }));
    expect(lines.at(-1)?.msg).toMatch(/^GSA refused a server action for server id 4712 \(401\): either/);
  });

  it('a success clears the problem it proves fixed, with one info line', () => {
    health.observe(unauthorized);
    health.observe(event({ status: 404, code: 'not_found', target: 'second' }));
    vi.advanceTimersByTime(5000);
    health.observe(ok);
    expect(health.problems.map((problem) => problem.key)).toEqual(['server:second']);
    expect(lines.at(-1)).toMatchObject({ level: INFO, problem: 'credentials' });
    expect(lines.at(-1)?.msg).toMatch(/^resolved after 5 s/);
  });

  it("a player's own refusal (403, 422) is no host problem", () => {
    health.observe(event({ endpoint: 'review', status: 403, code: 'forbidden' }));
    health.observe(event({ endpoint: 'review', status: 422, code: 'invalid' }));
    expect(lines).toEqual([]);
    expect(health.problems).toEqual([]);
  });

  it('an answer about another player (bad_response) is a warning, kept as a problem', () => {
    health.observe(event({ code: 'bad_response', message: 'mute answer is about another player' }));
    expect(lines).toEqual([expect.objectContaining({ level: WARN, problem: 'bad_response:mute' })]);
    expect(lines[0]?.msg).toContain('about another player');
  });
});

describe('paused credentials', () => {
  it("/readyz's credentials reason says lookups are paused and when the next probe goes", () => {
    let pause: { nextProbeInMs: number } | undefined = { nextProbeInMs: 42_300 };
    const paused = new ServiceHealth({ logger: createLogger({ level: 'silent' }), clock: { now: () => Date.now() }, servers: [], credentialsPause: () => pause });
    try {
      paused.observe(unauthorized);
      expect(paused.problems[0]?.message).toMatch(/GSA refused the API credentials \(401\).* Lookups and reviews are paused, spending no budget: next probe in 43 s \(at once after a reload\)\.$/);
      pause = { nextProbeInMs: 0 };
      expect(paused.problems[0]?.message).toMatch(/paused, spending no budget: a probe is due or on its way/);
      pause = undefined;
      expect(paused.problems[0]?.message).not.toMatch(/paused/);
    } finally {
      paused.close();
    }
  });
});

describe('an outage', () => {
  it('is one warning, a summary every minute while it lasts, and one info line when it ends', () => {
    for (let index = 0; index < 30; index++) health.observe({ ...down, attempt: (index % 6) + 1 });
    expect(lines).toEqual([expect.objectContaining({ level: WARN, problem: 'unreachable' })]);
    expect(lines[0]?.msg).toMatch(/^GSA is unreachable: connection refused/);
    expect(health.reachable).toBe(false);

    vi.advanceTimersByTime(60_000);
    health.observe(down);
    vi.advanceTimersByTime(60_000);
    expect(lines.slice(1).map((line) => line.msg)).toEqual([
      'GSA still unreachable after 1 min: 30 requests failed so far (last: connection refused)',
      'GSA still unreachable after 2 min: 31 requests failed so far (last: connection refused)',
    ]);

    vi.advanceTimersByTime(10_000);
    health.observe(event({ status: 429, code: 'rate_limited' })); // an answer, even a refusal, ends it
    expect(lines.at(-1)).toMatchObject({ level: INFO, msg: 'GSA reachable again after 2 min 10 s; 31 requests failed meanwhile' });
    expect(health.reachable).toBe(true);
    vi.advanceTimersByTime(600_000);
    expect(lines).toHaveLength(4);
  });

  it('begins only after 3 failures in a row: a lone timeout among answers is no outage', () => {
    const timeout = event({ status: undefined, code: 'timeout', message: 'no answer within 5000 ms' });
    for (let index = 0; index < 10; index++) {
      health.observe(timeout);
      health.observe(timeout);
      health.observe(ok);
    }
    expect(lines).toEqual([]);
    health.observe(timeout);
    health.observe(timeout);
    vi.advanceTimersByTime(1000);
    health.observe(timeout);
    expect(lines).toEqual([expect.objectContaining({ level: WARN, msg: expect.stringMatching(/^GSA is unreachable: no answer within 5000 ms/) as unknown })]);
    expect(health.problems).toEqual([expect.objectContaining({ key: 'unreachable', since: 0, failures: 3 })]);
  });

  it('shows in problems while it lasts', () => {
    for (let index = 0; index < 2; index++) health.observe(event({ status: 502, code: 'server_error', message: 'bad gateway (502)' }));
    health.observe(event({ status: 503, code: 'unavailable', message: 'maintenance (503)' }));
    expect(health.problems).toEqual([expect.objectContaining({ key: 'unreachable', kind: 'unreachable', message: 'GSA is unreachable: maintenance (503)' })]);
  });

  it('stops summarizing once closed', () => {
    for (let index = 0; index < 3; index++) health.observe(down);
    health.close();
    vi.advanceTimersByTime(600_000);
    expect(lines).toHaveLength(1);
  });
});

describe('the state the gauges read', () => {
  it('credentialsRefused: set by a 401 of the mod API, cleared by its next success', () => {
    expect(health.credentialsRefused).toBe(false);
    health.observe(unauthorized);
    expect(health.credentialsRefused).toBe(true);
    health.observe(event({ endpoint: 'review', status: 201 }));
    expect(health.credentialsRefused).toBe(false);
  });

  it("credentialsRefused: never set by a player's own 403 (a review not_eligible) or a server action's 401", () => {
    health.observe(event({ endpoint: 'review', status: 403, code: 'forbidden', message: 'not_eligible: Play 2 hours before reviewing' }));
    health.observe(event({ endpoint: 'webhook', target: '4711', status: 401, code: 'unauthorized', message: 'the service refused the API credentials (401)' }));
    expect(health.credentialsRefused).toBe(false);
    expect(health.problems.map((problem) => problem.key)).toEqual(['webhook-credentials:4711']);
  });

  it('unreachableSince: the first failure of the outage, from when it is declared until an answer', () => {
    expect(health.unreachableSince).toBeUndefined();
    vi.advanceTimersByTime(10_000);
    health.observe(down);
    vi.advanceTimersByTime(2_000);
    health.observe(down);
    // Two failures are no outage yet.
    expect(health.unreachableSince).toBeUndefined();
    vi.advanceTimersByTime(2_000);
    health.observe(down);
    expect(health.unreachableSince).toBe(10_000);
    vi.advanceTimersByTime(300_000);
    health.observe(down);
    expect(health.unreachableSince).toBe(10_000);
    health.observe(ok);
    expect(health.unreachableSince).toBeUndefined();
  });
});
