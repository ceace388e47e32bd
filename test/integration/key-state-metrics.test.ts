// The gauges of what a real `gsa-bridge run` knows about its API key, scraped from /metrics against the emulator: a
// wrong secret (refused at the start-time check) is gsa_bridge_credentials_refused{api="mod"} 1 with no player
// speaking; a player GSA refuses on their own account (a review answered 403 not_eligible) leaves it 0, although the
// request counter shows the 403. The key is named by its hash only, never by the client id or the secret.
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { apiKeyDigest } from '../../src/gsa/index.js';
import { useProcessHarness, type ProcessSetup } from '../fixtures/processHarness.js';
import type { SidecarProcess } from '../fixtures/sidecarProcess.js';

const SERVER = 'keystate';
const CLIENT_SECRET = 'key-state-metrics-secret-5c1e';
const WRONG_SECRET = 'key-state-wrong-secret-0b9d';
const ALICE = '76561198000000301';

const { writeSetup, startGsa, startSidecar, connect } = useProcessHarness({ server: SERVER, clientSecret: CLIENT_SECRET, modToken: 'key-state-mod-token', label: 'keystate' });

function opsUrl(sidecar: SidecarProcess): string {
  const match = /operations endpoints on (http:\/\/127\.0\.0\.1:\d+)/.exec(sidecar.output());
  if (match?.[1] === undefined) throw new Error(`no operations endpoint address in the log:\n${sidecar.output()}`);
  return match[1];
}

async function scrape(sidecar: SidecarProcess): Promise<string> {
  const response = await fetch(`${opsUrl(sidecar)}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

function metric(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function withSecret(setup: ProcessSetup, secret: string): Promise<void> {
  const config = JSON.parse(await readFile(setup.configPath, 'utf8')) as { api: Record<string, unknown> };
  config.api.clientSecret = secret;
  await writeFile(setup.configPath, JSON.stringify(config));
}

describe('gsa_bridge_credentials_refused on a real sidecar', () => {
  it('is 1 for the mod API while GSA refuses the secret (found by the check at start), with the key named by its hash only', async () => {
    const setup = await writeSetup();
    await withSecret(setup, WRONG_SECRET);
    await startGsa(setup);
    const sidecar = await startSidecar(setup);
    const text = await scrape(sidecar);
    expect(metric(text, 'gsa_bridge_credentials_refused{api="mod"}')).toBe(1);
    expect(metric(text, 'gsa_bridge_credentials_refused{api="system"}')).toBe(0);
    expect(metric(text, 'gsa_bridge_gsa_unreachable_seconds')).toBe(0);
    expect(metric(text, `gsa_bridge_api_key_info{api="mod",key="${apiKeyDigest('demo-client')}"}`)).toBe(1);
    expect(metric(text, 'gsa_bridge_budget_waiting{class="mute"}')).toBe(0);
    expect(metric(text, 'gsa_bridge_budget_window_free')).toBeGreaterThan(0);
    expect(text).not.toContain('demo-client');
    expect(text).not.toContain(WRONG_SECRET);
  });

  it("stays 0 when GSA refuses a player's review on their own account (403 not_eligible)", async () => {
    const setup = await writeSetup();
    const gsa = await startGsa(setup);
    gsa.setIneligible(SERVER, ALICE, 'not_eligible: Play 2 hours before reviewing');
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    mod.send({ type: 'review', id: 'r1', player: { steam_id: ALICE }, stars: 5, comment: 'Great admins' });
    const result = await mod.waitFor((frame) => frame.type === 'review.result' && frame.id === 'r1');
    expect(result).toMatchObject({ ok: false });
    const text = await scrape(sidecar);
    expect(metric(text, 'gsa_bridge_api_requests_total{endpoint="review",status="403"}')).toBe(1);
    expect(metric(text, 'gsa_bridge_credentials_refused{api="mod"}')).toBe(0);
  });
});
