// The review chat command: which lines are commands, the stars and the comment as typed, and the refusals a
// player is told.
import { describe, expect, it } from 'vitest';
import { DEFAULT_REVIEW_COMMAND_OPTIONS, parseReviewCommand } from '../../adapters/rcon/chatCommand.js';
import { cleanComment } from '../../src/gsa/client/validation.js';

const OPTIONS = DEFAULT_REVIEW_COMMAND_OPTIONS;

describe('parseReviewCommand', () => {
  it('reads stars and the comment', () => {
    expect(parseReviewCommand('!review 5 Great admins', OPTIONS)).toEqual({ kind: 'review', stars: 5, comment: 'Great admins' });
    expect(parseReviewCommand('!review 1 meh', OPTIONS)).toEqual({ kind: 'review', stars: 1, comment: 'meh' });
  });

  it('keeps the comment exactly as typed after the stars and the spaces that follow them', () => {
    const comment = 'Great  admins: "fair" | (mostly) ; // 漢字 😀  ';
    expect(parseReviewCommand(`!review 4   ${comment}`, OPTIONS)).toEqual({ kind: 'review', stars: 4, comment });
    expect(parseReviewCommand('!review 4\tline\ttabs', OPTIONS)).toEqual({ kind: 'review', stars: 4, comment: 'line\ttabs' });
    // Cleaning is the review policy's job, later; the command hands over what the player typed.
    expect(cleanComment('line\ttabs')).toBe('line tabs');
  });

  it('accepts a rating without a comment, as the review policy does', () => {
    expect(parseReviewCommand('!review 3', OPTIONS)).toEqual({ kind: 'review', stars: 3, comment: '' });
    expect(parseReviewCommand('!review 3   ', OPTIONS)).toEqual({ kind: 'review', stars: 3, comment: '' });
  });

  it('matches the command word case-insensitively, after leading spaces, and only as a whole word', () => {
    expect(parseReviewCommand('  !Review 5 ok', OPTIONS)).toMatchObject({ kind: 'review', stars: 5 });
    expect(parseReviewCommand('!REVIEW 5 ok', OPTIONS)).toMatchObject({ kind: 'review' });
    for (const line of ['!reviews 5 ok', '!reviewer', 'review 5 ok', 'hello !review 5 ok', '', '!', '!revie 5']) {
      expect(parseReviewCommand(line, OPTIONS), line).toEqual({ kind: 'not-command' });
    }
  });

  it('uses the configured command word and star range', () => {
    const options = { command: '/rate', minStars: 1, maxStars: 10 };
    expect(parseReviewCommand('/rate 10 top', options)).toEqual({ kind: 'review', stars: 10, comment: 'top' });
    expect(parseReviewCommand('!review 5 x', options)).toEqual({ kind: 'not-command' });
    expect(parseReviewCommand('/rate 11', options)).toMatchObject({ kind: 'refused', reason: 'stars-out-of-range', message: expect.stringContaining('usage: /rate <1-10> <comment>') as unknown });
  });

  it('refuses with the usage when the stars are missing', () => {
    for (const line of ['!review', '!review ', '!review \t ']) {
      expect(parseReviewCommand(line, OPTIONS)).toEqual({ kind: 'refused', reason: 'usage', message: 'usage: !review <1-5> <comment>' });
    }
  });

  it('refuses stars that are not a whole number, and says why', () => {
    for (const line of ['!review five stars', '!review 4.5 ok', '!review ★★★★★', '!review -1 bad', '!review 5/5 ok', '!review Great admins', '!review 1234567 x']) {
      expect(parseReviewCommand(line, OPTIONS), line).toEqual({
        kind: 'refused',
        reason: 'stars-not-a-number',
        message: 'stars must be a whole number from 1 to 5; usage: !review <1-5> <comment>',
      });
    }
  });

  it('refuses stars outside the range', () => {
    for (const line of ['!review 0 bad', '!review 6 good', '!review 99']) {
      expect(parseReviewCommand(line, OPTIONS), line).toEqual({
        kind: 'refused',
        reason: 'stars-out-of-range',
        message: 'stars must be from 1 to 5; usage: !review <1-5> <comment>',
      });
    }
    expect(parseReviewCommand('!review 05 leading zero', OPTIONS)).toEqual({ kind: 'review', stars: 5, comment: 'leading zero' });
  });
});
