// 7 Days to Die end to end: the real sidecar (in-process) against the GSA emulator and the fake 7DTD telnet console
// (src/gameEmulator/sevenDaysConsole.ts: the password prompt, CRLF, the log pushed to every client, bytes split into
// random pieces). Chat comes from the console's stream; a Steam speaker carries their Steam64, an Xbox speaker is
// mapped to the EOS id of `lp`'s crossid; the host's notifyCommand answers a muted speaker by entity id; `!review`
// becomes a review. "Nothing was sent" is proven by a later line's answer on the same serial console.
import { describe, expect, it } from 'vitest';
import { startSevenDaysConsole, type SevenDaysConsole, type SevenDaysFakePlayer } from '../../src/gameEmulator/sevenDaysConsole.js';
import { RIG_ALERT as ALERT, RIG_PASSWORD as PASSWORD, RIG_SERVER as SERVER, useGameRig } from '../fixtures/gameRig.js';

const STEAM_MUTED: SevenDaysFakePlayer = { name: 'Steamy', entityId: 171, platformId: 'Steam_76561198000000001', crossId: 'EOS_0002aaaaaaaaaaaaaaaaaaaaaaaaaaa1' };
const XBOX_MUTED: SevenDaysFakePlayer = { name: "Xb'ox, [ff0000]Guy[-]", entityId: 172, platformId: 'XBL_2535420000000001', crossId: 'EOS_0002bbbbbbbbbbbbbbbbbbbbbbbbbbb2' };
const NICE: SevenDaysFakePlayer = { name: 'Nice', entityId: 173, platformId: 'Steam_76561198000000003', crossId: 'EOS_0002ccccccccccccccccccccccccccc3' };

const rig = useGameRig();
const { until } = rig;
const emulator = () => rig.emulator();

async function startGame(players: readonly SevenDaysFakePlayer[]): Promise<SevenDaysConsole> {
  const game = await startSevenDaysConsole({ password: PASSWORD, players, chunking: 'split' });
  rig.onCleanup(() => game.close());
  return game;
}

function startRig(port: number, adapter: Record<string, unknown> = {}) {
  return rig.start({ profile: '7dtd', port, pollPlayersMs: 2_000, ...adapter });
}

const actions = (game: SevenDaysConsole): string[] => game.commands.filter((command) => command !== 'lp');

describe('7dtd over telnet', () => {
  it('gates Steam and Xbox speakers from the console stream and answers through notifyCommand', async () => {
    // GSA keys a Steam player by Steam64, which the sidecar asks by (servers[].lookupIds) though it knows the crossid
    // too; an Xbox player has only the EOS id of the crossid.
    emulator().mute(SERVER, STEAM_MUTED.platformId.slice('Steam_'.length), ALERT);
    emulator().mute(SERVER, (XBOX_MUTED.crossId ?? '').slice('EOS_'.length), ALERT);
    const game = await startGame([STEAM_MUTED, XBOX_MUTED, NICE]);
    const { adapter, logs } = await startRig(game.port, { notifyCommand: 'pm {entityId} "{message}"' });
    await until(() => adapter.ready && game.commands.includes('lp'), 'login and a player list');

    game.say(NICE, 'hello all');
    game.say(STEAM_MUTED, 'spam from steam');
    await until(() => actions(game).length === 1, "the Steam speaker's alert");
    expect(actions(game)).toEqual([`pm 171 "${ALERT}"`]);

    game.say(XBOX_MUTED, 'spam from xbox');
    await until(() => actions(game).length === 2, "the Xbox speaker's alert, by crossid");
    expect(actions(game)[1]).toBe(`pm 172 "${ALERT}"`);

    // Party chat is team: not gated by default, so no answer; the Steam line after it proves it was decided.
    game.say(STEAM_MUTED, 'party line', 'Party');
    game.say(STEAM_MUTED, 'global again');
    await until(() => actions(game).length === 3, 'the alert for the global line');
    expect(actions(game)).toHaveLength(3);
    expect(logs.join('')).not.toContain(PASSWORD);
  });

  it('takes !review from chat into the outbox and tells the player', async () => {
    const game = await startGame([NICE]);
    const { adapter } = await startRig(game.port, { notifyCommand: 'pm {entityId} "{message}"' });
    await until(() => adapter.ready && game.commands.includes('lp'), 'login and a player list');
    game.say(NICE, '!review 5 Great admins');
    await until(() => emulator().reviews.length === 1, 'the review at GSA');
    expect(emulator().reviews[0]).toMatchObject({ stars: 5, comment: 'Great admins' });
    await until(() => actions(game).some((command) => command.startsWith('pm 173 ')), 'the confirmation');
  });
});
