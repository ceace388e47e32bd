// The single-node soak's chat-filter and System API rows (bench/soak/filterRows.ts): the players' line plan folds to
// the listed word exactly where it should, and the rows fail on what they exist to catch (a disguised line let
// through, a clean line filtered, a player who struck twice not muted or a later line let through, a cooldown 429),
// while a 429 of an injected fault is not GSA's cooldown.
import { describe, expect, it } from 'vitest';
import { FILTER_WORD, filterLineText, filterRows, peakInWindow, systemBudgetRow, type FilterLine, type SystemCall } from '../../bench/soak/filterRows.js';
import { WordFilter } from '../../src/moderation/wordFilter.js';

const UUID = '11111111-2222-5333-8444-555555555555';
const mutePath = `/system-api/v2/player/${UUID}/mute`;

const line = (n: number, reason: string, sentAt: number, player = 0): FilterLine => ({ player, ...filterLineText(player, n), sentAt, reason, verdictAt: sentAt + 1 });

function judge(lines: FilterLine[], calls: SystemCall[], muted = true) {
  const reasons = new Map<string, number>();
  for (const l of lines) if (l.reason !== undefined) reasons.set(l.reason, (reasons.get(l.reason) ?? 0) + 1);
  return filterRows({ lines, uuids: [UUID], mutedAtEnd: new Set(muted ? [UUID] : []), calls, fleetReasons: reasons, graceMs: 2000 });
}

describe('the filter players', () => {
  it('disguise the word on lines 1 and 3 (and 5 for every other player), and only there', () => {
    const filter = new WordFilter([FILTER_WORD]);
    for (const player of [0, 1, 2, 3, 4, 5]) {
      for (let n = 0; n < 12; n += 1) {
        const { disguised, text } = filterLineText(player, n);
        expect(filter.match(text) !== undefined, `${player}/${n}: ${text}`).toBe(disguised);
      }
      expect(filterLineText(player, 4).disguised).toBe(player % 2 === 0);
    }
  });
});

describe('filterRows', () => {
  const accepted: SystemCall = { at: 5000, method: 'POST', path: mutePath, endpoint: 'system', status: 200 };

  it('passes a run where the disguised lines were filtered and the player muted from then on', () => {
    const lines = [line(0, 'filtered', 1000), line(1, 'ok', 2000), line(2, 'filtered', 4000), line(3, 'muted', 8000)];
    expect(judge(lines, [accepted]).map((row) => row.ok)).toEqual([true, true, true]);
  });

  it('fails a disguised line let through, and a clean line filtered', () => {
    const rows = judge([line(0, 'ok', 1000), line(1, 'filtered', 2000)], []);
    expect(rows[0]?.ok).toBe(false);
    expect(rows[1]?.ok).toBe(false);
  });

  it('fails a player who struck twice but is not muted, and a clean line let through after the mute', () => {
    const lines = [line(0, 'filtered', 1000), line(1, 'ok', 2000), line(2, 'filtered', 4000), line(3, 'ok', 8000)];
    expect(judge(lines, [accepted], false)[2]?.ok).toBe(false);
    expect(judge(lines, [accepted])[2]?.ok).toBe(false);
    // Within the grace after GSA took the mute, a line is not judged.
    expect(judge([...lines.slice(0, 3), line(3, 'ok', 6000), line(5, 'muted', 9000)], [accepted])[2]?.ok).toBe(true);
  });
});

describe('systemBudgetRow', () => {
  const budget = { requests: 3, intervalMs: 1000 };
  const call = (at: number, status = 200, path = mutePath): SystemCall => ({ at, method: 'POST', path, endpoint: 'system', status });

  it("tells GSA's cooldown 429 from an injected fault's", () => {
    expect(systemBudgetRow([call(100), call(200, 429)], [{ armedAt: 150, clearedAt: 250 }], budget).ok).toBe(true);
    expect(systemBudgetRow([call(100), call(300, 429)], [{ armedAt: 150, clearedAt: 250 }], budget).ok).toBe(false);
  });

  it('fails more calls in a window than the budget, and ignores mod API calls', () => {
    expect(systemBudgetRow([call(0), call(10), call(20), call(30)], [], budget).ok).toBe(false);
    expect(systemBudgetRow([call(0), call(10), call(20), call(1020)], [], budget).ok).toBe(true);
    expect(systemBudgetRow([call(0), { ...call(1), endpoint: 'mute' }, { ...call(2), endpoint: 'mute' }, call(3)], [], budget).ok).toBe(true);
  });

  it('peakInWindow counts arrivals less than intervalMs apart', () => {
    expect(peakInWindow([0, 500, 999, 1000, 1001], 1000)).toBe(4);
    expect(peakInWindow([], 1000)).toBe(0);
  });
});
