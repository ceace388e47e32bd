// Reads the shop typed in game chat: `<list> [search]` (default `!shop`) and `<buy> <n>` (default `!buy`), each word
// matched case-insensitively as the line's whole first word, as the review command is (chatCommand.ts).
// Pure: it must never ask GSA or order anything, never throw on player text, and never take a line whose first word
// only starts with a command word (`!shopping`, `!buyer`) for a command.

import { cutToCodePoints } from './commandText.js';

/** The words, as `shop.chatCommand` and `shop.buyCommand` configure them. */
export interface ShopWords {
  readonly list: string;
  readonly buy: string;
}

/**
 * - `not-command`: ordinary chat;
 * - `list`: the player asked for the items, with what they typed after the word as a search (absent when nothing);
 * - `buy`: the player asked for the n-th item of their last listing (`index` counts from 1);
 * - `buy-usage`: the buy word with no number, or not a whole number: the player is told how to use it.
 */
export type ShopCommandParse =
  | { readonly kind: 'not-command' }
  | { readonly kind: 'list'; readonly search?: string | undefined }
  | { readonly kind: 'buy'; readonly index: number }
  | { readonly kind: 'buy-usage' };

const WHITESPACE_RUN = /^\s+/;
/** Longest search passed on: a search box's worth; the rest of a long line is dropped. */
export const MAX_SEARCH_LENGTH = 64;

/** What follows `word` when the line's first word is `word` (any case); undefined when it is not. */
function argsAfter(line: string, word: string): string | undefined {
  if (word.length === 0 || line.slice(0, word.length).toLowerCase() !== word.toLowerCase()) return undefined;
  const after = line.slice(word.length);
  if (after.length > 0 && !WHITESPACE_RUN.test(after)) return undefined;
  return after.trim();
}

/** Parses one chat line. Leading spaces before the word are allowed (some chat boxes keep them). */
export function parseShopCommand(line: string, words: ShopWords): ShopCommandParse {
  const trimmed = line.replace(WHITESPACE_RUN, '');
  const listArgs = argsAfter(trimmed, words.list);
  if (listArgs !== undefined) {
    const search = cutToCodePoints(listArgs, MAX_SEARCH_LENGTH).trim();
    return search.length === 0 ? { kind: 'list' } : { kind: 'list', search };
  }
  const buyArgs = argsAfter(trimmed, words.buy);
  if (buyArgs === undefined) return { kind: 'not-command' };
  // A whole number in digits (`2`, `02`), as the review's stars; `2.5`, `two`, `#2` or `2 3` are not one.
  if (!/^\d{1,4}$/.test(buyArgs)) return { kind: 'buy-usage' };
  const index = Number(buyArgs);
  return index >= 1 ? { kind: 'buy', index } : { kind: 'buy-usage' };
}
