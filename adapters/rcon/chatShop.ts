// The shop typed in game chat, for a game the adapter can whisper to: `!shop [search]` asks GSA's shop index (through
// the bridge's Mod API sink, which holds the host's secret and checks `allowRequests`) and whispers the first items
// numbered from 1; `!buy <n>` orders the n-th item of that player's last listing and whispers its fate. Listings are
// remembered per player (bounded, and forgotten after a quarter of an hour), so a number always means what that
// player was shown.
// It must never order anything but the item the player's own last listing numbered, never send an order twice (the
// bridge records and sends it once; one request per player is in flight at a time here), never let a refusal or a
// broken answer escape as a crash, and never whisper around the adapter's tell (which cleans every text).

import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import { BridgeRefusal, type ModApiSink, type MoneyOutcome, type PlayerIdentity } from '../../src/bridge/port.js';
import { playerKeyOf } from '../../src/ids/playerIds.js';
import type { Clock } from '../../src/time/clock.js';
import type { ChatShopCommand } from '../base/registryTypes.js';
import { cutToCodePoints } from './commandText.js';
import { parseShopCommand } from './shopChatCommand.js';
import { readShopItems, type ShopItem } from './shopListing.js';

export interface ChatShopOptions {
  /** The adapter's id: an order's origin (`orders list` shows it), and log lines. */
  readonly adapterId: string;
  /** Whispers to one player through the adapter's tell (it cleans the text); never rejects. */
  readonly tell: (player: PlayerIdentity, text: string) => Promise<void>;
  readonly logger: Logger;
  /** The clock listings expire on. @default performance.now() */
  readonly clock?: Clock | undefined;
}

/** Players whose last listing is remembered, and for how long. */
const MAX_LISTINGS = 1_000;
const LISTING_TTL_MS = 15 * 60_000;
/** Longest whisper this file builds, and longest item name in it: a chat box shows a line or two. */
const MAX_WHISPER_LENGTH = 100;
const MAX_NAME_LENGTH = 40;

// The player's words hold no `;`, `|` or `"`: the tell's cleaning would change them (a `;` becomes `,`).
/** Said to the player when their order's answer was lost (MoneyOutcome `unconfirmed`). */
export const ORDER_UNCONFIRMED = 'Your order was sent but its answer was lost. It will not be sent again: ask an admin to check it.';
export const SHOP_UNREACHABLE = 'The shop cannot be reached right now. Please try again later.';

/** What the player is told when the bridge refused their shop request before anything was sent. */
function refusalText(error: BridgeRefusal): string {
  switch (error.code) {
    case 'request_not_allowed':
      return 'The shop is not open on this server.';
    case 'cooldown':
      return 'Please wait a moment before using the shop again.';
    case 'unavailable':
      return SHOP_UNREACHABLE;
    case 'bad_input':
      return `The shop cannot take that: ${error.message}`;
    default:
      return 'The shop cannot take that right now.';
  }
}

function outcomeText(outcome: MoneyOutcome, item: ShopItem): string {
  const message = outcome.message?.trim();
  const said = message === undefined || message.length === 0 ? undefined : message;
  switch (outcome.state) {
    case 'done':
      return said ?? `Order placed: ${shortName(item.name)}. Thank you!`;
    case 'refused':
      return `Order not placed: ${said ?? 'the shop refused it.'}`;
    case 'unconfirmed':
      return ORDER_UNCONFIRMED;
  }
}

function shortName(name: string): string {
  const cut = cutToCodePoints(name, MAX_NAME_LENGTH);
  return cut === name ? name : `${cutToCodePoints(name, MAX_NAME_LENGTH - 3).trimEnd()}...`;
}

/** `1) Starter kit (100)`. */
function itemText(number: number, item: ShopItem): string {
  return `${number}) ${shortName(item.name)}${item.price === undefined ? '' : ` (${item.price})`}`;
}

/** Segments joined into whispers of at most MAX_WHISPER_LENGTH characters (a longer segment goes alone). */
function packWhispers(segments: readonly string[]): string[] {
  const whispers: string[] = [];
  let current = '';
  for (const segment of segments) {
    const joined = current.length === 0 ? segment : `${current} / ${segment}`;
    if (current.length > 0 && joined.length > MAX_WHISPER_LENGTH) {
      whispers.push(current);
      current = segment;
    } else {
      current = joined;
    }
  }
  if (current.length > 0) whispers.push(current);
  return whispers;
}

export class ChatShop {
  readonly #config: ChatShopOptions;
  /** Each player's last listing, by the project's player key: what `!buy <n>` numbers. */
  readonly #listings: LRUCache<string, readonly ShopItem[]>;
  /** Players with a shop request in flight, and whether they were told to wait for it. */
  readonly #busy = new Map<string, { told: boolean }>();

  constructor(config: ChatShopOptions) {
    this.#config = config;
    this.#listings = new LRUCache<string, readonly ShopItem[]>({
      max: MAX_LISTINGS,
      ttl: LISTING_TTL_MS,
      ttlAutopurge: false,
      ...(config.clock === undefined ? {} : { perf: config.clock, ttlResolution: 0 }),
    });
  }

  /**
   * Takes the line when it is a shop command: true, and the request goes on in the background (a GSA call must not
   * hold up the other players' chat read after it); false for ordinary chat.
   */
  take(modApi: ModApiSink, player: PlayerIdentity, text: string, command: ChatShopCommand): boolean {
    const parsed = parseShopCommand(text, command);
    if (parsed.kind === 'not-command') return false;
    const key = playerKeyOf(player);
    if (key === undefined) {
      void this.#config.tell(player, 'The shop cannot tell who you are yet. Please try again in a moment.');
      return true;
    }
    const busy = this.#busy.get(key);
    if (busy !== undefined) {
      // One request per player at a time: a second `!buy` typed before the first one's answer orders nothing.
      if (!busy.told) {
        busy.told = true;
        void this.#config.tell(player, 'One moment: your last shop request is still being answered.');
      }
      return true;
    }
    this.#busy.set(key, { told: false });
    const work = (async () => {
      switch (parsed.kind) {
        case 'list':
          await this.#list(modApi, player, key, parsed.search, command);
          return;
        case 'buy':
          await this.#buy(modApi, player, key, parsed.index, command);
          return;
        case 'buy-usage':
          await this.#config.tell(player, `Usage: ${command.buy} <n>, with n from your last ${command.list} list.`);
          return;
      }
    })();
    work
      .catch((error: unknown) => {
        this.#config.logger.error({ err: error }, 'a shop command typed in chat could not be handled');
      })
      .finally(() => {
        this.#busy.delete(key);
      });
    return true;
  }

  async #list(modApi: ModApiSink, player: PlayerIdentity, key: string, search: string | undefined, command: ChatShopCommand): Promise<void> {
    let answer: unknown;
    try {
      answer = await modApi.shopList(player, { search });
    } catch (error) {
      await this.#tellFailure(player, error, 'a shop listing');
      return;
    }
    const items = readShopItems(answer).slice(0, Math.max(1, command.maxListed));
    if (items.length === 0) {
      this.#listings.delete(key);
      await this.#config.tell(player, search === undefined ? 'The shop has no items right now.' : `No shop items match '${search}'.`);
      return;
    }
    this.#listings.set(key, items);
    const segments = [...items.map((item, index) => itemText(index + 1, item)), `Type ${command.buy} <n> to order.`];
    // In order, one after another: the numbers must read top to bottom.
    for (const whisper of packWhispers(segments)) await this.#config.tell(player, whisper);
  }

  async #buy(modApi: ModApiSink, player: PlayerIdentity, key: string, index: number, command: ChatShopCommand): Promise<void> {
    const items = this.#listings.get(key);
    if (items === undefined) {
      await this.#config.tell(player, `Type ${command.list} first to see the items, then ${command.buy} <n> to order one.`);
      return;
    }
    const item = items[index - 1];
    if (item === undefined) {
      await this.#config.tell(player, `Choose a number from 1 to ${items.length} of your last ${command.list} list: ${command.buy} <n>.`);
      return;
    }
    let outcome: MoneyOutcome;
    try {
      outcome = await modApi.shopOrder(player, item.id, { adapter: this.#config.adapterId });
    } catch (error) {
      await this.#tellFailure(player, error, 'a shop order');
      return;
    }
    await this.#config.tell(player, outcomeText(outcome, item));
  }

  /** A refusal is told as such; anything else is logged (it is a fault) and told as "cannot be reached". */
  async #tellFailure(player: PlayerIdentity, error: unknown, what: string): Promise<void> {
    if (error instanceof BridgeRefusal) {
      this.#config.logger.debug({ code: error.code }, `${what} typed in chat was refused`);
      await this.#config.tell(player, refusalText(error));
      return;
    }
    this.#config.logger.error({ err: error }, `${what} typed in chat failed`);
    await this.#config.tell(player, SHOP_UNREACHABLE);
  }
}
