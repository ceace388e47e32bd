// A host's own `gsa-bridge mute` and `unmute` against a real `gsa-bridge run` process on the same data directory:
// once GSA accepted, the command tells the sidecar over the data directory's control channel, so the player's very
// next line over a real mod WebSocket is blocked (then allowed) without waiting for the mute cache's TTL; a mute made
// in the dashboard still arrives at the next refresh, as before. Named by GSA's uuid, the player's game ids come from
// GSA's player record. With no sidecar, or no game id, the command still succeeds and says the change waits for the
// cache.
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { ModSocket } from '../fixtures/modSocket.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { patientMs, QUIET_WAIT_MS } from '../fixtures/patience.js';
import { useProcessHarness, type ProcessSetup } from '../fixtures/processHarness.js';
import { waitForOutput } from '../fixtures/sidecarProcess.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'host-mute-token-91';
const CLIENT_SECRET = 'client-secret-host-mute-3c';
const REX = { steam_id: '76561198000000421', name: 'Rex' };
const REX_UUID = '6d1f3c0a-8b2e-4f5a-9c7d-0e1f2a3b4c5d';

const { writeSetup, startGsa, startSidecar, connect } = useProcessHarness({ server: SERVER, clientSecret: CLIENT_SECRET, modToken: TOKEN, label: 'host-mute' });

let counter = 0;
async function chat(mod: ModSocket): Promise<Record<string, unknown>> {
  const id = `h${String(++counter)}`;
  mod.send({ type: 'chat', id, player: REX, channel: 'global', text: 'hello' });
  return mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === id);
}

/** A "not muted" answer kept 1 s, so a dashboard mute shows within a test; everything else as the harness writes it. */
async function withShortUnmutedTtl(setup: ProcessSetup): Promise<void> {
  const config = JSON.parse(await readFile(setup.configPath, 'utf8')) as { mute: Record<string, unknown> };
  config.mute = { ...config.mute, unmutedTtlMs: 1000 };
  await writeFile(setup.configPath, JSON.stringify(config));
}

function command(setup: ProcessSetup, systemKey: string, args: string[]) {
  return runCliInProcess([...args, '--config', setup.configPath], { GSA_SYSTEM_API_KEY: systemKey });
}

describe('gsa-bridge mute and unmute with a sidecar running on the data directory', () => {
  it("blocks the player's very next line after mute and allows it after unmute; a dashboard mute still arrives at the next refresh", async () => {
    const setup = await writeSetup();
    await withShortUnmutedTtl(setup);
    const emulator = await startGsa(setup);
    emulator.addPlayer({ ids: [{ type: 'steam', id: REX.steam_id }], name: REX.name, uuid: REX_UUID });
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    // The sidecar has asked GSA and keeps "not muted": without being told, it would allow the next lines too.
    expect(await chat(mod)).toMatchObject({ allow: true, reason: 'ok' });

    const mute = await command(setup, emulator.systemKey, ['mute', '--steam-id', REX.steam_id, '--period', '1h']);
    expect(mute.code, mute.stderr).toBe(0);
    expect(mute.stdout).toBe(`mute player ${REX_UUID} (Rex): accepted (200): Player will be muted shortly.\n`);
    expect(mute.stderr).toMatch(/^the running sidecar \(pid \d+, [^)]*\) blocks the player's chat from their next line\n$/);
    // The sidecar's mods hear of it at once too, as of a refresh that found the player muted.
    await mod.waitFor((frame) => frame.type === 'mute.changed' && frame.muted === true);
    expect(await chat(mod)).toMatchObject({ allow: false, reason: 'muted' });
    await waitForOutput(sidecar, /"muted":true,"msg":"mute status changed/);

    // GSA's per-player 120 s between a mute and an unmute is the emulator's to forget, not the test's to wait out.
    emulator.reset();
    const unmute = await command(setup, emulator.systemKey, ['unmute', '--steam-id', REX.steam_id]);
    expect(unmute.code, unmute.stderr).toBe(0);
    expect(unmute.stderr).toMatch(/^the running sidecar \(pid \d+, [^)]*\) allows the player's chat from their next line\n$/);
    expect(await chat(mod)).toMatchObject({ allow: true, reason: 'ok' });

    // A mute made in the dashboard reaches the sidecar as before: once the "not muted" answer is stale, a refresh asks GSA.
    emulator.mute(SERVER, REX.steam_id, 'muted in the dashboard');
    const deadline = Date.now() + patientMs(QUIET_WAIT_MS);
    let verdict = await chat(mod);
    while (verdict.allow === true && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      verdict = await chat(mod);
    }
    expect(verdict).toMatchObject({ allow: false, reason: 'muted', alert: 'muted in the dashboard' });
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });

  it("named by GSA's uuid (--player): tells the sidecar the game ids GSA lists for the player; says so when it lists none", async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    emulator.addPlayer({ ids: [{ type: 'steam', id: REX.steam_id }], name: REX.name, uuid: REX_UUID });
    const nobodyUuid = emulator.addPlayer({ ids: [{ type: 'discord', id: '4242424242' }], name: 'Only Discord' });
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    expect(await chat(mod)).toMatchObject({ allow: true, reason: 'ok' });

    const run = await command(setup, emulator.systemKey, ['mute', '--player', REX_UUID, '--period', '15m']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^the running sidecar \(pid \d+, [^)]*\) blocks the player's chat from their next line\n$/);
    expect(await chat(mod)).toMatchObject({ allow: false, reason: 'muted' });
    // One GET /player/{uuid} read the linked accounts: the mute itself needed no players/find.
    expect(emulator.calls.filter((call) => call.flavor === 'system' && call.method === 'GET').map((call) => call.path)).toEqual([`/system-api/v2/player/${REX_UUID}`]);

    const none = await command(setup, emulator.systemKey, ['mute', '--player', nobodyUuid, '--period', '15m']);
    expect(none.code).toBe(0);
    expect(none.stderr).toMatch(/^note: the running sidecar \(pid \d+, [^)]*\) was not told: it knows players by their game ids, and GSA lists no Steam, EOS or Mojang account for this player; it sees the change when its mute cache next asks GSA \(within mute\.unmutedTtlMs\)\n$/);
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });

  it('with no sidecar on the data directory: the mute is made (exit 0) and the note says no sidecar was told', async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    emulator.addPlayer({ ids: [{ type: 'steam', id: REX.steam_id }], name: REX.name, uuid: REX_UUID });
    const run = await command(setup, emulator.systemKey, ['mute', '--steam-id', REX.steam_id, '--period', '15m']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('accepted (200)');
    expect(run.stderr).toBe(`note: no sidecar runs on the data directory ${setup.dataDir} (reviews.dataDir of the config file), so none was told; a sidecar running elsewhere sees the change when its mute cache next asks GSA (within mute.unmutedTtlMs)\n`);
  });
});
