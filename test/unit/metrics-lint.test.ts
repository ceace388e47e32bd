// The sidecar's exposition by the rules of `promtool check metrics`, without promtool: a gauge named like a counter
// (`*_total`), a counter without `_total`, reserved suffixes, non-base units, camelCase, missing help. The checker
// is shown to find each of those on a bad exposition first, so a clean result means something.
import { describe, expect, it } from 'vitest';
import { BridgeEvents } from '../../src/bridge/events.js';
import { SidecarMetrics } from '../../src/ops/metrics.js';
import { lintExposition, parseExposition } from '../fixtures/promLint.js';

const BAD = `# HELP app_open_handles_total Open handles.
# TYPE app_open_handles_total gauge
app_open_handles_total 3
# HELP app_requests Requests.
# TYPE app_requests counter
app_requests 1
# HELP app_latency_milliseconds Latency.
# TYPE app_latency_milliseconds gauge
app_latency_milliseconds 2
# HELP appQueueDepth Depth.
# TYPE appQueueDepth gauge
appQueueDepth 0
# TYPE app_silent gauge
app_silent 1
# HELP app_items_count Items.
# TYPE app_items_count gauge
app_items_count 4
# HELP app_cache_gauge Cache.
# TYPE app_cache_gauge gauge
app_cache_gauge{le="1"} 1
app_cache_gauge{le="1"} 2
# HELP app_wait_ms Wait.
# TYPE app_wait_ms gauge
app_wait_ms one
`;

describe('lintExposition (promtool check metrics, in a test)', () => {
  it('finds what promtool finds in a bad exposition', () => {
    expect(lintExposition(BAD)).toEqual([
      'app_cache_gauge line 21: duplicate series app_cache_gauge{le="1"}',
      'app_wait_ms line 24: value "one" is not a number',
      'app_open_handles_total non-counter metrics should not have "_total" suffix',
      'app_requests counter metrics should have "_total" suffix',
      'app_latency_milliseconds use base unit "seconds" instead of "milliseconds"',
      "appQueueDepth metric names should be written in 'snake_case' not 'camelCase'",
      'app_silent no help text',
      'app_items_count non-histogram and non-summary metrics should not have "_count" suffix',
      'app_cache_gauge non-histogram metrics should not have "le" label',
      "app_cache_gauge metric name should not include type 'gauge'",
      'app_wait_ms metric names should not contain abbreviated units',
    ]);
  });

  it('takes a histogram\'s _bucket, _sum and _count samples as its own', () => {
    const text = `# HELP x_seconds X.\n# TYPE x_seconds histogram\nx_seconds_bucket{le="1"} 1\nx_seconds_bucket{le="+Inf"} 2\nx_seconds_sum 3.5\nx_seconds_count 2\n`;
    expect(lintExposition(text)).toEqual([]);
    expect(parseExposition(text).get('x_seconds')?.samples.map((sample) => sample.name)).toEqual(['x_seconds_bucket', 'x_seconds_bucket', 'x_seconds_sum', 'x_seconds_count']);
  });
});

describe('the sidecar\'s /metrics exposition', () => {
  it('passes every rule of promtool check metrics, process defaults included, once every series has moved', async () => {
    const events = new BridgeEvents();
    const metrics = new SidecarMetrics({
      events,
      sources: { adapters: () => [{ server: 'ovddykvbs', id: 'mod', ready: true }], outboxPending: () => 2 },
      processDefaults: true,
    });
    events.emit('request', { endpoint: 'mute', target: 'ovddykvbs', status: 200, code: undefined, message: undefined, durationMs: 12, attempt: 1 });
    events.emit('request', { endpoint: 'review', target: 'ovddykvbs', status: undefined, code: 'timeout', message: undefined, durationMs: 5000, attempt: 1 });
    events.emit('muteCache', { server: 'ovddykvbs', hit: true });
    events.emit('muteCache', { server: 'ovddykvbs', hit: false });
    for (const reason of ['ok', 'muted', 'unknown'] as const) {
      events.emit('verdict', { server: 'ovddykvbs', player: { steamId: '76561198000000001' }, verdict: reason === 'muted' ? 'block' : 'allow', reason, source: 'cache', durationMs: 0.2 });
    }
    events.emit('reviewResent', { server: 'ovddykvbs', review: 'r1' });
    metrics.recordReload('success');
    const text = await metrics.text();
    metrics.close();

    expect(lintExposition(text)).toEqual([]);
    const gaugesNamedLikeCounters = [...parseExposition(text).values()].filter((family) => family.type === 'gauge' && family.name.endsWith('_total'));
    expect(gaugesNamedLikeCounters.map((family) => family.name)).toEqual([]);
    // The per-type gauges the removed *_total gauges summed stay: sum(nodejs_active_handles) is the same number.
    expect(text).toMatch(/^# TYPE nodejs_active_handles gauge$/m);
  });
});
