// Chat channels and mute.gatedChannels end to end over the mod protocol: a real sidecar (startSidecar, in-process)
// against the GSA emulator, a real mod WebSocket, counting the mute lookups that reach the emulator. GSA's mute
// covers "global and local chat": a muted player's team line is allowed with reason "not_gated" and no lookup,
// their global line is blocked with the alert; a reload that gates team applies to the open connection at once;
// a channel outside the vocabulary is never gated and warned about once per connection; metrics count not_gated.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig, type BridgeConfig } from '../../src/app/config.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { createLogger } from '../../src/log/logger.js';
import { SidecarMetrics } from '../../src/ops/metrics.js';
import { startSidecar, type Sidecar } from '../../src/sidecar.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { PATIENT_DECISION_TIMEOUT_MS } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';
import { WebSocketAdapter } from '../../adapters/websocket/websocketAdapter.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'channels-token';
const MUTED = { steam_id: '76561198000000077', name: 'Muted Guy' };
const ALERT = 'Muted by an admin';

let emulator: GsaEmulator;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }] });
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

interface Rig {
  readonly sidecar: Sidecar;
  readonly mod: ModSocket;
  readonly logs: string[];
  readonly url: string;
}

async function start(mute: Record<string, unknown> = {}): Promise<Rig> {
  const config = parseConfig(
    {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
      servers: [{ name: SERVER, id: 4711, adapters: [{ type: 'websocket', id: 'mod', port: 0, token: TOKEN }] }],
      mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS, ...mute },
      reviews: { dataDir: await tempDir('chat-channels') },
    },
    {},
  );
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => logs.push(line) } });
  const sidecar = await startSidecar(config, { logger });
  cleanups.push(() => sidecar.stop());
  const adapter = sidecar.adapters[0];
  if (!(adapter instanceof WebSocketAdapter)) throw new Error('the sidecar built no websocket adapter');
  const url = `ws://127.0.0.1:${adapter.port}/`;
  const mod = await connect(url);
  return { sidecar, mod, logs, url };
}

async function connect(url: string): Promise<ModSocket> {
  const mod = await connectMod(url, TOKEN);
  cleanups.push(() => mod.close());
  await mod.waitFor((frame) => frame.type === 'welcome');
  return mod;
}

function withMute(config: BridgeConfig, mute: Partial<BridgeConfig['mute']>): BridgeConfig {
  return { ...config, mute: { ...config.mute, ...mute } };
}

const muteCalls = (): number => emulator.calls.filter((call) => call.endpoint === 'mute').length;

async function say(mod: ModSocket, id: string, channel: string): Promise<Record<string, unknown>> {
  mod.send({ type: 'chat', id, player: MUTED, channel, text: `on ${channel}` });
  return mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === id);
}

const channelWarnings = (logs: readonly string[]): Record<string, unknown>[] =>
  logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => String(line.msg).includes('mute.gatedChannels') && line.level === 40);

describe('chat channels over the mod protocol', () => {
  it("allows a muted player's team line unchecked (not_gated, no lookup) and blocks their global line with the alert", async () => {
    emulator.mute(SERVER, MUTED.steam_id, ALERT);
    const { mod } = await start();
    expect(await say(mod, 't1', 'team')).toEqual({ type: 'chat.verdict', id: 't1', allow: true, reason: 'not_gated' });
    expect(await say(mod, 't2', 'squad')).toMatchObject({ allow: true, reason: 'not_gated' });
    expect(muteCalls()).toBe(0);
    expect(await say(mod, 'g1', 'global')).toEqual({ type: 'chat.verdict', id: 'g1', allow: false, reason: 'muted', alert: ALERT });
    expect(await say(mod, 'l1', 'local')).toMatchObject({ allow: false, reason: 'muted', alert: ALERT });
    expect(muteCalls()).toBe(1);
    // Known to be muted now, and still not asked about on team chat: the cache is not even read there.
    expect(await say(mod, 't3', 'team')).toMatchObject({ allow: true, reason: 'not_gated' });
    expect(muteCalls()).toBe(1);
  });

  it('gates team chat when mute.gatedChannels lists it', async () => {
    emulator.mute(SERVER, MUTED.steam_id, ALERT);
    const { mod } = await start({ gatedChannels: ['global', 'local', 'team'] });
    expect(await say(mod, 't1', 'team')).toEqual({ type: 'chat.verdict', id: 't1', allow: false, reason: 'muted', alert: ALERT });
    expect(await say(mod, 's1', 'squad')).toMatchObject({ allow: true, reason: 'not_gated' });
    expect(muteCalls()).toBe(1);
  });

  it('applies a reload of mute.gatedChannels at once on the open connection, and reports the key as changed', async () => {
    emulator.mute(SERVER, MUTED.steam_id, ALERT);
    const { sidecar, mod } = await start();
    const adapter = sidecar.adapters[0];
    expect(await say(mod, 'before', 'team')).toMatchObject({ allow: true, reason: 'not_gated' });

    const report = await sidecar.reconfigure(withMute(sidecar.config, { gatedChannels: ['global', 'local', 'team'] }));
    expect(report).toMatchObject({ started: [], stopped: [], restarted: [], unchanged: [`${SERVER}/mod`], settingsChanged: ['mute.gatedChannels'] });
    expect(sidecar.adapters[0]).toBe(adapter);
    expect(await say(mod, 'gated', 'team')).toMatchObject({ allow: false, reason: 'muted', alert: ALERT });

    const back = await sidecar.reconfigure(withMute(sidecar.config, { gatedChannels: ['global'] }));
    expect(back.settingsChanged).toEqual(['mute.gatedChannels']);
    expect(await say(mod, 'local', 'local')).toMatchObject({ allow: true, reason: 'not_gated' });
    expect(await say(mod, 'global', 'global')).toMatchObject({ allow: false, reason: 'muted' });
    // The same connection all along: the welcome came once.
    expect(mod.received.filter((frame) => frame.type === 'welcome')).toHaveLength(1);

    const same = await sidecar.reconfigure(sidecar.config);
    expect(same.settingsChanged).toEqual([]);
  });

  it('never gates a channel outside the vocabulary, and warns once per connection naming it and mute.gatedChannels', async () => {
    emulator.mute(SERVER, MUTED.steam_id, ALERT);
    const { mod, logs, url } = await start();
    for (let index = 0; index < 5; index++) expect(await say(mod, `a${index}`, 'all')).toMatchObject({ allow: true, reason: 'not_gated' });
    expect(await say(mod, 'G', 'Global')).toMatchObject({ allow: true, reason: 'not_gated' });
    expect(muteCalls()).toBe(0);
    const warnings = channelWarnings(logs);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toBe(
      'a mod sent chat on channel "all", which is not a channel name (global, local, team, squad, tribe, clan, admin, other): such lines are never gated, so muted players are let through; the mod should send one of those names (mute.gatedChannels lists the ones checked: global, local). Said once per connection.',
    );
    // A vocabulary name that is simply not gated is no mistake: no warning.
    await say(mod, 'team', 'team');
    expect(channelWarnings(logs)).toHaveLength(1);

    const second = await connect(url);
    expect(await say(second, 'b', 'all')).toMatchObject({ allow: true, reason: 'not_gated' });
    expect(channelWarnings(logs)).toHaveLength(2);
  });

  it("gives not_gated through chat() too, the bridge's own and an adapter's sink, before any lookup", async () => {
    emulator.mute(SERVER, MUTED.steam_id, ALERT);
    const { sidecar } = await start();
    const bridge = sidecar.bridges.get(SERVER);
    if (bridge === undefined) throw new Error('no bridge');
    // An adapter of the test's own, to get the per-source sink an adapter starts with.
    const sink = bridge.attach({
      type: 'test',
      id: 'probe',
      ready: true,
      start: () => Promise.resolve(),
      stop: () => Promise.resolve(),
      muteChanged: () => undefined,
      reviewResult: () => undefined,
    });
    const player = { steamId: MUTED.steam_id };
    expect(await bridge.chat(player, 'team', 'x')).toEqual({ allow: true, reason: 'not_gated' });
    expect(await sink.chat(player, 'admin', 'x')).toEqual({ allow: true, reason: 'not_gated' });
    expect(sink.chatNow?.(player, 'clan', 'x')).toEqual({ allow: true, reason: 'not_gated' });
    expect(muteCalls()).toBe(0);
    expect(await sink.chat(player, 'global', 'x')).toEqual({ allow: false, reason: 'muted', alert: ALERT });
    expect(muteCalls()).toBe(1);
  });

  it('counts not_gated lines in gsa_bridge_chat_verdicts_total{verdict="not_gated"}, not as cache hits or misses', async () => {
    emulator.mute(SERVER, MUTED.steam_id, ALERT);
    const { sidecar, mod } = await start();
    const metrics = new SidecarMetrics({ events: sidecar.events, sources: { adapters: () => [], outboxPending: () => 0 }, processDefaults: false });
    cleanups.push(() => {
      metrics.close();
      return Promise.resolve();
    });
    await say(mod, 't1', 'team');
    await say(mod, 't2', 'team');
    await say(mod, 'g1', 'global');
    const text = await metrics.text();
    const value = (series: string): number => Number(text.split('\n').find((line) => line.startsWith(`${series} `))?.split(' ')[1]);
    expect(value('gsa_bridge_chat_verdicts_total{verdict="not_gated"}')).toBe(2);
    expect(value('gsa_bridge_chat_verdicts_total{verdict="block"}')).toBe(1);
    expect(value('gsa_bridge_chat_verdicts_total{verdict="allow"}')).toBe(0);
    expect(value('gsa_bridge_mute_cache_hits_total') + value('gsa_bridge_mute_cache_misses_total')).toBe(1);
  });
});
