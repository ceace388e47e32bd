// Notifications from a real sidecar. A `gsa-bridge run` with a wrong secret against the emulator: the fake Discord
// hears "GSA refused the API credentials" at once (within a second's sample of the refusal), never the URL in the
// log; a SIGHUP with the right secret ends it. And a webhook that hangs delays no chat: a mod's chat line gets its
// verdict from GSA while the webhook's first post still hangs and a flood of chat filter steps waits in a bounded queue.
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { sidecarOperationsSources } from '../../src/cli/runOperations.js';
import { silentLogger } from '../../src/log/logger.js';
import { Notifier } from '../../src/notify/notifier.js';
import { FakeDiscordWebhook } from '../fixtures/fakeDiscordWebhook.js';
import { waitForIo } from '../fixtures/ioWaits.js';
import { connectMod } from '../fixtures/modSocket.js';
import { patientMs } from '../fixtures/patience.js';
import { useProcessHarness, type ProcessSetup } from '../fixtures/processHarness.js';
import { HARNESS_SERVER, HARNESS_TOKEN, startSidecarHarness } from '../fixtures/sidecarHarness.js';
import { waitForOutput } from '../fixtures/sidecarProcess.js';

const SERVER = 'notifyrun';
const CLIENT_SECRET = 'notify-run-secret-5c1e';
const WRONG_SECRET = 'not-the-notify-run-secret-93b0';

const { writeSetup, startGsa, startSidecar } = useProcessHarness({ server: SERVER, clientSecret: CLIENT_SECRET, modToken: 'notify-run-token', label: 'notifyrun' });

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fakeDiscord(): Promise<FakeDiscordWebhook> {
  const fake = await FakeDiscordWebhook.start();
  cleanups.push(() => fake.close());
  return fake;
}

async function editConfig(setup: ProcessSetup, edit: (config: Record<string, Record<string, unknown>>) => void): Promise<void> {
  const config = JSON.parse(await readFile(setup.configPath, 'utf8')) as Record<string, Record<string, unknown>>;
  edit(config);
  await writeFile(setup.configPath, JSON.stringify(config));
}

interface Embed {
  readonly title: string;
  readonly timestamp: string;
  readonly fields: readonly { readonly name: string; readonly value: string }[];
}

const embedOf = (body: unknown): Embed => (body as { embeds: Embed[] }).embeds[0]!;

describe('notifications from a running sidecar', () => {
  it('a wrong secret: the fake Discord hears "credentials refused" at once; a SIGHUP with the right one ends it; the URL never logged', async () => {
    const discord = await fakeDiscord();
    const setup = await writeSetup();
    await editConfig(setup, (config) => {
      config.api!.clientSecret = WRONG_SECRET;
      config.notify = { webhooks: [{ url: discord.url, format: 'discord' }], afterMs: 10_000 };
    });
    await startGsa(setup);
    const sidecar = await startSidecar(setup);
    await waitForIo(() => discord.accepted.length >= 1, 'the first notification');
    const refused = embedOf(discord.accepted[0]);
    expect(refused.title).toBe('GSA refused the API credentials');
    expect(refused.fields.find((field) => field.name === 'Event')?.value).toBe('credentials\\_refused.start');
    // At once: noticed within a sample (1 s) of the refusal's log line, by the process's own clock.
    const refusalLine = sidecar
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { time: number; msg: string })
      .find((line) => line.msg.startsWith('GSA refused the API credentials'));
    const noticedAfterMs = Date.parse(refused.timestamp) - refusalLine!.time;
    expect(noticedAfterMs).toBeGreaterThanOrEqual(0);
    expect(noticedAfterMs).toBeLessThan(patientMs(2000));
    expect(discord.accepted).toHaveLength(1);

    await editConfig(setup, (config) => {
      config.api!.clientSecret = CLIENT_SECRET;
    });
    sidecar.child.kill('SIGHUP');
    await waitForOutput(sidecar, /API credentials accepted by/);
    await waitForIo(() => discord.accepted.length >= 2, 'the end of the refusal');
    expect(embedOf(discord.accepted[1]).title).toBe('API credentials no longer refused');

    sidecar.child.kill('SIGTERM');
    expect(await sidecar.exited()).toBe(0);
    const output = sidecar.output();
    expect(output).toMatch(/notifications go to notify\.webhooks\[0\] \(discord, 127\.0\.0\.1:\d+\)/);
    for (const secret of [discord.url, discord.path, discord.token, WRONG_SECRET]) expect(output).not.toContain(secret);
  });

  it('a hanging webhook delays no chat: the verdict comes from GSA while the post hangs, and the flood waits in a bounded queue', async () => {
    const discord = await fakeDiscord();
    discord.answerAlways({ kind: 'hang' });
    const harness = await startSidecarHarness((stop) => cleanups.push(stop));
    const { sidecar } = harness;
    const notifier = new Notifier({
      config: { webhooks: [{ url: discord.url, format: 'discord' }], afterMs: 10_000, moderation: true },
      sources: sidecarOperationsSources(() => ({ sidecar, config: sidecar.config })),
      events: sidecar.events,
      logger: silentLogger(),
    });
    cleanups.push(() => notifier.close(0));
    notifier.start();

    // The chat filter's steps as the core publishes them, far more than the queue holds.
    for (let i = 0; i < 500; i++) sidecar.events.emit('moderation', { server: HARNESS_SERVER, action: 'mute', result: 'ok' });
    await waitForIo(() => discord.posts.length === 1, 'the first post, hanging');
    const [webhook] = notifier.senders;
    expect(webhook!.queued).toBe(50);
    expect(webhook!.dropped).toBe(449);

    const mod = await connectMod(harness.url, HARNESS_TOKEN);
    cleanups.push(() => mod.close());
    await mod.waitFor((frame) => frame.type === 'welcome');
    mod.send({ type: 'chat', id: 'c1', player: { steam_id: '76561198000000001' }, channel: 'global', text: 'hello' });
    const verdict = await mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === 'c1');
    // GSA's own answer (not the policy's "unknown"), while the webhook still has not answered its first post.
    expect(verdict).toMatchObject({ allow: true, reason: 'ok' });
    expect(discord.posts.map((post) => post.status)).toEqual([0]);
  });
});
