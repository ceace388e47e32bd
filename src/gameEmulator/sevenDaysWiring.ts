// The one seam between `gsa-bridge emulator --game 7dtd` and the 7 Days to Die telnet console
// (sevenDaysConsole.ts): the scripted players in the console's terms, and the stage the scripted chat plays on.
// Mallory (the player `gsa-bridge demo` mutes) speaks through a chat mod, as on the many servers running ServerTools or
// CSMM: the mod's re-broadcast through her connection, then the game's `Chat handled by mod` line; Alice's lines are the
// game's own.
// It must never speak telnet itself.
import { startSevenDaysConsole, type SevenDaysFakePlayer } from './sevenDaysConsole.js';
import { MALLORY, type ChatStage, type ScriptedPlayer } from './scriptedChat.js';

/** A running console with the scripted stage. */
export interface SevenDaysGameConsole extends ChatStage {
  readonly port: number;
  readonly commands: readonly string[];
  close(): Promise<void>;
}

/** Entity ids for the scripted players, in the order they are first seen (7 Days to Die numbers entities from 171). */
const FIRST_ENTITY_ID = 171;

export async function startSevenDaysGameConsole(options: { readonly host: string; readonly port: number; readonly password: string }): Promise<SevenDaysGameConsole> {
  const game = await startSevenDaysConsole({ host: options.host, port: options.port, password: options.password });
  const entityIds = new Map<string, number>();
  const toPlayer = (player: ScriptedPlayer): SevenDaysFakePlayer => {
    let entityId = entityIds.get(player.steamId);
    if (entityId === undefined) {
      entityId = FIRST_ENTITY_ID + entityIds.size;
      entityIds.set(player.steamId, entityId);
    }
    // GSA knows 7 Days to Die players by the EOS id `lp` prints as crossid.
    return { name: player.name, entityId, platformId: `Steam_${player.steamId}`, crossId: `EOS_${player.eosId}` };
  };
  return {
    port: game.port,
    commands: game.commands,
    close: () => game.close(),
    join: (player) => {
      game.join(toPlayer(player));
    },
    leave: (player) => {
      game.leave(toPlayer(player));
    },
    say: (player, text) => {
      if (player.steamId === MALLORY.steamId) game.sayThroughMod(toPlayer(player), text, { mod: 'ServerTools', rebroadcast: 'connection' });
      else game.say(toPlayer(player), text, 'Global');
    },
  };
}
