/**
 * The emulator's shop and token bank: each server's catalogue, each player's credit and tokens, and a record of every
 * shop order and token spend that arrived (faulted, refused and unanswered ones included), so a test can tell an order
 * that was paid from one that was never processed, and count how often a client sent it.
 * Must never do I/O or know about HTTP, and must never spend credit or tokens outside `order` and `spend` (each spends
 * at most once per call).
 */
import type { PlayerRef } from './featureState.js';

/** One pack of a catalogue; `name` is what the index's search matches, `category` what its filter matches. */
export interface ShopItem {
  readonly id: number;
  readonly name: string;
  readonly price: number;
  readonly description: string;
  readonly category: string;
}

export const DEFAULT_CATALOGUE: readonly ShopItem[] = Object.freeze([
  { id: 1, name: 'Starter kit', price: 100, description: 'A pick, a hatchet, cloth armour and twenty berries.', category: 'kits' },
  { id: 2, name: 'Metal tools', price: 250, description: 'A metal pick, a metal hatchet and a sickle.', category: 'tools' },
  { id: 3, name: 'Saddle bundle', price: 400, description: 'Three saddles for the common mounts.', category: 'kits' },
  { id: 4, name: 'Generator and fuel', price: 900, description: 'A generator with fifty units of fuel.', category: 'structures' },
  { id: 5, name: 'Creature revival', price: 1500, description: 'Brings back one creature lost in the last day.', category: 'services' },
]);

/** How many orders (and token spends) are kept, latest first to stay: a soak must not grow the emulator without bound. */
export const MONEY_RECORD_LIMIT = 10_000;

export const DEFAULT_CREDIT = 1000;
export const DEFAULT_TOKENS = 100;

/** The status of the answer sent, read when the record is listed (0 while unanswered, and when dropped). */
export interface AnswerStatus {
  readonly status: number;
}

/** An order as it arrived, and what became of it. */
export interface OrderRecord extends PlayerRef {
  readonly at: number;
  readonly server: string;
  /** The pack id as the path wrote it. */
  readonly packId: string;
  /** Whether the shop handled it (checked the credit and, on success, spent it); false for a faulted or refused call. */
  readonly processed: boolean;
  /** GSA's `success` when processed, else null. */
  readonly success: boolean | null;
  /** The credit spent: the pack's price on success, else 0. */
  readonly spent: number;
  readonly status: number;
}

/** A token spend as it arrived, and what became of it. */
export interface TokenSpendRecord extends PlayerRef {
  readonly at: number;
  readonly server: string;
  /** `token_amount` when it was a whole number, else null. */
  readonly amount: number | null;
  readonly processed: boolean;
  /** Tokens taken: `amount` when done, else 0. */
  readonly spent: number;
  readonly status: number;
}

/** A player's money, as `GET /_emulator/wallet` lists it. */
export interface WalletRecord {
  readonly player: string;
  readonly credit: number;
  readonly tokens: number;
}

/** One arrival, filled in as the request is processed; its status comes from the call log's handle. */
interface Arrival<T> {
  readonly answer: AnswerStatus;
  fields: T;
}

type OrderFields = Omit<OrderRecord, 'status'>;
type TokenFields = Omit<TokenSpendRecord, 'status'>;

/** An order that arrived, for its handler to mark. */
export type OrderArrival = MoneyArrival<OrderFields>;
/** A token spend that arrived, for its handler to mark. */
export type SpendArrival = MoneyArrival<TokenFields>;

/** What the order handler asks of the shop for one processed order. */
export type OrderResult = { readonly kind: 'unknown-pack' } | { readonly kind: 'done' | 'no-credit'; readonly item: ShopItem };

/** A handle for one order or spend that arrived: the handler marks it processed. */
export interface MoneyArrival<T> {
  mark(update: Partial<T>): void;
}

/** Which catalogue items a search and filter keep: the name contains the search, the category is the filter (case-insensitive). */
export function matchingItems(items: readonly ShopItem[], search: string | undefined, filter: string | undefined): ShopItem[] {
  const needle = search?.toLowerCase() ?? '';
  const category = filter?.toLowerCase();
  return items.filter((item) => item.name.toLowerCase().includes(needle) && (category === undefined || item.category.toLowerCase() === category));
}

export class ShopState {
  readonly #catalogues = new Map<string, readonly ShopItem[]>();
  /** player id (lower case) → money; absent: the defaults. */
  readonly #wallets = new Map<string, { credit: number; tokens: number }>();
  #orders: Arrival<OrderFields>[] = [];
  #spends: Arrival<TokenFields>[] = [];

  setCatalogue(server: string, items: readonly ShopItem[]): void {
    this.#catalogues.set(server, [...items]);
  }

  catalogue(server: string): readonly ShopItem[] {
    return this.#catalogues.get(server) ?? DEFAULT_CATALOGUE;
  }

  item(server: string, packId: number): ShopItem | undefined {
    return this.catalogue(server).find((item) => item.id === packId);
  }

  /** Sets a player's credit and/or tokens; what is not given stays (or is the default). */
  setWallet(player: string, money: { readonly credit?: number | undefined; readonly tokens?: number | undefined }): void {
    const wallet = this.#wallet(player);
    if (money.credit !== undefined) wallet.credit = money.credit;
    if (money.tokens !== undefined) wallet.tokens = money.tokens;
  }

  wallet(player: string): WalletRecord {
    const wallet = this.#wallets.get(player.toLowerCase());
    return { player, credit: wallet?.credit ?? DEFAULT_CREDIT, tokens: wallet?.tokens ?? DEFAULT_TOKENS };
  }

  /** Every player whose money was set or spent. */
  get wallets(): WalletRecord[] {
    return [...this.#wallets].map(([player, wallet]) => ({ player, ...wallet }));
  }

  /** Records an order on arrival, before any fault: every arrival shows in `orders`. */
  orderArrived(fields: Omit<OrderFields, 'processed' | 'success' | 'spent'>, answer: AnswerStatus): MoneyArrival<OrderFields> {
    const arrival: Arrival<OrderFields> = { answer, fields: { ...fields, processed: false, success: null, spent: 0 } };
    this.#orders = kept(this.#orders, arrival);
    return { mark: (update) => (arrival.fields = { ...arrival.fields, ...update }) };
  }

  /** Records a token spend on arrival, as orderArrived. */
  spendArrived(fields: Omit<TokenFields, 'processed' | 'spent'>, answer: AnswerStatus): MoneyArrival<TokenFields> {
    const arrival: Arrival<TokenFields> = { answer, fields: { ...fields, processed: false, spent: 0 } };
    this.#spends = kept(this.#spends, arrival);
    return { mark: (update) => (arrival.fields = { ...arrival.fields, ...update }) };
  }

  /** Pays for a pack out of the player's credit when it covers the price; spends nothing otherwise. */
  order(server: string, player: string, packId: number): OrderResult {
    const item = this.item(server, packId);
    if (item === undefined) return { kind: 'unknown-pack' };
    const wallet = this.#wallet(player);
    if (wallet.credit < item.price) return { kind: 'no-credit', item };
    wallet.credit -= item.price;
    return { kind: 'done', item };
  }

  /** Takes `amount` tokens when the player has that many; true when taken. */
  spend(player: string, amount: number): boolean {
    const wallet = this.#wallet(player);
    if (wallet.tokens < amount) return false;
    wallet.tokens -= amount;
    return true;
  }

  /** The latest MONEY_RECORD_LIMIT orders, oldest first. */
  get orders(): OrderRecord[] {
    return this.#orders.slice(-MONEY_RECORD_LIMIT).map(({ answer, fields }) => ({ ...fields, status: answer.status }));
  }

  /** The latest MONEY_RECORD_LIMIT token spends, oldest first. */
  get tokenSpends(): TokenSpendRecord[] {
    return this.#spends.slice(-MONEY_RECORD_LIMIT).map(({ answer, fields }) => ({ ...fields, status: answer.status }));
  }

  reset(): void {
    this.#catalogues.clear();
    this.#wallets.clear();
    this.#orders = [];
    this.#spends = [];
  }

  #wallet(player: string): { credit: number; tokens: number } {
    const key = player.toLowerCase();
    let wallet = this.#wallets.get(key);
    if (wallet === undefined) {
      wallet = { credit: DEFAULT_CREDIT, tokens: DEFAULT_TOKENS };
      this.#wallets.set(key, wallet);
    }
    return wallet;
  }
}

/** The list with `arrival` added, its oldest records dropped in batches once it holds twice the limit. */
function kept<T>(list: Arrival<T>[], arrival: Arrival<T>): Arrival<T>[] {
  list.push(arrival);
  return list.length >= 2 * MONEY_RECORD_LIMIT ? list.slice(-MONEY_RECORD_LIMIT) : list;
}
