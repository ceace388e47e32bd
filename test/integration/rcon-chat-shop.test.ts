// The shop typed in game chat (`!shop [search]`, `!buy <n>`) end to end on the rcon adapter: a fake Squad console on
// loopback pushes the player's chat as real packets, this file's own BridgeSink (with a Mod API sink) answers the shop
// calls, and what the player is told is read back as the AdminWarn commands the console received. Covered: the
// numbered listing, the search passed on, `!buy <n>` ordering the n-th listed item's id, a number out of range, `!buy`
// before any listing, the shop not allowed (ordinary chat, no call), a refusal and an unconfirmed order told, and a
// game the adapter cannot whisper to (ordinary chat). "Nothing was ordered" is proven by the whisper that answered the
// line having come (the order would come before it), never by a sleep.
import { afterEach, describe, expect, it } from 'vitest';
import { RconAdapter } from '../../adapters/rcon/rconAdapter.js';
import { ORDER_UNCONFIRMED } from '../../adapters/rcon/chatShop.js';
import { rconOptionsSchema } from '../../adapters/rcon/options.js';
import { RCON_PROFILE_TABLE } from '../../adapters/rcon/profiles/index.js';
import type { ChatShopCommand } from '../../adapters/base/registryTypes.js';
import type { BridgeSink, ModApiSink, MoneyOrigin, MoneyOutcome, PlayerIdentity, ShopQuery } from '../../src/bridge/port.js';
import { CooldownRefusal, RequestNotAllowedRefusal } from '../../src/bridge/errors.js';
import { createLogger } from '../../src/log/logger.js';
import { ALICE, MALLORY } from '../../src/gameEmulator/scriptedChat.js';
import { SourceRconConsole } from '../../src/gameEmulator/sourceRconConsole.js';
import { FakeRustWebRconServer } from '../fixtures/fakeRustWebRconServer.js';
import { patientMs } from '../fixtures/patience.js';

const PASSWORD = 'shop-test-console-pass';
const SHOP: ChatShopCommand = { list: '!shop', buy: '!buy', maxListed: 3 };

/** GSA's shop index as it may come: the items under `data`, one unreadable, one past maxListed. */
const INDEX = {
  identifier: 'gsa-shop-index',
  data: [
    { id: 11, name: 'Starter kit', price: 100 },
    { id: '12', title: 'Sword', cost: '250' },
    { id: 'twelve', name: 'Broken entry' },
    { id: 13, label: 'Metal' },
    { id: 14, name: 'Past the cap', price: 1 },
  ],
};

const cleanups: (() => Promise<unknown>)[] = [];
let logs: string[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + patientMs(10_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; the adapter logged:\n${logs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface ShopCalls {
  readonly lists: { player: PlayerIdentity; query: ShopQuery }[];
  readonly orders: { player: PlayerIdentity; item: number; origin: MoneyOrigin }[];
  readonly chats: string[];
}

interface ShopBehaviour {
  list?: (query: ShopQuery) => Promise<unknown>;
  order?: (item: number) => Promise<MoneyOutcome>;
}

/** This file's sink: every line allowed and recorded; the Mod API sink records the shop calls and answers as told. */
function shopSink(behaviour: ShopBehaviour): { sink: BridgeSink; calls: ShopCalls } {
  const calls: ShopCalls = { lists: [], orders: [], chats: [] };
  const unused = (): Promise<never> => Promise.reject(new Error('not used by the shop'));
  const modApi: ModApiSink = {
    access: unused,
    reportSettings: unused,
    submitReport: unused,
    shopList: (player, query) => {
      calls.lists.push({ player, query });
      return behaviour.list?.(query) ?? Promise.resolve(INDEX);
    },
    shopItem: unused,
    shopOrder: (player, item, origin) => {
      calls.orders.push({ player, item, origin });
      return behaviour.order?.(item) ?? Promise.resolve({ ok: true, state: 'done', message: 'Thank you for your order!' });
    },
    consumeTokens: unused,
    uiSettings: unused,
    uiModal: unused,
  };
  const sink: BridgeSink = {
    serverName: 'ovddykvbs',
    chat: (_player, _channel, text) => {
      calls.chats.push(text);
      return Promise.resolve({ allow: true, reason: 'ok' });
    },
    checkMute: () => Promise.resolve({ muted: false, source: 'service' }),
    submitReview: () => Promise.resolve(),
    playerJoined: () => undefined,
    playerLeft: () => undefined,
    serverAction: () => Promise.resolve({ ok: true, status: 200, message: 'ok' }),
    modApi,
  };
  return { sink, calls };
}

interface ShopRig {
  readonly game: SourceRconConsole;
  readonly calls: ShopCalls;
  /** What Alice was told, in order (the text of each AdminWarn to her EOS id). */
  readonly told: () => string[];
}

async function startSquadShop(options: { behaviour?: ShopBehaviour; shop?: () => ChatShopCommand | undefined } = {}): Promise<ShopRig> {
  logs = [];
  const game = await SourceRconConsole.start({ game: 'squad', password: PASSWORD, players: [ALICE, MALLORY], writeMode: 'split' });
  cleanups.push(() => game.close());
  const logger = createLogger({ level: 'debug', secrets: [PASSWORD], destination: { write: (line: string) => logs.push(line) } });
  const rconOptions = rconOptionsSchema.parse({ type: 'rcon', profile: 'squad', port: game.port, password: PASSWORD, pollPlayersMs: 60_000 });
  const adapter = new RconAdapter({ id: 'squad-shop', options: rconOptions, profile: RCON_PROFILE_TABLE.squad, logger, shopCommand: options.shop ?? (() => SHOP) });
  cleanups.push(() => adapter.stop());
  const { sink, calls } = shopSink(options.behaviour ?? {});
  await adapter.start(sink);
  await until(() => adapter.ready && game.commands.includes('ListPlayers'), 'the login and the first ListPlayers');
  const prefix = `AdminWarn "${ALICE.eosId}" `;
  const told = (): string[] => game.commands.filter((command) => command.startsWith(prefix)).map((command) => command.slice(prefix.length));
  return { game, calls, told };
}

describe('the shop typed in chat (squad: whispers are AdminWarn)', () => {
  it('!shop whispers the first maxListed readable items, numbered, with how to buy; the line is not chat', async () => {
    const shop = await startSquadShop();
    shop.game.say(ALICE, '!SHOP');
    await until(() => shop.told().length === 1, 'the listing');
    expect(shop.told()).toEqual(['1) Starter kit (100) / 2) Sword (250) / 3) Metal / Type !buy <n> to order.']);
    expect(shop.calls.lists).toEqual([{ player: expect.objectContaining({ eosId: ALICE.eosId }) as unknown, query: { search: undefined } }]);
    expect(shop.calls.chats).toEqual([]);
  });

  it('!shop <search> passes the search on', async () => {
    const shop = await startSquadShop({ behaviour: { list: () => Promise.resolve({ data: { data: [{ id: 12, name: 'Sword' }] } }) } });
    shop.game.say(ALICE, '!shop  sword ');
    await until(() => shop.told().length === 1, 'the listing');
    expect(shop.calls.lists.map((call) => call.query)).toEqual([{ search: 'sword' }]);
    expect(shop.told()).toEqual(['1) Sword / Type !buy <n> to order.']);
  });

  it("!buy 2 orders the 2nd listed item's id (the unreadable entry skipped) and whispers GSA's message", async () => {
    const shop = await startSquadShop();
    shop.game.say(ALICE, '!shop');
    await until(() => shop.told().length === 1, 'the listing');
    shop.game.say(ALICE, '!buy 2');
    await until(() => shop.told().length === 2, 'the outcome');
    expect(shop.calls.orders).toEqual([{ player: expect.objectContaining({ eosId: ALICE.eosId }) as unknown, item: 12, origin: { adapter: 'squad-shop' } }]);
    expect(shop.told()[1]).toBe('Thank you for your order!');
  });

  it('!buy out of range, or not a number, whispers how to use it and orders nothing', async () => {
    const shop = await startSquadShop();
    shop.game.say(ALICE, '!shop');
    await until(() => shop.told().length === 1, 'the listing');
    shop.game.say(ALICE, '!buy 9');
    await until(() => shop.told().length === 2, 'the answer to !buy 9');
    shop.game.say(ALICE, '!buy two');
    await until(() => shop.told().length === 3, 'the answer to !buy two');
    expect(shop.told().slice(1)).toEqual(['Choose a number from 1 to 3 of your last !shop list: !buy <n>.', 'Usage: !buy <n>, with n from your last !shop list.']);
    expect(shop.calls.orders).toEqual([]);
  });

  it('!buy before any !shop orders nothing', async () => {
    const shop = await startSquadShop();
    shop.game.say(ALICE, '!buy 1');
    await until(() => shop.told().length === 1, 'the answer');
    expect(shop.told()).toEqual(['Type !shop first to see the items, then !buy <n> to order one.']);
    expect(shop.calls.orders).toEqual([]);
    expect(shop.calls.lists).toEqual([]);
  });

  it("a listing is the player's own: another player's !buy does not reach it", async () => {
    const shop = await startSquadShop();
    shop.game.say(ALICE, '!shop');
    await until(() => shop.told().length === 1, "Alice's listing");
    shop.game.say(MALLORY, '!buy 1');
    const toMallory = `AdminWarn "${MALLORY.eosId}" `;
    await until(() => shop.game.commands.some((command) => command.startsWith(toMallory)), "Mallory's answer");
    expect(shop.calls.orders).toEqual([]);
  });

  it('while the server does not allow the shop, !shop is ordinary chat: no shop call', async () => {
    const shop = await startSquadShop({ shop: () => undefined });
    shop.game.say(ALICE, '!shop');
    shop.game.say(ALICE, '!buy 1');
    await until(() => shop.calls.chats.length === 2, 'both lines judged as chat');
    expect(shop.calls.chats).toEqual(['!shop', '!buy 1']);
    expect(shop.calls.lists).toEqual([]);
    expect(shop.calls.orders).toEqual([]);
  });

  it('reads the configured words, and takes no longer word for them', async () => {
    const shop = await startSquadShop({ shop: () => ({ list: '!store', buy: '!get', maxListed: 1 }) });
    shop.game.say(ALICE, '!shop');
    shop.game.say(ALICE, '!storefront');
    shop.game.say(ALICE, '!store');
    await until(() => shop.told().length === 1, 'the listing');
    expect(shop.told()).toEqual(['1) Starter kit (100) / Type !get <n> to order.']);
    expect(shop.calls.chats).toEqual(['!shop', '!storefront']);
  });

  it('a refusal is whispered (the shop not allowed, a cooldown), never a crash', async () => {
    let refusal: Error = new RequestNotAllowedRefusal('this server does not allow the shop');
    const shop = await startSquadShop({ behaviour: { list: () => Promise.reject(refusal) } });
    shop.game.say(ALICE, '!shop');
    await until(() => shop.told().length === 1, 'the refusal');
    refusal = new CooldownRefusal('slow down');
    shop.game.say(ALICE, '!shop');
    await until(() => shop.told().length === 2, 'the cooldown');
    expect(shop.told()).toEqual(['The shop is not open on this server.', 'Please wait a moment before using the shop again.']);
  });

  it('an unconfirmed order is whispered as such: sent, answer lost, not sent again', async () => {
    const shop = await startSquadShop({ behaviour: { order: () => Promise.resolve({ ok: false, state: 'unconfirmed' }) } });
    shop.game.say(ALICE, '!shop');
    await until(() => shop.told().length === 1, 'the listing');
    shop.game.say(ALICE, '!buy 1');
    await until(() => shop.told().length === 2, 'the outcome');
    expect(shop.calls.orders.map((order) => order.item)).toEqual([11]);
    expect(shop.told()[1]).toBe(ORDER_UNCONFIRMED);
  });

  it("a refused order is whispered with GSA's words", async () => {
    const shop = await startSquadShop({ behaviour: { order: () => Promise.resolve({ ok: false, state: 'refused', message: 'Not enough credit "here" | ok' }) } });
    shop.game.say(ALICE, '!shop');
    await until(() => shop.told().length === 1, 'the listing');
    shop.game.say(ALICE, '!buy 3');
    await until(() => shop.told().length === 2, 'the outcome');
    // Through the adapter's tell: cleaned like every text placed into a command.
    expect(shop.told()[1]).toBe("Order not placed: Not enough credit 'here' ok");
  });
});

describe('a game the adapter cannot whisper to', () => {
  it('rust without notifyCommand: !shop is ordinary chat, no shop call', async () => {
    logs = [];
    const rust = await FakeRustWebRconServer.start({ password: PASSWORD, players: [{ steamId: ALICE.steamId, name: ALICE.name }] });
    cleanups.push(() => rust.stop());
    const logger = createLogger({ level: 'debug', secrets: [PASSWORD], destination: { write: (line: string) => logs.push(line) } });
    const options = rconOptionsSchema.parse({ type: 'rcon', profile: 'rust', port: rust.port, password: PASSWORD, pollPlayersMs: 60_000 });
    const adapter = new RconAdapter({ id: 'rust-shop', options, profile: RCON_PROFILE_TABLE.rust, logger, shopCommand: () => SHOP });
    cleanups.push(() => adapter.stop());
    const { sink, calls } = shopSink({});
    await adapter.start(sink);
    await until(() => adapter.ready, 'the login');
    rust.pushChat({ message: '!shop', userId: ALICE.steamId, username: ALICE.name });
    await until(() => calls.chats.length === 1, 'the line judged as chat');
    expect(calls.chats).toEqual(['!shop']);
    expect(calls.lists).toEqual([]);
  });
});
