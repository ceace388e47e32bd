// A refused System API key counts as a refused mod API key does, in a real `gsa-bridge run` process: once GSA answers
// 401 to a System API call (a mod's server action), /readyz says 503 naming the System API key, and the fake Discord
// hears `credentials_refused.start`; a `gsa-bridge reload` with the right key ends both. The key is never logged or
// posted.
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { FakeDiscordWebhook } from '../fixtures/fakeDiscordWebhook.js';
import { waitForIo } from '../fixtures/ioWaits.js';
import { useProcessHarness, type ProcessSetup } from '../fixtures/processHarness.js';
import type { SidecarProcess } from '../fixtures/sidecarProcess.js';

const SERVER = 'syskeyrun';
const CLIENT_SECRET = 'system-key-run-secret-2b7d';
const WRONG_KEY = 'not-the-system-key-of-this-gsa-61fe';
const OPS_URL = /operations endpoints on (http:\/\/127\.0\.0\.1:\d+)/;

const { writeSetup, startGsa, startSidecar, connect } = useProcessHarness({ server: SERVER, clientSecret: CLIENT_SECRET, modToken: 'syskey-token', label: 'syskey' });

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type ConfigFile = { api: Record<string, unknown>; servers: Record<string, unknown>[]; notify?: unknown };

async function editConfig(setup: ProcessSetup, edit: (config: ConfigFile) => void): Promise<void> {
  const config = JSON.parse(await readFile(setup.configPath, 'utf8')) as ConfigFile;
  edit(config);
  await writeFile(setup.configPath, JSON.stringify(config));
}

interface Embed {
  readonly title: string;
  readonly description: string;
  readonly fields: readonly { readonly name: string; readonly value: string }[];
}

const embedOf = (body: unknown): Embed => (body as { embeds: Embed[] }).embeds[0]!;

async function readyz(sidecar: SidecarProcess): Promise<{ status: number; body: string }> {
  const url = OPS_URL.exec(sidecar.output())?.[1];
  if (url === undefined) throw new Error(`no operations endpoint address in the log:\n${sidecar.output()}`);
  const response = await fetch(`${url}/readyz`);
  return { status: response.status, body: await response.text() };
}

describe('a refused System API key', () => {
  it('makes /readyz 503 and notifies credentials_refused, like the mod API key; a reload with the right key ends both', async () => {
    const discord = await FakeDiscordWebhook.start();
    cleanups.push(() => discord.close());
    const setup = await writeSetup();
    await editConfig(setup, (config) => {
      config.api.system = { key: WRONG_KEY };
      config.servers[0]!.allowActions = ['restart'];
      config.notify = { webhooks: [{ url: discord.url, format: 'discord' }], afterMs: 10_000 };
    });
    const emulator = await startGsa(setup);
    const sidecar = await startSidecar(setup);
    expect((await readyz(sidecar)).status).toBe(200);

    // A mod's server action goes through the System API when a key is set: GSA refuses the key.
    const mod = await connect(sidecar);
    mod.send({ type: 'server.action', id: 'a1', action: 'restart' });
    await mod.waitFor((frame) => frame.id === 'a1');
    await waitForIo(() => discord.accepted.length >= 1, 'the credentials_refused notification');
    const refusedEmbed = embedOf(discord.accepted[0]);
    expect(refusedEmbed.title).toBe('GSA refused the API credentials');
    expect(refusedEmbed.fields.find((field) => field.name === 'Event')?.value).toBe('credentials\\_refused.start');
    // Discord's markdown characters come escaped.
    expect(refusedEmbed.description).toMatch(/^GSA refused the System API key \\\(401\\\): check api\.system\.key or GSA\\_SYSTEM\\_API\\_KEY/);
    const refused = await readyz(sidecar);
    expect(refused.status).toBe(503);
    expect((JSON.parse(refused.body) as { reasons: string[] }).reasons).toEqual([
      expect.stringMatching(new RegExp(`^server ${SERVER} \\(adapters ${setup.modAdapterId}\\): GSA refused the System API key \\(401\\): check api\\.system\\.key or GSA_SYSTEM_API_KEY`)),
    ]);

    await editConfig(setup, (config) => {
      config.api.system = { key: emulator.systemKey };
    });
    const reload = await runCliInProcess(['reload', '--config', setup.configPath]);
    expect(reload.code, reload.stderr).toBe(0);
    await waitForIo(() => discord.accepted.length >= 2, 'the end of the refusal');
    const endEmbed = embedOf(discord.accepted[1]);
    expect(endEmbed.fields.find((field) => field.name === 'Event')?.value).toBe('credentials\\_refused.end');
    expect(endEmbed.description).toMatch(/^GSA no longer refuses the System API key \\\(after /);
    expect((await readyz(sidecar)).status).toBe(200);

    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
    for (const text of [sidecar.output(), JSON.stringify(discord.accepted)]) {
      expect(text).not.toContain(WRONG_KEY);
      expect(text).not.toContain(emulator.systemKey);
    }
  });
});
