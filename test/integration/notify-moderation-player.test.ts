// A chat filter step told to the webhooks names the player (id and name) and never carries the line's text: a real
// sidecar with moderation.filter and notify.moderation, a real mod WebSocket, a fake Discord and a generic JSON
// receiver. The JSON body keeps its exact keys; the name, the game's text, arrives cleaned and quoted.
import { afterEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/app/config.js';
import { sidecarOperationsSources } from '../../src/cli/runOperations.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { silentLogger } from '../../src/log/logger.js';
import { Notifier } from '../../src/notify/notifier.js';
import { startSidecar } from '../../src/sidecar.js';
import { FakeDiscordWebhook } from '../fixtures/fakeDiscordWebhook.js';
import { waitForIo } from '../fixtures/ioWaits.js';
import { connectMod } from '../fixtures/modSocket.js';
import { PATIENT_DECISION_TIMEOUT_MS } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const SERVER = 'ovddykvbs';
const TOKEN = 'notify-player-token';
const LISTED = 'scamword';
const CHAT_TEXT = `buy gold here ${LISTED} cheap-secret-phrase`;
const PLAYER = { steam_id: '76561198000000077', name: 'Rex\nthe *bold*' };

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a chat filter step told to the webhooks', () => {
  it("names the player's id and name, never the chat line's text", async () => {
    const emulator = await GsaEmulator.start({ servers: [{ name: SERVER, id: 4711 }] });
    cleanups.push(() => emulator.close());
    const discord = await FakeDiscordWebhook.start();
    cleanups.push(() => discord.close());
    const json = await FakeDiscordWebhook.start({ genericJson: true });
    cleanups.push(() => json.close());
    const config = parseConfig(
      {
        api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } },
        servers: [{ name: SERVER, id: 4711, adapters: [{ type: 'websocket', port: 0, token: TOKEN }] }],
        mute: { decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS },
        reviews: { dataDir: await tempDir('notify-player') },
        moderation: { filter: { words: [LISTED], ladder: [{ action: 'warn' }] } },
        notify: {
          webhooks: [
            { url: discord.url, format: 'discord' },
            { url: json.url, format: 'json' },
          ],
          moderation: true,
        },
      },
      {},
    );
    const sidecar = await startSidecar(config, { logger: silentLogger() });
    cleanups.push(() => sidecar.stop());
    const notifier = new Notifier({ config: config.notify, sources: sidecarOperationsSources(() => ({ sidecar, config })), events: sidecar.events, logger: silentLogger() });
    cleanups.push(() => notifier.close(0));
    notifier.start();

    const url = sidecar.adapters[0]?.listeningAddress?.().url;
    if (url === undefined) throw new Error('no listening adapter');
    const mod = await connectMod(url, TOKEN);
    cleanups.push(() => mod.close());
    await mod.waitFor((frame) => frame.type === 'welcome');
    mod.send({ type: 'chat', id: 'c1', player: PLAYER, channel: 'global', text: CHAT_TEXT });
    expect(await mod.waitFor((frame) => frame.type === 'chat.verdict' && frame.id === 'c1')).toMatchObject({ allow: false, reason: 'filtered' });
    await waitForIo(() => discord.accepted.length === 1 && json.accepted.length === 1, 'the warn step told to both webhooks');

    const body = json.accepted[0] as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['event', 'severity', 'server', 'adapter', 'message', 'at']);
    expect(body).toMatchObject({ event: 'moderation.warn', server: SERVER, message: `On ${SERVER}, the chat filter warned player ${PLAYER.steam_id} "Rex the *bold*".` });
    const embed = (discord.accepted[0] as { embeds: { fields: { name: string; value: string }[] }[] }).embeds[0]!;
    expect(embed.fields.find((field) => field.name === 'Player')?.value).toBe(`${PLAYER.steam_id} \\(Rex the \\*bold\\*\\)`);
    for (const received of [JSON.stringify(discord.accepted), JSON.stringify(json.accepted)]) {
      expect(received).toContain(PLAYER.steam_id);
      expect(received).not.toContain('cheap-secret-phrase');
      expect(received).not.toContain(LISTED);
      expect(received).not.toContain('buy gold');
    }
  });
});
