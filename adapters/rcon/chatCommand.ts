// Reads a review typed in game chat (`!review 5 Great admins`) into stars and a comment, or a refusal the player
// can be told. Pure: must never submit anything, never clean or judge the comment (the review policy and
// cleanComment in src/gsa/validation.ts do that on every path into the outbox), and never throw on player text.

export interface ReviewCommandOptions {
  /** The command word, as `reviews.chatCommand` configures it (one word, no spaces). Matched case-insensitively. */
  readonly command: string;
  /** Lowest star count accepted (`reviews.minStars`). */
  readonly minStars: number;
  /** Highest star count accepted (`reviews.maxStars`). */
  readonly maxStars: number;
}

/** The defaults of `reviews.chatCommand`, `reviews.minStars` and `reviews.maxStars`. */
export const DEFAULT_REVIEW_COMMAND_OPTIONS: ReviewCommandOptions = { command: '!review', minStars: 1, maxStars: 5 };

export type ReviewCommandRefusalReason = 'usage' | 'stars-not-a-number' | 'stars-out-of-range';

/**
 * - `not-command`: an ordinary chat line (including `!reviews`, `!reviewer`: the word must end there);
 * - `review`: stars within the range and the comment exactly as typed after the stars and the spaces after them
 *   (may be empty: the policy allows a rating alone);
 * - `refused`: the player typed the command but it cannot become a review; `message` is for the player
 *   (send it through the sanitiser like any text placed into a command).
 */
export type ReviewCommandParse =
  | { readonly kind: 'not-command' }
  | { readonly kind: 'review'; readonly stars: number; readonly comment: string }
  | { readonly kind: 'refused'; readonly reason: ReviewCommandRefusalReason; readonly message: string };

const WHITESPACE_RUN = /^\s+/;

/**
 * Parses one chat line. Leading spaces before the command are allowed (some chat boxes keep them). Stars are a
 * whole number in digits (`5`; `05` is 5); `4.5`, `five` or `★★★★★` are refused with the usage, as is a missing
 * star count.
 */
export function parseReviewCommand(line: string, options: ReviewCommandOptions): ReviewCommandParse {
  const trimmed = line.replace(WHITESPACE_RUN, '');
  const word = options.command;
  if (word.length === 0 || trimmed.slice(0, word.length).toLowerCase() !== word.toLowerCase()) return { kind: 'not-command' };
  const afterWord = trimmed.slice(word.length);
  if (afterWord.length > 0 && !WHITESPACE_RUN.test(afterWord)) return { kind: 'not-command' };

  const usage = `usage: ${word} <${options.minStars}-${options.maxStars}> <comment>`;
  const args = afterWord.replace(WHITESPACE_RUN, '');
  if (args.length === 0) return { kind: 'refused', reason: 'usage', message: usage };
  const starsEnd = args.search(/\s/);
  const starsText = starsEnd < 0 ? args : args.slice(0, starsEnd);
  const comment = starsEnd < 0 ? '' : args.slice(starsEnd).replace(WHITESPACE_RUN, '');
  if (!/^\d{1,6}$/.test(starsText)) {
    return { kind: 'refused', reason: 'stars-not-a-number', message: `stars must be a whole number from ${options.minStars} to ${options.maxStars}; ${usage}` };
  }
  const stars = Number(starsText);
  if (stars < options.minStars || stars > options.maxStars) {
    return { kind: 'refused', reason: 'stars-out-of-range', message: `stars must be from ${options.minStars} to ${options.maxStars}; ${usage}` };
  }
  return { kind: 'review', stars, comment };
}
