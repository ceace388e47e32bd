// Two game servers in one real `gsa-bridge run` process: each server's mod listener gates its players by that
// server's mutes at GSA, the startup line names both listeners by adapter id, and /readyz and /metrics list both.
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { connectMod } from '../fixtures/modSocket.js';
import { useProcessHarness } from '../fixtures/processHarness.js';
import { modListenerUrl } from '../fixtures/sidecarProcess.js';

const ALPHA = 'alpha-server';
const BETA = 'beta-server';
const TOKEN = 'two-servers-token-7c1';
const ALICE = { steam_id: '76561198000000077' };

const { writeSetup, startGsa, startSidecar, connect } = useProcessHarness({ server: ALPHA, clientSecret: 'two-servers-secret', modToken: TOKEN, label: 'two-servers' });

describe('two servers in one process', () => {
  it('gates each server\'s players by that server\'s mutes, and reports both listeners', async () => {
    const setup = await writeSetup();
    const config = JSON.parse(await readFile(setup.configPath, 'utf8')) as { servers: Record<string, unknown>[] };
    config.servers.push({ name: BETA, id: 4712, adapters: [{ type: 'websocket', id: 'beta-mod', port: 0, token: TOKEN }] });
    await writeFile(setup.configPath, JSON.stringify(config));
    const emulator = await startGsa(setup);
    emulator.addServer(BETA, 4712);
    emulator.mute(BETA, ALICE.steam_id, 'Muted on beta only');

    const sidecar = await startSidecar(setup);
    expect(sidecar.output()).toContain(`mod WebSocket ${setup.modAdapterId} for ${ALPHA}`);
    expect(sidecar.output()).toContain(`mod WebSocket beta-mod for ${BETA}`);

    const alphaMod = await connect(sidecar, setup.modAdapterId);
    const betaMod = await connectMod(modListenerUrl(sidecar, 'beta-mod'), TOKEN);
    try {
      expect(await betaMod.waitFor((frame) => frame.type === 'welcome')).toMatchObject({ server: BETA });
      alphaMod.send({ type: 'chat', id: 'a1', player: ALICE, channel: 'global', text: 'hi' });
      betaMod.send({ type: 'chat', id: 'b1', player: ALICE, channel: 'global', text: 'hi' });
      expect(await alphaMod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === 'a1')).toMatchObject({ allow: true });
      expect(await betaMod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === 'b1')).toMatchObject({ allow: false, alert: 'Muted on beta only' });
      // The credentials check at start asks about the first server; then one lookup per server's chat.
      expect(emulator.calls.filter((call) => call.endpoint === 'mute').map((call) => call.server).sort()).toEqual([ALPHA, ALPHA, BETA]);

      const opsUrl = /operations endpoints on (http:\/\/127\.0\.0\.1:\d+)/.exec(sidecar.output())?.[1];
      expect(opsUrl).toBeDefined();
      expect((await fetch(`${String(opsUrl)}/readyz`)).status).toBe(200);
      const metrics = await (await fetch(`${String(opsUrl)}/metrics`)).text();
      expect(metrics).toContain(`gsa_bridge_adapter_connected{server="${ALPHA}",adapter="${setup.modAdapterId}"} 1`);
      expect(metrics).toContain(`gsa_bridge_adapter_connected{server="${BETA}",adapter="beta-mod"} 1`);
      expect(metrics).toMatch(/^gsa_bridge_chat_verdicts_total\{verdict="block"\} 1$/m);
    } finally {
      await betaMod.close();
    }
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });
});
