// The one seam between `gsa-bridge emulator --game 7dtd` and the 7 Days to Die telnet console, which another helper
// is building as src/gameEmulator/sevenDaysConsole.ts (`startSevenDaysConsole`). Until it is merged, the start
// function here is a stub that fails with "7dtd is not built yet".
// TODO(lead): after merging, replace STUB_START_SEVEN_DAYS_CONSOLE below with
//   `import { startSevenDaysConsole } from './sevenDaysConsole.js'` and adjust `toSevenDaysPlayer` to its player type.
// It must never speak telnet itself.
import type { ChatStage, ScriptedPlayer } from './scriptedChat.js';

/** What startSevenDaysConsole takes (as announced; its player and chunking types are that file's). */
export interface SevenDaysConsoleOptions<Player> {
  readonly host?: string;
  readonly port?: number;
  readonly password: string;
  readonly players?: readonly Player[];
  readonly chunking?: unknown;
}

/** What startSevenDaysConsole returns (as announced). */
export interface SevenDaysConsoleHandle<Player> {
  readonly port: number;
  close(): Promise<void> | void;
  say(player: Player, text: string, channel?: string): void;
  join(player: Player): void;
  leave(player: Player): void;
  pushLog(line: string): void;
  readonly commands: readonly string[];
  readonly connections: number;
}

export type StartSevenDaysConsole<Player> = (options: SevenDaysConsoleOptions<Player>) => Promise<SevenDaysConsoleHandle<Player>>;

/** The one function the `--game` table calls: a running console with the scripted stage. */
export interface SevenDaysGameConsole extends ChatStage {
  readonly port: number;
  close(): Promise<void>;
}

export async function startSevenDaysGameConsole<Player>(
  start: StartSevenDaysConsole<Player>,
  toPlayer: (player: ScriptedPlayer) => Player,
  options: { readonly host: string; readonly port: number; readonly password: string },
): Promise<SevenDaysGameConsole> {
  const handle = await start({ host: options.host, port: options.port, password: options.password });
  return {
    port: handle.port,
    close: async () => {
      await handle.close();
    },
    join: (player) => {
      handle.join(toPlayer(player));
    },
    leave: (player) => {
      handle.leave(toPlayer(player));
    },
    say: (player, text) => {
      handle.say(toPlayer(player), text, 'Global');
    },
  };
}

/** The scripted player as the 7dtd console is assumed to take it: adjust once its type is known. */
export function toSevenDaysPlayer(player: ScriptedPlayer): ScriptedPlayer {
  return player;
}

export class SevenDaysNotBuiltError extends Error {
  readonly code = 'seven_days_not_built';
  constructor() {
    super('7dtd is not built yet: its console (src/gameEmulator/sevenDaysConsole.ts) has not been merged into this build');
    this.name = 'SevenDaysNotBuiltError';
  }
}

/** TODO(lead): replace with startSevenDaysConsole from ./sevenDaysConsole.js. */
export const STUB_START_SEVEN_DAYS_CONSOLE: StartSevenDaysConsole<ScriptedPlayer> = () => Promise.reject(new SevenDaysNotBuiltError());
