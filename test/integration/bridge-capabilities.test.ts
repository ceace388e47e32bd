// The port's "tell this player" capability as the bridge uses it: it asks each adapter whether it can, routes to
// the named one or else the first that can, and says false (never throws) when none can or the game refused.
// Adapters here are small implementations of the port's Adapter interface, as an RCON adapter would be.
import { afterEach, describe, expect, it } from 'vitest';
import type { Adapter, PlayerIdentity } from '../../src/bridge/port.js';
import { ReviewOutbox } from '../../src/reviews/reviewOutbox.js';
import { ServerBridge } from '../../src/bridge/serverBridge.js';
import { GsaClient } from '../../src/gsa/index.js';
import { silentLogger } from '../../src/log/logger.js';
import { tempDir } from '../fixtures/tempDir.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const ALICE: PlayerIdentity = { steamId: '76561198000000001', name: 'Alice' };

function adapter(id: string, tell?: (player: PlayerIdentity, text: string) => Promise<void>): Adapter {
  return {
    type: 'test',
    id,
    ready: true,
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    muteChanged: () => undefined,
    reviewResult: () => undefined,
    ...(tell === undefined ? {} : { tellPlayer: tell }),
  };
}

async function bridge(): Promise<ServerBridge> {
  const dataDir = await tempDir('capabilities');
  // Never called: nothing here asks the service.
  const client = new GsaClient({ baseUrl: 'http://127.0.0.1:9', clientId: 'a', clientSecret: 'b' });
  cleanups.push(() => client.close());
  const outbox = await ReviewOutbox.open({ dataDir, send: () => Promise.resolve(), onResult: () => undefined, logger: silentLogger() });
  cleanups.push(() => outbox.close());
  return new ServerBridge({
    server: { name: 'alpha', allowActions: [] },
    mute: { mutedTtlMs: 60_000, unmutedTtlMs: 300_000, decisionTimeoutMs: 300, onUnknown: 'allow', defaultAlert: 'muted' },
    reviews: { minStars: 1, maxStars: 5, maxCommentLength: 500, cooldownMs: 0 },
    client,
    outbox,
    logger: silentLogger(),
  });
}

describe('ServerBridge.tellPlayer', () => {
  it('is false when no adapter of the server can tell players (a websocket mod shows verdicts itself)', async () => {
    const subject = await bridge();
    const mod = adapter('mod');
    subject.attach(mod);
    expect(subject.canTellPlayers(mod)).toBe(false);
    expect(await subject.tellPlayer(ALICE, 'hello')).toBe(false);
  });

  it('tells through the named adapter, else the first that can, and is false when the game refused', async () => {
    const subject = await bridge();
    const told: string[] = [];
    const first = adapter('rcon-a', (player, text) => {
      told.push(`a:${player.steamId ?? ''}:${text}`);
      return Promise.resolve();
    });
    const second = adapter('rcon-b', (_player, text) => {
      told.push(`b:${text}`);
      return Promise.resolve();
    });
    const broken = adapter('rcon-broken', () => Promise.reject(new Error('not logged in')));
    subject.attach(adapter('mod'));
    subject.attach(first);
    subject.attach(second);
    subject.attach(broken);
    expect(subject.canTellPlayers(first)).toBe(true);

    expect(await subject.tellPlayer(ALICE, 'queued', 'rcon-b')).toBe(true);
    expect(await subject.tellPlayer(ALICE, 'anywhere')).toBe(true);
    expect(await subject.tellPlayer(ALICE, 'gone', 'no-such-adapter')).toBe(true);
    expect(told).toEqual(['b:queued', `a:${ALICE.steamId ?? ''}:anywhere`, `a:${ALICE.steamId ?? ''}:gone`]);
    expect(await subject.tellPlayer(ALICE, 'refused', 'rcon-broken')).toBe(false);
  });
});
