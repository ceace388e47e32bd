// The Prometheus metrics: the contract's names and labels, values moved by the core's own event shapes, gauges read
// at scrape time, and bounded labels (no player id, statuses and endpoints from fixed sets), in a registry of
// each sidecar's own.
import { describe, expect, it } from 'vitest';
import { BridgeEvents, type VerdictEvent } from '../../src/bridge/events.js';
import type { RequestEvent } from '../../src/gsa/index.js';
import type { BudgetState } from '../../src/gsa/budget/rateLimiter.js';
import { SidecarMetrics, statusLabel, type AdapterState, type ApiName } from '../../src/ops/metrics.js';

const CONTRACT_METRICS = [
  'gsa_bridge_api_requests_total',
  'gsa_bridge_api_request_duration_seconds',
  'gsa_bridge_mute_cache_hits_total',
  'gsa_bridge_mute_cache_misses_total',
  'gsa_bridge_chat_verdicts_total',
  'gsa_bridge_chat_verdict_duration_seconds',
  'gsa_bridge_outbox_pending',
  'gsa_bridge_adapter_connected',
  'gsa_bridge_config_reloads_total',
];

function request(overrides: Partial<RequestEvent>): RequestEvent {
  return { endpoint: 'mute', target: 'ovddykvbs', status: 200, code: undefined, message: undefined, durationMs: 12, attempt: 1, ...overrides };
}

function verdict(overrides: Partial<VerdictEvent>): VerdictEvent {
  return { server: 'ovddykvbs', player: { steamId: '76561198000000001' }, verdict: 'allow', reason: 'ok', source: 'cache', durationMs: 0, ...overrides };
}

function setUp(options: { adapters?: AdapterState[]; pending?: number; processDefaults?: boolean } = {}) {
  const events = new BridgeEvents();
  const state = { adapters: options.adapters ?? [], pending: options.pending ?? 0 };
  const metrics = new SidecarMetrics({
    events,
    sources: { adapters: () => state.adapters, outboxPending: () => state.pending },
    processDefaults: options.processDefaults ?? false,
  });
  return { events, state, metrics };
}

/** The sample lines (no comments) of the scrape. */
async function samples(metrics: SidecarMetrics): Promise<string[]> {
  return (await metrics.text()).split('\n').filter((line) => line !== '' && !line.startsWith('#'));
}

function value(lines: readonly string[], series: string): number | undefined {
  const line = lines.find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('SidecarMetrics', () => {
  it('exposes every metric of the contract, with the process defaults, as Prometheus text', async () => {
    const { metrics } = setUp({ processDefaults: true });
    const text = await metrics.text();
    for (const name of CONTRACT_METRICS) expect(text).toContain(`# TYPE ${name} `);
    expect(text).toContain('# TYPE gsa_bridge_api_request_duration_seconds histogram');
    expect(text).toContain('# TYPE gsa_bridge_chat_verdict_duration_seconds histogram');
    expect(text).toContain('# TYPE gsa_bridge_outbox_pending gauge');
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    metrics.close();
  });

  it('keeps a registry per sidecar: two in one process count apart', async () => {
    const first = setUp();
    const second = setUp();
    first.events.emit('verdict', verdict({}));
    expect(value(await samples(first.metrics), 'gsa_bridge_chat_verdicts_total{verdict="allow"}')).toBe(1);
    expect(value(await samples(second.metrics), 'gsa_bridge_chat_verdicts_total{verdict="allow"}')).toBe(0);
  });

  it('counts requests by endpoint and status, with "none" for no answer, and times them in seconds', async () => {
    const { events, metrics } = setUp();
    events.emit('request', request({}));
    events.emit('request', request({}));
    events.emit('request', request({ endpoint: 'review', status: 401, code: 'unauthorized', durationMs: 250 }));
    events.emit('request', request({ status: undefined, code: 'timeout', durationMs: 5000 }));
    const lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_api_requests_total{endpoint="mute",status="200"}')).toBe(2);
    expect(value(lines, 'gsa_bridge_api_requests_total{endpoint="review",status="401"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_api_requests_total{endpoint="mute",status="none"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_api_request_duration_seconds_count{endpoint="mute"}')).toBe(3);
    expect(value(lines, 'gsa_bridge_api_request_duration_seconds_sum{endpoint="mute"}')).toBeCloseTo(5.024);
    expect(value(lines, 'gsa_bridge_api_request_duration_seconds_bucket{le="0.25",endpoint="review"}')).toBe(1);
  });

  it('counts verdicts by allow/block only, cache hits and misses, and times verdicts against the 300 ms deadline', async () => {
    const { events, metrics } = setUp();
    events.emit('verdict', verdict({}));
    events.emit('verdict', verdict({ verdict: 'block', reason: 'muted', source: 'service', durationMs: 40 }));
    events.emit('verdict', verdict({ verdict: 'allow', reason: 'unknown', source: 'policy', durationMs: 270 }));
    events.emit('muteCache', { server: 'ovddykvbs', hit: true });
    events.emit('muteCache', { server: 'ovddykvbs', hit: false });
    events.emit('muteCache', { server: 'ovddykvbs', hit: false });
    const lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_chat_verdicts_total{verdict="allow"}')).toBe(2);
    expect(value(lines, 'gsa_bridge_chat_verdicts_total{verdict="block"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_mute_cache_hits_total')).toBe(1);
    expect(value(lines, 'gsa_bridge_mute_cache_misses_total')).toBe(2);
    expect(value(lines, 'gsa_bridge_chat_verdict_duration_seconds_bucket{le="0.25"}')).toBe(2);
    expect(value(lines, 'gsa_bridge_chat_verdict_duration_seconds_bucket{le="0.3"}')).toBe(3);
    expect(value(lines, 'gsa_bridge_chat_verdict_duration_seconds_bucket{le="0.0005"}')).toBe(1);
  });

  it('counts the chat filter\'s steps by action and result, every pair present from the start, and filtered verdicts by reason', async () => {
    const { events, metrics } = setUp();
    let lines = await samples(metrics);
    expect(lines.filter((line) => line.startsWith('gsa_bridge_moderation_actions_total{'))).toHaveLength(20);
    expect(value(lines, 'gsa_bridge_moderation_actions_total{action="mute",result="refused"}')).toBe(0);
    events.emit('moderation', { server: 'ovddykvbs', action: 'mute', result: 'refused' });
    events.emit('moderation', { server: 'ovddykvbs', action: 'mute', result: 'refused' });
    events.emit('moderation', { server: 'ovddykvbs', action: 'warn', result: 'not_supported' });
    events.emit('verdict', verdict({ verdict: 'block', reason: 'filtered', source: 'filter' }));
    lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_moderation_actions_total{action="mute",result="refused"}')).toBe(2);
    expect(value(lines, 'gsa_bridge_moderation_actions_total{action="warn",result="not_supported"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_chat_verdict_reasons_total{reason="filtered"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_chat_verdicts_total{verdict="block"}')).toBe(1);
  });

  it('counts lines on channels that are not gated as verdict="not_gated", apart from allow and untimed', async () => {
    const { events, metrics } = setUp();
    events.emit('verdict', verdict({ reason: 'not_gated', source: 'channel' }));
    events.emit('verdict', verdict({ reason: 'not_gated', source: 'channel' }));
    events.emit('verdict', verdict({ durationMs: 40 }));
    const lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_chat_verdicts_total{verdict="not_gated"}')).toBe(2);
    expect(value(lines, 'gsa_bridge_chat_verdicts_total{verdict="allow"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_chat_verdicts_total{verdict="block"}')).toBe(0);
    expect(value(lines, 'gsa_bridge_chat_verdict_duration_seconds_count')).toBe(1);
  });

  it('counts verdicts by reason beside the contract\'s allow/block counter, every reason present from the start', async () => {
    const { events, metrics } = setUp();
    expect((await samples(metrics)).filter((line) => line.startsWith('gsa_bridge_chat_verdict_reasons_total'))).toEqual([
      'gsa_bridge_chat_verdict_reasons_total{reason="ok"} 0',
      'gsa_bridge_chat_verdict_reasons_total{reason="muted"} 0',
      'gsa_bridge_chat_verdict_reasons_total{reason="unknown"} 0',
      'gsa_bridge_chat_verdict_reasons_total{reason="not_gated"} 0',
      'gsa_bridge_chat_verdict_reasons_total{reason="filtered"} 0',
    ]);
    events.emit('verdict', verdict({}));
    events.emit('verdict', verdict({ verdict: 'block', reason: 'muted', source: 'service' }));
    events.emit('verdict', verdict({ verdict: 'allow', reason: 'unknown', source: 'policy' }));
    events.emit('verdict', verdict({ verdict: 'block', reason: 'unknown', source: 'policy' }));
    let lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_chat_verdict_reasons_total{reason="ok"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_chat_verdict_reasons_total{reason="muted"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_chat_verdict_reasons_total{reason="unknown"}')).toBe(2);
    expect(value(lines, 'gsa_bridge_chat_verdicts_total{verdict="allow"}')).toBe(2);
    expect(value(lines, 'gsa_bridge_chat_verdicts_total{verdict="block"}')).toBe(2);
    // Counted once: a second scrape with nothing new says the same.
    lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_chat_verdict_reasons_total{reason="unknown"}')).toBe(2);
  });

  it('reads the adapter and outbox gauges at scrape time; a removed adapter disappears', async () => {
    const { state, metrics } = setUp({
      adapters: [
        { server: 'ovddykvbs', id: 'mod', ready: true },
        { server: 'second', id: 'ark-main', ready: false },
      ],
      pending: 3,
    });
    let lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_adapter_connected{server="ovddykvbs",adapter="mod"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_adapter_connected{server="second",adapter="ark-main"}')).toBe(0);
    expect(value(lines, 'gsa_bridge_outbox_pending')).toBe(3);
    state.adapters = [{ server: 'ovddykvbs', id: 'mod', ready: true }];
    state.pending = 0;
    lines = await samples(metrics);
    expect(lines.filter((line) => line.startsWith('gsa_bridge_adapter_connected'))).toEqual(['gsa_bridge_adapter_connected{server="ovddykvbs",adapter="mod"} 1']);
    expect(value(lines, 'gsa_bridge_outbox_pending')).toBe(0);
  });

  it('counts reloads by result, each result present from the start', async () => {
    const { metrics } = setUp();
    metrics.recordReload('success');
    metrics.recordReload('invalid');
    metrics.recordReload('invalid');
    const lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_config_reloads_total{result="success"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_config_reloads_total{result="invalid"}')).toBe(2);
    expect(value(lines, 'gsa_bridge_config_reloads_total{result="failed"}')).toBe(0);
  });

  it('keeps label cardinality bounded: thousands of players and odd statuses add no series', async () => {
    const { events, metrics } = setUp();
    for (let index = 0; index < 5000; index++) {
      const steamId = String(76561198000000000n + BigInt(index));
      events.emit('verdict', verdict({ player: { steamId }, verdict: index % 2 === 0 ? 'allow' : 'block', durationMs: index % 300 }));
      events.emit('muteCache', { server: 'ovddykvbs', hit: index % 3 === 0 });
      events.emit('request', request({ target: `server-${index}`, status: index % 7 === 0 ? 1000 + index : 200 }));
    }
    const text = await metrics.text();
    expect(text).not.toContain('76561198');
    expect(text).not.toContain('server-');
    const lines = await samples(metrics);
    expect(lines.filter((line) => line.startsWith('gsa_bridge_chat_verdicts_total'))).toHaveLength(3);
    expect(lines.filter((line) => line.startsWith('gsa_bridge_api_requests_total'))).toHaveLength(2);
    expect(value(lines, 'gsa_bridge_api_requests_total{endpoint="mute",status="other"}')).toBe(715);
    // Every label value in the whole scrape comes from a fixed set or the configured servers and adapters.
    const labelValues = new Set([...text.matchAll(/(\w+)="([^"]*)"/g)].map((match) => `${match[1]}=${match[2]}`));
    for (const label of labelValues) expect(label).toMatch(/^(le=[\d.+Inf]+|verdict=(allow|block|not_gated)|reason=(ok|muted|unknown|not_gated|filtered)|result=(success|invalid|failed|ok|refused|dry_run|not_supported)|action=(block|warn|mute|unmute)|endpoint=(mute|review|webhook)|kind=(order|tokens)|state=(done|refused|unconfirmed)|status=(\d{3}|none|other)|api=(mod|system)|class=(mute|review|action))$/);
  });

  it('stops counting once closed', async () => {
    const { events, metrics } = setUp();
    metrics.close();
    events.emit('verdict', verdict({}));
    expect(value(await samples(metrics), 'gsa_bridge_chat_verdicts_total{verdict="allow"}')).toBe(0);
    expect(events.listens('verdict')).toBe(false);
  });
});

describe('the key and budget gauges', () => {
  it('read credentials refused per api, the outage, the keys and the limiter at scrape time, and drop what went away', async () => {
    const events = new BridgeEvents();
    const state = {
      refused: { mod: false, system: false },
      unreachable: 0,
      keys: [
        { api: 'mod', key: '0123456789abcdef' },
        { api: 'system', key: 'fedcba9876543210' },
      ] as { api: ApiName; key: string }[],
      budget: { waiting: { mute: 0, review: 0, action: 0 }, windowFree: 100 } as BudgetState | undefined,
    };
    const metrics = new SidecarMetrics({
      events,
      processDefaults: false,
      sources: {
        adapters: () => [],
        outboxPending: () => 0,
        credentialsRefused: (api) => state.refused[api],
        unreachableSeconds: () => state.unreachable,
        apiKeys: () => state.keys,
        budgetState: () => state.budget,
      },
    });
    let lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_credentials_refused{api="mod"}')).toBe(0);
    expect(value(lines, 'gsa_bridge_credentials_refused{api="system"}')).toBe(0);
    expect(value(lines, 'gsa_bridge_gsa_unreachable_seconds')).toBe(0);
    expect(value(lines, 'gsa_bridge_api_key_info{api="mod",key="0123456789abcdef"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_api_key_info{api="system",key="fedcba9876543210"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_budget_waiting{class="mute"}')).toBe(0);
    expect(value(lines, 'gsa_bridge_budget_window_free')).toBe(100);

    state.refused.mod = true;
    state.unreachable = 312.5;
    state.keys = [{ api: 'mod', key: 'aaaaaaaaaaaaaaaa' }];
    state.budget = { waiting: { mute: 42, review: 3, action: 1 }, windowFree: 0 };
    lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_credentials_refused{api="mod"}')).toBe(1);
    expect(value(lines, 'gsa_bridge_credentials_refused{api="system"}')).toBe(0);
    expect(value(lines, 'gsa_bridge_gsa_unreachable_seconds')).toBe(312.5);
    expect(lines.filter((line) => line.startsWith('gsa_bridge_api_key_info'))).toEqual(['gsa_bridge_api_key_info{api="mod",key="aaaaaaaaaaaaaaaa"} 1']);
    expect([value(lines, 'gsa_bridge_budget_waiting{class="mute"}'), value(lines, 'gsa_bridge_budget_waiting{class="review"}'), value(lines, 'gsa_bridge_budget_waiting{class="action"}')]).toEqual([42, 3, 1]);
    expect(value(lines, 'gsa_bridge_budget_window_free')).toBe(0);

    // A budget that cannot tell its room: NaN (unknown) rather than a wrong number.
    state.budget = { waiting: { mute: 0, review: 0, action: 0 }, windowFree: undefined };
    lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_budget_window_free')).toBeNaN();
  });

  it('are 0 (or absent) when their sources are not given', async () => {
    const { metrics } = setUp();
    const lines = await samples(metrics);
    expect(value(lines, 'gsa_bridge_credentials_refused{api="mod"}')).toBe(0);
    expect(value(lines, 'gsa_bridge_gsa_unreachable_seconds')).toBe(0);
    expect(value(lines, 'gsa_bridge_budget_waiting{class="review"}')).toBe(0);
    expect(lines.filter((line) => line.startsWith('gsa_bridge_api_key_info'))).toEqual([]);
    expect(value(lines, 'gsa_bridge_budget_window_free')).toBeNaN();
  });
});

describe('statusLabel', () => {
  it('is the HTTP status, "none" without an answer, "other" for anything that is no status', () => {
    expect([statusLabel(200), statusLabel(503), statusLabel(undefined), statusLabel(0), statusLabel(42.5)]).toEqual(['200', '503', 'none', 'other', 'other']);
  });
});
