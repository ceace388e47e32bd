// `gsa-bridge log check`: a host's own log replayed offline through the readers the live adapter uses, with no
// console, no GSA and no config. The real CLI entry runs in-process on real files (plain, gzipped, UTF-16 with a BOM,
// CRLF), and the same ARK game log is read by the live sidecar (real fake console, real GSA emulator, real tail):
// line for line, log check reads the same chat, in the same order, and the same lines it cannot read.
import { appendFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ChatLineEvent, VerdictEvent } from '../../src/bridge/events.js';
import { FakeSourceRconServer, type FakeReply } from '../fixtures/fakeSourceRconServer.js';
import { RIG_PASSWORD as PASSWORD, useGameRig } from '../fixtures/gameRig.js';
import { runCliInProcess } from '../fixtures/inProcessCli.js';
import { tempDir } from '../fixtures/tempDir.js';

interface Replayed {
  profile: string;
  lines: number;
  chat: { line: number; name: string; channel: string; steamId?: string; readAs?: string; readings?: number }[];
  server: { line: number; text: string }[];
  presence: { line: number; kind: string; name?: string }[];
  unattributed: Record<string, number>;
  ignored: number;
  samples: { line: number; reason: string; why: string; text: string }[];
  counts: { chat: number; server: number; presence: number; unattributed: number };
}

async function logCheck(args: string[]): Promise<{ code: number; stdout: string; stderr: string; json: () => Replayed }> {
  const run = await runCliInProcess(['log', 'check', ...args]);
  return { ...run, json: () => JSON.parse(run.stdout) as Replayed };
}

const MC_LINES = [
  '[12:04:30] [User Authenticator #1/INFO]: UUID of player Steve is 069a79f4-44e9-4726-a5be-fca90e38aaf5',
  '[12:04:31] [Server thread/INFO]: Steve joined the game',
  '[12:04:32] [Netty Server IO #2/INFO]: <§eSteve§r> hi all',
  '[12:04:33] [Server thread/INFO]: * Steve waves',
  '[12:04:34] [Async Chat Thread - #0/INFO]: [Member] Steve » hello from a plugin',
  '[12:04:35] [Server thread/INFO]: [Server] restart soon',
  '[12:04:36] [Server thread/INFO]: Saving the game',
];

describe('gsa-bridge log check', () => {
  it('reads a Minecraft log as the live reader does, in JSON: chat, server lines, presence, what it cannot read', async () => {
    const dir = await tempDir('log-check');
    const path = join(dir, 'latest.log');
    await writeFile(path, `\uFEFF${MC_LINES.join('\r\n')}\r\n`);
    const run = await logCheck(['--profile', 'minecraft', '--json', path]);
    expect(run.code).toBe(0);
    const result = run.json();
    expect(Object.keys(result)).toEqual(expect.arrayContaining(['lines', 'chat', 'server', 'presence', 'unattributed', 'ignored', 'samples']));
    expect(result.lines).toBe(7);
    expect(result.chat).toEqual([
      { line: 3, name: 'Steve', channel: 'global' },
      { line: 4, name: 'Steve', channel: 'global', readAs: '/me' },
    ]);
    expect(result.server).toEqual([{ line: 6, text: 'restart soon' }]);
    expect(result.presence.map((entry) => [entry.line, entry.kind, entry.name])).toEqual([
      [1, 'join', 'Steve'],
      [2, 'join', 'Steve'],
    ]);
    expect(result.unattributed).toEqual({ unreadable: 1 });
    expect(result.samples).toEqual([
      { line: 5, reason: 'unreadable', why: expect.stringContaining('chatPattern') as string, text: '[12:04:34] [Async Chat Thread - #0/INFO]: [Member] Steve » hello from a plugin' },
    ]);
    expect(result.ignored).toBe(1);
  });

  it('reads the same lines from a gzipped roll and from a UTF-16 file, and tries a chat pattern on the lines nothing else read', async () => {
    const dir = await tempDir('log-check');
    const plain = join(dir, 'latest.log');
    await writeFile(plain, `${MC_LINES.join('\n')}\n`);
    const gz = join(dir, '2026-11-27-1.log.gz');
    await writeFile(gz, gzipSync(Buffer.from(`${MC_LINES.join('\n')}\n`)));
    const utf16 = join(dir, 'utf16.log');
    await writeFile(utf16, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${MC_LINES.join('\r\n')}\r\n`, 'utf16le')]));
    const [fromPlain, fromGz, fromUtf16] = await Promise.all([plain, gz, utf16].map(async (file) => (await logCheck(['--profile', 'minecraft', '--json', file])).json()));
    const readingOf = (result: Replayed | undefined) => ({ lines: result?.lines, chat: result?.chat, server: result?.server, unattributed: result?.unattributed });
    expect(readingOf(fromGz)).toEqual(readingOf(fromPlain));
    expect(readingOf(fromUtf16)).toEqual(readingOf(fromPlain));

    const pattern = String.raw`^\[(?<group>[^\]]+)\] (?<name>\w+) » (?<message>.*)$`;
    const withPattern = (await logCheck(['--profile', 'minecraft', '--chat-pattern', pattern, '--json', plain])).json();
    expect(withPattern.chat.at(-1)).toEqual({ line: 5, name: 'Steve', channel: 'global', readAs: 'chatPattern' });
    expect(withPattern.unattributed).toEqual({});
  });

  it('prints a summary with the fix, and at most 10 samples of what it cannot read', async () => {
    const dir = await tempDir('log-check');
    const path = join(dir, 'ConanSandbox.log');
    const unreadable = Array.from({ length: 12 }, (_, index) => `[2026.06.20-21.06.10:804][ 80]ChatWindow: Bob shouted ${String(index)}`);
    await writeFile(path, `${['[2026.06.20-21.06.10:804][ 80]ChatWindow: Character Bob (uid 3, player 76561198000000001) said: hi', ...unreadable].join('\n')}\n`);
    const run = await logCheck(['--profile', 'conan', path]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/lines read +13/);
    expect(run.stdout).toMatch(/chat read +1 \(1 speaker name\)/);
    expect(run.stdout).toMatch(/unattributed +12 \(unreadable 12\)/);
    expect(run.stdout).toContain('"Bob" (steam_id 76561198000000001), channel global');
    expect(run.stdout.match(/^ {2}line \d+: a ChatWindow line/gm)).toHaveLength(10);
    expect(run.stdout).toContain('gsa-bridge log check --profile conan --chat-pattern');
    const json = (await logCheck(['--profile', 'conan', '--json', path])).json();
    expect(json.samples).toHaveLength(10);
    expect(json.unattributed).toEqual({ unreadable: 12 });
  });

  it.each([
    [['--profile', 'squad', '/x.log'], /--profile must be one of ark, atlas, conan, 7dtd, minecraft/],
    [['--profile', 'minecraft'], /say which log file to read/],
    [['/x.log'], /--profile NAME is required/],
    [['--profile', 'minecraft', '--chat-pattern', '(?<name>\\w+)', '/x.log'], /--chat-pattern: chatPattern has no named group `message`/],
  ])('refuses %j with exit 2 and the usage', async (args, message) => {
    const run = await logCheck(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('says why a file cannot be read, with exit 2', async () => {
    const dir = await tempDir('log-check');
    expect(await logCheck(['--profile', 'ark', join(dir, 'missing.log')])).toMatchObject({ code: 2, stderr: expect.stringContaining('no such file') as string });
    expect(await logCheck(['--profile', 'ark', dir])).toMatchObject({ code: 2, stderr: expect.stringContaining('it is a directory') as string });
    const broken = join(dir, 'broken.log.gz');
    await writeFile(broken, Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x01, 0x02, 0x03]));
    expect(await logCheck(['--profile', 'minecraft', broken])).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot read') as string });
  });
});

describe('log check and the live reader, on the same ARK game log', () => {
  const rig = useGameRig();
  const PLAYERS = [
    { steamId: '76561198000000011', name: 'Alice' },
    { steamId: '76561198000000012', name: 'Bob (the) Builder' },
    { steamId: '76561198000000013', name: 'Alice (Rex): hi' },
  ];
  const head = '[2026.09.13-18.48.40:782][696]2026.09.13_18.48.40: ';
  const LOG = [
    // The file's own joins stand in for the player list offline, as ListPlayers does live.
    ...PLAYERS.map((player) => `${head}${player.name} [UniqueNetId:${player.steamId} Platform:Steam] joined this ARK!`),
    `${head}Alice (Rex): hello`,
    `${head}SERVER: restart in 10 minutes`,
    `${head}Bob (the) Builder (Dodo): smiley (x): ok`,
    `${head}this is not a chat line at all`,
    `${head}Alice (Rex): hi (Mal): blame Alice`,
    `${head}AdminCmd: ListPlayers (PlayerName: Admin, ARKID: 1, SteamID: 1)`,
    `${head}Alice (Rex): bye`,
  ];

  it('reads the same chat in the same order, and the same unreadable lines', async () => {
    const dir = await tempDir('log-check-live');
    const path = join(dir, 'ServerGame.log');
    await writeFile(path, '');
    const respond = (command: string): FakeReply | undefined =>
      command === 'ListPlayers' ? `${PLAYERS.map((player, index) => `${String(index)}. ${player.name}, ${player.steamId}`).join('\n')}\n` : undefined;
    const fake = await FakeSourceRconServer.start({ quirks: 'ark', password: PASSWORD, respond, writeMode: 'split' });
    rig.onCleanup(() => fake.stop());
    const { sidecar, adapter } = await rig.start({ profile: 'ark', port: fake.port, logFile: path, pollPlayersMs: 60_000 });
    const verdicts: VerdictEvent[] = [];
    const lines: ChatLineEvent[] = [];
    sidecar.events.on('verdict', (event) => verdicts.push(event));
    sidecar.events.on('chatLine', (event) => lines.push(event));
    await rig.until(() => adapter.ready && fake.commands.includes('ListPlayers'), 'login and a player list');

    await appendFile(path, `${LOG.join('\r\n')}\r\n`);
    const offline = (await logCheck(['--profile', 'ark', '--json', path])).json();
    const chatLines = offline.counts.chat + offline.counts.unattributed;
    await rig.until(() => lines.length === chatLines, `the live reader's ${String(chatLines)} chat-like lines`);

    // The same speakers in the same order: the live player list settled each name as the file's own lines did.
    expect(verdicts.map((event) => event.player.name)).toEqual(offline.chat.map((chat) => chat.name));
    expect(offline.chat.map((chat) => chat.name)).toEqual(['Alice', 'Bob (the) Builder', 'Alice (Rex): hi', 'Alice']);
    // The same lines nothing could read.
    const liveUnattributed = lines.filter((event) => event.unattributed !== undefined).map((event) => event.unattributed);
    expect(liveUnattributed).toEqual(Array.from({ length: offline.unattributed['unreadable'] ?? 0 }, () => 'unreadable'));
    expect(offline.samples.map((sample) => sample.line)).toEqual([7]);
    expect(offline.server).toEqual([{ line: 5, text: 'restart in 10 minutes' }]);
  });
});
