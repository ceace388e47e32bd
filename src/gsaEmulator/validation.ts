/**
 * Laravel-shaped request validation: input normalisation like Laravel's default middleware, the rule
 * checks the service's endpoints share, and the 422 body `{"message", "errors"}`.
 * Must never decide what a route does; handlers choose the rules and act on the result.
 */
import { jsonReply, type Reply } from './httpIo.js';

/** A request's input fields after normalisation; values are strings (form) or any JSON value. */
export type InputFields = ReadonlyMap<string, unknown>;

/**
 * Mirrors Laravel's TrimStrings and ConvertEmptyStringsToNull middleware (assumed active on the
 * service): strings are trimmed and an empty string counts as absent.
 */
export function normaliseInput(entries: Iterable<[string, unknown]>): InputFields {
  const fields = new Map<string, unknown>();
  for (const [key, value] of entries) {
    if (fields.has(key)) continue; // first occurrence wins, like URLSearchParams.get
    const normalised = typeof value === 'string' ? value.trim() : value;
    if (normalised === '' || normalised === null || normalised === undefined) continue;
    fields.set(key, normalised);
  }
  return fields;
}

/** Collects messages per field in rule order, then renders Laravel's 422 body. */
export class ValidationErrors {
  readonly #errors = new Map<string, string[]>();

  add(field: string, message: string): void {
    const list = this.#errors.get(field);
    if (list === undefined) this.#errors.set(field, [message]);
    else list.push(message);
  }

  get empty(): boolean {
    return this.#errors.size === 0;
  }

  /** `message` is the first error plus "(and N more error[s])", exactly as Laravel words it. */
  toReply(): Reply {
    const all = [...this.#errors.values()].flat();
    const first = all[0] ?? 'The given data was invalid.';
    const more = all.length - 1;
    const message = more > 0 ? `${first} (and ${more} more error${more === 1 ? '' : 's'})` : first;
    return jsonReply(422, { message, errors: Object.fromEntries(this.#errors) });
  }
}

/** Laravel's name for a field in messages: underscores become spaces. */
export function attributeName(field: string): string {
  return field.replaceAll('_', ' ');
}

/**
 * Laravel's `integer` rule (PHP's FILTER_VALIDATE_INT): whole JSON numbers, or strings of an optional
 * sign and digits. Returns undefined when the value is not an integer.
 */
export function asInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'string' && /^[+-]?\d+$/.test(value)) {
    const parsed = Number(value);
    return Number.isSafeInteger(parsed) ? parsed : undefined;
  }
  return undefined;
}

/** String length as Laravel counts it (mb_strlen: code points, not UTF-16 units). */
export function characterCount(value: string): number {
  // Code points on purpose, not graphemes: that is what the service's limit counts.
  return Array.from(value).length;
}
