// A real `gsa-bridge run` checks the API credentials once at start, with one mute lookup through its own client:
// a wrong secret is one error line naming where the secret came from and /readyz 503 within 2 s of start, without
// any player speaking; a SIGHUP with the right secret checks again and clears the reason; a right secret is ready and
// spent exactly one call; GSA unreachable is a warning and the sidecar keeps serving, ready.
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { useProcessHarness, type ProcessSetup } from '../fixtures/processHarness.js';
import { spawnSidecar, waitForOutput, type SidecarProcess } from '../fixtures/sidecarProcess.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'credcheck';
const CLIENT_SECRET = 'run-credentials-check-secret-8d2f';
const WRONG_SECRET = 'not-the-secret-gsa-knows-77aa';
const MOD_TOKEN = 'run-credentials-check-token';

const { writeSetup, startGsa, startSidecar } = useProcessHarness({ server: SERVER, clientSecret: CLIENT_SECRET, modToken: MOD_TOKEN, label: 'credcheck' });

const OPS_URL = /operations endpoints on (http:\/\/127\.0\.0\.1:\d+)/;

function opsUrl(sidecar: SidecarProcess): string {
  const match = OPS_URL.exec(sidecar.output());
  if (match?.[1] === undefined) throw new Error(`no operations endpoint address in the log:\n${sidecar.output()}`);
  return match[1];
}

interface LogLine {
  readonly level: number;
  readonly time: number;
  readonly msg: string;
}

function logLines(sidecar: SidecarProcess): LogLine[] {
  return sidecar
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

async function readyz(url: string): Promise<{ status: number; body: { ready: boolean; reasons?: string[] } }> {
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: (await response.json()) as { ready: boolean; reasons?: string[] } };
}

/** Polls /readyz until it answers `status` (the causal signal is the answer itself); fails after 10 s. */
async function readyzUntil(url: string, status: number): Promise<{ status: number; body: { ready: boolean; reasons?: string[] } }> {
  const deadline = Date.now() + patientMs(10_000);
  for (;;) {
    const answer = await readyz(url);
    if (answer.status === status || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function editConfig(setup: ProcessSetup, edit: (config: Record<string, Record<string, unknown>>) => void): Promise<void> {
  const config = JSON.parse(await readFile(setup.configPath, 'utf8')) as Record<string, Record<string, unknown>>;
  edit(config);
  await writeFile(setup.configPath, JSON.stringify(config));
}

function adapterId(setup: ProcessSetup): string {
  return setup.modAdapterId;
}

describe('gsa-bridge run checks the API credentials at start', () => {
  it('a wrong secret: one error line naming the file, /readyz 503 within 2 s of start with no chat; SIGHUP with the right one clears it', async () => {
    const setup = await writeSetup();
    await editConfig(setup, (config) => {
      config.api!.clientSecret = WRONG_SECRET;
    });
    const gsa = await startGsa(setup);
    const sidecar = await startSidecar(setup);
    const url = opsUrl(sidecar);

    const refused = await readyzUntil(url, 503);
    expect(refused.status).toBe(503);
    const reason = `server ${SERVER} (adapters ${adapterId(setup)}): GSA refused the API credentials (401): check api.clientId and api.clientSecret in ${setup.configPath}. Until then every chat is decided by mute.onUnknown and reviews wait.`;
    // /readyz adds what the client's pause means now: lookups wait for the next probe.
    expect(refused.body).toEqual({ ready: false, reasons: [expect.stringMatching(/ Lookups and reviews are paused, spending no budget: next probe in \d+ s \(at once after a reload\)\.$/) as unknown] });
    expect((refused.body as { reasons: string[] }).reasons[0]).toContain(reason);
    const errors = logLines(sidecar).filter((line) => line.level >= 50);
    expect(errors.map((line) => line.msg)).toEqual([reason.slice(reason.indexOf('GSA refused'))]);
    // Within 2 s of start, by the process's own clock: its first log line to the refusal's (a busy machine stretches
    // the process's own time too: it waits for a core between its steps).
    const [first] = logLines(sidecar);
    expect(errors[0]!.time - first!.time).toBeLessThan(patientMs(2000));
    // Nobody spoke: the one call is the check, and it was not retried.
    expect(gsa.calls.map((call) => [call.endpoint, call.status])).toEqual([['mute', 401]]);
    expect(sidecar.output()).not.toContain(WRONG_SECRET);

    // The host fixes the secret and reloads: a new client, checked again, and the reason is gone.
    await editConfig(setup, (config) => {
      config.api!.clientSecret = CLIENT_SECRET;
    });
    sidecar.child.kill('SIGHUP');
    await waitForOutput(sidecar, /API credentials accepted by http:\/\/127\.0\.0\.1:\d+ \(v1\) \(checked at reload with one mute lookup\)/);
    expect(await readyz(url)).toEqual({ status: 200, body: { ready: true } });
    expect(gsa.calls.map((call) => [call.endpoint, call.status])).toEqual([
      ['mute', 401],
      ['mute', 200],
    ]);
  });

  it('a SIGHUP that keeps the client (its api section unchanged) probes the paused credentials at once', async () => {
    const setup = await writeSetup();
    await editConfig(setup, (config) => {
      config.api!.clientSecret = WRONG_SECRET;
    });
    const gsa = await startGsa(setup);
    const sidecar = await startSidecar(setup);
    await readyzUntil(opsUrl(sidecar), 503);
    expect(gsa.calls.map((call) => [call.endpoint, call.status])).toEqual([['mute', 401]]);
    // Not the api section: the client stays, its calls paused for a minute after the 401.
    await editConfig(setup, (config) => {
      config.mute = { ...config.mute, defaultAlert: 'Muted here.' };
    });
    sidecar.child.kill('SIGHUP');
    await waitForOutput(sidecar, /SIGHUP: config reloaded/);
    // The probe goes at once, well inside the minute the pause would otherwise last.
    const deadline = Date.now() + patientMs(10_000);
    while (gsa.calls.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gsa.calls.map((call) => [call.endpoint, call.status])).toEqual([
      ['mute', 401],
      ['mute', 401],
    ]);
    expect(sidecar.output()).not.toContain(WRONG_SECRET);
  });

  it('a wrong secret from GSA_CLIENT_SECRET: the error line names the variable, not the file', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    const sidecar = spawnSidecar(setup.configPath, { GSA_CLIENT_SECRET: WRONG_SECRET });
    try {
      await waitForOutput(sidecar, /GSA refused the API credentials/);
      const [error] = logLines(sidecar).filter((line) => line.level >= 50);
      expect(error?.msg).toBe(
        `GSA refused the API credentials (401): check api.clientId in ${setup.configPath} and GSA_CLIENT_SECRET (set in the environment, it overrides api.clientSecret). Until then every chat is decided by mute.onUnknown and reviews wait.`,
      );
      expect(sidecar.output()).not.toContain(WRONG_SECRET);
    } finally {
      sidecar.child.kill('SIGKILL');
      await sidecar.exited();
    }
  });

  it('the right secret: ready, and the check spent exactly one call of the budget', async () => {
    const setup = await writeSetup();
    // Private, as a host's should be: the permissions warning would be the only other warning.
    await chmod(setup.configPath, 0o600);
    const gsa = await startGsa(setup);
    const sidecar = await startSidecar(setup);
    await waitForOutput(sidecar, /API credentials accepted by http:\/\/127\.0\.0\.1:\d+ \(v1\) \(checked at start with one mute lookup\)/);
    expect(await readyz(opsUrl(sidecar))).toEqual({ status: 200, body: { ready: true } });
    expect(gsa.calls.map((call) => [call.endpoint, call.path, call.status])).toEqual([['mute', `/api/v1/gameserver/${SERVER}/mute`, 200]]);
    expect(logLines(sidecar).filter((line) => line.level >= 40)).toEqual([]);
    // One start-up line names the budget; no secret in it (nor anywhere in the output).
    expect(logLines(sidecar).filter((line) => line.msg.startsWith('API budget:')).map((line) => line.msg)).toEqual([
      'API budget: 1000 calls per 1 s for client id demo-client, local to this sidecar',
    ]);
    expect(sidecar.output()).not.toContain(CLIENT_SECRET);
  });

  it('GSA unreachable: a warning, and the sidecar keeps serving, ready by the usual rules', async () => {
    const setup = await writeSetup();
    await chmod(setup.configPath, 0o600);
    // Nothing listens on GSA's port.
    const sidecar = await startSidecar(setup);
    await waitForOutput(sidecar, /API credentials not checked at start: no usable answer/);
    const warnings = logLines(sidecar).filter((line) => line.level === 40);
    expect(warnings.map((line) => line.msg)).toEqual([
      expect.stringMatching(
        /^API credentials not checked at start: no usable answer from http:\/\/127\.0\.0\.1:\d+ \(v1\) \(network: .*\)\. Serving on: chat is decided by mute\.onUnknown and reviews wait on disk until GSA answers; check api\.baseUrl and the network if this lasts$/,
      ),
    ]);
    expect(logLines(sidecar).filter((line) => line.level >= 50)).toEqual([]);
    expect(await readyz(opsUrl(sidecar))).toEqual({ status: 200, body: { ready: true } });
    expect(sidecar.child.exitCode).toBeNull();
  });
});
