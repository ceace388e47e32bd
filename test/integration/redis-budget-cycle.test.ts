// The 6/3/1 cycle is written twice, on purpose: in TypeScript for one process (LocalBudget) and in Lua for every
// sidecar on a key (DECIDE_SCRIPT). This differential test feeds both the same seeded scripts of demand and expects
// the same kind from each at every step, so a change to one walk that the other does not share shows at once.
// Windows here never fill (requests far above the steps), so only the cycle decides.
import { afterEach, expect, it } from 'vitest';
import { seededRandom } from '../../bench/seededRandom.js';
import { LocalBudget } from '../../src/gsa/budget/apiBudget.js';
import { CALL_KINDS, type CallKind, type WaitingCalls } from '../../src/gsa/budget/budgetShares.js';
import { RedisBudget } from '../../src/gsa/budget/shared/redisBudget.js';
import { patientMs } from '../fixtures/patience.js';
import { describeWithRedis, startRedis } from '../fixtures/redisServer.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A demand script: what waits before each decision, at least one call; each kind waits now and then, or not at all. */
function demandScript(seed: number, steps: number): WaitingCalls[] {
  const random = seededRandom(seed);
  // Per script, how likely each kind is to have calls waiting: some scripts starve a kind entirely.
  const chance = CALL_KINDS.map(() => [0, 0.2, 0.5, 0.9][Math.floor(random() * 4)] ?? 0);
  const script: WaitingCalls[] = [];
  while (script.length < steps) {
    const counts = CALL_KINDS.map((_, index) => (random() < (chance[index] ?? 0) ? 1 + Math.floor(random() * 3) : 0));
    if (counts.every((count) => count === 0)) continue;
    script.push({ lookup: counts[0] ?? 0, refresh: counts[1] ?? 0, review: counts[2] ?? 0, action: counts[3] ?? 0 });
  }
  return script;
}

describeWithRedis('the 6/3/1 cycle in Lua and in TypeScript', () => {
  it('grants the same kind at every step of 40 seeded demand scripts, one after the other', async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.stop());
    const shared = new RedisBudget({ url: redis.url, prefix: 'cycle', clientId: 'cycle-client', nodes: 1, requests: 100_000, intervalMs: 60_000, nodeId: 'cycle' });
    cleanup.push(() => shared.close());
    const local = new LocalBudget({ requests: 100_000, intervalMs: 60_000 });
    const deadline = performance.now() + patientMs(15_000);
    while (!(shared.shared && !shared.rebuilding)) {
      if (performance.now() > deadline) throw new Error('the shared budget did not become trusted in time');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (let seed = 1; seed <= 40; seed++) {
      const fromLua: (CallKind | undefined)[] = [];
      const fromTypeScript: (CallKind | undefined)[] = [];
      for (const waiting of demandScript(seed, 30)) {
        fromTypeScript.push(local.decide(waiting).start);
        fromLua.push((await shared.decide(waiting)).start);
      }
      expect({ seed, kinds: fromLua }).toEqual({ seed, kinds: fromTypeScript });
      // Every step had a call waiting and room in the window: every step granted something.
      expect(fromLua.every((kind) => kind !== undefined)).toBe(true);
    }
    expect(shared.shared).toBe(true);
  });
});
