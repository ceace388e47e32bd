// The sidecar's one chat filter across reloads: nothing opened without words; opened once, then reconfigured in place
// (the same filter, so strikes survive) as configs come and go; a mute step reaches GSA through the PlayerMuting port
// and, once accepted, every bridge through the MuteApplier port; close() waits for the steps in flight.
import { describe, expect, it } from 'vitest';
import { parseConfig, type BridgeConfig } from '../../src/app/config.js';
import { ChatFilterSlot } from '../../src/app/chatFilterSlot.js';
import { BridgeEvents } from '../../src/bridge/events.js';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import { silentLogger } from '../../src/log/logger.js';
import type { FilterSite } from '../../src/bridge/lineFilter.js';
import type { MuteOutcome, PlayerMuting } from '../../src/moderation/chatFilter.js';
import { tempDir } from '../fixtures/tempDir.js';

const PLAYER: PlayerIdentity = { steamId: '76561198000000001', name: 'Alice' };
const SITE: FilterSite = { serverName: 'alpha', tellPlayer: () => Promise.resolve(false) };

function configWith(dataDir: string, filter: Record<string, unknown> | undefined): BridgeConfig {
  return parseConfig(
    {
      api: { baseUrl: 'http://127.0.0.1:1', clientId: 'id', clientSecret: 'secret', system: { key: 'system-key' } },
      servers: [{ name: 'alpha', adapters: [] }],
      reviews: { dataDir },
      ...(filter === undefined ? {} : { moderation: { filter } }),
    },
    {},
  );
}

class AcceptingMuting implements PlayerMuting {
  readonly muted: PlayerIdentity[] = [];
  mute(player: PlayerIdentity): Promise<MuteOutcome> {
    this.muted.push(player);
    return Promise.resolve({ ok: true, message: 'muted' });
  }
}

function slotWith(muting: PlayerMuting = new AcceptingMuting()) {
  const applied: PlayerIdentity[] = [];
  const slot = new ChatFilterSlot({ events: new BridgeEvents(), muting, muteApplier: { applyMute: (player) => applied.push(player) } });
  return { slot, applied };
}

describe('ChatFilterSlot', () => {
  it('opens nothing while the config has no words', async () => {
    const dataDir = await tempDir('filter-slot');
    const { slot } = slotWith();
    expect(await slot.follow(configWith(dataDir, undefined), silentLogger())).toBeUndefined();
    expect(await slot.follow(configWith(dataDir, { words: [] }), silentLogger())).toBeUndefined();
    expect(slot.active).toBeUndefined();
    await slot.close();
  });

  it('keeps one filter across configs: reconfigured in place, idle while a config has none, the same one back', async () => {
    const dataDir = await tempDir('filter-slot');
    const { slot } = slotWith();
    const first = await slot.follow(configWith(dataDir, { words: ['scam'], ladder: [{ action: 'warn' }] }), silentLogger());
    expect(first).toBeDefined();
    expect(slot.active).toBe(first);
    expect(first?.check(PLAYER, 'a scam', SITE)).toMatchObject({ allow: false, reason: 'filtered' });

    const second = await slot.follow(configWith(dataDir, { words: ['spam'], ladder: [{ action: 'warn' }] }), silentLogger());
    expect(second).toBe(first);
    expect(second?.check(PLAYER, 'a scam', SITE)).toBeUndefined();
    expect(second?.check(PLAYER, 'some spam', SITE)).toMatchObject({ allow: false, reason: 'filtered' });

    expect(await slot.follow(configWith(dataDir, undefined), silentLogger())).toBeUndefined();
    expect(slot.active).toBeUndefined();
    expect(await slot.follow(configWith(dataDir, { words: ['scam'], ladder: [{ action: 'warn' }] }), silentLogger())).toBe(first);
    await slot.close();
  });

  it('takes a mute step through PlayerMuting, applies it through MuteApplier, and close() waits for it', async () => {
    const dataDir = await tempDir('filter-slot');
    const muting = new AcceptingMuting();
    const { slot, applied } = slotWith(muting);
    const filter = await slot.follow(configWith(dataDir, { words: ['scam'], ladder: [{ action: 'mute', period: '15m' }] }), silentLogger());
    expect(filter?.check(PLAYER, 'a scam', SITE)).toMatchObject({ allow: false, reason: 'filtered' });
    await slot.close();
    expect(muting.muted).toEqual([PLAYER]);
    expect(applied).toEqual([PLAYER]);
  });
});
