// Text from a game, a player or GSA made safe to print on one terminal or log line. Every layer may import it
// (adapters too): it imports nothing of the project. It must never let a line break, a control character or a bidi
// override through, and never return more than the length asked for.

// Line breaks and tabs become one space; every other control character and the bidi overrides and isolates (which
// would reorder a terminal line) go.
const BREAKS = /[\t\n\r\v\f\u0085\u2028\u2029]+/g;
const UNPRINTABLE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/** Text from a game or from GSA, made safe to print on a terminal line, at most `maxLength` characters. */
export function printableText(text: string, maxLength: number): string {
  return text.replace(BREAKS, ' ').replace(UNPRINTABLE, '').slice(0, maxLength);
}
