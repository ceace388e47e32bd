// The summary of chat decided by mute.onUnknown: at most one line a minute while it lasts, naming the cause the
// sidecar knows (refused key, GSA unreachable, a hold, the budget spent, slow answers) and the lookups waiting, and
// one line when it ends. Fake timers drive the minute; lines are captured through a pino destination.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BridgeEvents, type VerdictEvent } from '../../src/bridge/events.js';
import type { BudgetState } from '../../src/gsa/budget/rateLimiter.js';
import { createLogger } from '../../src/log/logger.js';
import type { ApiName } from '../../src/ops/metrics.js';
import { UnknownVerdictSummary } from '../../src/ops/unknownVerdictSummary.js';

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly cause?: string;
  readonly unknownVerdicts?: number;
  readonly lookupsWaiting?: number;
}

const WARN = 40;
const INFO = 30;

let lines: Line[];
let events: BridgeEvents;
let summary: UnknownVerdictSummary;
const state = {
  refused: { mod: false, system: false } as Record<ApiName, boolean>,
  reachable: true,
  holdSeconds: 0,
  budget: { waiting: { mute: 0, review: 0, action: 0 }, windowFree: 100 } as BudgetState | undefined,
};

function verdict(reason: VerdictEvent['reason'], verdictOf: VerdictEvent['verdict'] = 'allow'): VerdictEvent {
  return { server: 'ovddykvbs', player: { steamId: '76561198000000001' }, verdict: verdictOf, reason, source: reason === 'unknown' ? 'policy' : 'service', durationMs: 270 };
}

function unknown(count: number): void {
  for (let index = 0; index < count; index++) events.emit('verdict', verdict('unknown'));
}

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
  lines = [];
  events = new BridgeEvents();
  state.refused = { mod: false, system: false };
  state.reachable = true;
  state.holdSeconds = 0;
  state.budget = { waiting: { mute: 0, review: 0, action: 0 }, windowFree: 100 };
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Line) } });
  summary = new UnknownVerdictSummary({
    events,
    logger,
    clock: { now: () => Date.now() },
    causes: {
      credentialsRefused: (api) => state.refused[api],
      reachable: () => state.reachable,
      holdSeconds: () => state.holdSeconds,
      budget: () => state.budget,
    },
  });
});

afterEach(() => {
  summary.close();
  vi.useRealTimers();
});

describe('UnknownVerdictSummary', () => {
  it('writes at most one line a minute while lines go to mute.onUnknown, with the count and the lookups waiting, then one when it ends', () => {
    state.budget = { waiting: { mute: 37, review: 2, action: 0 }, windowFree: 0 };
    unknown(5);
    vi.advanceTimersByTime(30_000);
    unknown(9);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(30_000);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: WARN, cause: 'budget_spent', unknownVerdicts: 14, lookupsWaiting: 37 });
    expect(lines[0]?.msg).toBe('14 chat lines decided by mute.onUnknown in the last minute: the API budget is spent; 37 lookups waiting');

    // Hundreds more in the next minute: still one line.
    unknown(300);
    vi.advanceTimersByTime(59_999);
    expect(lines).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(lines).toHaveLength(2);
    expect(lines[1]?.msg).toMatch(/^300 chat lines decided by mute\.onUnknown in the last minute: the API budget is spent/);

    // A quiet minute ends it: one info line with the total, then nothing more.
    vi.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatchObject({ level: INFO, unknownVerdicts: 314 });
    expect(lines[2]?.msg).toBe("chat lines are decided by GSA's answers again: 314 chat lines went to mute.onUnknown in 2 min");
    vi.advanceTimersByTime(10 * 60_000);
    expect(lines).toHaveLength(3);
  });

  it('counts only unknown verdicts: answered, muted, filtered and not gated lines write nothing', () => {
    events.emit('verdict', verdict('ok'));
    events.emit('verdict', verdict('muted', 'block'));
    events.emit('verdict', verdict('filtered', 'block'));
    events.emit('verdict', verdict('not_gated'));
    vi.advanceTimersByTime(5 * 60_000);
    expect(lines).toEqual([]);
  });

  it('names the cause the sidecar knows, the host-side ones first', () => {
    const causeAfter = (set: () => void): string | undefined => {
      lines.length = 0;
      set();
      unknown(1);
      vi.advanceTimersByTime(60_000);
      const line = lines.find((candidate) => candidate.level === WARN);
      // End the state before the next case.
      vi.advanceTimersByTime(60_000);
      return line === undefined ? undefined : `${line.cause ?? ''}: ${line.msg}`;
    };
    expect(causeAfter(() => undefined)).toBe('slow_answers: 1 chat line decided by mute.onUnknown in the last minute: GSA answered later than mute.decisionTimeoutMs; 0 lookups waiting');
    expect(causeAfter(() => (state.refused.system = true))).toMatch(/^system_key_refused: .*GSA refuses the System API key \(api\.system\.key\)/);
    expect(causeAfter(() => (state.budget = { waiting: { mute: 1, review: 0, action: 0 }, windowFree: 0 }))).toMatch(/^budget_spent: .*the API budget is spent; 1 lookup waiting$/);
    expect(causeAfter(() => (state.holdSeconds = 42))).toMatch(/^held: .*GSA asked the sidecar to wait \(Retry-After\), 42 s left/);
    expect(causeAfter(() => (state.reachable = false))).toMatch(/^unreachable: .*: GSA is unreachable; 1 lookup waiting$/);
    expect(causeAfter(() => (state.refused.mod = true))).toMatch(/^credentials_refused: .*GSA refuses the API credentials/);
  });

  it('leaves out the lookups waiting when the budget cannot be read, and survives a source that throws', () => {
    state.budget = undefined;
    summary.close();
    const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Line) } });
    summary = new UnknownVerdictSummary({
      events,
      logger,
      clock: { now: () => Date.now() },
      causes: {
        credentialsRefused: () => {
          throw new Error('broken source');
        },
        budget: () => state.budget,
      },
    });
    unknown(2);
    vi.advanceTimersByTime(60_000);
    expect(lines.map((line) => line.msg)).toEqual(['2 chat lines decided by mute.onUnknown in the last minute: GSA answered later than mute.decisionTimeoutMs']);
  });

  it('stops on close: no listener, no timer', () => {
    unknown(3);
    summary.close();
    vi.advanceTimersByTime(5 * 60_000);
    expect(lines).toEqual([]);
    expect(events.listens('verdict')).toBe(false);
  });
});
