// The chat filter end to end through a real mod WebSocket: a real sidecar (startSidecar) against the emulator, its
// bridge given a ChatFilter (as the app layer will wire it) with a test PlayerMuting. A listed word comes back
// `filtered` with the alert unchanged and asks GSA nothing; after the ladder's mute (GSA accepted), the player's next
// clean line is blocked `muted` at once, by the sidecar's own cache, also on a second server's bridge.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/app/config.js';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import type { PeriodCode } from '../../src/gsa/system/periods.js';
import { silentLogger } from '../../src/log/logger.js';
import { ChatFilter, type MuteOutcome, type PlayerMuting } from '../../src/moderation/chatFilter.js';
import { ModerationLog, readModerationRecords } from '../../src/moderation/moderationLog.js';
import { StrikeBook, type ModerationLogger } from '../../src/moderation/strikeBook.js';
import { SidecarMetrics } from '../../src/ops/metrics.js';
import { startSidecar, type Sidecar } from '../../src/sidecar.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { PATIENT_DECISION_TIMEOUT_MS } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const OTHER = 'otherserver';
const TOKEN = 'filter-token';
const PLAYER = { steam_id: '76561198000000077', name: 'Rex' };
/** A player who has sent nothing yet: the mute cache has not met them. */
const NEWCOMER = { steam_id: '76561198000000078', name: 'Nia' };

let emulator: GsaEmulator;
const sidecars: Sidecar[] = [];
const sockets: ModSocket[] = [];

beforeAll(async () => {
  emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }, { name: OTHER, id: 4712 }] });
});
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((socket) => socket.close()));
  await Promise.all(sidecars.splice(0).map((sidecar) => sidecar.stop()));
  emulator.reset();
});
afterAll(async () => {
  await emulator.close();
});

class AcceptingMuting implements PlayerMuting {
  readonly calls: { player: PlayerIdentity; period: PeriodCode }[] = [];
  mute(player: PlayerIdentity, period: PeriodCode): Promise<MuteOutcome> {
    this.calls.push({ player, period });
    return Promise.resolve({ ok: true, message: 'Player will be muted shortly.' });
  }
}

async function start(muting: PlayerMuting, dryRun = false, logger: ModerationLogger = silentLogger()) {
  const dataDir = await tempDir('filter-gating');
  const config = parseConfig(
    {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
      servers: [
        { name: SERVER, id: 4711, adapters: [{ type: 'websocket', port: 0, token: TOKEN }] },
        { name: OTHER, id: 4712, adapters: [{ type: 'websocket', port: 0, token: TOKEN }] },
      ],
      mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS },
      reviews: { dataDir },
    },
    {},
  );
  const sidecar = await startSidecar(config, { logger: silentLogger() });
  sidecars.push(sidecar);
  const metrics = new SidecarMetrics({ events: sidecar.events, sources: { adapters: () => [], outboxPending: () => 0 }, processDefaults: false });
  const filter = new ChatFilter({
    words: ['scam'],
    ladder: [{ action: 'warn', message: 'No scams here.' }, { action: 'mute', period: '15m' }],
    dryRun,
    strikes: await StrikeBook.open({ dataDir, memoryMs: 86_400_000, logger }),
    log: await ModerationLog.open(dataDir, logger),
    logger,
    muting,
    // What the app layer does: the mute GSA accepted, applied on every bridge of the process.
    applyMute: (player) => {
      for (const bridge of sidecar.bridges.values()) bridge.rememberMuteStatus(player, true);
    },
    events: sidecar.events,
  });
  for (const bridge of sidecar.bridges.values()) bridge.useFilter(filter);
  const mods: ModSocket[] = [];
  for (const adapter of sidecar.adapters) {
    const address = adapter.listeningAddress?.();
    if (address === undefined) throw new Error('no listening adapter');
    const mod = await connectMod(address.url, TOKEN);
    sockets.push(mod);
    await mod.waitFor((frame) => frame.type === 'welcome');
    mods.push(mod);
  }
  const [first, second] = mods;
  if (first === undefined || second === undefined) throw new Error('two mods expected');
  return { sidecar, filter, metrics, dataDir, first, second };
}

async function verdict(mod: ModSocket, id: string, text: string, channel = 'global', player = PLAYER): Promise<Record<string, unknown>> {
  mod.send({ type: 'chat', id, player, channel, text });
  return mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === id);
}

describe('the chat filter over the mod WebSocket', () => {
  it('blocks a listed word as filtered, then the ladder mute blocks the next clean line as muted everywhere', async () => {
    const muting = new AcceptingMuting();
    const { filter, metrics, dataDir, first, second } = await start(muting);

    expect(await verdict(first, 'c1', 'hello there')).toMatchObject({ allow: true, reason: 'ok' });
    const lookupsBefore = emulator.calls.length;
    expect(await verdict(first, 'f1', 'that is a sc@m')).toEqual({ type: 'chat.verdict', id: 'f1', allow: false, reason: 'filtered', alert: 'No scams here.' });
    // Not gated: the filter does not look at team chat.
    expect(await verdict(first, 't1', 'scam', 'team')).toMatchObject({ allow: true, reason: 'not_gated' });
    expect(await verdict(first, 'f2', 's c a m')).toEqual({ type: 'chat.verdict', id: 'f2', allow: false, reason: 'filtered', alert: 'Your message was blocked by the chat filter.' });
    expect(emulator.calls.length).toBe(lookupsBefore);
    await filter.settled();
    expect(muting.calls).toEqual([{ player: { steamId: PLAYER.steam_id, name: PLAYER.name }, period: '15m' }]);

    // The mute GSA accepted is in force at once, on this server and on the other one, with no lookup.
    expect(await verdict(first, 'c2', 'hello again')).toMatchObject({ allow: false, reason: 'muted', alert: 'You are muted on this server.' });
    expect(await verdict(second, 'c3', 'hello over here')).toMatchObject({ allow: false, reason: 'muted' });
    expect(emulator.calls.length).toBe(lookupsBefore);

    const text = await metrics.text();
    expect(text).toContain('gsa_bridge_chat_verdict_reasons_total{reason="filtered"} 2');
    expect(text).toContain('gsa_bridge_moderation_actions_total{action="warn",result="ok"} 1');
    expect(text).toContain('gsa_bridge_moderation_actions_total{action="mute",result="ok"} 1');
    expect(text).toContain('gsa_bridge_moderation_actions_total{action="block",result="ok"} 2');
    metrics.close();

    const { records } = await readModerationRecords(dataDir);
    expect(records.map((record) => `${record.action}:${record.result}`).sort()).toEqual(['block:ok', 'block:ok', 'mute:ok', 'warn:ok']);
    expect(JSON.stringify(records)).not.toContain('sc@m');
  });

  it('in dry run lets the line through and mutes nobody', async () => {
    const muting = new AcceptingMuting();
    const { filter, first } = await start(muting, true);
    expect(await verdict(first, 'd1', 'scam')).toMatchObject({ allow: true, reason: 'ok' });
    expect(await verdict(first, 'd2', 'scam')).toMatchObject({ allow: true, reason: 'ok' });
    await filter.settled();
    expect(muting.calls).toEqual([]);
    expect(await verdict(first, 'd3', 'hello')).toMatchObject({ allow: true, reason: 'ok' });
  });

  it.each([
    { mode: 'in dry run', dryRun: true, allowed: { allow: true, reason: 'ok' }, result: 'dry_run' },
    { mode: 'enforcing', dryRun: false, allowed: { allow: false, reason: 'filtered' }, result: 'ok' },
  ])('$mode counts each line once, whatever the cache knew: the first line is strike 1 (warn), the second strike 2 (mute)', async ({ dryRun, allowed, result }) => {
    const muting = new AcceptingMuting();
    const filterLog = new RecordingLogger();
    const { filter, dataDir, first } = await start(muting, dryRun, filterLog);
    // The mod's clean line puts PLAYER in the mute cache; NEWCOMER's lines are cache misses (chatNow, then chat()),
    // the second one too when enforcing (a filtered line asks GSA nothing).
    expect(await verdict(first, 'k0', 'hello')).toMatchObject({ allow: true, reason: 'ok' });

    for (const [label, player] of [['newcomer', NEWCOMER], ['known', PLAYER]] as const) {
      expect(await verdict(first, `${label}-1`, 'scam', 'global', player)).toMatchObject(allowed);
      await filter.settled();
      expect(await stepsOf(dataDir, player.steam_id)).toEqual([`block:1:${result}`, `warn:1:${result}`]);
      expect(await verdict(first, `${label}-2`, 'scam', 'global', player)).toMatchObject(allowed);
      await filter.settled();
      expect(await stepsOf(dataDir, player.steam_id)).toEqual([`block:1:${result}`, `warn:1:${result}`, `block:2:${result}`, `mute:2:${result}`]);
    }
    // What the host reads: one line per line sent, saying the strike and the step taken (or that would have been).
    expect(filterLog.filterLines()).toEqual([
      { player: NEWCOMER.steam_id, strike: 1, step: 'warn', dryRun },
      { player: NEWCOMER.steam_id, strike: 2, step: 'mute', dryRun },
      { player: PLAYER.steam_id, strike: 1, step: 'warn', dryRun },
      { player: PLAYER.steam_id, strike: 2, step: 'mute', dryRun },
    ]);
    expect(muting.calls.map((call) => call.player.steamId)).toEqual(dryRun ? [] : [NEWCOMER.steam_id, PLAYER.steam_id]);
  });
});

/** The moderation records of one player (by Steam id), oldest first, as `action:strike:result`. */
async function stepsOf(dataDir: string, steamId: string): Promise<string[]> {
  const { records } = await readModerationRecords(dataDir);
  return records.filter((record) => record.player === steamId).map((record) => `${record.action}:${String(record.strike)}:${record.result}`);
}

/** The filter's logger, keeping what its lines about filtered lines said. */
class RecordingLogger implements ModerationLogger {
  readonly #infos: { object: Record<string, unknown>; message: string }[] = [];
  info(object: object, message: string): void {
    this.#infos.push({ object: { ...object }, message });
  }
  warn(): void {}
  error(): void {}
  filterLines(): { player: unknown; strike: unknown; step: unknown; dryRun: unknown }[] {
    return this.#infos.filter((entry) => entry.message.startsWith('chat filter')).map(({ object }) => ({ player: object.player, strike: object.strike, step: object.step, dryRun: object.dryRun }));
  }
}
