// 7 Days to Die end to end: the real sidecar (in-process) against the GSA emulator and the fake 7DTD telnet console
// (src/gameEmulator/sevenDaysConsole.ts: the password prompt, CRLF, the log pushed to every client, bytes split into
// random pieces). Chat comes from the console's stream; a Steam speaker carries their Steam64, an Xbox speaker is
// mapped to the EOS id of `lp`'s crossid; the host's notifyCommand answers a muted speaker by entity id; `!review`
// becomes a review. A chat mod's lines (the game's `Chat handled by mod …` line, the mod's re-broadcast, and on some
// servers the plain line too) are one message: one verdict, one alert. "Nothing else was sent or decided" is proven
// by a later line's verdict or answer on the same serial console (lines are judged in order).
import { describe, expect, it } from 'vitest';
import type { VerdictEvent } from '../../src/bridge/events.js';
import type { Sidecar } from '../../src/sidecar.js';
import { startSevenDaysConsole, type SevenDaysConsole, type SevenDaysFakePlayer } from '../../src/gameEmulator/sevenDaysConsole.js';
import { RIG_ALERT as ALERT, RIG_PASSWORD as PASSWORD, RIG_SERVER as SERVER, useGameRig } from '../fixtures/gameRig.js';

const STEAM_MUTED: SevenDaysFakePlayer = { name: 'Steamy', entityId: 171, platformId: 'Steam_76561198000000001', crossId: 'EOS_0002aaaaaaaaaaaaaaaaaaaaaaaaaaa1' };
const XBOX_MUTED: SevenDaysFakePlayer = { name: "Xb'ox, [ff0000]Guy[-]", entityId: 172, platformId: 'XBL_2535420000000001', crossId: 'EOS_0002bbbbbbbbbbbbbbbbbbbbbbbbbbb2' };
const NICE: SevenDaysFakePlayer = { name: 'Nice', entityId: 173, platformId: 'Steam_76561198000000003', crossId: 'EOS_0002ccccccccccccccccccccccccccc3' };
/** Not muted; their name carries the muted Steam player's platform id, entity id and name, as a chat line prints them. */
const IMPOSTOR: SevenDaysFakePlayer = {
  name: `Steam_76561198000000001', entity id '171', to 'Global'): 'Steamy`,
  entityId: 174,
  platformId: 'Steam_76561198000000004',
  crossId: 'EOS_0002ddddddddddddddddddddddddddd4',
};

const eosOf = (player: SevenDaysFakePlayer): string => (player.crossId ?? '').slice('EOS_'.length);
/** A Steam player's Steam64: GSA is asked by it (servers[].lookupIds' default, steam-first). */
const steamOf = (player: SevenDaysFakePlayer): string => player.platformId.slice('Steam_'.length);

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
const muteCalls = (): number => emulator().calls.filter((call) => call.endpoint === 'mute').length;

/** Every chat verdict the sidecar publishes, in order, until the test ends. */
function recordVerdicts(sidecar: Sidecar): VerdictEvent[] {
  const seen: VerdictEvent[] = [];
  const unsubscribe = sidecar.events.on('verdict', (event) => seen.push(event));
  rig.onCleanup(() => {
    unsubscribe();
    return Promise.resolve();
  });
  return seen;
}

/** Who each verdict was about (by the EOS id GSA was asked about) and what it said. */
const decided = (verdicts: readonly VerdictEvent[]): { eosId: string | undefined; verdict: string }[] =>
  verdicts.map((event) => ({ eosId: event.player.eosId, verdict: event.verdict }));

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

  it('gates a muted player whose chat a mod handles (the handled line, then its coloured re-broadcast) as that player: one verdict, one alert', async () => {
    emulator().mute(SERVER, steamOf(STEAM_MUTED), ALERT);
    const game = await startGame([STEAM_MUTED, NICE]);
    const { adapter, sidecar } = await startRig(game.port, { notifyCommand: 'pm {entityId} "{message}"' });
    const verdicts = recordVerdicts(sidecar);
    await until(() => adapter.ready && game.commands.includes('lp'), 'login and a player list');

    // CSMM's handled line has no name part; the re-broadcast is the server's under a coloured name.
    game.sayThroughMod(STEAM_MUTED, 'spam through a mod', { mod: 'CSMM Patrons', withoutName: true });
    game.sayThroughMod(NICE, 'hello through a mod', { mod: 'CSMM Patrons' });
    await until(() => verdicts.length === 2, "both speakers' verdicts");
    expect(decided(verdicts)).toEqual([
      { eosId: eosOf(STEAM_MUTED), verdict: 'block' },
      { eosId: eosOf(NICE), verdict: 'allow' },
    ]);
    await until(() => actions(game).length === 1, "the muted speaker's alert");
    expect(actions(game)).toEqual([`pm 171 "${ALERT}"`]);
    // One lookup per listed player (their joins' lookup, which the chat reused): none for the mod's re-broadcasts.
    expect(muteCalls()).toBe(2);
  });

  it('reads one message a mod logged twice (the plain line and the handled line, ms apart) once: one verdict and one alert', async () => {
    emulator().mute(SERVER, steamOf(STEAM_MUTED), ALERT);
    emulator().mute(SERVER, eosOf(XBOX_MUTED), ALERT);
    const game = await startGame([STEAM_MUTED, XBOX_MUTED, NICE]);
    const { adapter, sidecar } = await startRig(game.port, { notifyCommand: 'pm {entityId} "{message}"' });
    const verdicts = recordVerdicts(sidecar);
    await until(() => adapter.ready && game.commands.includes('lp'), 'login and a player list');

    // PrismaCore, CSMM with hccp: the plain line (no space after the name), then the handled one.
    game.sayThroughMod(STEAM_MUTED, 'twice logged', { mod: 'PrismaCore', rebroadcast: 'none', alsoPlain: true });
    // ServerTools: its re-broadcast through the player's connection (entity -1), then the handled line.
    game.sayThroughMod(XBOX_MUTED, 'relayed by ServerTools', { mod: 'ServerTools', rebroadcast: 'connection' });
    // Two identical lines the game wrote itself are two messages, each decided.
    game.say(NICE, 'same words');
    game.say(NICE, 'same words');
    await until(() => verdicts.length === 4, 'the four verdicts');
    expect(decided(verdicts)).toEqual([
      { eosId: eosOf(STEAM_MUTED), verdict: 'block' },
      { eosId: eosOf(XBOX_MUTED), verdict: 'block' },
      { eosId: eosOf(NICE), verdict: 'allow' },
      { eosId: eosOf(NICE), verdict: 'allow' },
    ]);
    await until(() => actions(game).length === 2, 'the two alerts');
    expect(actions(game)).toEqual([`pm 171 "${ALERT}"`, `pm 172 "${ALERT}"`]);
  });

  it("never looks a player up as another whose id, entity and name their own name carries", async () => {
    emulator().mute(SERVER, steamOf(STEAM_MUTED), ALERT);
    const game = await startGame([STEAM_MUTED, IMPOSTOR]);
    const { adapter, sidecar } = await startRig(game.port, { notifyCommand: 'pm {entityId} "{message}"' });
    const verdicts = recordVerdicts(sidecar);
    await until(() => adapter.ready && game.commands.includes('lp'), 'login and a player list');

    game.say(IMPOSTOR, 'plain line');
    game.sayThroughMod(IMPOSTOR, 'through a mod', { mod: 'Botman' });
    game.say(IMPOSTOR, `x', entity id '171', to 'Global'): 'Steamy': y`);
    game.say(STEAM_MUTED, 'the real one');
    await until(() => verdicts.length === 4, 'four verdicts');
    expect(decided(verdicts)).toEqual([
      { eosId: eosOf(IMPOSTOR), verdict: 'allow' },
      { eosId: eosOf(IMPOSTOR), verdict: 'allow' },
      { eosId: eosOf(IMPOSTOR), verdict: 'allow' },
      { eosId: eosOf(STEAM_MUTED), verdict: 'block' },
    ]);
    await until(() => actions(game).length === 1, "the muted speaker's alert");
    expect(actions(game)).toEqual([`pm 171 "${ALERT}"`]);
  });

  it("reads a player's first spawn (EnterMultiplayer, ClientNumber) as a join: the list is read at once and their chat gated", async () => {
    emulator().mute(SERVER, eosOf(XBOX_MUTED), ALERT);
    const game = await startGame([NICE]);
    // No poll in the test's time: only the join line can make the adapter read the list.
    const { adapter, sidecar } = await rig.start({ profile: '7dtd', port: game.port, pollPlayersMs: 600_000, notifyCommand: 'pm {entityId} "{message}"' });
    const verdicts = recordVerdicts(sidecar);
    await until(() => adapter.ready && game.commands.includes('lp'), 'login and a player list');
    const listReads = game.commands.filter((command) => command === 'lp').length;

    game.join(XBOX_MUTED, { firstSpawn: true });
    await until(() => game.commands.filter((command) => command === 'lp').length > listReads, 'the list read for the join');
    // The join's lookup warms the cache before they speak.
    await until(() => muteCalls() === 2, "the joiner's lookup");
    game.sayThroughMod(XBOX_MUTED, 'first words', { mod: 'Botman' });
    await until(() => actions(game).length === 1, "the new player's alert");
    expect(decided(verdicts)).toEqual([{ eosId: eosOf(XBOX_MUTED), verdict: 'block' }]);
    expect(actions(game)).toEqual([`pm 172 "${ALERT}"`]);
  });
});
