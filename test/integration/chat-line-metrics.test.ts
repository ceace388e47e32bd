// Chat-like lines from an adapter's report to /metrics: a real ServerBridge with a real BridgeEvents and the real
// SidecarMetrics, adapters that call chatLineRead() on the sink the bridge gave them (as the websocket and rcon
// adapters do), and the Prometheus text scraped. Every configured adapter has its series at 0 before its first line;
// labels are the server, the adapter id and a reason of the closed set, never a player or a text.
import { afterEach, describe, expect, it } from 'vitest';
import { BridgeEvents, type ChatLineEvent } from '../../src/bridge/events.js';
import { UNATTRIBUTED_REASONS, type Adapter, type BridgeSink, type UnattributedReason } from '../../src/bridge/port.js';
import { ServerBridge } from '../../src/bridge/serverBridge.js';
import { GsaClient } from '../../src/gsa/index.js';
import { silentLogger } from '../../src/log/logger.js';
import { SidecarMetrics, type AdapterState } from '../../src/ops/metrics.js';
import { ReviewOutbox } from '../../src/reviews/reviewOutbox.js';
import { lintExposition, parseExposition } from '../fixtures/promLint.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An adapter as the port sees one; it keeps the sink it was started with, to report lines on it. */
class ReportingAdapter implements Adapter {
  readonly type = 'test';
  readonly ready = true;
  readonly id: string;
  sink: BridgeSink | undefined;

  constructor(id: string) {
    this.id = id;
  }

  start(sink: BridgeSink): Promise<void> {
    this.sink = sink;
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  muteChanged(): void {
    // Nothing here is muted.
  }

  reviewResult(): void {
    // Nothing here is reviewed.
  }

  /** One chat-like line read, tied to a player (no reason) or not. */
  read(unattributed?: UnattributedReason): void {
    if (this.sink?.chatLineRead === undefined) throw new Error(`adapter ${this.id} has no sink with chatLineRead`);
    this.sink.chatLineRead(unattributed);
  }
}

async function bridgeWith(events: BridgeEvents | undefined): Promise<ServerBridge> {
  const dataDir = await tempDir('chat-lines');
  // Never called: reporting a line asks the service nothing.
  const client = new GsaClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'a', clientSecret: 'b' });
  cleanups.push(() => client.close());
  const outbox = await ReviewOutbox.open({ dataDir, send: () => Promise.resolve(), onResult: () => undefined, logger: silentLogger() });
  cleanups.push(() => outbox.close());
  return new ServerBridge({
    server: { name: SERVER, allowActions: [] },
    mute: { mutedTtlMs: 60_000, unmutedTtlMs: 300_000, decisionTimeoutMs: 300, onUnknown: 'allow', defaultAlert: 'muted' },
    reviews: { minStars: 1, maxStars: 5, maxCommentLength: 500, cooldownMs: 0 },
    client,
    outbox,
    logger: silentLogger(),
    events,
  });
}

async function attached(bridge: ServerBridge, id: string): Promise<ReportingAdapter> {
  const adapter = new ReportingAdapter(id);
  await adapter.start(bridge.attach(adapter));
  return adapter;
}

function metricsOf(events: BridgeEvents, adapters: () => readonly AdapterState[]): SidecarMetrics {
  const metrics = new SidecarMetrics({ events, sources: { adapters, outboxPending: () => 0 }, processDefaults: false });
  cleanups.push(() => {
    metrics.close();
  });
  return metrics;
}

/** The chat line families' samples, as `name{labels} value` lines. */
async function chatLineSamples(metrics: SidecarMetrics): Promise<string[]> {
  const text = await metrics.text();
  expect(lintExposition(text)).toEqual([]);
  return text.split('\n').filter((line) => line.startsWith('gsa_bridge_chat_lines_total') || line.startsWith('gsa_bridge_chat_unattributed_total'));
}

function value(lines: readonly string[], series: string): number | undefined {
  const line = lines.find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('chat-like lines reported by adapters, in /metrics', () => {
  it('has every configured adapter\'s series at 0 before its first line: lines, and each reason', async () => {
    const events = new BridgeEvents();
    const bridge = await bridgeWith(events);
    await attached(bridge, 'mod');
    const metrics = metricsOf(events, () => [{ server: SERVER, id: 'mod', ready: true }]);
    expect(await chatLineSamples(metrics)).toEqual([
      `gsa_bridge_chat_lines_total{server="${SERVER}",adapter="mod"} 0`,
      ...UNATTRIBUTED_REASONS.map((reason) => `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="mod",reason="${reason}"} 0`),
    ]);
  });

  it('counts each adapter\'s lines, attributed or not, and the unattributed ones by reason, under that adapter\'s id', async () => {
    const events = new BridgeEvents();
    const bridge = await bridgeWith(events);
    const rcon = await attached(bridge, 'ark-main');
    const mod = await attached(bridge, 'mod');
    const running: AdapterState[] = [
      { server: SERVER, id: 'ark-main', ready: true },
      { server: SERVER, id: 'mod', ready: true },
    ];
    const metrics = metricsOf(events, () => running);

    for (let line = 0; line < 5; line++) rcon.read();
    rcon.read('not_listed');
    rcon.read('ambiguous');
    rcon.read('ambiguous');
    rcon.read('unconfirmed_id');
    mod.read();
    mod.read('unreadable');
    let lines = await chatLineSamples(metrics);
    expect(value(lines, `gsa_bridge_chat_lines_total{server="${SERVER}",adapter="ark-main"}`)).toBe(9);
    expect(value(lines, `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="ark-main",reason="not_listed"}`)).toBe(1);
    expect(value(lines, `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="ark-main",reason="ambiguous"}`)).toBe(2);
    expect(value(lines, `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="ark-main",reason="unconfirmed_id"}`)).toBe(1);
    expect(value(lines, `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="ark-main",reason="unreadable"}`)).toBe(0);
    expect(value(lines, `gsa_bridge_chat_lines_total{server="${SERVER}",adapter="mod"}`)).toBe(2);
    expect(value(lines, `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="mod",reason="unreadable"}`)).toBe(1);
    expect(value(lines, `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="mod",reason="ambiguous"}`)).toBe(0);

    // Counters: a scrape takes what came since the last one, and adds it; a scrape with nothing new says the same.
    rcon.read('not_listed');
    lines = await chatLineSamples(metrics);
    lines = await chatLineSamples(metrics);
    expect(value(lines, `gsa_bridge_chat_lines_total{server="${SERVER}",adapter="ark-main"}`)).toBe(10);
    expect(value(lines, `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="ark-main",reason="not_listed"}`)).toBe(2);
    expect(value(lines, `gsa_bridge_chat_lines_total{server="${SERVER}",adapter="mod"}`)).toBe(2);

    // Only the server, the adapter and a reason of the closed set label these series.
    const families = parseExposition(await metrics.text());
    for (const name of ['gsa_bridge_chat_lines_total', 'gsa_bridge_chat_unattributed_total']) {
      const family = families.get(name);
      expect(family?.type).toBe('counter');
      for (const sample of family?.samples ?? []) {
        expect(Object.keys(sample.labels).sort()).toEqual(name === 'gsa_bridge_chat_lines_total' ? ['adapter', 'server'] : ['adapter', 'reason', 'server']);
        if (sample.labels['reason'] !== undefined) expect(UNATTRIBUTED_REASONS).toContain(sample.labels['reason']);
      }
    }
  });

  it('counts a line reported to the bridge itself with an empty adapter label, and a reason outside the set as unreadable', async () => {
    const events = new BridgeEvents();
    const bridge = await bridgeWith(events);
    const rcon = await attached(bridge, 'ark-main');
    const metrics = metricsOf(events, () => []);
    bridge.chatLineRead();
    bridge.chatLineRead('ambiguous');
    // What an adapter without types, or with a bug, could pass: counted, never a new label value, never a throw.
    for (const stray of ['nobody', '__proto__', 'constructor']) rcon.read(stray as UnattributedReason);
    const lines = await chatLineSamples(metrics);
    expect(value(lines, `gsa_bridge_chat_lines_total{server="${SERVER}",adapter=""}`)).toBe(2);
    expect(value(lines, `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="",reason="ambiguous"}`)).toBe(1);
    expect(value(lines, `gsa_bridge_chat_lines_total{server="${SERVER}",adapter="ark-main"}`)).toBe(3);
    expect(value(lines, `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="ark-main",reason="unreadable"}`)).toBe(3);
    expect(lines.join('\n')).not.toMatch(/nobody|__proto__|constructor/);
  });

  it('publishes one made-once event per adapter and reason (a line allocates none), and never throws into the adapter', async () => {
    const events = new BridgeEvents();
    const bridge = await bridgeWith(events);
    const rcon = await attached(bridge, 'ark-main');
    const mod = await attached(bridge, 'mod');
    // Before anyone listens: nothing to publish, nothing thrown.
    rcon.read();
    rcon.read('not_listed');
    expect(events.listens('chatLine')).toBe(false);

    const heard: ChatLineEvent[] = [];
    events.on('chatLine', (event) => heard.push(event));
    events.on('chatLine', () => {
      throw new Error('a listener with a bug');
    });
    rcon.read();
    rcon.read();
    rcon.read('not_listed');
    rcon.read('not_listed');
    mod.read();
    expect(heard).toEqual([
      { server: SERVER, adapter: 'ark-main' },
      { server: SERVER, adapter: 'ark-main' },
      { server: SERVER, adapter: 'ark-main', unattributed: 'not_listed' },
      { server: SERVER, adapter: 'ark-main', unattributed: 'not_listed' },
      { server: SERVER, adapter: 'mod' },
    ]);
    expect(heard[1]).toBe(heard[0]);
    expect(heard[3]).toBe(heard[2]);
    expect(heard[4]).not.toBe(heard[0]);
    expect(Object.isFrozen(heard[0])).toBe(true);
  });

  it('is a no-op on a bridge that publishes nothing (no events given)', async () => {
    const bridge = await bridgeWith(undefined);
    const rcon = await attached(bridge, 'ark-main');
    expect(() => {
      rcon.read();
      rcon.read('ambiguous');
      bridge.chatLineRead('unreadable');
    }).not.toThrow();
  });
});
