// The "player-mute" control op a running sidecar serves for `gsa-bridge mute`/`unmute`: every bridge remembers the
// host's change under the ids named, each id checked as its kind; a request without a well-formed id or without
// `muted` changes nothing and says what is missing. And which ids a command gives the sidecar: the flag's and the
// linked accounts' GSA listed.
import { describe, expect, it } from 'vitest';
import type { PlayerIdentity } from '../../src/bridge/port.js';
import { commandPlayerIds, playerMuteControlHandler, PLAYER_MUTE_OP, type MuteMemory } from '../../src/cli/hostMuteControl.js';

const STEAM = '76561198000000421';
const EOS = '0123456789abcdef0123456789abcdef';

class RecordingBridge implements MuteMemory {
  readonly changes: { muted: boolean; player: PlayerIdentity }[] = [];
  rememberMuteStatus(player: PlayerIdentity, muted: boolean): void {
    this.changes.push({ muted, player });
  }
}

describe('the player-mute control op', () => {
  it('remembers a mute and an unmute on every bridge, under each id named, with the name made printable', async () => {
    const bridges = [new RecordingBridge(), new RecordingBridge()];
    const handler = playerMuteControlHandler(() => bridges);
    expect(await handler({ op: PLAYER_MUTE_OP, muted: true, steam_id: STEAM, eos_id: EOS.toUpperCase(), name: 'Rex\u001b[2J' })).toEqual({ ok: true, servers: 2 });
    expect(await handler({ op: PLAYER_MUTE_OP, muted: false, steam_id: STEAM })).toEqual({ ok: true, servers: 2 });
    for (const bridge of bridges) {
      expect(bridge.changes).toEqual([
        { muted: true, player: { steamId: STEAM, eosId: EOS, name: 'Rex[2J' } },
        { muted: false, player: { steamId: STEAM } },
      ]);
    }
  });

  it.each([
    ['no id', { muted: true }],
    ['a malformed Steam id', { muted: true, steam_id: '7656119800000042' }],
    ['an EOS id in the Steam field', { muted: true, steam_id: EOS }],
    ['one good id beside a malformed one', { muted: true, steam_id: STEAM, eos_id: 'nope' }],
    ['no muted', { steam_id: STEAM }],
    ['muted as text', { muted: 'true', steam_id: STEAM }],
  ])('refuses a request with %s and changes nothing', async (_, fields) => {
    const bridge = new RecordingBridge();
    const reply = await playerMuteControlHandler(() => [bridge])({ op: PLAYER_MUTE_OP, ...fields });
    expect(reply).toEqual({ ok: false, error: expect.stringContaining('needs "muted" (true or false) and a well-formed steam_id, eos_id or mojang_id') as unknown });
    expect(bridge.changes).toEqual([]);
  });
});

describe("the ids a command gives the sidecar", () => {
  const UUID = '6d1f3c0a-8b2e-4f5a-9c7d-0e1f2a3b4c5d';

  it('reads the id given by its shape (a Steam64, an EOS id lowered, a dashed Mojang UUID), with the name GSA gave', () => {
    expect(commandPlayerIds(STEAM, { uuid: UUID, name: 'Rex' })).toEqual({ steamId: STEAM, name: 'Rex' });
    expect(commandPlayerIds(EOS.toUpperCase(), { uuid: UUID })).toEqual({ eosId: EOS });
    expect(commandPlayerIds('069A79F4-44E9-4726-A5BE-FCA90E38AAF5', { uuid: UUID })).toEqual({ mojangId: '069a79f4-44e9-4726-a5be-fca90e38aaf5' });
  });

  it("adds the linked accounts' game ids GSA listed, and stands on them alone for GSA's uuid (--player)", () => {
    const linked = { uuid: UUID, name: 'Rex', gameIds: { steamId: STEAM, eosId: EOS } };
    expect(commandPlayerIds(STEAM, linked)).toEqual({ steamId: STEAM, eosId: EOS, name: 'Rex' });
    expect(commandPlayerIds(undefined, linked)).toEqual({ steamId: STEAM, eosId: EOS, name: 'Rex' });
  });

  it('gives nothing when neither the flag nor GSA names a game id', () => {
    expect(commandPlayerIds(undefined, { uuid: UUID, name: 'Rex' })).toBeUndefined();
    expect(commandPlayerIds('discord-1234', { uuid: UUID })).toBeUndefined();
  });
});
