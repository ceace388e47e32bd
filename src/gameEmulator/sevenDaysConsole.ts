// A fake 7 Days to Die telnet console on a real TCP port, speaking the game's bytes (reference/games.md "7 Days to
// Die"): the `Please enter password:` prompt, `Password incorrect, please enter password:` for a wrong one,
// `Logon successful.` and the banner, CRLF line ends, the console log pushed to every logged-in client (each command
// echoed as `INF Executing command '<cmd>' by Telnet from <address>`), `lp` rows and `Total of N in the game`, `say`
// answered by a pushed `-non-player-` chat line, and `*** ERROR: unknown command '<cmd>'`. A player's chat can also
// come as a chat mod's (ServerTools, CSMM Patrons, Botman, PrismaCore) lines: the mod's re-broadcast, then the game's
// `Chat handled by mod '<mod>': Chat (from …` line instead of the plain one. Writes can be cut at random points or
// merged, so a client's framing is tested against what TCP may do.
// It backs the telnet tests and a local 7DTD for demos. It must never depend on test code, never log or echo the
// password it checks, and never keep the process alive after close().
//
//   const game = await startSevenDaysConsole({ password: 'secret', chunking: 'split' });
//   game.join({ name: 'Alice', entityId: 171, platformId: 'Steam_76561198000000001', crossId: 'EOS_0002…' });
//   game.say('Alice', 'hello');        // pushes a Global chat line to every logged-in client
//   game.sayThroughMod('Alice', 'hi', { mod: 'CSMM Patrons' });   // as a server running a chat mod logs it
//   await game.close();
import { createServer, type Server, type Socket } from 'node:net';

export interface SevenDaysFakePlayer {
  readonly name: string;
  readonly entityId: number;
  /** As `lp` prints `pltfmid`: `Steam_<17 digits>`, `XBL_…`, `PSN_…`. */
  readonly platformId: string;
  /** As `lp` prints `crossid`: `EOS_<32 hex>`. */
  readonly crossId?: string | undefined;
}

/**
 * How a chat mod's message is logged (reference/games.md "Chat mods"; real captures in test/fixtures/real/7dtd-chat.txt).
 * The lines come in the game's order: what the mod's handler logged while it ran (its re-broadcast, the plain line it
 * left), then the game's `Chat handled by mod` line.
 */
export interface SevenDaysModChat {
  /** The mod's name, as the game prints it. @default 'ServerTools' */
  readonly mod?: string | undefined;
  /** @default 'Global' */
  readonly channel?: string | undefined;
  /**
   * The mod's re-broadcast of the words: `server` a `-non-player-` line under the coloured name (CSMM, Botman),
   * `connection` the player's id with entity -1 (ServerTools), `none` nothing. @default 'server'
   */
  readonly rebroadcast?: 'server' | 'connection' | 'none' | undefined;
  /** The game's plain line of the same message too, with no space after the name (CSMM with hccp, PrismaCore). @default false */
  readonly alsoPlain?: boolean | undefined;
  /** The handled line without its `'Name': ` part (CSMM's builds, Takaro's ServerTools capture). @default false */
  readonly withoutName?: boolean | undefined;
}

/** `whole`: each message in one write. `split`: every write cut into random 1–7 byte pieces. `merged`: one write per tick. */
export type SevenDaysChunking = 'whole' | 'split' | 'merged';

export interface SevenDaysConsoleOptions {
  /** @default '127.0.0.1' */
  readonly host?: string | undefined;
  /** 0: any free port, read back from `port`. @default 0 */
  readonly port?: number | undefined;
  /** The telnet password the console asks for. */
  readonly password: string;
  /** Online at start. @default none */
  readonly players?: readonly SevenDaysFakePlayer[] | undefined;
  /** @default 'whole' */
  readonly chunking?: SevenDaysChunking | undefined;
  /**
   * How `say "<text>"` is echoed: `named` `…: 'Server': <text>` (older builds), `bare` `…: <text>` (V1.0 builds,
   * which name no speaker). @default 'named'
   */
  readonly sayFormat?: 'named' | 'bare' | undefined;
  /** Wrong passwords a connection may try before it is closed. @default 3 */
  readonly maxPasswordTries?: number | undefined;
  /**
   * Answers of the test's own: the lines written for a command (log lines among them are written as they are), or
   * undefined for the console's own answer. @default none
   */
  readonly respond?: ((command: string) => readonly string[] | undefined) | undefined;
  /** For split writes, [0, 1). @default Math.random */
  readonly random?: (() => number) | undefined;
}

export interface SevenDaysConsole {
  readonly host: string;
  readonly port: number;
  /** Every command received from a logged-in client, in order. */
  readonly commands: readonly string[];
  /** Connections accepted over the console's life. */
  readonly connections: number;
  /** Connections open now. */
  readonly openConnections: number;
  /** Passwords received (right or wrong), over the console's life. */
  readonly loginAttempts: number;
  /** Who `lp` lists now. */
  readonly players: readonly SevenDaysFakePlayer[];
  chunking: SevenDaysChunking;
  /** A player's chat line, pushed to every logged-in client. `player` is a name in `players` or a player. @default channel 'Global' */
  say(player: string | SevenDaysFakePlayer, text: string, channel?: string): void;
  /** A player's chat as a server running a chat mod logs it (SevenDaysModChat), pushed to every logged-in client. */
  sayThroughMod(player: string | SevenDaysFakePlayer, text: string, options?: SevenDaysModChat): void;
  /**
   * Adds the player to `lp` and pushes the `PlayerSpawnedInWorld (reason: JoinMultiplayer …)` line; `firstSpawn`: as a
   * newer build logs a player's very first spawn (`reason: EnterMultiplayer`, `, ClientNumber='<n>'` after the name).
   */
  join(player: SevenDaysFakePlayer, options?: { readonly firstSpawn?: boolean | undefined }): void;
  /** Removes the player from `lp` and pushes the `Player disconnected: …` line. */
  leave(player: string | SevenDaysFakePlayer): void;
  /** Pushes a log line to every logged-in client: given whole if it has a log prefix, else prefixed `INF`. */
  pushLog(line: string): void;
  /** Writes raw bytes to every logged-in client (hostile framing, a line past a cap). */
  pushRaw(bytes: Buffer | string): void;
  /** Drops every open connection (a server restart, as a client sees it); the port stays open. */
  dropConnections(): void;
  /** Closes every connection and the port. Idempotent. */
  close(): Promise<void>;
}

interface Client {
  readonly socket: Socket;
  loggedIn: boolean;
  wrongTries: number;
  pending: Buffer;
  merged: Buffer[];
}

const CRLF = '\r\n';
const PROMPT = 'Please enter password:';
const WRONG = 'Password incorrect, please enter password:';
const BANNER = [
  'Logon successful.',
  '',
  '',
  '',
  '*** Connected with 7DTD server.',
  '*** Server version: V 1.0 (b333) Compatibility Version: V 1.0',
  '*** Dedicated server only build',
  '',
  'Server IP:   Any',
  'Server port: 26900',
  'Max players: 8',
  'Game mode:   GameModeSurvival',
  'World:       Navezgane',
  'Game name:   gsa-bridge emulator',
  'Difficulty:  2',
  '',
  "Press 'help' to get a list of all commands. Press 'exit' to end session.",
  '',
];

/** A fake 7DTD telnet console, listening. */
export async function startSevenDaysConsole(options: SevenDaysConsoleOptions): Promise<SevenDaysConsole> {
  const host = options.host ?? '127.0.0.1';
  const random = options.random ?? Math.random;
  const maxTries = Math.max(1, options.maxPasswordTries ?? 3);
  const startedAt = performance.now();
  const clients = new Set<Client>();
  const commands: string[] = [];
  let players: SevenDaysFakePlayer[] = [...(options.players ?? [])];
  let connections = 0;
  let loginAttempts = 0;
  let closed = false;

  const game = {
    chunking: options.chunking ?? 'whole',
  };

  function write(client: Client, text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    if (client.socket.destroyed) return;
    switch (game.chunking) {
      case 'whole':
        client.socket.write(bytes);
        return;
      case 'split': {
        let at = 0;
        while (at < bytes.length) {
          const size = 1 + Math.floor(random() * 7);
          client.socket.write(bytes.subarray(at, at + size));
          at += size;
        }
        return;
      }
      case 'merged':
        client.merged.push(bytes);
        if (client.merged.length === 1) {
          setImmediate(() => {
            const all = Buffer.concat(client.merged);
            client.merged = [];
            if (!client.socket.destroyed) client.socket.write(all);
          });
        }
        return;
    }
  }

  function logPrefix(): string {
    const now = new Date();
    const pad = (value: number): string => String(value).padStart(2, '0');
    const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
    return `${stamp} ${((performance.now() - startedAt) / 1000).toFixed(3)} INF `;
  }

  function broadcast(message: string): void {
    const line = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2} \d/.test(message) ? message : logPrefix() + message;
    for (const client of clients) if (client.loggedIn) write(client, line + CRLF);
  }

  function find(player: string | SevenDaysFakePlayer): SevenDaysFakePlayer | undefined {
    return typeof player === 'string' ? players.find((known) => known.name === player) : player;
  }

  function answer(client: Client, command: string): void {
    const words = command.trim();
    const verb = words.split(/\s+/, 1)[0]?.toLowerCase() ?? '';
    broadcast(`Executing command '${words}' by Telnet from ${client.socket.remoteAddress ?? '127.0.0.1'}:${client.socket.remotePort ?? 0}`);
    const own = options.respond?.(words);
    if (own !== undefined) {
      write(client, own.map((row) => row + CRLF).join(''));
      return;
    }
    if (verb === 'lp' || verb === 'listplayers') {
      const rows = players.map(
        (player, index) =>
          `${index}. id=${player.entityId}, ${player.name}, pos=(-1022.3, 61.1, 1384.8), rot=(-21.1, -149.1, 0.0), remote=True, health=92, deaths=0, zombies=3, players=0, score=3, level=1, pltfmid=${player.platformId}, crossid=${player.crossId ?? ''}, ip=127.0.0.1, ping=0`,
      );
      write(client, [...rows, `Total of ${players.length} in the game`].map((row) => row + CRLF).join(''));
      return;
    }
    if (verb === 'say') {
      const said = /^say\s+"(.*)"$/s.exec(words)?.[1] ?? words.slice(3).trim();
      broadcast(`Chat (from '-non-player-', entity id '-1', to 'Global'): ${options.sayFormat === 'bare' ? '' : "'Server': "}${said}`);
      return;
    }
    if (verb === 'gettime' || verb === 'gt') {
      write(client, `Day 1, 07:00${CRLF}`);
      return;
    }
    if (verb === 'version') {
      write(client, `Game version: V 1.0 (b333) Compatibility Version: V 1.0${CRLF}`);
      return;
    }
    if (verb === 'exit') {
      client.socket.end();
      return;
    }
    write(client, `*** ERROR: unknown command '${verb}'${CRLF}`);
  }

  function onLine(client: Client, line: string): void {
    if (!client.loggedIn) {
      loginAttempts += 1;
      if (line === options.password) {
        client.loggedIn = true;
        write(client, BANNER.map((row) => row + CRLF).join(''));
        return;
      }
      client.wrongTries += 1;
      if (client.wrongTries >= maxTries) {
        client.socket.end();
        return;
      }
      write(client, WRONG + CRLF);
      return;
    }
    if (line.length === 0) return;
    commands.push(line);
    answer(client, line);
  }

  const server: Server = createServer((socket) => {
    connections += 1;
    const client: Client = { socket, loggedIn: false, wrongTries: 0, pending: Buffer.alloc(0), merged: [] };
    clients.add(client);
    socket.setNoDelay(true);
    socket.on('error', () => {
      // A client that vanished: 'close' follows.
    });
    socket.on('close', () => {
      clients.delete(client);
    });
    socket.on('data', (chunk: Buffer) => {
      client.pending = Buffer.concat([client.pending, chunk]);
      for (;;) {
        const end = client.pending.indexOf(0x0a);
        if (end < 0) break;
        const line = client.pending.subarray(0, end).toString('utf8').replace(/\r$/, '');
        client.pending = client.pending.subarray(end + 1);
        onLine(client, line);
      }
    });
    write(client, PROMPT + CRLF);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;

  return {
    host,
    port,
    get commands() {
      return commands;
    },
    get connections() {
      return connections;
    },
    get openConnections() {
      return clients.size;
    },
    get loginAttempts() {
      return loginAttempts;
    },
    get players() {
      return players;
    },
    get chunking() {
      return game.chunking;
    },
    set chunking(value: SevenDaysChunking) {
      game.chunking = value;
    },
    say(player, text, channel = 'Global') {
      const speaker = find(player);
      const name = speaker?.name ?? (typeof player === 'string' ? player : '');
      broadcast(`Chat (from '${speaker?.platformId ?? '-non-player-'}', entity id '${speaker?.entityId ?? -1}', to '${channel}'): '${name}': ${text}`);
    },
    sayThroughMod(player, text, modChat = {}) {
      const speaker = find(player);
      const name = speaker?.name ?? (typeof player === 'string' ? player : '');
      const from = speaker?.platformId ?? '-non-player-';
      const channel = modChat.channel ?? 'Global';
      const chat = (entityId: number | string, rest: string): string => `Chat (from '${from}', entity id '${entityId}', to '${channel}'): ${rest}`;
      const rebroadcast = modChat.rebroadcast ?? 'server';
      if (rebroadcast === 'server') broadcast(`Chat (from '-non-player-', entity id '-1', to '${channel}'): '[FF00FF]${name}[-]': ${text}`);
      if (rebroadcast === 'connection') broadcast(chat(-1, `'[00FF00]${name}[-]': ${text}`));
      if (modChat.alsoPlain === true) broadcast(chat(speaker?.entityId ?? -1, `'${name}':${text}`));
      broadcast(`Chat handled by mod '${modChat.mod ?? 'ServerTools'}': ${chat(speaker?.entityId ?? -1, modChat.withoutName === true ? text : `'${name}': ${text}`)}`);
    },
    join(player, options = {}) {
      players = [...players.filter((known) => known.entityId !== player.entityId), player];
      const first = options.firstSpawn === true;
      broadcast(
        `PlayerSpawnedInWorld (reason: ${first ? 'EnterMultiplayer' : 'JoinMultiplayer'}, position: -1022, 61, 1384): EntityID=${player.entityId}, PltfmId='${player.platformId}', CrossId='${player.crossId ?? ''}', OwnerID='${player.platformId}', PlayerName='${player.name}'${first ? `, ClientNumber='${players.length}'` : ''}`,
      );
    },
    leave(player) {
      const gone = find(player);
      if (gone === undefined) return;
      players = players.filter((known) => known.entityId !== gone.entityId);
      broadcast(`Player disconnected: EntityID=${gone.entityId}, PltfmId='${gone.platformId}', CrossId='${gone.crossId ?? ''}', OwnerID='${gone.platformId}', PlayerName='${gone.name}'`);
    },
    pushLog(line) {
      broadcast(line);
    },
    pushRaw(bytes) {
      for (const client of clients) if (client.loggedIn && !client.socket.destroyed) client.socket.write(bytes);
    },
    dropConnections() {
      for (const client of clients) client.socket.destroy();
    },
    close() {
      if (!closed) {
        closed = true;
        for (const client of clients) client.socket.destroy();
      }
      return new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}
