// The operations side of a real `gsa-bridge run` process: /healthz, /readyz and /metrics on http.port 0 (the bound
// address read back from the log), metrics that move after a chat and a review, /readyz 503 naming the server and
// the adapter while GSA refuses the credentials (found by the check at start), SIGTERM exiting 0 with a review persisted, a second SIGTERM during
// the drain exiting at once, and a busy http.port being the one-line exit 2.
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useProcessHarness, type ProcessSetup } from '../fixtures/processHarness.js';
import type { SidecarProcess } from '../fixtures/sidecarProcess.js';
import { waitForOutput } from '../fixtures/sidecarProcess.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'ovddykvbs';
const CLIENT_SECRET = 'ops-endpoints-client-secret';
const MOD_TOKEN = 'ops-endpoints-mod-token';
const ALICE = '76561198000000101';

const { writeSetup, startGsa, spawn, startSidecar, connect } = useProcessHarness({ server: SERVER, clientSecret: CLIENT_SECRET, modToken: MOD_TOKEN, label: 'ops' });

const OPS_URL = /operations endpoints on (http:\/\/127\.0\.0\.1:\d+)/;

function opsUrl(sidecar: SidecarProcess): string {
  const match = OPS_URL.exec(sidecar.output());
  if (match?.[1] === undefined) throw new Error(`no operations endpoint address in the log:\n${sidecar.output()}`);
  return match[1];
}

/** The harness's listener has no `id` in the config: it is derived from server, type and port. */
function adapterId(setup: ProcessSetup): string {
  return setup.modAdapterId;
}

async function get(url: string, init: RequestInit = {}): Promise<{ status: number; type: string | null; body: string }> {
  const response = await fetch(url, init);
  return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
}

function metric(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function editConfig(setup: ProcessSetup, edit: (config: Record<string, Record<string, unknown>>) => void): Promise<void> {
  const config = JSON.parse(await readFile(setup.configPath, 'utf8')) as Record<string, Record<string, unknown>>;
  edit(config);
  await writeFile(setup.configPath, JSON.stringify(config));
}

describe('operations endpoints of gsa-bridge run', () => {
  it('listens on a free port for http.port 0, logs it, and answers /healthz, /readyz, /metrics; 404 and 405 otherwise', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    const sidecar = await startSidecar(setup);
    const url = opsUrl(sidecar);

    expect(await get(`${url}/healthz`)).toMatchObject({ status: 200 });
    const ready = await get(`${url}/readyz`);
    expect(ready).toMatchObject({ status: 200, type: 'application/json; charset=utf-8' });
    expect(JSON.parse(ready.body)).toEqual({ ready: true });
    const metrics = await get(`${url}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.type).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(metrics.body).toContain('# TYPE gsa_bridge_chat_verdicts_total counter');
    expect(metrics.body).toMatch(/^process_resident_memory_bytes /m);
    expect(metric(metrics.body, `gsa_bridge_adapter_connected{server="${SERVER}",adapter="${adapterId(setup)}"}`)).toBe(1);

    expect((await get(`${url}/nothing`)).status).toBe(404);
    const post = await fetch(`${url}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    await post.text();
  });

  it('moves the metrics after a chat line and a review', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    const sidecar = await startSidecar(setup);
    const url = opsUrl(sidecar);
    // The credentials check at start is one mute lookup of the budget too: counted below.
    await waitForOutput(sidecar, /API credentials accepted by/);
    const mod = await connect(sidecar);

    mod.send({ type: 'chat', id: 'c1', player: { steam_id: ALICE }, channel: 'global', text: 'hello' });
    await mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === 'c1');
    mod.send({ type: 'chat', id: 'c2', player: { steam_id: ALICE }, channel: 'global', text: 'hello again' });
    await mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === 'c2');
    mod.send({ type: 'review', id: 'r1', player: { steam_id: ALICE }, stars: 5, comment: 'Great admins' });
    await mod.waitFor((frame) => frame.type === 'review.result' && frame.id === 'r1');

    const { body } = await get(`${url}/metrics`);
    expect(metric(body, 'gsa_bridge_chat_verdicts_total{verdict="allow"}')).toBe(2);
    expect(metric(body, 'gsa_bridge_chat_verdicts_total{verdict="block"}')).toBe(0);
    expect(metric(body, 'gsa_bridge_chat_verdict_duration_seconds_count')).toBe(2);
    expect(metric(body, 'gsa_bridge_mute_cache_misses_total')).toBe(1);
    expect(metric(body, 'gsa_bridge_mute_cache_hits_total')).toBe(1);
    expect(metric(body, 'gsa_bridge_api_requests_total{endpoint="mute",status="200"}')).toBe(2);
    expect(metric(body, 'gsa_bridge_api_requests_total{endpoint="review",status="200"}')).toBe(1);
    expect(metric(body, 'gsa_bridge_api_request_duration_seconds_count{endpoint="review"}')).toBe(1);
    expect(metric(body, 'gsa_bridge_outbox_pending')).toBe(0);
    expect(metric(body, 'gsa_bridge_config_reloads_total{result="success"}')).toBe(0);
    expect(body).not.toContain(ALICE);
    // The host's info line for the delivered review.
    await waitForOutput(sidecar, /review [0-9a-f-]+ for ovddykvbs delivered to GSA/);
  });

  it('answers /readyz 503 naming the server and the adapter while GSA refuses the credentials', async () => {
    const setup = await writeSetup();
    await editConfig(setup, (config) => {
      config.api!.clientSecret = 'not-the-secret-gsa-knows';
    });
    await startGsa(setup);
    const sidecar = await startSidecar(setup);
    const url = opsUrl(sidecar);
    // No player needs to speak: run checks the credentials at start (run-credentials-check.test.ts has the rest).
    const deadline = Date.now() + patientMs(10_000);
    let answer = await get(`${url}/readyz`);
    while (answer.status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await get(`${url}/readyz`);
    }
    expect(answer.status).toBe(503);
    const body = JSON.parse(answer.body) as { ready: boolean; reasons: string[] };
    expect(body.ready).toBe(false);
    expect(body.reasons).toEqual([expect.stringMatching(new RegExp(`^server ${SERVER} \\(adapters ${adapterId(setup)}\\): GSA refused the API credentials \\(401\\)`))]);
    expect(answer.body).not.toContain('not-the-secret-gsa-knows');
    const { body: metrics } = await get(`${url}/metrics`);
    expect(metric(metrics, 'gsa_bridge_api_requests_total{endpoint="mute",status="401"}')).toBe(1);
  });

  it('exits 0 on SIGTERM with a review persisted while GSA is down, and closes the endpoints last', async () => {
    const setup = await writeSetup();
    // No GSA: the review stays pending on disk.
    const sidecar = await startSidecar(setup);
    const url = opsUrl(sidecar);
    const mod = await connect(sidecar);
    mod.send({ type: 'review', id: 'r1', player: { steam_id: ALICE }, stars: 4, comment: 'Kept through a stop' });
    await mod.waitFor((frame) => frame.type === 'review.queued' && frame.id === 'r1');
    expect(metric((await get(`${url}/metrics`)).body, 'gsa_bridge_outbox_pending')).toBe(1);

    const signalledAt = Date.now();
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
    // The contract's budget, not a performance bound (the process's own stop deadline is 9 s), stretched on a busy
    // machine, where the child's shutdown can wait seconds for a core.
    expect(Date.now() - signalledAt).toBeLessThan(patientMs(10_000));
    const journal = await readFile(join(setup.dataDir, 'reviews.jsonl'), 'utf8');
    expect(journal).toContain('Kept through a stop');
    expect(sidecar.output()).toMatch(/"msg":"stopped"/);
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('exits at once on a second stop signal during the drain (%s: %i), without finishing it', async (second, code) => {
    const setup = await writeSetup();
    // A review whose answer never comes within the drain: the outbox would wait up to 5 s for it.
    await editConfig(setup, (config) => {
      config.api!.timeoutMs = 30_000;
    });
    const gsa = await startGsa(setup);
    gsa.injectFault({ kind: 'latency', ms: 60_000, endpoint: 'review', count: Infinity });
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    mod.send({ type: 'review', id: 'r1', player: { steam_id: ALICE }, stars: 4, comment: 'In flight at the stop' });
    await mod.waitFor((frame) => frame.type === 'review.queued' && frame.id === 'r1');
    const deadline = Date.now() + patientMs(10_000);
    while (!gsa.calls.some((call) => call.endpoint === 'review') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));

    sidecar.child.kill('SIGTERM');
    await waitForOutput(sidecar, /stopping: answering what is in flight/);
    sidecar.child.kill(second);
    expect(await sidecar.exited()).toBe(code);
    expect(sidecar.output()).toContain(`second ${second} while stopping: exiting at once (code ${code})`);
    expect(sidecar.output()).not.toMatch(/"msg":"stopped"/);
    // The review was acknowledged, so it is on disk for the next start.
    expect(await readFile(join(setup.dataDir, 'reviews.jsonl'), 'utf8')).toContain('In flight at the stop');
  });

  it('exits 2 with one line naming the address when http.port is in use', async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    try {
      const address = blocker.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const setup = await writeSetup();
      await editConfig(setup, (config) => {
        config.http = { port: address.port };
      });
      const sidecar = spawn(setup.configPath);
      expect(await sidecar.exited()).toBe(2);
      const lines = sidecar.output().split('\n').filter((line) => line.startsWith('error:'));
      expect(lines).toEqual([
        `error: cannot listen on 127.0.0.1:${address.port} (http.port, the operations endpoints): port in use (another program listens there); choose another http.port, or 0 for any free port`,
      ]);
      expect(sidecar.output()).not.toMatch(/\n\s+at /);
      // The data directory was not left locked: the same setup starts once the port is free to choose.
      await editConfig(setup, (config) => {
        config.http = { port: 0 };
      });
      await startSidecar(setup);
    } finally {
      blocker.close();
    }
  });
});
