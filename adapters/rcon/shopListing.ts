// Reads the items out of GSA's shop index as the bridge hands it over (parsed JSON, shaped as GSA chose), for the
// shop typed in game chat: an id to order by, a name to show, maybe a price. GSA's answer is documented only by its
// identifier (`gsa-shop-index`), so the reader is tolerant: the items may sit in `data`, `data.data`, `items` or
// `packs` (or be the answer itself), and an item names itself by `name`, `title` or `label`.
// Pure. It must never throw, whatever the answer holds (anything it cannot read is skipped), and never invent an id.

/** One item a player can order: GSA's pack id, its name, and its price as GSA wrote it (when it did). */
export interface ShopItem {
  readonly id: number;
  readonly name: string;
  readonly price?: string | undefined;
}

/** Where the items array may sit in the answer, the likeliest first. */
const ITEM_PATHS: readonly (readonly string[])[] = [['data'], ['data', 'data'], ['items'], ['packs'], ['data', 'items'], ['data', 'packs']];

/** Ids GSA gives packs: positive whole numbers, as numbers or digit strings (no sign, no exponent, no fraction). */
const DIGITS = /^\d{1,15}$/;

/** Most items read from one answer: a chat box shows a handful; a huge answer is not walked to its end. */
const MAX_ITEMS = 1_000;

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function at(value: unknown, path: readonly string[]): unknown {
  let here = value;
  for (const key of path) {
    if (!isRecord(here) || !Object.hasOwn(here, key)) return undefined;
    here = here[key];
  }
  return here;
}

function idOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? value : undefined;
  if (typeof value === 'string' && DIGITS.test(value)) {
    const id = Number(value);
    return Number.isSafeInteger(id) && id > 0 ? id : undefined;
  }
  return undefined;
}

function nameOf(item: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of ['name', 'title', 'label']) {
    const value = item[key];
    if (typeof value === 'string' && value.trim().length > 0) return value.trim();
  }
  return undefined;
}

function priceOf(item: Readonly<Record<string, unknown>>): string | undefined {
  for (const key of ['price', 'cost']) {
    const value = item[key];
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value === 'string' && value.trim().length > 0 && value.length <= 32) return value.trim();
  }
  return undefined;
}

/** The first array of readable items along ITEM_PATHS; none when no path holds one. */
export function readShopItems(answer: unknown): ShopItem[] {
  const candidates = Array.isArray(answer) ? [answer] : ITEM_PATHS.map((path) => at(answer, path));
  for (const candidate of candidates) {
    if (!Array.isArray(candidate)) continue;
    const items: ShopItem[] = [];
    for (const entry of candidate.slice(0, MAX_ITEMS)) {
      if (!isRecord(entry)) continue;
      const id = idOf(entry['id']);
      const name = nameOf(entry);
      if (id === undefined || name === undefined) continue;
      const price = priceOf(entry);
      items.push(price === undefined ? { id, name } : { id, name, price });
    }
    // An array of something else (GSA's categories, say) is not the items: look further.
    if (items.length > 0) return items;
  }
  return [];
}
