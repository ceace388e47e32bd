// `gsa-bridge mutes` and `gsa-bridge reload` against a real `gsa-bridge run` process, through its data directory's
// control channel: a muted player's chat over a real mod WebSocket is listed with its blocked count and never its
// text; with no sidecar both say so and exit 1; a reload applies a changed file (counted like a SIGHUP), refuses an
// invalid one with its problem printed and the old config still serving, and runs in turn with a SIGHUP; once the
// sidecar is stopping, neither a reload nor a SIGHUP is applied, and each says why.
import { readFile, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectMod, type ModSocket } from '../fixtures/modSocket.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { useProcessHarness, type ProcessSetup } from '../fixtures/processHarness.js';
import { patientMs } from '../fixtures/patience.js';
import { modListenerUrl, spawnSidecar, waitForOutput, type SidecarProcess } from '../fixtures/sidecarProcess.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'mutes-token-5eed';
const CLIENT_SECRET = 'client-secret-mutes-0f';
const MALLORY = { steam_id: '76561198000000666', name: 'Mallory' };
const ALICE = { steam_id: '76561198000000001' };
const CHAT_TEXT = 'a chat line that must never be listed';
// GSA's text, hostile: an escape sequence and a line break must not reach the terminal.
const ALERT = 'Muted for spam\u001b[2J\nappeal on the forum';

const { writeSetup, startGsa, startSidecar, connect } = useProcessHarness({ server: SERVER, clientSecret: CLIENT_SECRET, modToken: TOKEN, label: 'mutes' });

let counter = 0;
async function chat(mod: ModSocket, player: Record<string, string>): Promise<Record<string, unknown>> {
  const id = `c${String(++counter)}`;
  mod.send({ type: 'chat', id, player, channel: 'global', text: CHAT_TEXT });
  return mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === id);
}

type ConfigFile = { api: Record<string, unknown>; servers: { adapters: Record<string, unknown>[] }[]; mute?: Record<string, unknown> };

async function editConfig(setup: ProcessSetup, edit: (config: ConfigFile) => void): Promise<void> {
  const config = JSON.parse(await readFile(setup.configPath, 'utf8')) as ConfigFile;
  edit(config);
  await writeFile(setup.configPath, JSON.stringify(config));
}

async function reloadsCounted(sidecar: SidecarProcess, result: string): Promise<number> {
  const opsUrl = /operations endpoints on (http:\/\/127\.0\.0\.1:\d+)/.exec(sidecar.output())?.[1];
  const metrics = await (await fetch(`${String(opsUrl)}/metrics`)).text();
  return Number(new RegExp(`^gsa_bridge_config_reloads_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 'NaN');
}

describe('gsa-bridge mutes', () => {
  it('lists a player whose chat GSA called muted, with the lines blocked and GSA\'s alert made printable, never the text', async () => {
    const setup = await writeSetup();
    const emulator = await startGsa(setup);
    emulator.mute(SERVER, MALLORY.steam_id, ALERT);
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    expect(await chat(mod, MALLORY)).toMatchObject({ allow: false, reason: 'muted' });
    expect(await chat(mod, MALLORY)).toMatchObject({ allow: false, reason: 'muted' });
    expect(await chat(mod, ALICE)).toMatchObject({ allow: true, reason: 'ok' });

    const json = await runCliInProcess(['mutes', '--json', '--config', setup.configPath]);
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const rows = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(rows).toEqual([
      {
        server: SERVER,
        steam_id: MALLORY.steam_id,
        eos_id: null,
        mojang_id: null,
        name: 'Mallory',
        since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
        last_blocked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
        alert: 'Muted for spam[2J appeal on the forum',
        blocked_last_hour: 2,
        asked: { steam_id: MALLORY.steam_id },
      },
    ]);

    const text = await runCliInProcess(['mutes', '--config', setup.configPath]);
    expect(text.code).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SERVER\s+PLAYER\s+ASKED BY\s+NAME\s+SINCE\s+BLOCKED \(1 h\)\s+ALERT$/);
    expect(lines[1]).toMatch(new RegExp(`^${SERVER}\\s+${MALLORY.steam_id}\\s+steam_id\\s+"Mallory"\\s+\\S+\\s+2\\s+"Muted for spam\\[2J appeal on the forum"$`));
    expect(lines).toHaveLength(2);
    expect(text.stderr).toContain('in the last 60 min');
    for (const output of [json.stdout, text.stdout, text.stderr]) {
      expect(output).not.toContain(CHAT_TEXT);
      expect(output).not.toContain('\u001b');
    }
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });

  it('exits 1 with a message when no sidecar runs on the data directory, for mutes and for reload', async () => {
    const setup = await writeSetup();
    for (const command of [['mutes'], ['mutes', '--json'], ['reload']]) {
      const run = await runCliInProcess([...command, '--config', setup.configPath]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(`error: no sidecar runs on the data directory ${setup.dataDir} (reviews.dataDir of the config file)`);
    }
  });
});

describe('help', () => {
  it('lists mutes and reload, and each command\'s flags', async () => {
    const help = await runCliInProcess(['--help']);
    expect(help.stdout).toContain('gsa-bridge mutes [--json] [--config FILE]');
    expect(help.stdout).toContain('gsa-bridge reload [--config FILE]');
    const mutes = await runCliInProcess(['mutes', '--help']);
    expect(mutes.code).toBe(0);
    expect(mutes.stdout).toMatch(/^ {2}--json +one JSON array of objects, for scripts \(default: off\)$/m);
    expect((await runCliInProcess(['reload', '--help'])).stdout).toContain('Exit 0 reloaded; 1 refused');
  });
});

describe('gsa-bridge reload', () => {
  it('reloads a changed file, as SIGHUP does: applied, printed, counted, and logged as asked for by the command', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    await editConfig(setup, (config) => {
      config.servers[0]?.adapters.push({ type: 'websocket', id: 'second', port: 0, token: TOKEN });
    });
    const run = await runCliInProcess(['reload', '--config', setup.configPath]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('config reloaded (1 started, 0 stopped, 0 restarted, 1 unchanged; no other setting changed)\n');
    expect(run.code).toBe(0);
    // The sidecar's stdout and its answer on the control socket are two streams: the log line may come a moment later.
    await waitForOutput(sidecar, /"msg":"reload \(gsa-bridge reload\): config reloaded \(1 started/);
    expect(await reloadsCounted(sidecar, 'success')).toBe(1);
    // Applied: the new listener takes a mod; the old one's mod is still connected.
    const second = await connectMod(modListenerUrl(sidecar, 'second'), TOKEN);
    try {
      await second.waitFor((frame) => frame.type === 'welcome');
    } finally {
      await second.close();
    }
    expect(mod.socket.readyState).toBe(WebSocket.OPEN);
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });

  it('says so when the file fixes a key that the environment overrides: the reload changes nothing there, and names the variable', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    // The secret comes from the environment, as under systemd's EnvironmentFile; the file holds the same one at first.
    const sidecar = spawnSidecar(setup.configPath, { GSA_CLIENT_SECRET: CLIENT_SECRET });
    try {
      await waitForOutput(sidecar, /gsa-bridge running/);
      const fileSecret = 'a-new-secret-typed-into-the-file';
      await editConfig(setup, (config) => {
        (config as { api?: Record<string, unknown> }).api = { ...(config as { api?: Record<string, unknown> }).api, clientSecret: fileSecret };
      });
      const run = await runCliInProcess(['reload', '--config', setup.configPath]);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain("the file's api.clientSecret (GSA_CLIENT_SECRET) is not used: the environment this sidecar started with overrides it");
      await waitForOutput(sidecar, /"msg":"reload \(gsa-bridge reload\): the file's api.clientSecret \(GSA_CLIENT_SECRET\) is not used/);
      for (const text of [run.stdout, run.stderr, sidecar.output()]) {
        expect(text).not.toContain(fileSecret);
        expect(text).not.toContain(CLIENT_SECRET);
      }
    } finally {
      sidecar.child.kill('SIGTERM');
      await sidecar.exited();
    }
  });

  it('refuses an invalid file with its problem printed (exit 1), and the running config keeps serving', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    await editConfig(setup, (config) => {
      config.servers[0]!.adapters[0]!.id = 'bad id';
    });
    const run = await runCliInProcess(['reload', '--config', setup.configPath]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('error: the config file is invalid; the running sidecar keeps its config:\n');
    expect(run.stderr).toContain('servers[0].adapters[0].id: must be 1–64 letters');
    await waitForOutput(sidecar, /reload \(gsa-bridge reload\): the config file is invalid; keeping the running config/);
    expect(await reloadsCounted(sidecar, 'invalid')).toBe(1);
    expect(mod.socket.readyState).toBe(WebSocket.OPEN);
    expect(await chat(mod, ALICE)).toMatchObject({ allow: true, reason: 'ok' });

    // A file that is not even JSON: the command still finds the sidecar (default data directory) and prints why.
    await writeFile(setup.configPath, '{ "servers": [');
    const broken = await runCliInProcess(['reload', '--config', setup.configPath]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/config file is not valid JSON/);
    expect(mod.socket.readyState).toBe(WebSocket.OPEN);
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });

  it('is refused while the sidecar stops, and a SIGHUP then is ignored: each says so, and the changed file is never applied', async () => {
    const setup = await writeSetup();
    // A review whose answer never comes holds the drain (the outbox waits up to 5 s for a send on the wire).
    await editConfig(setup, (config) => {
      config.api.timeoutMs = 30_000;
    });
    const gsa = await startGsa(setup);
    gsa.injectFault({ kind: 'latency', ms: 60_000, endpoint: 'review', count: Infinity });
    const sidecar = await startSidecar(setup);
    const mod = await connect(sidecar);
    mod.send({ type: 'review', id: 'r1', player: ALICE, stars: 4, comment: 'In flight at the stop' });
    await mod.waitFor((frame) => frame.type === 'review.queued' && frame.id === 'r1');
    const deadline = Date.now() + patientMs(10_000);
    while (!gsa.calls.some((call) => call.endpoint === 'review') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    // A file a reload would apply: a second listener.
    await editConfig(setup, (config) => {
      config.servers[0]?.adapters.push({ type: 'websocket', id: 'second', port: 0, token: TOKEN });
    });

    sidecar.child.kill('SIGTERM');
    await waitForOutput(sidecar, /stopping: answering what is in flight/);
    sidecar.child.kill('SIGHUP');
    const run = await runCliInProcess(['reload', '--config', setup.configPath]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: the running sidecar \(.*\) did not reload its config: the sidecar is stopping\n$/);
    await waitForOutput(sidecar, /"msg":"reload \(gsa-bridge reload\) refused: the sidecar is stopping; the config is not reloaded"/);
    await waitForOutput(sidecar, /"msg":"SIGHUP while stopping: ignored, the config is not reloaded \(the sidecar is stopping\)"/);
    // Done with the drain: a second SIGTERM ends it (its own rule, tested in ops-endpoints).
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(143);
    expect(sidecar.output()).not.toMatch(/config reloaded|second for ovddykvbs|"adapter":"second"/);
  });

  it('runs in turn with a SIGHUP that comes at the same time: two reloads, one after the other, each counted', async () => {
    const setup = await writeSetup();
    await startGsa(setup);
    const sidecar = await startSidecar(setup);
    await editConfig(setup, (config) => {
      config.servers[0]?.adapters.push({ type: 'websocket', id: 'second', port: 0, token: TOKEN });
    });
    const asked = runCliInProcess(['reload', '--config', setup.configPath]);
    sidecar.child.kill('SIGHUP');
    const run = await asked;
    expect(run.code).toBe(0);
    await waitForOutput(sidecar, /"msg":"SIGHUP: config reloaded/);
    await waitForOutput(sidecar, /"msg":"reload \(gsa-bridge reload\): config reloaded/);
    const reloaded = sidecar.output().split('\n').flatMap((line) => /"msg":"((?:SIGHUP|reload \(gsa-bridge reload\)): config reloaded[^"]*)"/.exec(line)?.[1] ?? []);
    // Whichever went first started the new listener; the other found it running: had they overlapped, both would
    // have started it (and the second would have failed to bind or listed it twice).
    expect(reloaded).toHaveLength(2);
    expect(reloaded.map((line) => line.replace(/^.*: config reloaded/, '')).sort()).toEqual([
      ' (0 started, 0 stopped, 0 restarted, 2 unchanged; nothing changed)',
      ' (1 started, 0 stopped, 0 restarted, 1 unchanged; no other setting changed)',
    ]);
    expect(await reloadsCounted(sidecar, 'success')).toBe(2);
    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
  });
});
