// GSA's Mod API v2 features end to end: a real sidecar (startSidecar) with a real mod WebSocket against the emulator.
// A mod asks for a player's access, the report form, sends a report (queued, then GSA has it exactly as sent),
// reads the UI settings, and is refused what the server's allowRequests does not name (forbidden, the key named).
// With shop and tokens allowed, an order spends the player's credit once; a second one within the cooldown is
// refused; an order whose answer is lost after GSA processed it is `unconfirmed`, recorded, and never sent again.
// With access.enforce, a mod's player.join of a player GSA does not allow is answered unasked. No frame ever holds
// the host's secret.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/app/config.js';
import { BridgeEvents, type AccessEvent, type MoneyEvent } from '../../src/bridge/events.js';
import { silentLogger } from '../../src/log/logger.js';
import { startSidecar } from '../../src/sidecar.js';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { PATIENT_DECISION_TIMEOUT_MS } from '../fixtures/patience.js';
import { modListenerPort } from '../fixtures/sidecarHarness.js';
import { emulatorWorld } from '../fixtures/emulatorWorld.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'mod-api-token';
const ALICE = '76561198000000101';
const MALLORY = '76561198000000666';

const world = emulatorWorld(SERVER);
const { sidecars, sockets } = world;

interface Start {
  readonly allowRequests?: string[];
  readonly access?: Record<string, unknown>;
  readonly events?: BridgeEvents;
  readonly dataDir?: string;
  readonly orderCooldownMs?: number;
}

async function start(options: Start = {}): Promise<{ socket: ModSocket; dataDir: string }> {
  const dataDir = options.dataDir ?? (await tempDir('mod-api'));
  const config = parseConfig(
    {
      api: { baseUrl: world.emulator.url, clientId: world.emulator.clientId, clientSecret: world.emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
      servers: [
        {
          name: SERVER,
          id: 4711,
          ...(options.allowRequests === undefined ? {} : { allowRequests: options.allowRequests }),
          ...(options.access === undefined ? {} : { access: options.access }),
          adapters: [{ type: 'websocket', port: 0, token: TOKEN }],
        },
      ],
      reviews: { dataDir },
      shop: { orderCooldownMs: options.orderCooldownMs ?? 10_000 },
      mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS },
    },
    {},
  );
  const sidecar = await startSidecar(config, { logger: silentLogger(), events: options.events });
  sidecars.push(sidecar);
  const socket = await connectMod(`ws://127.0.0.1:${String(modListenerPort(sidecar))}/`, TOKEN);
  sockets.push(socket);
  await socket.waitFor((frame) => frame.type === 'welcome');
  return { socket, dataDir };
}

function ask(socket: ModSocket, frame: Record<string, unknown>, replyType: string): Promise<Record<string, unknown>> {
  socket.send(frame);
  return socket.waitFor((reply) => (reply.type === replyType || reply.type === 'error') && reply.id === frame.id);
}

describe('the Mod API v2 through the sidecar', () => {
  it('answers access, the report form, a report and the UI settings by default, and forbids the shop', async () => {
    const events = new BridgeEvents();
    const decisions: AccessEvent['decision'][] = [];
    events.on('access', (event) => decisions.push(event.decision));
    world.emulator.setAccess(MALLORY, { allowed: false, message: 'You are not on the whitelist' });
    const { socket } = await start({ events });

    expect(await ask(socket, { type: 'player.access', id: 'a1', player: { steam_id: ALICE } }, 'player.access.result')).toMatchObject({
      allowed: true,
      roles: {},
      source: 'service',
      player: { steam_id: ALICE },
    });
    expect(await ask(socket, { type: 'player.access', id: 'a2', player: { steam_id: ALICE } }, 'player.access.result')).toMatchObject({ allowed: true, source: 'cache' });
    expect(await ask(socket, { type: 'player.access', id: 'a3', player: { steam_id: MALLORY } }, 'player.access.result')).toMatchObject({
      allowed: false,
      message: 'You are not on the whitelist',
    });
    expect(decisions).toEqual(['allow', 'allow', 'deny']);

    const settings = await ask(socket, { type: 'report.settings', id: 's1', player: { steam_id: ALICE } }, 'report.settings.result');
    expect(settings.title).toEqual(expect.any(String));
    const players = settings.players as { user_id: number }[];
    const types = settings.types as { id: number | string }[];
    expect(players.every((player) => player.user_id !== 0)).toBe(true);
    const reported = players[0]!.user_id;
    const type = types[0]!.id;

    const comment = 'He flies over the walls.\u0007 ünïcödé';
    socket.send({ type: 'report', id: 'r1', player: { steam_id: ALICE }, character_id: 1234, coords: 'X_120 Y_-45.5 Z_789', report_type: type, reported_player: reported, comment });
    await socket.waitFor((frame) => frame.type === 'report.queued' && frame.id === 'r1');
    expect(await socket.waitFor((frame) => frame.type === 'report.result' && frame.id === 'r1')).toMatchObject({ ok: true });
    expect(world.emulator.reports).toEqual([
      expect.objectContaining({ server: SERVER, steamId: ALICE, characterId: 1234, coords: 'X_120 Y_-45.5 Z_789', type: String(type), reportedPlayer: reported, comment: 'He flies over the walls. ünïcödé' }),
    ]);

    const ui = await ask(socket, { type: 'ui.settings', id: 'u1' }, 'ui.settings.result');
    expect(ui.data).toMatchObject({ identifier: 'gsamod-settings' });
    await ask(socket, { type: 'ui.settings', id: 'u2' }, 'ui.settings.result');
    expect(world.emulator.calls.filter((call) => call.endpoint === 'ui')).toHaveLength(1);

    const forbidden = await ask(socket, { type: 'shop.list', id: 'sh1', player: { steam_id: ALICE } }, 'shop.list.result');
    expect(forbidden).toMatchObject({ type: 'error', code: 'forbidden' });
    expect(forbidden.message).toContain('allowRequests');
    expect(await ask(socket, { type: 'token.consume', id: 't1', player: { steam_id: ALICE }, amount: 1 }, 'token.consume.result')).toMatchObject({ type: 'error', code: 'forbidden' });
    expect(world.emulator.orders()).toEqual([]);
    expect(JSON.stringify(socket.received)).not.toContain(world.emulator.clientSecret);
  });

  it('moves money once: an order spends the credit, a second within the cooldown is refused, a lost answer is unconfirmed and never resent', async () => {
    const events = new BridgeEvents();
    const money: MoneyEvent['state'][] = [];
    events.on('money', (event) => money.push(event.state));
    const { socket, dataDir } = await start({ allowRequests: ['shop', 'tokens'], events });
    const list = await ask(socket, { type: 'shop.list', id: 'l1', player: { steam_id: ALICE } }, 'shop.list.result');
    const items = (list.data as { data: { id: number; price: number }[] }).data;
    const item = items[0]!;
    const before = world.emulator.wallet(ALICE).credit;

    expect(await ask(socket, { type: 'shop.order', id: 'o1', player: { steam_id: ALICE }, item: item.id }, 'shop.order.result')).toMatchObject({ ok: true, state: 'done' });
    expect(world.emulator.wallet(ALICE).credit).toBe(before - item.price);
    expect(await ask(socket, { type: 'shop.order', id: 'o2', player: { steam_id: ALICE }, item: item.id }, 'shop.order.result')).toMatchObject({ type: 'error', code: 'rate_limited' });

    // Bob's order reaches GSA and is processed, but the connection drops before the answer.
    const BOB = '76561198000000202';
    world.emulator.injectFault({ kind: 'drop', endpoint: 'shop-order', afterProcessing: true, count: 1 });
    const lost = await ask(socket, { type: 'shop.order', id: 'o3', player: { steam_id: BOB }, item: item.id }, 'shop.order.result');
    expect(lost).toMatchObject({ ok: false, state: 'unconfirmed' });
    // Alice's cooldown covers token spends too; Carol's spend goes through.
    expect(await ask(socket, { type: 'token.consume', id: 't0', player: { steam_id: ALICE }, amount: 3 }, 'token.consume.result')).toMatchObject({ type: 'error', code: 'rate_limited' });
    const CAROL = '76561198000000303';
    const tokens = world.emulator.wallet(CAROL).tokens;
    expect(await ask(socket, { type: 'token.consume', id: 't1', player: { steam_id: CAROL }, amount: 3 }, 'token.consume.result')).toMatchObject({ ok: true, state: 'done' });
    expect(world.emulator.wallet(CAROL).tokens).toBe(tokens - 3);
    await Promise.all(sidecars.splice(0).map((sidecar) => sidecar.stop()));

    expect(world.emulator.orders().map((order) => ({ steamId: order.steamId, processed: order.processed }))).toEqual([
      { steamId: ALICE, processed: true },
      { steamId: BOB, processed: true },
    ]);
    expect(money).toEqual(['done', 'unconfirmed', 'done']);
    const ledger = await readFile(join(dataDir, 'orders.jsonl'), 'utf8');
    expect(ledger).toContain('unconfirmed');
    expect(ledger).not.toContain(world.emulator.clientSecret);

    // A restart sends nothing again.
    await start({ allowRequests: ['shop', 'tokens'], dataDir });
    expect(world.emulator.orders()).toHaveLength(2);
  });

  it("answers a mod's player.join of a player GSA does not allow, unasked, when access is enforced", async () => {
    world.emulator.setAccess(MALLORY, { allowed: false, message: 'You are not on the whitelist' });
    const { socket } = await start({ access: { enforce: true } });
    socket.send({ type: 'player.join', player: { steam_id: ALICE, name: 'Alice' } });
    socket.send({ type: 'player.join', player: { steam_id: MALLORY, name: 'Mallory' } });
    const refusal = await socket.waitFor((frame) => frame.type === 'player.access.result');
    expect(refusal).toMatchObject({ player: { steam_id: MALLORY }, allowed: false, message: 'You are not on the whitelist' });
    expect(refusal.id).toBeUndefined();
    // Alice's check was made too (both joins reached GSA's access check) and told nothing.
    await expect.poll(() => world.emulator.calls.filter((call) => call.endpoint === 'access').length).toBe(2);
    expect(socket.received.filter((frame) => frame.type === 'player.access.result')).toHaveLength(1);
  });
});
