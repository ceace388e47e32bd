// The RCON adapter in a real `gsa-bridge run` process, as a host runs it: a config file with a Squad rcon adapter,
// the fake Squad server and the emulator on loopback. A muted speaker is warned, the password never reaches the
// log, and SIGTERM closes the one session without a reconnect.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { FakeRustWebRconServer } from '../fixtures/fakeRustWebRconServer.js';
import { FakeSourceRconServer } from '../fixtures/fakeSourceRconServer.js';
import { spawnSidecar, waitForOutput, type SidecarProcess } from '../fixtures/sidecarProcess.js';
import { tempDir } from '../fixtures/tempDir.js';
import { patientMs } from '../fixtures/patience.js';

const SERVER = 'ovddykvbs';
const CLIENT_SECRET = 'client-secret-rcon-5ea1';
const PASSWORD = 'rcon-password-9f7e1c';
const EOS = '0002cccccccccccccccccccccccccc03';
const STEAM = '76561198000000003';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean, what: string, sidecar: SidecarProcess, timeoutMs = patientMs(15_000)): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}:\n${sidecar.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('gsa-bridge run with an rcon adapter', () => {
  it('warns a muted Squad speaker over RCON and closes its one session on SIGTERM', async () => {
    const emulator = await GsaEmulator.start({ clientSecret: CLIENT_SECRET, servers: [{ name: SERVER, id: 4711 }] });
    cleanups.push(() => emulator.close());
    // Muted under the Steam64, as GSA keys Squad's players: the line carries both ids and the sidecar asks by it.
    emulator.mute(SERVER, STEAM, 'Muted for spam');
    const players = `----- Active Players -----\nID: 1 | Online IDs: EOS: ${EOS} steam: ${STEAM} | Name:  Loud One | Team ID: 1 | Squad ID: 2\n`;
    const fake = await FakeSourceRconServer.start({ quirks: 'squad', password: PASSWORD, respond: (command) => (command === 'ListPlayers' ? players : '') });
    cleanups.push(() => fake.stop());
    const dir = await tempDir('rcon-process');
    const configPath = join(dir, 'config.json');
    await writeFile(
      configPath,
      JSON.stringify({
        api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: CLIENT_SECRET, retry: { retries: 0, minDelayMs: 50, maxDelayMs: 100 } },
        servers: [{ name: SERVER, id: 4711, adapters: [{ type: 'rcon', id: 'squad-main', profile: 'squad', port: fake.port, password: PASSWORD, pollPlayersMs: 200 }] }],
        reviews: { dataDir: 'data' },
        http: { port: 0 },
        log: { level: 'debug' },
      }),
    );
    const sidecar = spawnSidecar(configPath);
    cleanups.push(async () => {
      if (sidecar.child.exitCode === null && sidecar.child.signalCode === null) sidecar.child.kill('SIGKILL');
      await sidecar.exited();
    });
    await waitForOutput(sidecar, /gsa-bridge running/);
    // Two lookups answered: run's credentials check at start, and the join's.
    await until(() => fake.logins === 1 && emulator.calls.filter((call) => call.endpoint === 'mute' && call.status === 200).length >= 2, 'login and the join lookup', sidecar);
    fake.pushChat(`[ChatAll] [Online IDs:EOS: ${EOS} steam: ${STEAM}] Loud One : hello`);
    await until(() => fake.commands.includes(`AdminWarn "${EOS}" Muted for spam`), 'the warning', sidecar);

    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
    await until(() => fake.sessions === 0, 'the session closed', sidecar);
    expect(fake.maxConcurrentSessions).toBe(1);
    // The process is gone; any connection it opened is in the fake's backlog ahead of a marker opened now.
    expect(await fake.connectionsSoFar()).toBe(1);
    expect(sidecar.output()).not.toContain(PASSWORD);
    expect(sidecar.output()).toContain('squad-main');
  }, patientMs(40_000));

  it('a Rust adapter with a wrong password: one error line, naming the key once and the adapter once', async () => {
    const emulator = await GsaEmulator.start({ clientSecret: CLIENT_SECRET, servers: [{ name: SERVER, id: 4711 }] });
    cleanups.push(() => emulator.close());
    const fake = await FakeRustWebRconServer.start({ password: PASSWORD });
    cleanups.push(() => fake.stop());
    const dir = await tempDir('rcon-process');
    const configPath = join(dir, 'config.json');
    await writeFile(
      configPath,
      JSON.stringify({
        api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: CLIENT_SECRET },
        servers: [{ name: SERVER, adapters: [{ type: 'rcon', id: 'rust-main', profile: 'rust', port: fake.port, password: 'rcon-wrong-password-2b' }] }],
        reviews: { dataDir: 'data' },
        http: { port: 0 },
      }),
    );
    const sidecar = spawnSidecar(configPath);
    cleanups.push(async () => {
      if (sidecar.child.exitCode === null && sidecar.child.signalCode === null) sidecar.child.kill('SIGKILL');
      await sidecar.exited();
    });
    await waitForOutput(sidecar, /authentication failed/);
    const [line] = sidecar.output().split('\n').filter((text) => text.includes('authentication failed'));
    // One `adapter` field (pino writes a key twice when a child logger repeats it), and the key named once.
    expect(line?.match(/"adapter":/g)).toHaveLength(1);
    const message = (JSON.parse(line ?? '{}') as { msg: string }).msg;
    expect(message.match(/check /g)).toHaveLength(1);
    expect(message).toContain(`check "password" of adapter rust-main against the server's rcon.password.`);
    expect(sidecar.output()).not.toContain('rcon-wrong-password-2b');
  }, patientMs(40_000));
});
