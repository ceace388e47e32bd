// The mod WebSocket reports every chat frame as a chat line read: a real ws client against a real sidecar (its
// websocket adapter, bridge and events) and the real metrics subscribed to that sidecar's events, as `run` does.
// A valid chat frame is a line tied to its player; a chat frame refused for its `player` field is `unreadable`;
// other frames, and chat frames refused for another field, are not chat lines.
import { afterEach, describe, expect, it } from 'vitest';
import { SidecarMetrics } from '../../src/ops/metrics.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { lintExposition } from '../fixtures/promLint.js';
import { HARNESS_SERVER, HARNESS_TOKEN, startSidecarHarness, type SidecarHarness } from '../fixtures/sidecarHarness.js';
import { createLogger } from '../../src/log/logger.js';

const SERVER = HARNESS_SERVER;
const ADAPTER = 'mod';
const ALICE = '76561198000000001';
const LINES = `gsa_bridge_chat_lines_total{server="${SERVER}",adapter="${ADAPTER}"}`;

function unattributed(reason: string): string {
  return `gsa_bridge_chat_unattributed_total{server="${SERVER}",adapter="${ADAPTER}",reason="${reason}"}`;
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function start(): Promise<{ harness: SidecarHarness; metrics: SidecarMetrics; mod: ModSocket; logs: string[] }> {
  const logs: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => logs.push(line) } });
  const harness = await startSidecarHarness((stop) => cleanups.push(stop), { adapter: { id: ADAPTER }, logger });
  const { sidecar } = harness;
  const metrics = new SidecarMetrics({
    events: sidecar.events,
    sources: { adapters: () => sidecar.adapters.map((adapter) => ({ server: SERVER, id: adapter.id, ready: adapter.ready })), outboxPending: () => 0 },
    processDefaults: false,
  });
  cleanups.push(() => {
    metrics.close();
    return Promise.resolve();
  });
  const mod = await connectMod(harness.url, HARNESS_TOKEN);
  cleanups.push(() => mod.close());
  await mod.waitFor((frame) => frame['type'] === 'welcome');
  return { harness, metrics, mod, logs };
}

async function scrape(metrics: SidecarMetrics): Promise<string[]> {
  const text = await metrics.text();
  expect(lintExposition(text)).toEqual([]);
  return text.split('\n');
}

function value(lines: readonly string[], series: string): number | undefined {
  const line = lines.find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Sends a frame and waits for its one answer (a verdict, a status or an error with the same id). */
async function ask(mod: ModSocket, frame: Record<string, unknown>): Promise<Record<string, unknown>> {
  mod.send(frame);
  return mod.waitFor((received) => received['id'] === frame['id'] && received['type'] !== 'welcome');
}

describe('the websocket adapter counts chat lines', () => {
  it('counts a valid chat frame as a line tied to its player, gated or not', async () => {
    const { metrics, mod } = await start();
    let lines = await scrape(metrics);
    expect(value(lines, LINES)).toBe(0);

    expect(await ask(mod, { type: 'chat', id: 'c1', player: { steam_id: ALICE, name: 'Alice' }, channel: 'global', text: 'hello' })).toMatchObject({ type: 'chat.verdict', allow: true });
    // The same player again: answered from the cache in the same tick, counted the same.
    expect(await ask(mod, { type: 'chat', id: 'c2', player: { steam_id: ALICE }, channel: 'global', text: 'again' })).toMatchObject({ type: 'chat.verdict', allow: true });
    expect(await ask(mod, { type: 'chat', id: 'c3', player: { steam_id: ALICE }, channel: 'team', text: 'team line' })).toMatchObject({ reason: 'not_gated' });
    lines = await scrape(metrics);
    expect(value(lines, LINES)).toBe(3);
    for (const reason of ['unreadable', 'not_listed', 'ambiguous', 'unconfirmed_id']) expect(value(lines, unattributed(reason))).toBe(0);
  });

  it('counts a chat frame refused for its player field as unreadable, and nothing else that is refused or not chat', async () => {
    const { metrics, mod, logs } = await start();
    const refusedPlayers: unknown[] = [{ steam_id: 'not-a-steam-id' }, { name: 'Alice' }, 'Alice', { steam_id: ALICE, name: 'x'.repeat(65) }];
    for (const [index, player] of refusedPlayers.entries()) {
      const answer = await ask(mod, { type: 'chat', id: `bad${index}`, player, channel: 'global', text: 'who said this?' });
      expect(answer).toMatchObject({ type: 'error', code: 'bad_message', path: expect.stringMatching(/^player/) as unknown });
    }
    // A chat frame with no player at all: refused for its player too.
    expect(await ask(mod, { type: 'chat', id: 'none', channel: 'global', text: 'anyone?' })).toMatchObject({ code: 'bad_message', path: 'player' });
    // Refused for another field: the speaker is known, the frame is the mod's bug, not an unattributed line.
    expect(await ask(mod, { type: 'chat', id: 'notext', player: { steam_id: ALICE }, channel: 'global' })).toMatchObject({ code: 'bad_message', path: 'text' });
    // Not chat: a mute check or a join with a bad player.
    expect(await ask(mod, { type: 'mute.check', id: 'm1', player: { steam_id: 'nope' } })).toMatchObject({ code: 'bad_message', path: 'player.steam_id' });
    mod.send({ type: 'player.join', id: 'j1', player: {} });
    await mod.waitFor((frame) => frame['id'] === 'j1');
    // And one valid line, so the share can be read: 5 of 6 unattributed.
    expect(await ask(mod, { type: 'chat', id: 'ok', player: { steam_id: ALICE }, channel: 'global', text: 'hello' })).toMatchObject({ type: 'chat.verdict' });

    const lines = await scrape(metrics);
    expect(value(lines, unattributed('unreadable'))).toBe(5);
    expect(value(lines, LINES)).toBe(6);
    for (const reason of ['not_listed', 'ambiguous', 'unconfirmed_id']) expect(value(lines, unattributed(reason))).toBe(0);
    expect(lines.join('\n')).not.toContain('not-a-steam-id');
    // The host is told once (at most once per 10 minutes), with one sample and the fix: the mod.
    const warnings = logs.filter((line) => line.includes('could not be tied to a player'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`mod WebSocket ${ADAPTER}: 1 chat-like line so far`);
    expect(warnings[0]).toContain('fix the mod');
  });
});
