// SIGHUP on a real `gsa-bridge run` process: a good reload keeps an unchanged adapter's mod connection open and
// serves a cached player with no new service call (counted at the emulator), and starts an added adapter; an
// invalid file and a config that cannot be applied (a port taken) both leave the running config serving.
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { useProcessHarness, type ProcessSetup } from '../fixtures/processHarness.js';
import { modListenerUrl, waitForOutput } from '../fixtures/sidecarProcess.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'reload-token-5eed';
const CLIENT_SECRET = 'client-secret-reload-0f';
const ALICE = { steam_id: '76561198000000001' };

const { writeSetup, startGsa, startSidecar, connect } = useProcessHarness({ server: SERVER, clientSecret: CLIENT_SECRET, modToken: TOKEN, label: 'reload' });

type ConfigFile = {
  servers: { adapters: Record<string, unknown>[]; allowActions?: string[] }[];
  log: { level: string };
  http?: Record<string, unknown>;
  mute?: Record<string, unknown>;
};

async function editConfig(setup: ProcessSetup, edit: (config: ConfigFile) => void): Promise<void> {
  const config = JSON.parse(await readFile(setup.configPath, 'utf8')) as ConfigFile;
  edit(config);
  await writeFile(setup.configPath, JSON.stringify(config));
}

let counter = 0;
async function chat(mod: ModSocket): Promise<Record<string, unknown>> {
  const id = `c${String(++counter)}`;
  mod.send({ type: 'chat', id, player: ALICE, channel: 'global', text: 'hi' });
  return mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === id);
}

/** Occurrences of `pattern` in the output, to wait for the next one after a second SIGHUP. */
function count(output: string, pattern: RegExp): number {
  return output.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
}

describe('SIGHUP', () => {
  it('reloads by difference: the unchanged listener keeps its mod and its cache, an added one starts', async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    expect(await chat(mod)).toMatchObject({ allow: true, reason: 'ok' });
    const muteCalls = (): number => emulator.calls.filter((call) => call.endpoint === 'mute').length;
    // The credentials check at start, and the chat's lookup.
    expect(muteCalls()).toBe(2);

    await editConfig(setup, (config) => {
      config.servers[0]?.adapters.push({ type: 'websocket', id: 'second', port: 0, token: TOKEN });
      config.log.level = 'info';
      // Not applied by a reload: the operations endpoints stay where scrapers know them.
      config.http = { ...config.http, port: 1 };
    });
    const opsUrl = /operations endpoints on (http:\/\/127\.0\.0\.1:\d+)/.exec(sidecar.output())?.[1];
    expect(opsUrl).toBeDefined();
    sidecar.child.kill('SIGHUP');
    await waitForOutput(sidecar, /SIGHUP: config reloaded \(1 started, 0 stopped, 0 restarted, 1 unchanged; 1 setting applied in place: log\.level\)/);
    expect(sidecar.output()).toMatch(/SIGHUP: the http section changed; it takes effect only after a restart/);
    const metrics = await (await fetch(`${String(opsUrl)}/metrics`)).text();
    expect(metrics).toMatch(/^gsa_bridge_config_reloads_total\{result="success"\} 1$/m);

    expect(mod.socket.readyState).toBe(WebSocket.OPEN);
    expect(await chat(mod)).toMatchObject({ allow: true, reason: 'ok' });
    // Cache kept, and no new check: the api section did not change.
    expect(muteCalls()).toBe(2);
    const second = await connectMod(modListenerUrl(sidecar, 'second'), TOKEN);
    try {
      await second.waitFor((frame) => frame.type === 'welcome');
    } finally {
      await second.close();
    }
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });

  it('keeps the running config, and the mod connected, after an invalid file and after a reload that cannot bind', async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    await chat(mod);
    const valid = await readFile(setup.configPath, 'utf8');

    await writeFile(setup.configPath, '{ "servers": [{ "name": "x", "adapters": [{ "type": "websocket", "id": "bad id" }] }] }');
    sidecar.child.kill('SIGHUP');
    await waitForOutput(sidecar, /config file is invalid; keeping the running config/);
    expect(sidecar.output()).toContain('servers[0].adapters[0].id: must be 1–64 letters');

    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const taken = (blocker.address() as AddressInfo).port;
    try {
      await writeFile(setup.configPath, valid);
      await editConfig(setup, (config) => {
        config.servers[0]?.adapters.push({ type: 'websocket', id: 'blocked', port: taken, token: TOKEN });
      });
      const failedBefore = count(sidecar.output(), /the old config is running again/);
      sidecar.child.kill('SIGHUP');
      await waitForOutput(sidecar, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${String(taken)} \\(adapter blocked\\)[^\\n]*the old config is running again`));
      expect(count(sidecar.output(), /the old config is running again/)).toBe(failedBefore + 1);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }

    expect(mod.socket.readyState).toBe(WebSocket.OPEN);
    expect(await chat(mod)).toMatchObject({ allow: true, reason: 'ok' });
    // The credentials check at start and the first chat; the refused reloads changed nothing.
    expect(emulator.calls.filter((call) => call.endpoint === 'mute')).toHaveLength(2);
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });

  it('reports settings applied in place as changes, and a reload that changed nothing as nothing', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    const sidecar = await startSidecar(setup);
    await editConfig(setup, (config) => {
      config.mute = { ...config.mute, defaultAlert: 'Muted here: appeal on the forum.' };
      config.servers[0]!.allowActions = ['restart'];
    });
    sidecar.child.kill('SIGHUP');
    await waitForOutput(sidecar, /SIGHUP: config reloaded/);
    const reloaded = (): string[] => sidecar.output().split('\n').flatMap((line) => /"msg":"(SIGHUP: config reloaded[^"]*)"/.exec(line)?.[1] ?? []);
    expect(reloaded()).toEqual(['SIGHUP: config reloaded (0 started, 0 stopped, 0 restarted, 1 unchanged; 2 settings applied in place: mute.defaultAlert, servers[0].allowActions)']);

    sidecar.child.kill('SIGHUP');
    await waitForOutput(sidecar, /SIGHUP: config reloaded[^\n]*\n(.*\n)*.*SIGHUP: config reloaded/);
    expect(reloaded()[1]).toBe('SIGHUP: config reloaded (0 started, 0 stopped, 0 restarted, 1 unchanged; nothing changed)');
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });
});
