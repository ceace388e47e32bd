// The roster's one rule for who spoke, against lists the test hands it (the list command's answer is the roster's
// input, read through the function the adapter gives it): the longest reading the list confirms wins, a longer one
// not listed yet gets one fresh read first, an id a player-chosen name printed counts only where the list shows it for
// that name, a join or leave line that reads like a namesake's chat is that join or leave, and a line that names its
// speaker by the game's own id never falls back to a name.
import { describe, expect, it } from 'vitest';
import type { ListedPlayer, PlayerListParse } from '../../adapters/rcon/profiles/parsedLines.js';
import type { Speaker } from '../../adapters/rcon/playerRoster.js';
import { PlayerRoster } from '../../adapters/rcon/playerRoster.js';
import { silentLogger } from '../../src/log/logger.js';

const ALICE: ListedPlayer = { steamId: '76561198000000011', name: 'Alice' };
const MALLORY: ListedPlayer = { steamId: '76561198000000066', name: 'Alice (Rex): hi' };
const VICTIM: ListedPlayer = { steamId: '76561198000000007', name: 'Victim' };
const CRAFTED: ListedPlayer = { steamId: '76561198000000099', name: `Victim (uid 1, player ${VICTIM.steamId ?? ''}) said: x` };

/** A roster whose list command answers `lists()` at each read; counts the reads. */
function rosterOf(lists: () => readonly ListedPlayer[]) {
  let reads = 0;
  const roster = new PlayerRoster({
    readList: (): Promise<PlayerListParse> => {
      reads++;
      const players = lists();
      return Promise.resolve({ status: players.length === 0 ? 'none' : 'players', players, unparsed: [] });
    },
    logger: silentLogger(),
    onJoined: () => undefined,
    onLeft: () => undefined,
    extraReadGapMs: 0,
  });
  const speaker = (line: Speaker) => roster.speaker(line, () => Promise.resolve(), () => false);
  return { roster, speaker, reads: () => reads };
}

/** ARK's `Alice (Rex): hi (Mal): blame Alice`: two splits, the longest name first. */
const ARK_CRAFTED: Speaker = {
  kind: 'player',
  channel: 'global',
  name: 'Alice',
  text: 'hi (Mal): blame Alice',
  readings: [
    { name: 'Alice (Rex): hi', text: 'blame Alice' },
    { name: 'Alice', text: 'hi (Mal): blame Alice' },
  ],
};

describe('PlayerRoster.speaker', () => {
  it('reads the list again when a longer split is not listed yet, then takes the longest listed one', async () => {
    let online = [ALICE];
    const { roster, speaker, reads } = rosterOf(() => online);
    await roster.refresh();
    online = [ALICE, MALLORY];
    expect(await speaker(ARK_CRAFTED)).toMatchObject({ kind: 'found', player: { steamId: MALLORY.steamId }, text: 'blame Alice' });
    expect(reads()).toBe(2);
  });

  it('takes the shorter split after the fresh read when nobody holds the longer name (a text holding `(x): `)', async () => {
    const { roster, speaker, reads } = rosterOf(() => [ALICE]);
    await roster.refresh();
    expect(await speaker(ARK_CRAFTED)).toMatchObject({ kind: 'found', player: { steamId: ALICE.steamId }, text: 'hi (Mal): blame Alice' });
    expect(reads()).toBe(2);
  });

  it("believes an id a character name printed only where the list shows it for that name (Conan)", async () => {
    const { roster, speaker } = rosterOf(() => [VICTIM, CRAFTED]);
    await roster.refresh();
    const line: Speaker = {
      kind: 'player',
      channel: 'global',
      name: 'Victim',
      steamId: VICTIM.steamId,
      text: `x (uid 5, player ${CRAFTED.steamId ?? ''}) said: hello`,
      idsFrom: 'list',
      readings: [
        { name: CRAFTED.name, steamId: CRAFTED.steamId, text: 'hello' },
        { name: 'Victim', steamId: VICTIM.steamId, text: `x (uid 5, player ${CRAFTED.steamId ?? ''}) said: hello` },
      ],
    };
    expect(await speaker(line)).toMatchObject({ kind: 'found', player: { steamId: CRAFTED.steamId }, text: 'hello' });
    // An unlisted name claiming a listed player's id: nobody's line, and the reason says why.
    expect(await speaker({ kind: 'player', channel: 'global', name: 'Stranger', steamId: VICTIM.steamId, text: 'hi', idsFrom: 'list' })).toEqual({ kind: 'unconfirmed-id' });
  });

  it('takes a join line that reads like a namesake\'s chat for the join once the list shows the player', async () => {
    let online = [ALICE];
    const { roster, speaker } = rosterOf(() => online);
    await roster.refresh();
    online = [ALICE, MALLORY];
    const joinLine: Speaker = {
      kind: 'player',
      channel: 'global',
      name: 'Alice',
      text: `hi [UniqueNetId:${MALLORY.steamId ?? ''} Platform:Steam] joined this ARK!`,
      presence: { kind: 'join', name: MALLORY.name, steamId: MALLORY.steamId },
    };
    expect(await speaker(joinLine)).toEqual({ kind: 'presence' });
  });

  it('takes a leave line for the leave even when the list already dropped the player', async () => {
    let online = [ALICE, MALLORY];
    const { roster, speaker } = rosterOf(() => online);
    await roster.refresh();
    online = [ALICE];
    await roster.refresh();
    const leaveLine: Speaker = { kind: 'player', channel: 'global', name: 'Alice', text: 'hi left this ARK!', presence: { kind: 'leave', name: MALLORY.name } };
    expect(await speaker(leaveLine)).toEqual({ kind: 'presence' });
    // Alice typing it herself: nobody called `Alice (Rex): I` was ever listed, so it is her chat.
    const typed: Speaker = { kind: 'player', channel: 'global', name: 'Alice', text: 'I left this ARK!', presence: { kind: 'leave', name: 'Alice (Rex): I' } };
    expect(await speaker(typed)).toMatchObject({ kind: 'found', player: { steamId: ALICE.steamId } });
  });

  it('never falls back to a name for a line that names its speaker by the game\'s own id (7 Days to Die)', async () => {
    const listed: ListedPlayer = { eosId: '0002aaaaaaaaaaaaaaaaaaaaaaaaa001', name: 'Catalysm', platformId: 'XBL_listed', entityId: 171 };
    const { roster, speaker } = rosterOf(() => [listed]);
    await roster.refresh();
    const newcomer: Speaker = { kind: 'player', channel: 'global', name: 'Catalysm', platformId: 'XBL_newcomer', entityId: 172, text: 'hi' };
    expect(await speaker(newcomer)).toEqual({ kind: 'not-listed' });
  });
});

describe('PlayerRoster.readSince', () => {
  /** A roster whose list reads finish only when the test says; counts the reads and who each one showed. */
  function heldRoster(online: () => readonly ListedPlayer[]) {
    const answers: (() => void)[] = [];
    const joined: string[] = [];
    const roster = new PlayerRoster({
      readList: () =>
        new Promise<PlayerListParse>((resolve) => {
          answers.push(() => {
            resolve({ status: 'players', players: online(), unparsed: [] });
          });
        }),
      logger: silentLogger(),
      onJoined: (player) => {
        joined.push(player.name);
      },
      onLeft: () => undefined,
    });
    const answerNext = async () => {
      const answer = answers.shift();
      if (answer === undefined) throw new Error('no list read is waiting for an answer');
      answer();
      await new Promise((resolve) => setImmediate(resolve));
    };
    return { roster, joined, reads: () => answers.length, answerNext };
  }

  it('follows a read begun before the join line with one more, shared by every line that came meanwhile', async () => {
    let online = [ALICE];
    const { roster, joined, reads, answerNext } = heldRoster(() => online);
    void roster.refresh();
    expect(reads()).toBe(1);
    // The game answered the first read before Victim joined; their join line and a second one come while it flies.
    const firstJoin = roster.readSince(performance.now() + 1);
    const secondJoin = roster.readSince(performance.now() + 1);
    expect(reads()).toBe(1);
    await answerNext();
    expect(joined).toEqual(['Alice']);
    online = [ALICE, VICTIM];
    expect(reads()).toBe(1);
    await answerNext();
    await Promise.all([firstJoin, secondJoin]);
    expect(joined).toEqual(['Alice', 'Victim']);
    expect(reads()).toBe(0);
  });

  it('takes a read begun since the line as the answer, and asks nothing when one began and ended since', async () => {
    const { roster, reads, answerNext } = heldRoster(() => [ALICE]);
    const since = performance.now();
    const flying = roster.refresh();
    expect(roster.readSince(since)).toBe(flying);
    await answerNext();
    await roster.readSince(since);
    expect(reads()).toBe(0);
  });
});
