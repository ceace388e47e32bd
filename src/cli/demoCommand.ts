// `gsa-bridge demo [--once]`: shows the service side of the product working end to end on loopback with
// no account: the embedded emulator, the real client, a scripted session printed for people.
// It never reaches the real service: every URL here is the emulator's.

import { GsaEmulator } from '../gsa/emulator/index.js';
import { GsaClient, type PlayerIds } from '../gsa/index.js';
import { parseCommandArguments } from './arguments.js';
import type { CliContext } from './context.js';
import { EXIT_OK } from './exitCodes.js';
import { shutdownSignal } from './shutdownSignal.js';

export const DEMO_USAGE = 'gsa-bridge demo [--once]';

const SERVER = { name: 'ovddykvbs', id: 4711 };
const ALICE = { name: 'Alice', ids: { steamId: '76561198000000001' } satisfies PlayerIds };
const MALLORY = { name: 'Mallory', ids: { steamId: '76561198000000002' } satisfies PlayerIds };
const MALLORY_ALERT = 'You are muted for spamming global chat. Appeal on our Discord.';
const REVIEW = { stars: 5, comment: 'Great server, friendly admins!' };

async function playScript(client: GsaClient, emulator: GsaEmulator, say: (line: string) => void): Promise<void> {
  const alice = await client.checkMuted(SERVER.name, ALICE.ids);
  say(`1. ${ALICE.name} (${ALICE.ids.steamId}) chats: mute check says ${alice.muted ? 'muted' : 'not muted'} -> chat ${alice.muted ? 'blocked' : 'allowed'}`);

  const mallory = await client.checkMuted(SERVER.name, MALLORY.ids);
  say(`2. ${MALLORY.name} (${MALLORY.ids.steamId}) chats: mute check says ${mallory.muted ? 'muted' : 'not muted'} -> chat ${mallory.muted ? 'blocked' : 'allowed'}`);
  if (mallory.alert !== null) say(`   alert shown to ${MALLORY.name}: "${mallory.alert}"`);

  const receipt = await client.submitReview(SERVER.name, ALICE.ids, REVIEW.stars, REVIEW.comment);
  const stored = emulator.reviews.at(-1);
  say(`3. ${ALICE.name} reviews the server: ${REVIEW.stars} stars, "${REVIEW.comment}" -> delivered (service said "${receipt.message}")`);
  if (stored !== undefined) say(`   the emulator stored: ${stored.stars} stars, "${stored.comment}"`);

  const restart = await client.restart(SERVER.id);
  say(`4. host restarts server ${SERVER.id}: accepted (${restart.status}) ${restart.message}`);
}

export async function demoCommand(args: readonly string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArguments(args, { once: { type: 'boolean' } });
  const say = (line: string): void => {
    context.stdout.write(`${line}\n`);
  };
  const emulator = await GsaEmulator.start({ servers: [SERVER] });
  const client = new GsaClient({ baseUrl: emulator.url, clientId: emulator.clientId, clientSecret: emulator.clientSecret });
  try {
    emulator.mute(SERVER.name, MALLORY.ids.steamId, MALLORY_ALERT);
    say('gsa-bridge demo: everything runs on loopback against the embedded GSA emulator; no account needed.');
    say(`GSA emulator: ${emulator.url} (client id ${emulator.clientId}, server ${SERVER.name}, id ${SERVER.id})`);
    say('');
    await playScript(client, emulator, say);
    say('');
    if (parsed.values.once === true) {
      say('demo finished.');
      return EXIT_OK;
    }
    say(`The emulator stays up for you at ${emulator.url} (client secret "${emulator.clientSecret}"). Try:`);
    say(`  GSA_API_URL=${emulator.url} GSA_CLIENT_ID=${emulator.clientId} GSA_CLIENT_SECRET=${emulator.clientSecret} node bin/gsa-bridge.js mute-check --server ${SERVER.name} --steam-id ${MALLORY.ids.steamId}`);
    say('Ctrl-C stops it.');
    await shutdownSignal();
    return EXIT_OK;
  } finally {
    await client.close();
    await emulator.close();
  }
}
