// What the shared budget believes of a script's reply: only the shapes its scripts give, every number whole and in
// range. Anything else (another program on the port, a proxy, a module rewriting replies) is undefined, which the
// budget treats as Redis failing.
import { describe, expect, it } from 'vitest';
import { DOUBT, describeWindowSettings, doubtsOf, readDecideReply, readJoinReply, windowSettings } from '../../src/gsa/budget/shared/redisBudgetReplies.js';

describe("the shared budget's script replies", () => {
  it('reads a grant, a wait and a rejoin, and nothing else', () => {
    expect(readDecideReply([1, 3, 0, 0])).toEqual({ status: 'granted', kind: 'review', doubts: 0 });
    expect(readDecideReply([0, 1000, DOUBT.holdBeyondCap, 0])).toEqual({ status: 'wait', waitMs: 1000, doubts: 1, holdMs: 0 });
    expect(readDecideReply([0, 1000, 0, 45_000])).toEqual({ status: 'wait', waitMs: 1000, doubts: 0, holdMs: 45_000 });
    expect(readDecideReply([2, 0, 0, 0])).toEqual({ status: 'rejoin', doubts: 0 });
    // Integers a proxy turned into strings are still integers.
    expect(readDecideReply(['1', '1', '0', '0'])).toEqual({ status: 'granted', kind: 'lookup', doubts: 0 });
    for (const bad of [
      undefined,
      'OK',
      [1, 3, 0],
      [1, 5, 0, 0],
      [1, 0, 0, 0],
      [0, -1, 0, 0],
      [0, 1.5, 0, 0],
      [0, Number.NaN, 0, 0],
      [0, 10, 0, -1],
      [0, 10, 256, 0],
      [9, 0, 0, 0],
      [0, '1e3', 0, 0],
      [0, 2 ** 60, 0, 0],
    ]) {
      expect(readDecideReply(bad)).toBeUndefined();
    }
  });

  it('reads a join, a check that asks for the starts, a mismatch, and nothing else', () => {
    expect(readJoinReply([1, 700, 0, '0123456789abcdef'])).toEqual({ status: 'joined', epoch: '0123456789abcdef', graceLeftMs: 700, doubts: 0, reseeded: true });
    expect(readJoinReply([0, 0, 64, '0123456789abcdef'])).toEqual({ status: 'joined', epoch: '0123456789abcdef', graceLeftMs: 0, doubts: 64, reseeded: false });
    expect(readJoinReply([2, 0, 0, 'fedcba9876543210'])).toEqual({ status: 'seedsNeeded', epoch: 'fedcba9876543210', doubts: 0 });
    expect(readJoinReply([3, 0, 0, '100/60000/3'])).toEqual({ status: 'mismatch', theirs: '100/60000/3', doubts: 0 });
    for (const bad of [[1, 0, 0, 'not-an-epoch'], [3, 0, 0, 'x/y/z'], [1, 0, 0, 5], [2, 0, 0, ''], [4, 0, 0, '0123456789abcdef'], null]) {
      expect(readJoinReply(bad)).toBeUndefined();
    }
  });

  it('names each doubt, and the window settings as a host reads them', () => {
    expect(doubtsOf(DOUBT.holdBeyondCap | DOUBT.startsInTheFuture | DOUBT.nodeEntryNotBelievable)).toEqual(['holdBeyondCap', 'startsInTheFuture', 'nodeEntryNotBelievable']);
    expect(doubtsOf(0)).toEqual([]);
    expect(windowSettings(100, 60_000, 3)).toBe('100/60000/3');
    expect(describeWindowSettings('100/60000/3')).toBe('100 calls per 60000 ms among 3 sidecars');
  });
});
