// Conan Exiles end to end: the real sidecar (in-process) against the GSA emulator, a fake Conan console on loopback
// (Source RCON bytes split at random points, the connection closed after every answer, no answer to an empty mirror
// packet) and a real ConanSandbox.log in a temp dir, begun with a BOM and renamed to a backup at a "restart".
// Chat comes from the log only; current lines carry the Steam64, older name-only lines map through listplayers by
// character name; Pippi's copy of a line is dropped; the host's notifyCommand answers; `!review` becomes a review.
// Conan's 3 s pace is not waited out here (the rig paces on a clock always a pace ahead): per-command-session.test.ts
// proves it on fake time.
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

describe("conan: a character name can never lend a line another player's id", () => {
  const VICTIM = { steamId: '76561198000000007', character: 'Victim' };
  // Mallory's character name spells out a whole fake speaker part carrying the victim's Steam64.
  const MALLORY = { steamId: '76561198000000066', character: `Victim (uid 1, player ${VICTIM.steamId}) said: x` };

  it("takes the longest split the player list confirms, reading the list again when a longer one is not listed yet", async () => {
    emulator().mute(SERVER, VICTIM.steamId, 'victim alert');
    emulator().mute(SERVER, MALLORY.steamId, 'mallory alert');
    const dir = await tempDir('conan-logs');
    const path = join(dir, 'ConanSandbox.log');
    await writeFile(path, '\uFEFF');
    // Mallory is not listed yet when the adapter reads the list first: she joins just before she speaks.
    let online = [VICTIM, NICE];
    const respond = (command: string): FakeReply | undefined => (command === 'listplayers' ? listplayers(online) : '');
    const fake = await FakeSourceRconServer.start({ quirks: 'conan', password: PASSWORD, respond, writeMode: 'split' });
    rig.onCleanup(() => fake.stop());
    const actions = () => fake.commands.filter((command) => command !== 'listplayers');
    const { adapter } = await startRig(fake.port, path);
    await until(() => adapter.ready && fake.commands.includes('listplayers'), 'a first listplayers');
    const listReads = fake.commands.filter((command) => command === 'listplayers').length;

    online = [VICTIM, NICE, MALLORY];
    await appendFile(path, chatLine(MALLORY.character, 'I am innocent', MALLORY.steamId));
    await until(() => actions().length === 1, "the alert for Mallory's line");
    // Checked, and answered, as Mallory: the victim was not told anything, not struck, not muted.
    expect(actions()).toEqual([`directmessage Server ${MALLORY.steamId} "mallory alert"`]);
    // The longer reading was not listed: the list was read again before the line was attributed.
    expect(fake.commands.filter((command) => command === 'listplayers').length).toBeGreaterThan(listReads);

    // The victim's own line still reaches the victim.
    await appendFile(path, chatLine(VICTIM.character, 'hello', VICTIM.steamId));
    await until(() => actions().length === 2, "the alert for the victim's own line");
    expect(actions()[1]).toBe(`directmessage Server ${VICTIM.steamId} "victim alert"`);
  });

  it('counts a line whose id the list does not show for that name as unattributed, and looks nobody up', async () => {
    emulator().mute(SERVER, VICTIM.steamId, 'victim alert');
    const dir = await tempDir('conan-logs');
    const path = join(dir, 'ConanSandbox.log');
    await writeFile(path, '\uFEFF');
    const respond = (command: string): FakeReply | undefined => (command === 'listplayers' ? listplayers([NICE]) : '');
    const fake = await FakeSourceRconServer.start({ quirks: 'conan', password: PASSWORD, respond, writeMode: 'split' });
    rig.onCleanup(() => fake.stop());
    const { adapter, logs } = await startRig(fake.port, path);
    await until(() => adapter.ready && fake.commands.includes('listplayers'), 'a first listplayers');
    // The listed player's warm-up lookup is the only one.
    await until(() => emulator().counters().byEndpoint.mute === 1, "the listed player's warm-up lookup");
    // An unlisted character claiming the (muted) victim's id: not the victim's line, and nobody's.
    await appendFile(path, chatLine('Stranger', 'who am I', VICTIM.steamId));
    await until(() => logs.join('').includes('could not be tied to a player'), 'the unattributed warning');
    expect(logs.join('')).toMatch(/\(unconfirmed_id 1\)/);
    expect(fake.commands.filter((command) => command !== 'listplayers')).toEqual([]);
    expect(emulator().counters().byEndpoint.mute).toBe(1);
  });
});
