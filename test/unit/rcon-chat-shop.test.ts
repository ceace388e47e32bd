// The shop typed in game chat, without a game: the tolerant reader of GSA's shop index (shopListing.ts), the parser of
// `!shop [search]` / `!buy <n>` (shopChatCommand.ts), and ChatShop's memory (one listing per player, forgotten after a
// quarter of an hour on an injected clock, at most 1,000 players) and its one-request-per-player rule, with this file's
// own Mod API sink. Every outcome is awaited through the whisper it causes (the sink answers at once).
import { describe, expect, it } from 'vitest';
import { ChatShop } from '../../adapters/rcon/chatShop.js';
import { MAX_SEARCH_LENGTH, parseShopCommand } from '../../adapters/rcon/shopChatCommand.js';
import { readShopItems } from '../../adapters/rcon/shopListing.js';
import type { ChatShopCommand } from '../../adapters/base/registryTypes.js';
import type { ModApiSink, MoneyOutcome, PlayerIdentity } from '../../src/bridge/port.js';
import { silentLogger } from '../../src/log/logger.js';

describe('readShopItems: tolerant of where GSA puts the items and how it names them', () => {
  const items = [{ id: 1, name: 'Kit', price: 5 }];
  it.each([
    ['data', { data: items }],
    ['data.data', { data: { data: items } }],
    ['items', { items }],
    ['packs', { packs: items }],
    ['the answer itself', items],
  ])('reads the items from %s', (_where, answer) => {
    expect(readShopItems(answer)).toEqual([{ id: 1, name: 'Kit', price: '5' }]);
  });

  it('takes title or label for the name, a digit string for the id, cost for the price', () => {
    expect(readShopItems({ data: [{ id: '7', title: ' Sword ', cost: '250' }, { id: 8, label: 'Metal' }] })).toEqual([
      { id: 7, name: 'Sword', price: '250' },
      { id: 8, name: 'Metal' },
    ]);
  });

  it('skips what it cannot read, and never throws', () => {
    const odd = [null, 3, 'x', [], { id: -1, name: 'neg' }, { id: 1.5, name: 'frac' }, { id: '1e3', name: 'exp' }, { id: 2 }, { name: 'no id' }, { id: 3, name: '   ' }, { id: 4, name: 'ok', price: {} }];
    expect(readShopItems({ data: odd })).toEqual([{ id: 4, name: 'ok' }]);
    for (const answer of [undefined, null, 'text', 42, {}, { data: 'x' }, { data: null }, { data: [] }, Object.create(null) as object]) {
      expect(readShopItems(answer)).toEqual([]);
    }
  });

  it('looks past an array that holds no item (categories) to the one that does', () => {
    expect(readShopItems({ data: [{ category: 'x' }], items: [{ id: 9, name: 'Nine' }] })).toEqual([{ id: 9, name: 'Nine' }]);
  });
});

describe('parseShopCommand', () => {
  const words = { list: '!shop', buy: '!buy' };
  it('reads the list word with and without a search, in any case', () => {
    expect(parseShopCommand('!shop', words)).toEqual({ kind: 'list' });
    expect(parseShopCommand('  !SHOP   big sword  ', words)).toEqual({ kind: 'list', search: 'big sword' });
    expect(parseShopCommand(`!shop ${'x'.repeat(500)}`, words)).toEqual({ kind: 'list', search: 'x'.repeat(MAX_SEARCH_LENGTH) });
  });

  it('reads !buy <n>, and anything else after !buy as usage', () => {
    expect(parseShopCommand('!buy 2', words)).toEqual({ kind: 'buy', index: 2 });
    expect(parseShopCommand('!Buy 02 ', words)).toEqual({ kind: 'buy', index: 2 });
    for (const line of ['!buy', '!buy 0', '!buy two', '!buy 2.5', '!buy 2 3', '!buy -1', '!buy 99999']) {
      expect(parseShopCommand(line, words)).toEqual({ kind: 'buy-usage' });
    }
  });

  it('takes no longer word, nor a word later in the line, for a command', () => {
    for (const line of ['!shopping', '!buyer 2', 'hey !shop', 'shop', '']) expect(parseShopCommand(line, words)).toEqual({ kind: 'not-command' });
  });
});

const ALICE: PlayerIdentity = { steamId: '76561198000000001', name: 'Alice' };
const COMMAND: ChatShopCommand = { list: '!shop', buy: '!buy', maxListed: 5 };

interface Harness {
  readonly shop: ChatShop;
  readonly modApi: ModApiSink;
  readonly told: string[];
  readonly orders: number[];
  /** The listings' clock: moved by hand. */
  readonly clock: { at: number; now(): number };
  /** Lets every request whose sink call already answered finish (the sink here answers at once). */
  settle(): Promise<void>;
}

function harness(order: (item: number) => Promise<MoneyOutcome> = () => Promise.resolve({ ok: true, state: 'done' })): Harness {
  const told: string[] = [];
  const orders: number[] = [];
  const unused = (): Promise<never> => Promise.reject(new Error('unused'));
  const modApi: ModApiSink = {
    access: unused,
    reportSettings: unused,
    submitReport: unused,
    shopList: () => Promise.resolve({ data: [{ id: 11, name: 'Kit' }, { id: 12, name: 'Sword' }] }),
    shopItem: unused,
    shopOrder: (_player, item) => {
      orders.push(item);
      return order(item);
    },
    consumeTokens: unused,
    uiSettings: unused,
    uiModal: unused,
  };
  const clock = {
    // Not 0: lru-cache takes a start time of 0 for "no TTL".
    at: 1_000_000,
    now(): number {
      return this.at;
    },
  };
  const tell = (_player: PlayerIdentity, text: string): Promise<void> => {
    told.push(text);
    return Promise.resolve();
  };
  const shop = new ChatShop({ adapterId: 'unit', tell, logger: silentLogger(), clock });
  return { shop, modApi, told, orders, clock, settle: () => new Promise((resolve) => setImmediate(resolve)) };
}

describe('ChatShop: listings per player, one request at a time', () => {
  it('forgets a listing after 15 minutes: !buy then asks for !shop again, and orders nothing', async () => {
    const h = harness();
    expect(h.shop.take(h.modApi, ALICE, '!shop', COMMAND)).toBe(true);
    await h.settle();
    h.clock.at += 15 * 60_000 - 1;
    h.shop.take(h.modApi, ALICE, '!buy 1', COMMAND);
    await h.settle();
    expect(h.orders).toEqual([11]);
    h.clock.at += 15 * 60_000 + 1;
    h.shop.take(h.modApi, ALICE, '!buy 2', COMMAND);
    await h.settle();
    expect(h.orders).toEqual([11]);
    expect(h.told.at(-1)).toBe('Type !shop first to see the items, then !buy <n> to order one.');
  });

  it('keeps at most 1,000 listings: the player listed longest ago is forgotten first', async () => {
    const h = harness();
    const player = (n: number): PlayerIdentity => ({ steamId: `7656119800${String(n).padStart(7, '0')}` });
    for (let n = 0; n <= 1_000; n++) {
      h.shop.take(h.modApi, player(n), '!shop', COMMAND);
      await h.settle();
    }
    h.shop.take(h.modApi, player(0), '!buy 1', COMMAND);
    h.shop.take(h.modApi, player(1), '!buy 2', COMMAND);
    await h.settle();
    expect(h.orders).toEqual([12]);
  });

  it('a second !buy while the first order is in flight orders nothing and is answered once', async () => {
    let answer: (outcome: MoneyOutcome) => void = () => undefined;
    const h = harness(() => new Promise((resolve) => (answer = resolve)));
    h.shop.take(h.modApi, ALICE, '!shop', COMMAND);
    await h.settle();
    const listed = h.told.length;
    h.shop.take(h.modApi, ALICE, '!buy 1', COMMAND);
    await h.settle();
    expect(h.shop.take(h.modApi, ALICE, '!buy 1', COMMAND)).toBe(true);
    expect(h.shop.take(h.modApi, ALICE, '!buy 2', COMMAND)).toBe(true);
    await h.settle();
    expect(h.orders).toEqual([11]);
    expect(h.told.slice(listed)).toEqual(['One moment: your last shop request is still being answered.']);
    answer({ ok: true, state: 'done', message: 'Thanks!' });
    await h.settle();
    expect(h.told.at(-1)).toBe('Thanks!');
    // Free again once answered.
    h.shop.take(h.modApi, ALICE, '!buy 2', COMMAND);
    await h.settle();
    expect(h.orders).toEqual([11, 12]);
  });

  it('a player with no id is told so and nothing is asked; ordinary chat is not taken', async () => {
    const h = harness();
    expect(h.shop.take(h.modApi, { name: 'Nobody' }, '!shop', COMMAND)).toBe(true);
    expect(h.shop.take(h.modApi, ALICE, 'hello !shop', COMMAND)).toBe(false);
    await h.settle();
    expect(h.told).toEqual(['The shop cannot tell who you are yet. Please try again in a moment.']);
  });

  it('a fault in the sink (not a refusal) is told as unreachable, and the player is free again', async () => {
    const h = harness(() => Promise.reject(new Error('socket hang up')));
    h.shop.take(h.modApi, ALICE, '!shop', COMMAND);
    await h.settle();
    h.shop.take(h.modApi, ALICE, '!buy 1', COMMAND);
    await h.settle();
    expect(h.told.at(-1)).toBe('The shop cannot be reached right now. Please try again later.');
    h.shop.take(h.modApi, ALICE, '!buy 1', COMMAND);
    await h.settle();
    expect(h.orders).toEqual([11, 11]);
  });
});
