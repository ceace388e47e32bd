// A Retry-After hold as a host sees it: how long it still runs (gsa_bridge_budget_hold_seconds reads it), and one
// warning line when a hold of over a minute begins, never one per answer of the same hold, none for a short one.
import { MockAgent } from 'undici';
import { afterEach, expect, it } from 'vitest';
import { GsaClient, RateLimitedError } from '../../src/gsa/index.js';
import { createLogger } from '../../src/log/logger.js';
import { failureOf } from '../fixtures/failureOf.js';

const ORIGIN = 'http://gsa.test';
const STEAM = '76561198000000001';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function clientWithLog(maxRetryAfterMs: number): { client: GsaClient; agent: MockAgent; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) } });
  const agent = new MockAgent();
  agent.disableNetConnect();
  const client = new GsaClient({ baseUrl: ORIGIN, clientId: 'id', clientSecret: 'secret', dispatcher: agent, logger, retry: { retries: 0, maxRetryAfterMs } });
  cleanup.push(async () => {
    await client.close();
    await agent.close();
  });
  return { client, agent, lines };
}

function answer429(agent: MockAgent, retryAfter: string, times: number): void {
  agent
    .get(ORIGIN)
    .intercept({ path: '/api/v1/gameserver/ovddykvbs/mute', method: 'POST' })
    .reply(429, { message: 'Too Many Attempts.' }, { headers: { 'retry-after': retryAfter } })
    .times(times);
}

it('warns once when a hold of over a minute begins, and tells how long it still runs', async () => {
  const { client, agent, lines } = clientWithLog(300_000);
  answer429(agent, '120', 2);
  const checks = [client.checkMuted('ovddykvbs', { steamId: STEAM }), client.checkMuted('ovddykvbs', { steamId: STEAM })];
  for (const check of checks) expect(await failureOf(check)).toBeInstanceOf(RateLimitedError);
  expect(client.heldForMs).toBeGreaterThan(110_000);
  expect(client.heldForMs).toBeLessThanOrEqual(120_000);
  const warnings = lines.filter((line) => line.level === 40);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]?.msg).toMatch(/^GSA answered 429 with a Retry-After of 120 s \(at most api\.retry\.maxRetryAfterMs\): no call on this API key starts until \d{4}-\d\d-\d\dT/);
});

it('caps the hold at maxRetryAfterMs, and says nothing of a hold of a minute or less', async () => {
  const { client, agent, lines } = clientWithLog(60_000);
  answer429(agent, '86400', 1);
  expect(await failureOf(client.checkMuted('ovddykvbs', { steamId: STEAM }))).toBeInstanceOf(RateLimitedError);
  expect(client.heldForMs).toBeGreaterThan(50_000);
  expect(client.heldForMs).toBeLessThanOrEqual(60_000);
  expect(lines.filter((line) => line.level === 40)).toEqual([]);
});
