// Conan Exiles end to end: the real sidecar (in-process) against the GSA emulator, a fake Conan console on loopback
// (Source RCON bytes split at random points, the connection closed after every answer, no answer to an empty mirror
// packet) and a real ConanSandbox.log in a temp dir, begun with a BOM and renamed to a backup at a "restart".
// Chat comes from the log only; current lines carry the Steam64, older name-only lines map through listplayers by
// character name; Pippi's copy of a line is dropped; the host's notifyCommand answers; `!review` becomes a review.
import { appendFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeSourceRconServer, type FakeReply } from '../fixtures/fakeSourceRconServer.js';
import { RIG_ALERT as ALERT, RIG_PASSWORD as PASSWORD, RIG_SERVER as SERVER, useGameRig } from '../fixtures/gameRig.js';
import { tempDir } from '../fixtures/tempDir.js';

const MUTED = { steamId: '76561198000000001', character: 'Muted Exile (the Bold)' };
const NICE = { steamId: '76561198000000002', character: 'Nice Exile' };

const rig = useGameRig();
const { until } = rig;
const emulator = () => rig.emulator();

function listplayers(players: readonly { steamId: string; character: string }[]): string {
  const rows = players.map((player, index) => `${String(index).padStart(3)} | ${player.character} | Player#${String(index)} | A-USER${String(index)} | ${player.steamId} |  STEAM`);
  return `Idx | Char name | Player name | User ID | Platform ID | Platform Name\n${rows.join('\n')}\n`;
}

function chatLine(character: string, text: string, steamId?: string): string {
  const speaker = steamId === undefined ? character : `${character} (uid 109, player ${steamId})`;
  return `[2026.06.20-21.06.10:804][ 80]ChatWindow: Character ${speaker} said: ${text}\r\n`;
}

async function startConan() {
  const respond = (command: string): FakeReply | undefined => (command === 'listplayers' ? listplayers([MUTED, NICE]) : '');
  const fake = await FakeSourceRconServer.start({ quirks: 'conan', password: PASSWORD, respond, writeMode: 'split' });
  rig.onCleanup(() => fake.stop());
  return { fake, actions: () => fake.commands.filter((command) => command !== 'listplayers') };
}

function startRig(port: number, logFile: string) {
  return rig.start({ profile: 'conan', port, logFile, pollPlayersMs: 60_000, notifyCommand: 'directmessage Server {steamId} "{message}"' });
}

describe('conan: chat from ConanSandbox.log', () => {
  it('gates current and name-only lines, drops Pippi copies, follows the rename at a restart, one session per command', async () => {
    emulator().mute(SERVER, MUTED.steamId, ALERT);
    const dir = await tempDir('conan-logs');
    const path = join(dir, 'ConanSandbox.log');
    await writeFile(path, `\uFEFF${chatLine(MUTED.character, 'before the start', MUTED.steamId)}`);
    const conan = await startConan();
    const { adapter, logs } = await startRig(conan.fake.port, path);
    await until(() => adapter.ready && conan.fake.commands.includes('listplayers'), 'a first listplayers');

    await appendFile(path, `[2026.06.20-21.06.11:000][Pippi]PippiChat: ${MUTED.character} said in channel [Global]: spam\r\n`);
    await appendFile(path, chatLine(MUTED.character, 'spam', MUTED.steamId));
    await until(() => conan.actions().length === 1, 'the alert through notifyCommand');
    expect(conan.actions()).toEqual([`directmessage Server ${MUTED.steamId} "${ALERT}"`]);

    // An older build's name-only line: the character name maps through listplayers.
    await appendFile(path, chatLine(MUTED.character, 'name only'));
    await until(() => conan.actions().length === 2, 'the alert for the name-only line');

    // A restart: the log becomes a backup and a new one begins with a BOM.
    await rename(path, join(dir, 'ConanSandbox-backup-2026.06.20-21.10.00.log'));
    await writeFile(path, `\uFEFF${chatLine(NICE.character, 'hello', NICE.steamId)}${chatLine(MUTED.character, 'after the restart', MUTED.steamId)}`);
    await until(() => conan.actions().length === 3, 'the alert from the new log');

    // Conan closes after every answer: never two sessions at once, one per command.
    expect(conan.fake.maxConcurrentSessions).toBe(1);
    expect(await conan.fake.connectionsSoFar()).toBeGreaterThanOrEqual(conan.fake.commands.length);
    expect(logs.join('')).not.toContain(PASSWORD);
  });

  it('takes !review from the log and confirms through notifyCommand', async () => {
    const dir = await tempDir('conan-logs');
    const path = join(dir, 'ConanSandbox.log');
    await writeFile(path, '\uFEFF');
    const conan = await startConan();
    const { adapter } = await startRig(conan.fake.port, path);
    await until(() => adapter.ready, 'a first session');
    await appendFile(path, chatLine(NICE.character, '!review 4 Good server', NICE.steamId));
    await until(() => emulator().reviews.length === 1, 'the review at GSA');
    expect(emulator().reviews[0]).toMatchObject({ stars: 4, comment: 'Good server' });
    await until(() => conan.actions().some((command) => command.startsWith(`directmessage Server ${NICE.steamId} `)), 'the confirmation');
  });
});
