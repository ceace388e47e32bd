// Minecraft end to end, below the app layer: the shipped fake Minecraft console on loopback (Source RCON split at
// random byte points, no mirror, `list uuids`, tellraw recorded), a real logs/latest.log written by it and rolled
// under the reader (gzipped aside and begun anew, and a plain rename), the sidecar's RCON adapter with the minecraft
// profile, and a real ServerBridge whose mojangLookup is the test's (the System API is wired by the app layer).
// Shown: a muted player's line is blocked and answered with tellraw holding the escaped alert, an unmuted player's
// line is allowed, a line after each roll is still read, the mod API client is never asked about a Minecraft player,
// and without mojangLookup the policy decides and the host is told once. As live servers write chat (the GSA
// emulator's System API answering, as the app layer wires it): a hybrid's
// Netty thread, colour codes around the name and `/me` are gated like plain chat; a `/me` whose name is not listed,
// a join or UUID line a player types, and a chat plugin's line are never anyone's.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { appendFile, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RconAdapter } from '../../adapters/rcon/rconAdapter.js';
import { MINECRAFT_TEXT_RULES, cleanCommandText, minecraftTellraw } from '../../adapters/rcon/commandText.js';
import { rconOptionsSchema } from '../../adapters/rcon/options.js';
import { minecraftProfile } from '../../adapters/rcon/profiles/minecraft.js';
import { SourceRconClient } from '../../adapters/rcon/sourceRconClient.js';
import { SourceRconDecoder, SourceRconPacketType, encodeSourceRconPacket, type SourceRconPacket } from '../../adapters/rcon/sourceRconCodec.js';
import { BridgeEvents, type VerdictEvent } from '../../src/bridge/events.js';
import { ServerBridge } from '../../src/bridge/serverBridge.js';
import type { MinecraftChatStyle } from '../../src/gameEmulator/gameLogs.js';
import { ALICE, MALLORY } from '../../src/gameEmulator/scriptedChat.js';
import { SourceRconConsole } from '../../src/gameEmulator/sourceRconConsole.js';
import { GsaEmulator } from '../../src/gsaEmulator/index.js';
import { GsaClient, SystemApiClient, type MuteLookupKind, type MuteStatus } from '../../src/gsa/index.js';
import { createLogger, silentLogger } from '../../src/log/logger.js';
import { ReviewOutbox } from '../../src/reviews/reviewOutbox.js';
import { createHostileTextGenerator } from '../fixtures/hostileText.js';
import { patientMs, PATIENT_DECISION_TIMEOUT_MS } from '../fixtures/patience.js';
import { tempDir } from '../fixtures/tempDir.js';

const PASSWORD = 'mc-console-secret-1';
const SYSTEM_KEY = 'mc-chat-system-key-1';
const SERVER = 'mc-survival';
/** What GSA says to a muted player, hostile on purpose: quotes, a backslash, a line break, a section sign, a pipe. */
const ALERT = 'Muted by an admin: "spam" \\ appeal\r\non Discord §k|';
/** The same after the game-rcon.md cleaning, as the player must see it. */
const ALERT_SHOWN = "Muted by an admin: 'spam' / appeal on Discord k";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(condition: () => boolean, what: string, logs: readonly string[] = []): Promise<void> {
  const deadline = performance.now() + patientMs(15_000);
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}; the adapter logged:\n${logs.join('')}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The mod API's stand-in: counts every request, so a Minecraft player reaching it shows. */
async function modApi(): Promise<{ readonly url: string; readonly requests: string[] }> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(`${request.method ?? ''} ${request.url ?? ''}`);
    response.writeHead(500).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return { url: `http://127.0.0.1:${String(port)}`, requests };
}

type MojangLookup = (mojangId: string, kind: MuteLookupKind, source: string | undefined) => Promise<MuteStatus>;

/**
 * GSA as the app layer reaches it for a Minecraft player: the GSA emulator's System API, Alice and Mallory known by
 * their Mojang ids, Mallory muted on the dashboard; the lookup is the sidecar's own System API client's.
 */
async function systemApiLookup(): Promise<MojangLookup> {
  const emulator = await GsaEmulator.start({ systemKey: SYSTEM_KEY });
  cleanups.push(() => emulator.close());
  emulator.addPlayer({ ids: [{ type: 'mojang', id: ALICE.uuid }], name: ALICE.name });
  emulator.systemMute(emulator.addPlayer({ ids: [{ type: 'mojang', id: MALLORY.uuid }], name: MALLORY.name }));
  const system = new SystemApiClient({ baseUrl: emulator.url, key: SYSTEM_KEY, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } });
  cleanups.push(() => system.close());
  return (mojangId, kind, source) => system.checkMuted(mojangId, { kind, source });
}

async function startMinecraft(mojangLookup: MojangLookup | undefined, adapterOptions: Record<string, unknown> = {}, minecraftChat?: MinecraftChatStyle) {
  const dir = await tempDir('mc-chat');
  const logFile = join(dir, 'logs', 'latest.log');
  const game = await SourceRconConsole.start({ game: 'minecraft', password: PASSWORD, logFile, writeMode: 'split', minecraftChat });
  cleanups.push(() => game.close());

  const api = await modApi();
  const client = new GsaClient({ baseUrl: api.url, clientId: 'a', clientSecret: 'b', retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } });
  cleanups.push(() => client.close());
  const outbox = await ReviewOutbox.open({ dataDir: await tempDir('mc-chat-data'), send: () => Promise.resolve(), onResult: () => undefined, logger: silentLogger() });
  cleanups.push(() => outbox.close());
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', secrets: [PASSWORD], destination: { write: (line: string) => logs.push(line) } });
  const events = new BridgeEvents();
  const verdicts: VerdictEvent[] = [];
  events.on('verdict', (event) => verdicts.push(event));
  const bridge = new ServerBridge({
    server: { name: SERVER, allowActions: [] },
    mute: { mutedTtlMs: 60_000, unmutedTtlMs: 300_000, decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS, onUnknown: 'allow', defaultAlert: 'You are muted.' },
    reviews: { minStars: 1, maxStars: 5, maxCommentLength: 500, cooldownMs: 0 },
    client,
    outbox,
    logger,
    events,
    mojangLookup,
  });

  const options = rconOptionsSchema.parse({ type: 'rcon', profile: 'minecraft', port: game.port, password: PASSWORD, logFile, pollPlayersMs: 60_000, alertCooldownMs: 0, ...adapterOptions });
  const adapter = new RconAdapter({ id: 'mc', options, profile: minecraftProfile, logger });
  cleanups.push(() => adapter.stop());
  await adapter.start(bridge.attach(adapter));
  await until(() => adapter.ready && game.commands.includes('list uuids'), 'the login and a first list uuids', logs);
  const tellraws = (): string[] => game.commands.filter((command) => command.startsWith('tellraw '));
  const verdictsOf = (name: string): VerdictEvent[] => verdicts.filter((event) => event.player.name === name);
  return { dir, logFile, game, api, logs, tellraws, verdicts, verdictsOf };
}

describe('minecraft: chat from logs/latest.log, ids from list uuids, answers by tellraw', () => {
  it('blocks a muted player with an escaped tellraw, allows another, and reads on after the log rolls', async () => {
    const asked: string[] = [];
    const mc = await startMinecraft((mojangId) => {
      asked.push(mojangId);
      const muted = mojangId === MALLORY.uuid;
      return Promise.resolve({ muted, alert: muted ? ALERT : null, steamId: null, eosId: null });
    });
    // The log's own UUID lines come first (the adapter learns the ids), then the joins re-read the list.
    mc.game.join(ALICE);
    mc.game.join(MALLORY);
    mc.game.say(MALLORY, 'BUY GOLD CHEAP');
    await until(() => mc.tellraws().length === 1, 'the tellraw for the muted player', mc.logs);
    const [command = ''] = mc.tellraws();
    expect(command.startsWith('tellraw Mallory ')).toBe(true);
    expect(JSON.parse(command.slice('tellraw Mallory '.length))).toEqual({ text: ALERT_SHOWN, color: 'red' });
    expect(mc.verdictsOf('Mallory')[0]).toMatchObject({ verdict: 'block', reason: 'muted', player: { mojangId: MALLORY.uuid } });

    // Lines are judged in the order written: Mallory's second answer proves Alice's line was judged before it.
    mc.game.say(ALICE, 'hi all');
    mc.game.say(MALLORY, 'still spamming');
    await until(() => mc.tellraws().length === 2, 'the second tellraw', mc.logs);
    expect(mc.verdictsOf('Alice').map((event) => [event.verdict, event.reason, event.player.mojangId])).toEqual([['allow', 'ok', ALICE.uuid]]);
    expect(mc.tellraws().every((sent) => sent.startsWith('tellraw Mallory '))).toBe(true);

    // The midnight roll: latest.log gzipped aside and begun anew under the reader.
    expect(mc.game.rollLog()).toBe(true);
    mc.game.say(MALLORY, 'after the midnight roll');
    await until(() => mc.tellraws().length === 3, 'the tellraw for a line after the roll', mc.logs);

    // A restart's roll done as a plain rename, and a new file written at once.
    await rename(mc.logFile, join(mc.dir, 'logs', '2026-11-27-9.log.gz'));
    await writeFile(mc.logFile, `[23:59:59] [Async Chat Thread - #0/INFO]: [Not Secure] <Mallory> after the rename\n`);
    await until(() => mc.tellraws().length === 4, 'the tellraw for a line after the rename', mc.logs);
    expect(mc.verdictsOf('Mallory').map((event) => event.verdict)).toEqual(['block', 'block', 'block', 'block']);

    // Only the test's System API stand-in was asked; the mod API never saw a Minecraft player.
    expect(new Set(asked)).toEqual(new Set([ALICE.uuid, MALLORY.uuid]));
    expect(mc.api.requests).toEqual([]);
    expect(mc.logs.join('')).not.toContain(PASSWORD);
  });

  it('never takes a player typing a join or a UUID line for another player, nor an unlisted name', async () => {
    const asked: string[] = [];
    const mc = await startMinecraft((mojangId) => {
      asked.push(mojangId);
      return Promise.resolve({ muted: mojangId === MALLORY.uuid, alert: ALERT, steamId: null, eosId: null });
    });
    mc.game.join(MALLORY);
    // Mallory types a fake login for "Eve" with Alice's id, then speaks as Eve would: Eve is nobody.
    mc.game.say(MALLORY, `UUID of player Eve is ${ALICE.uuid}`);
    mc.game.say(MALLORY, '[00:00:00] [Server thread/INFO]: Eve joined the game');
    await writeFile(mc.logFile, `[00:00:01] [Server thread/INFO]: <Eve> I am Alice now\n`, { flag: 'a' });
    mc.game.say(MALLORY, 'last');
    await until(() => mc.tellraws().length === 3, "Mallory's three answered lines", mc.logs);
    expect(mc.verdictsOf('Eve')).toEqual([]);
    expect(asked).not.toContain(ALICE.uuid);
  });

  it("gates a muted player's chat from a hybrid's Netty thread, with colour codes in the name, and as /me", async () => {
    const mc = await startMinecraft(await systemApiLookup(), {}, { thread: 'Netty Server IO #3', nameColour: 'e' });
    mc.game.join(ALICE);
    mc.game.join(MALLORY);
    mc.game.say(MALLORY, 'BUY GOLD CHEAP');
    await until(() => mc.tellraws().length === 1, 'the tellraw for the Netty chat line', mc.logs);
    expect(mc.game.emote(MALLORY, 'BUY GOLD CHEAP')).toBe(true);
    await until(() => mc.tellraws().length === 2, 'the tellraw for the /me line', mc.logs);
    mc.game.say(ALICE, 'hi all');
    mc.game.say(MALLORY, 'again');
    await until(() => mc.tellraws().length === 3, 'the third tellraw', mc.logs);

    // The file holds what a CatServer with a nickname plugin writes; the verdicts name the plain, listed players.
    const written = await readFile(mc.logFile, 'utf8');
    expect(written).toContain('[Netty Server IO #3/INFO]: <\u00a7eMallory\u00a7r> BUY GOLD CHEAP');
    expect(written).toContain('[Server thread/INFO]: * \u00a7eMallory\u00a7r BUY GOLD CHEAP');
    expect(mc.verdictsOf('Mallory').map((event) => [event.verdict, event.reason, event.player.mojangId])).toEqual([
      ['block', 'muted', MALLORY.uuid],
      ['block', 'muted', MALLORY.uuid],
      ['block', 'muted', MALLORY.uuid],
    ]);
    expect(mc.verdictsOf('Alice').map((event) => [event.verdict, event.reason])).toEqual([['allow', 'ok']]);
    expect(mc.tellraws().every((sent) => sent.startsWith('tellraw Mallory '))).toBe(true);
  });

  it('never ties a /me of an unlisted name to a listed player, nor takes a join or UUID line typed on the Netty thread', async () => {
    const mc = await startMinecraft(await systemApiLookup());
    mc.game.join(MALLORY);
    mc.game.join(ALICE);
    await appendFile(
      mc.logFile,
      [
        '[00:00:01] [Server thread/INFO]: * Mallory2 BUY GOLD CHEAP',
        '[00:00:02] [Server thread/INFO]: * Mallory_ BUY GOLD CHEAP',
        '[00:00:03] [Netty Server IO #3/INFO]: <Mallory> Eve joined the game',
        `[00:00:04] [Netty Server IO #3/INFO]: UUID of player Eve is ${ALICE.uuid}`,
        '[00:00:05] [Server thread/INFO]: * Eve I am Alice now',
        '[00:00:06] [Server thread/INFO]: [Admin] Mallory: a plugin line',
        '[00:00:07] [Netty Server IO #3/INFO]: <Mallory> last',
        '[00:00:08] [Netty Server IO #3/INFO]: <Alice> the end',
        '',
      ].join('\n'),
    );
    // Lines are judged in the order written: Alice's verdict comes after every line above was judged.
    await until(() => mc.verdictsOf('Alice').length === 1, "Alice's closing line", mc.logs);
    // Mallory's two chat lines (the typed join among them) were hers; the others' /me and the plugin's line nobody's.
    expect(mc.verdictsOf('Mallory').map((event) => event.verdict)).toEqual(['block', 'block']);
    expect(mc.verdicts.filter((event) => !['Mallory', 'Alice'].includes(event.player.name ?? ''))).toEqual([]);
    // The typed UUID line taught nothing: Alice's id was asked about only for Alice.
    expect(mc.verdictsOf('Alice')[0]?.player.mojangId).toBe(ALICE.uuid);
    expect(mc.verdicts.filter((event) => event.player.mojangId === ALICE.uuid).map((event) => event.player.name)).toEqual(['Alice']);
  });

  it("reads a chat plugin's lines with the host's chatPattern, the listed speaker only, and never re-reads vanilla chat", async () => {
    // EssentialsX Chat with a LuckPerms prefix: `[Member] Mallory » text` (the message part after the game's head).
    const chatPattern = String.raw`^\[(?<group>[^\]]+)\] (?<name>[A-Za-z0-9_.]{1,16}) » (?<message>.*)$`;
    const mc = await startMinecraft(await systemApiLookup(), { chatPattern });
    mc.game.join(MALLORY);
    mc.game.join(ALICE);
    await appendFile(
      mc.logFile,
      [
        '[00:00:01] [Async Chat Thread - #2/INFO]: [Member] §cMallory§r » BUY GOLD CHEAP',
        // A name the list does not show: counted as unattributed, never tied to a listed player.
        '[00:00:02] [Async Chat Thread - #2/INFO]: [Member] Mallory2 » me too',
        // Vanilla chat whose text looks like the plugin's format stays Alice's own line.
        '[00:00:03] [Server thread/INFO]: <Alice> [Member] Mallory » not me',
        '',
      ].join('\n'),
    );
    await until(() => mc.verdictsOf('Alice').length === 1, "Alice's line", mc.logs);
    expect(mc.verdictsOf('Mallory').map((event) => [event.verdict, event.reason, event.player.mojangId])).toEqual([['block', 'muted', MALLORY.uuid]]);
    expect(mc.verdictsOf('Alice').map((event) => [event.verdict, event.reason])).toEqual([['allow', 'ok']]);
    expect(mc.verdicts).toHaveLength(2);
    expect(mc.logs.join('')).toMatch(/could not be tied to a player and was not gated \(not_listed 1\)/);
  });

  it("runs a host's plugin templates with the name and the Mojang id as {playerId} instead of tellraw", async () => {
    const mc = await startMinecraft(
      (mojangId) => Promise.resolve({ muted: mojangId === MALLORY.uuid, alert: ALERT, steamId: null, eosId: null }),
      { notifyCommand: 'msg {name} {message}', muteCommand: 'mute {playerId} 10m {message}' },
    );
    mc.game.join(MALLORY);
    mc.game.say(MALLORY, 'spam');
    const actions = (): string[] => mc.game.commands.filter((command) => command !== 'list uuids');
    await until(() => actions().some((command) => command.startsWith('msg ')), 'the message', mc.logs);
    // The join already muted her in game (the warm-up lookup said muted); the chat line mutes again (no cooldown here).
    expect(new Set(actions())).toEqual(new Set([`msg Mallory ${ALERT_SHOWN}`, `mute ${MALLORY.uuid} 10m ${ALERT_SHOWN}`]));
    expect(mc.tellraws()).toEqual([]);
  });

  it('without mojangLookup: the policy decides (unknown), no tellraw, and the host is told once', async () => {
    const mc = await startMinecraft(undefined);
    mc.game.join(MALLORY);
    mc.game.say(MALLORY, 'one');
    mc.game.say(MALLORY, 'two');
    mc.game.say(MALLORY, 'three');
    await until(() => mc.verdictsOf('Mallory').length === 3, 'three verdicts', mc.logs);
    expect(mc.verdictsOf('Mallory').map((event) => [event.verdict, event.reason])).toEqual([
      ['allow', 'unknown'],
      ['allow', 'unknown'],
      ['allow', 'unknown'],
    ]);
    expect(mc.tellraws()).toEqual([]);
    expect(mc.logs.filter((line) => line.includes('api.system'))).toHaveLength(1);
    expect(mc.api.requests).toEqual([]);
  });
});

describe("minecraft: the profile's transport", () => {
  it('sends every hostile tellraw as one EXECCOMMAND, in order, and never an empty mirror packet', async () => {
    // Vanilla's RCON as the wire sees it: AUTH answered with its id, each command with one packet, nothing mirrored.
    const packets: SourceRconPacket[] = [];
    const sockets = new Set<Socket>();
    const server = createTcpServer((socket) => {
      sockets.add(socket);
      const decoder = new SourceRconDecoder({ skipSquadMirrorJunk: false });
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        for (const packet of decoder.push(chunk)) {
          packets.push(packet);
          if (packet.type === SourceRconPacketType.AUTH) socket.write(encodeSourceRconPacket(packet.id, SourceRconPacketType.AUTH_RESPONSE, ''));
          else if (packet.type === SourceRconPacketType.EXECCOMMAND) socket.write(encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, ''));
          // Vanilla answers any other type with "Unknown request"; the client must never send one.
          else socket.write(encodeSourceRconPacket(packet.id, SourceRconPacketType.RESPONSE_VALUE, `Unknown request ${packet.type.toString(16)}`));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(resolve);
        }),
    );
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const transport = minecraftProfile.transport;
    if (transport.kind !== 'source') throw new Error('minecraft is a Source RCON profile');
    const client = new SourceRconClient({ host: '127.0.0.1', port, password: PASSWORD, label: 'mc-wire', replyEnd: transport.replyEnd, maxInFlight: transport.maxInFlight, reconnect: false, commandTimeoutMs: patientMs(5_000) });
    cleanups.push(() => client.close());
    client.start();
    await client.whenReady({ failFast: true });

    const generator = createHostileTextGenerator(0x6d63);
    const alerts = Array.from({ length: 200 }, () => generator.text());
    const sent = alerts.map((alert) => minecraftTellraw('Steve', alert));
    for (const command of sent) expect(await client.command(command)).toBe('');

    const commands = packets.filter((packet) => packet.type === SourceRconPacketType.EXECCOMMAND).map((packet) => packet.body.toString('utf8'));
    expect(commands).toEqual(sent);
    expect(packets.filter((packet) => packet.type !== SourceRconPacketType.EXECCOMMAND && packet.type !== SourceRconPacketType.AUTH)).toEqual([]);
    commands.forEach((command, index) => {
      expect(JSON.parse(command.slice('tellraw Steve '.length))).toEqual({ text: cleanCommandText((alerts[index] ?? '').replace(/\u00a7/g, ''), MINECRAFT_TEXT_RULES), color: 'red' });
    });
  });
});

describe('ServerBridge: who is asked about a Minecraft player', () => {
  async function bridgeWith(mojangLookup: MojangLookup | undefined, now: () => number) {
    const api = await modApi();
    const client = new GsaClient({ baseUrl: api.url, clientId: 'a', clientSecret: 'b', retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10 } });
    cleanups.push(() => client.close());
    const outbox = await ReviewOutbox.open({ dataDir: await tempDir('mc-bridge-data'), send: () => Promise.resolve(), onResult: () => undefined, logger: silentLogger() });
    cleanups.push(() => outbox.close());
    const logs: string[] = [];
    const bridge = new ServerBridge({
      server: { name: SERVER, allowActions: [] },
      mute: { mutedTtlMs: 60_000, unmutedTtlMs: 300_000, decisionTimeoutMs: PATIENT_DECISION_TIMEOUT_MS, onUnknown: 'block', defaultAlert: 'You are muted.' },
      reviews: { minStars: 1, maxStars: 5, maxCommentLength: 500, cooldownMs: 0 },
      client,
      outbox,
      logger: createLogger({ level: 'debug', destination: { write: (line: string) => logs.push(line) } }),
      clock: { now },
      mojangLookup,
    });
    return { bridge, api, logs };
  }

  it('caches the System API answer under the Mojang id, and sends a player with a Steam64 to the mod API without it', async () => {
    const asked: string[] = [];
    const { bridge, api } = await bridgeWith((mojangId) => {
      asked.push(mojangId);
      return Promise.resolve({ muted: true, alert: 'muted here', steamId: null, eosId: null });
    }, () => Date.now());
    const steve = { mojangId: MALLORY.uuid, name: 'Steve' };
    expect(await bridge.chat(steve, 'global', 'x')).toEqual({ allow: false, reason: 'muted', alert: 'muted here' });
    expect(bridge.chatNow(steve, 'global', 'x')).toEqual({ allow: false, reason: 'muted', alert: 'muted here' });
    expect(asked).toEqual([MALLORY.uuid]);
    // An EOS id with the same hex digits is another player: not the cached Minecraft one.
    expect(bridge.chatNow({ eosId: MALLORY.uuid.replaceAll('-', '') }, 'global', 'x')).toBeUndefined();

    // A player with a Steam64 goes to the mod API (which fails here: the policy blocks), never to mojangLookup.
    await bridge.chat({ steamId: '76561198000000007', mojangId: ALICE.uuid }, 'global', 'x');
    expect(asked).toEqual([MALLORY.uuid]);
    expect(api.requests.length).toBeGreaterThan(0);
    expect(api.requests.join(' ')).not.toContain(ALICE.uuid.slice(0, 8));
  });

  it('without mojangLookup: the policy decides, the host is told once per player per minute, and a review is refused up front', async () => {
    let now = 1_000_000;
    const { bridge, api, logs } = await bridgeWith(undefined, () => now);
    const steve = { mojangId: MALLORY.uuid, name: 'Steve' };
    const alex = { mojangId: ALICE.uuid, name: 'Alex' };
    const warnings = (): number => logs.filter((line) => line.includes('mojang_lookup_missing')).length;
    for (let line = 0; line < 3; line++) expect(await bridge.chat(steve, 'global', 'x')).toEqual({ allow: false, reason: 'unknown', alert: 'You are muted.' });
    expect(warnings()).toBe(1);
    await bridge.chat(alex, 'global', 'x');
    expect(warnings()).toBe(2);
    now += 59_999;
    await bridge.chat(steve, 'global', 'x');
    expect(warnings()).toBe(2);
    now += 1;
    await bridge.chat(steve, 'global', 'x');
    expect(warnings()).toBe(3);
    expect(api.requests).toEqual([]);
    await expect(bridge.submitReview({ player: steve, stars: 5, comment: 'nice', origin: { adapter: 'mc', ref: steve.mojangId } })).rejects.toMatchObject({ code: 'bad_input' });
  });
});
