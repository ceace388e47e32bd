// What each Source RCON game answers, and the quirks of its login and framing (reference/game-rcon.md, games.md):
// one rules object per game, composed into the console by sourceRconConsole.ts. Pure text in, text out; the
// console's world (who is online, the chat since the last GetChat) is read and drained through ConsoleWorld.
// It must never touch a socket or a file.
import type { ScriptedPlayer } from './scriptedChat.js';

export type SourceConsoleGame = 'ark' | 'atlas' | 'squad' | 'conan' | 'minecraft';

/** ARK's answer to a command with no output (and to GetChat with no chat): a space, a newline, a space. */
export const ARK_NO_RESPONSE = 'Server received, But no response!! \n ';
export const CONAN_TOO_MANY = 'Too many commands, try again later.';

export interface ConsoleWorld {
  readonly online: readonly ScriptedPlayer[];
  /** Left recently, newest last (Squad's "Recently Disconnected"), with when they left (ms). */
  readonly departed: readonly { readonly player: ScriptedPlayer; readonly atMs: number }[];
  /** ARK's GetChat: the lines since the last call, and the buffer emptied (one reader only). */
  drainChat(): string[];
  now(): number;
}

export interface SourceGameRules {
  /** SRCDS sends an empty RESPONSE_VALUE before the AUTH_RESPONSE. */
  readonly emptyPacketBeforeAuth: boolean;
  /** `silence`: no answer at all (ARK); `reject`: an AUTH_RESPONSE with id -1. */
  readonly wrongPassword: 'silence' | 'reject';
  /** An empty RESPONSE_VALUE is mirrored, then a packet with body 00 01 00 00 follows (Squad, SRCDS). */
  readonly mirrors: boolean;
  /** An empty EXECCOMMAND is answered (ARK hangs on one). */
  readonly answersEmptyCommand: boolean;
  /** The connection is closed after every answer (Conan). */
  readonly closesAfterAnswer: boolean;
  /** Too many commands in a window are refused (Conan's RconMaxKarma). */
  readonly karma: boolean;
  /** Long answers are split into packets of this many body bytes; undefined: one packet whatever its size. */
  readonly splitBodyAt: number | undefined;
  respond(command: string, world: ConsoleWorld): string;
}

/** The first word, case folded, and the rest. */
function verbOf(command: string): { readonly verb: string; readonly rest: string } {
  const trimmed = command.trim();
  const space = trimmed.search(/\s/);
  return space === -1 ? { verb: trimmed.toLowerCase(), rest: '' } : { verb: trimmed.slice(0, space).toLowerCase(), rest: trimmed.slice(space + 1).trim() };
}

const ark: SourceGameRules = {
  emptyPacketBeforeAuth: false,
  wrongPassword: 'silence',
  mirrors: false,
  answersEmptyCommand: false,
  closesAfterAnswer: false,
  karma: false,
  splitBodyAt: undefined,
  respond(command, world) {
    const { verb } = verbOf(command);
    if (verb === 'listplayers') {
      if (world.online.length === 0) return 'No Players Connected \n ';
      return `\n${world.online.map((player, index) => `${index}. ${player.name}, ${player.steamId}`).join('\n')}\n `;
    }
    if (verb === 'getchat') {
      const lines = world.drainChat();
      return lines.length === 0 ? ARK_NO_RESPONSE : `${lines.join('\n')}\n `;
    }
    // ServerChatTo, ServerChatToPlayer, Broadcast, KickPlayer, scriptcommand gsamute/gsanotify/gsachat, and whatever
    // ARK does not know: the same "no response".
    return ARK_NO_RESPONSE;
  },
};

function squadRow(player: ScriptedPlayer, index: number): string {
  return `ID: ${index} | Online IDs: EOS: ${player.eosId} steam: ${player.steamId} | Name: ${player.name} | Team ID: 1 | Party ID: N/A | Squad ID: 1 | Is Leader: ${index === 0 ? 'True' : 'False'} | Role: USA_Rifleman_01 | Vehicle: N/A`;
}

function sinceDisconnect(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${String(Math.floor(seconds / 60)).padStart(2, '0')}m.${String(seconds % 60).padStart(2, '0')}s`;
}

const squad: SourceGameRules = {
  emptyPacketBeforeAuth: true,
  wrongPassword: 'reject',
  mirrors: true,
  answersEmptyCommand: true,
  closesAfterAnswer: false,
  karma: false,
  splitBodyAt: 4096,
  respond(command, world) {
    const { verb, rest } = verbOf(command);
    if (verb === 'listplayers') {
      const departed = world.departed.slice(-15).map(
        ({ player, atMs }, index) =>
          `ID: ${world.online.length + index} | Online IDs: EOS: ${player.eosId} steam: ${player.steamId} | Since Disconnect: ${sinceDisconnect(world.now() - atMs)} | Name: ${player.name}`,
      );
      return ['----- Active Players -----', ...world.online.map(squadRow), '----- Recently Disconnected Players [Max of 15] -----', ...departed, ''].join('\n');
    }
    if (verb === 'adminwarn') {
      const match = /^"?([^"\s]+)"?\s*(.*)$/s.exec(rest);
      const target = world.online.find((player) => player.eosId === match?.[1] || player.steamId === match?.[1] || player.name === match?.[1]);
      return target === undefined ? `Could not find player ${match?.[1] ?? ''}` : `Remote admin has warned player ${target.name}. Message was "${match?.[2] ?? ''}"`;
    }
    if (verb === 'adminbroadcast') return `Message broadcasted`;
    if (verb === 'adminkick') return `Kicked player`;
    return '';
  },
};

const conan: SourceGameRules = {
  emptyPacketBeforeAuth: false,
  wrongPassword: 'reject',
  mirrors: false,
  answersEmptyCommand: true,
  closesAfterAnswer: true,
  karma: true,
  splitBodyAt: undefined,
  respond(command, world) {
    const { verb, rest } = verbOf(command);
    if (verb === 'listplayers') {
      const rows = world.online.map((player, index) => `${index} | ${player.character} | ${player.name} | ${player.steamId} | ${player.steamId} | Steam`);
      return ['Idx | Char name | Player name | User ID | Platform ID | Platform Name', ...rows, ''].join('\n');
    }
    if (verb === 'broadcast') return `Broadcasted message: ${rest}`;
    if (verb === 'kickplayer') return `Kicked player`;
    return `Couldn't find the command: ${verb}`;
  },
};

const minecraft: SourceGameRules = {
  emptyPacketBeforeAuth: false,
  wrongPassword: 'reject',
  mirrors: false,
  answersEmptyCommand: true,
  closesAfterAnswer: false,
  karma: false,
  splitBodyAt: 4096,
  respond(command, world) {
    const { verb, rest } = verbOf(command);
    if (verb === 'list') {
      const head = `There are ${world.online.length} of a max of 20 players online: `;
      const names = rest === 'uuids' ? world.online.map((player) => `${player.name} (${player.uuid})`) : world.online.map((player) => player.name);
      return `${head}${names.join(', ')}`;
    }
    if (verb === 'tellraw' || verb === 'msg' || verb === 'tell') {
      const target = rest.split(/\s/, 1)[0] ?? '';
      return world.online.some((player) => player.name === target) ? '' : 'No player was found';
    }
    if (verb === 'say') return '';
    if (verb === 'kick') return `Kicked ${rest.split(/\s/, 1)[0] ?? ''}: Kicked by an operator`;
    return `Unknown or incomplete command, see below for error${verb}<--[HERE]`;
  },
};

export const SOURCE_GAME_RULES: { readonly [Game in SourceConsoleGame]: SourceGameRules } = {
  ark,
  // Atlas runs ARK's engine and RCON; its own wording is unconfirmed.
  atlas: ark,
  squad,
  conan,
  minecraft,
};
