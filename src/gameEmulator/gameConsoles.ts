// The `--game` table of `gsa-bridge emulator`: for each game, the fake console to start, the port the game's RCON
// usually listens on, the config profile it stands for, and where its log goes. One entry a game; the CLI only
// loops over it. It must never be imported by `run` (src/cli/main.ts loads the emulator command on demand).
import { RustWebRconConsole } from './rustWebRconConsole.js';
import type { ChatStage, ScriptedPlayer } from './scriptedChat.js';
import { SourceRconConsole, type ConsoleWriteMode } from './sourceRconConsole.js';
import { startSevenDaysGameConsole } from './sevenDaysWiring.js';

export const GAME_NAMES = ['ark', 'atlas', 'squad', 'rust', 'conan', '7dtd', 'minecraft'] as const;
export type GameName = (typeof GAME_NAMES)[number];

export interface StartGameConsoleOptions {
  readonly host: string;
  readonly port: number;
  readonly password: string;
  readonly logFile?: string | undefined;
  readonly writeMode?: ConsoleWriteMode | undefined;
}

/** A fake console running, whatever its transport: the scripted chat plays on it. */
export interface RunningGameConsole extends ChatStage {
  readonly port: number;
  /** The log file this start writes (for ARK, the file made from a `*` pattern). */
  readonly logPath: string | undefined;
  /** Every command the console received, in order (what a sidecar sent it: alerts, mutes, player lists). */
  readonly commands: readonly string[];
  /** Rolls the game's log as it does while running (Minecraft at midnight); absent where the game does not. */
  readonly rollLog?: (() => void) | undefined;
  close(): Promise<void>;
}

export interface GameConsoleEntry {
  /** The game's usual RCON (or telnet) port. */
  readonly defaultPort: number;
  /** What the log file is to the game's profile: chat's only source, an alternative to polling, or nothing. */
  readonly logFile: 'required' | 'optional' | 'none';
  /** Where the real game writes it, for --help and the banner. */
  readonly logFileHint: string | undefined;
  start(options: StartGameConsoleOptions): Promise<RunningGameConsole>;
}

function sourceEntry(game: 'ark' | 'atlas' | 'squad' | 'conan' | 'minecraft', defaultPort: number, logFile: GameConsoleEntry['logFile'], logFileHint: string | undefined): GameConsoleEntry {
  return {
    defaultPort,
    logFile,
    logFileHint,
    start: async (options) => {
      const started = await SourceRconConsole.start({ game, ...options });
      return {
        port: started.port,
        logPath: started.log?.path,
        commands: started.commands,
        rollLog: started.log?.roll === undefined ? undefined : () => started.rollLog(),
        close: () => started.close(),
        join: (player) => {
          started.join(player);
        },
        leave: (player) => {
          started.leave(player);
        },
        say: (player, text) => {
          started.say(player, text);
        },
      };
    },
  };
}

function rustPlayer(player: ScriptedPlayer): { readonly steamId: string; readonly name: string } {
  return { steamId: player.steamId, name: player.name };
}

const rust: GameConsoleEntry = {
  defaultPort: 28016,
  logFile: 'none',
  logFileHint: undefined,
  start: async (options) => {
    // A host tries it from its own machine: no ban after wrong passwords, or a typo locks it out for 5 minutes.
    const started = await RustWebRconConsole.start({ host: options.host, port: options.port, password: options.password, maxPasswordFailures: 0 });
    return {
      port: started.port,
      logPath: undefined,
      get commands() {
        return started.commands.map((received) => received.message);
      },
      close: () => started.stop(),
      join: (player) => {
        if (!started.players.some((known) => known.steamId === player.steamId)) started.players.push(rustPlayer(player));
      },
      leave: (player) => {
        started.players = started.players.filter((known) => known.steamId !== player.steamId);
      },
      say: (player, text) => {
        started.pushChat({ message: text, userId: player.steamId, username: player.name });
      },
    };
  },
};

const sevenDays: GameConsoleEntry = {
  defaultPort: 8081,
  logFile: 'none',
  logFileHint: undefined,
  start: async (options) => {
    const started = await startSevenDaysGameConsole(options);
    return { ...started, logPath: undefined };
  },
};

export const GAME_CONSOLES: { readonly [Game in GameName]: GameConsoleEntry } = {
  ark: sourceEntry('ark', 27020, 'optional', 'ShooterGame/Saved/Logs/ServerGame.*.log (server started with -servergamelog)'),
  atlas: sourceEntry('atlas', 27020, 'optional', 'ShooterGame/Saved/Logs/ServerGame.*.log'),
  squad: sourceEntry('squad', 21114, 'none', undefined),
  rust,
  conan: sourceEntry('conan', 25575, 'required', 'ConanSandbox/Saved/Logs/ConanSandbox.log'),
  '7dtd': sevenDays,
  minecraft: sourceEntry('minecraft', 25575, 'required', 'logs/latest.log'),
};
