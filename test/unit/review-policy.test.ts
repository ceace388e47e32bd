import { describe, expect, it } from 'vitest';
import { BridgeRefusal } from '../../src/bridge/port.js';
import { ReviewPolicy } from '../../src/bridge/reviewPolicy.js';
import { characterCount, cleanComment } from '../../src/gsa/index.js';

const LIMITS = { minStars: 1, maxStars: 5, maxCommentLength: 10, cooldownMs: 1000 };
const ALICE = { steamId: '76561198000000001' };
const BOB = { eosId: '0123456789abcdef0123456789abcdef' };

function refusalOf(run: () => unknown): BridgeRefusal {
  try {
    run();
  } catch (error) {
    if (error instanceof BridgeRefusal) return error;
    throw error;
  }
  throw new Error('expected a BridgeRefusal');
}

describe('cleanComment', () => {
  it('turns line breaks and tabs into spaces and drops other control characters', () => {
    expect(cleanComment('a\r\nb\tc\u0000d\u0007e\u009bf')).toBe('a b cdef');
  });

  it('keeps emoji sequences, quotes and pipes (those are the game adapters\' concern)', () => {
    const text = '👩‍👩‍👧 "great" | 10/10';
    expect(cleanComment(text)).toBe(text);
  });
});

describe('characterCount', () => {
  it('counts code points, not UTF-16 units', () => {
    expect(characterCount('🎮🎮')).toBe(2);
    expect('🎮🎮'.length).toBe(4);
  });
});

describe('ReviewPolicy', () => {
  it('admits a valid review and returns the cleaned comment', () => {
    expect(new ReviewPolicy(LIMITS).admit(ALICE, 5, 'good\nfun').comment).toBe('good fun');
  });

  it.each([0, 6, 2.5, Number.NaN])('refuses stars %s with bad_input at path stars', (stars) => {
    expect(refusalOf(() => new ReviewPolicy(LIMITS).admit(ALICE, stars, ''))).toMatchObject({ code: 'bad_input', path: 'stars' });
  });

  it('refuses a comment over the limit, counted after cleaning and in characters', () => {
    const policy = new ReviewPolicy({ ...LIMITS, cooldownMs: 0 });
    expect(policy.admit(ALICE, 3, '🎮'.repeat(10)).comment).toHaveLength(20);
    expect(refusalOf(() => policy.admit(ALICE, 3, 'x'.repeat(11)))).toMatchObject({ code: 'bad_input', path: 'comment' });
    expect(policy.admit(ALICE, 3, `${'x'.repeat(10)}\u0000\u0001`).comment).toBe('x'.repeat(10));
  });

  it('reserves the per-player cooldown in the same step as the check: a second admit at once is refused', () => {
    let now = 10_000;
    const policy = new ReviewPolicy(LIMITS, () => now);
    policy.admit(ALICE, 5, '');
    const refusal = refusalOf(() => policy.admit(ALICE, 5, ''));
    expect(refusal.code).toBe('cooldown');
    expect(refusal.message).toMatch(/try again in 1 s/);
    expect(policy.admit(BOB, 5, '').comment).toBe('');
    now += 999;
    expect(refusalOf(() => policy.admit(ALICE, 5, '')).code).toBe('cooldown');
    now += 1;
    expect(policy.admit(ALICE, 5, '').comment).toBe('');
  });

  it('gives the cooldown back when the caller releases the admission (storing failed)', () => {
    const now = 10_000;
    const policy = new ReviewPolicy(LIMITS, () => now);
    const admission = policy.admit(ALICE, 5, '');
    admission.release();
    const second = policy.admit(ALICE, 5, '');
    admission.release(); // a stale release must not free the slot the second review holds
    expect(refusalOf(() => policy.admit(ALICE, 5, '')).code).toBe('cooldown');
    second.release();
    expect(policy.admit(ALICE, 5, '').comment).toBe('');
  });

  it('restores cooldowns from the journal, ignoring those already over', () => {
    let now = 10_000;
    const policy = new ReviewPolicy(LIMITS, () => now);
    policy.restore(ALICE, 9_500);
    policy.restore(BOB, 9_000); // ended at 10 000
    expect(refusalOf(() => policy.admit(ALICE, 5, '')).message).toMatch(/try again in 1 s/);
    expect(policy.admit(BOB, 5, '').comment).toBe('');
    now = 10_500;
    expect(policy.admit(ALICE, 5, '').comment).toBe('');
  });

  it('has no cooldown when cooldownMs is 0', () => {
    const policy = new ReviewPolicy({ ...LIMITS, cooldownMs: 0 });
    policy.restore(ALICE, Date.now());
    policy.admit(ALICE, 5, '');
    expect(policy.admit(ALICE, 5, '').comment).toBe('');
  });
});
