// `gsa-bridge demo [--once] [--port P]`: the whole product on loopback with no account. The embedded GSA
// emulator, the real sidecar, and the reference mod client play a scripted session (allowed chat, blocked
// chat with its alert, a review queued and delivered), printed for people; then it stays up with the mod URL
// and token for a real mod, or exits with --once. Every URL here is local; it never reaches the real service.

import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ModClient, type Player } from '../../adapters/websocket/referenceClient.js';
import { parseConfig } from '../app/config.js';
import { GsaEmulator } from '../gsaEmulator/index.js';
import { startSidecar, type Sidecar } from '../sidecar.js';
import { commandLogger } from './commandLogger.js';
import type { CliContext } from './context.js';
import { EXIT_OK } from './exitCodes.js';
import { PRETTY_OPTION, defineCommand, parseCommandLine } from './options.js';
import { shutdownSignal } from './shutdownSignal.js';

export const DEMO_COMMAND = defineCommand({
  name: 'demo',
  synopsis: '[--once] [--port P] [--pretty]',
  summary: 'the GSA emulator, the sidecar and a mod client on loopback: a scripted session, no account needed',
  details: ['It stays up for your own mod afterwards (Ctrl-C stops it), or exits with --once. Logs at warn unless GSA_BRIDGE_LOG_LEVEL says otherwise.'],
  options: {
    once: { type: 'boolean', description: 'play the session and exit' },
    port: { type: 'integer', value: 'P', min: 0, max: 65535, default: 0, defaultText: '0, any free port', description: "the sidecar's mod WebSocket port" },
    ...PRETTY_OPTION,
  },
});

const SERVER = { name: 'ovddykvbs', id: 4711 };
const DEMO_ADAPTER_ID = 'demo-mod';
const ALICE: Player = { steam_id: '76561198000000001', name: 'Alice' };
const MALLORY: Player = { steam_id: '76561198000000002', name: 'Mallory' };
const MALLORY_ALERT = 'You are muted for spamming global chat. Appeal on our Discord.';
const REVIEW = { stars: 5, comment: 'Great server, friendly admins!' };

async function playScript(mod: ModClient, emulator: GsaEmulator, say: (line: string) => void): Promise<void> {
  mod.join(ALICE);
  mod.join(MALLORY);
  say(`1. Alice and Mallory join; the sidecar warms its mute cache for them`);

  const alice = await mod.chat(ALICE, 'global', 'hi all!');
  say(`2. Alice says "hi all!" in global chat -> ${alice.allow ? 'allowed' : 'blocked'} (reason: ${alice.reason})`);

  const mallory = await mod.chat(MALLORY, 'global', 'BUY GOLD CHEAP');
  say(`3. Mallory says "BUY GOLD CHEAP" -> ${mallory.allow ? 'allowed' : 'blocked'} (reason: ${mallory.reason})`);
  if (!mallory.allow) say(`   the mod shows Mallory: "${mallory.alert}"`);

  const receipt = await mod.review(ALICE, REVIEW.stars, REVIEW.comment);
  say(`4. Alice leaves ${REVIEW.stars} stars: "${REVIEW.comment}" -> review.queued (stored on disk first)`);
  const result = await receipt.result;
  const stored = emulator.reviews.at(-1);
  say(`   review.result: ${result.ok ? 'delivered' : `not delivered (${result.error.code}: ${result.error.message})`}`);
  if (stored !== undefined) say(`   GSA (emulator) now holds: ${stored.stars} stars, "${stored.comment}"`);
}

function boundPort(sidecar: Sidecar): number {
  const address = sidecar.adapters.find((candidate) => candidate.id === DEMO_ADAPTER_ID)?.listeningAddress?.();
  if (address === undefined) throw new Error('the demo sidecar has no WebSocket listener');
  return address.port;
}

export async function demoCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(DEMO_COMMAND, args);
  const { port } = options;
  const say = (line: string): void => {
    context.stdout.write(`${line}\n`);
  };

  const token = randomBytes(12).toString('hex');
  const dataDir = await mkdtemp(join(tmpdir(), 'gsa-bridge-demo-'));
  const emulator = await GsaEmulator.start({ servers: [SERVER] });
  emulator.mute(SERVER.name, MALLORY.steam_id ?? '', MALLORY_ALERT);
  const config = parseConfig(
    {
      api: { baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret },
      servers: [{ ...SERVER, allowActions: ['restart'], adapters: [{ type: 'websocket', id: DEMO_ADAPTER_ID, port, token }] }],
      reviews: { dataDir, cooldownMs: 0 },
      log: { level: 'warn' },
    },
    {},
  );
  const logger = commandLogger(context, { level: 'warn', secrets: [token], pretty: options.pretty, oneShot: true });
  let sidecar: Sidecar | undefined;
  let mod: ModClient | undefined;
  try {
    sidecar = await startSidecar(config, { logger });
    const modUrl = `ws://127.0.0.1:${boundPort(sidecar)}/`;
    mod = new ModClient({ url: modUrl, token });
    await mod.connected();

    say('gsa-bridge demo: the GSA emulator, the sidecar and a mod client, all on loopback; no account needed.');
    say(`  GSA emulator: ${emulator.url}   sidecar mod WebSocket: ${modUrl}`);
    say('');
    await playScript(mod, emulator, say);
    say('');
    if (options.once) {
      say('demo finished.');
      return EXIT_OK;
    }
    await mod.close();
    mod = undefined;
    say('The sidecar stays up for your mod (Ctrl-C stops it):');
    say(`  mod URL: ${modUrl}`);
    say(`  token:   ${token}   (header "Authorization: Bearer <token>", or ${modUrl}?token=<token>)`);
    say(`  server:  ${SERVER.name}; Mallory (${MALLORY.steam_id ?? ''}) is muted; mods may trigger "restart"`);
    say(`  GSA emulator: ${emulator.url} (mute players with POST ${emulator.url}/_emulator/mute)`);
    say(`  System API v2: ${emulator.url}/system-api/v2/ with "Authorization: Bearer ${emulator.systemKey}" (demo key); Mallory is findable by her Steam id`);
    say('The protocol is in docs/mod-protocol.md; adapters/websocket/referenceClient.ts is a client to copy.');
    await shutdownSignal();
    return EXIT_OK;
  } finally {
    await mod?.close();
    await sidecar?.stop();
    await emulator.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
