// `gsa-bridge emulator --game <name>`: a fake game console alone on the game's usual port (or --port), playing the
// scripted chat, so a host can try `config check --connect` and `run` with no game server. It prints what to put in
// the config. The RCON password comes from --config (the first rcon adapter of that profile) or
// GSA_BRIDGE_RCON_PASSWORD, else one is generated and printed once (it guards nothing but a demo).
// It never reads a password from argv, never prints one it was given, and never starts the GSA emulator (that is
// `gsa-bridge emulator` without --game, in another terminal).
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { GAME_CONSOLES, type GameName, type RunningGameConsole } from '../gameEmulator/gameConsoles.js';
import { MALLORY, SCRIPTED_PLAYERS, startScriptedChat, type ScriptedPlayer, type ScriptStep } from '../gameEmulator/scriptedChat.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK } from './exitCodes.js';
import { shutdownSignal } from './shutdownSignal.js';
import { SignalQueue } from './signalQueue.js';

export const RCON_PASSWORD_ENV = 'GSA_BRIDGE_RCON_PASSWORD';

export interface GameConsoleRequest {
  readonly game: GameName;
  readonly host: string;
  readonly port: number | undefined;
  readonly logFile: string | undefined;
  readonly configPath: string | undefined;
  /** Seconds between two rounds of scripted chat; 0: none. */
  readonly chatEverySeconds: number;
}

export interface PasswordChoice {
  readonly password: string;
  /** Where it came from, for the banner; never the password itself unless generated. */
  readonly source: string;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The first rcon adapter of `profile` in the file, read as plain JSON so profiles this build lacks still match. */
async function passwordFromConfig(path: string, profile: string, context: CliContext): Promise<PasswordChoice> {
  const absolute = resolve(context.cwd ?? process.cwd(), path);
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(absolute, 'utf8'));
  } catch (error) {
    throw new UsageError(`--config ${path}: cannot be read as JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const servers = isRecord(parsed) && Array.isArray(parsed['servers']) ? (parsed['servers'] as unknown[]) : [];
  for (const [serverIndex, server] of servers.entries()) {
    const adapters = isRecord(server) && Array.isArray(server['adapters']) ? (server['adapters'] as unknown[]) : [];
    for (const [adapterIndex, adapter] of adapters.entries()) {
      if (!isRecord(adapter) || adapter['type'] !== 'rcon' || adapter['profile'] !== profile) continue;
      const password = adapter['password'];
      if (typeof password !== 'string' || password === '') {
        throw new UsageError(`--config ${path}: servers[${serverIndex}].adapters[${adapterIndex}] (profile ${profile}) has no password`);
      }
      return { password, source: `from your config (servers[${serverIndex}].adapters[${adapterIndex}].password)` };
    }
  }
  throw new UsageError(`--config ${path}: no rcon adapter with "profile": "${profile}"; add one, or leave --config out`);
}

/** --config's rcon adapter of this profile, else GSA_BRIDGE_RCON_PASSWORD, else a generated one. @throws UsageError */
export async function choosePassword(request: Pick<GameConsoleRequest, 'game' | 'configPath'>, context: CliContext): Promise<PasswordChoice> {
  if (request.configPath !== undefined) return passwordFromConfig(request.configPath, request.game, context);
  const fromEnv = context.env[RCON_PASSWORD_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return { password: fromEnv, source: `from ${RCON_PASSWORD_ENV}` };
  const generated = randomBytes(9).toString('base64url');
  return { password: generated, source: `${generated}   (generated for this run, shown once; set ${RCON_PASSWORD_ENV} or --config to choose it)` };
}

/**
 * The id GSA is asked by about a scripted player: Minecraft players by their Mojang UUID (through GSA's System API);
 * the others by Steam64, which the fake consoles list for every player (on Squad and 7 Days to Die beside an EOS id,
 * and servers[].lookupIds "steam-first", the default, picks the Steam64).
 */
function gsaIdOf(game: GameName, player: ScriptedPlayer): string {
  return game === 'minecraft' ? player.uuid : player.steamId;
}

/** The fake consoles whose lines give a player both a Steam64 and an EOS id (servers[].lookupIds picks one). */
const BOTH_IDS: ReadonlySet<GameName> = new Set(['squad', '7dtd']);

/**
 * How to mute Mallory in `gsa-bridge emulator` so the sidecar finds her muted: the mod API's mute for a Steam64 or an
 * EOS id; for Minecraft, GSA's System API (a player holding her Mojang id, then a dashboard mute of its uuid), since
 * the mod API's mute never reaches a Mojang id.
 */
export function muteHint(game: GameName): string[] {
  if (game === 'minecraft') {
    const player = JSON.stringify({ ids: [{ type: 'mojang', id: MALLORY.uuid }], name: MALLORY.name });
    return [
      `With \`gsa-bridge emulator\` as your GSA, mute her through its System API (Minecraft players are looked up there, never through the mod API's /_emulator/mute):`,
      `  POST /_emulator/player ${player} answers her GSA uuid; then POST /_emulator/system-mute {"uuid":"<that uuid>"}.`,
      '  The sidecar needs api.system.key for a Minecraft adapter (the key `gsa-bridge emulator` prints); without it the config is refused.',
    ];
  }
  const lines = [`With \`gsa-bridge emulator\` as your GSA, mute her with POST /_emulator/mute {"server":"<name>","player":"${MALLORY.steamId}"}.`];
  if (BOTH_IDS.has(game)) lines.push(`  GSA is asked by her Steam id; with "lookupIds": "eos-first" on the server, mute her EOS id ${MALLORY.eosId} instead.`);
  return lines;
}

function describeStep(game: GameName, step: ScriptStep): string {
  return step.kind === 'join' ? `${step.player.name} (${gsaIdOf(game, step.player)}) joins` : `${step.player.name}: ${step.text}`;
}

export async function gameConsoleCommand(request: GameConsoleRequest, context: CliContext): Promise<number> {
  const entry = GAME_CONSOLES[request.game];
  if (request.logFile !== undefined && entry.logFile === 'none') {
    throw new UsageError(`--log-file: ${request.game} writes no chat log the sidecar reads; leave it out`);
  }
  const { password, source } = await choosePassword(request, context);
  const port = request.port ?? entry.defaultPort;
  const running: RunningGameConsole = await entry.start({
    host: request.host,
    port,
    password,
    logFile: request.logFile === undefined ? undefined : resolve(context.cwd ?? process.cwd(), request.logFile),
  });
  const say = (line: string): void => {
    context.stdout.write(`${line}\n`);
  };
  const configHost = request.host === '0.0.0.0' || request.host === '::' ? '127.0.0.1' : request.host;
  const adapter: Record<string, string | number> = { type: 'rcon', profile: request.game, host: configHost, port: running.port, password: '<the password above>' };
  if (request.logFile !== undefined) adapter['logFile'] = request.logFile.includes('*') ? resolve(context.cwd ?? process.cwd(), request.logFile) : (running.logPath ?? request.logFile);
  say(`Fake ${request.game} console listening on ${request.host}:${running.port}`);
  say(`  password: ${source}`);
  if (running.logPath !== undefined) say(`  log file: ${running.logPath}`);
  else if (entry.logFile === 'required') say(`  log file: none: ${request.game} chat is only in its log (${entry.logFileHint ?? ''}); give --log-file PATH to have chat`);
  say('Put this in your config, under servers[].adapters[]:');
  say(`  ${JSON.stringify(adapter)}`);
  if (request.chatEverySeconds > 0) {
    say(
      `Scripted chat every ${request.chatEverySeconds} s: ${SCRIPTED_PLAYERS.map((player) => player.name).join(' and ')} join; ${MALLORY.name} (${gsaIdOf(request.game, MALLORY)}) is the player to mute.`,
    );
    for (const line of muteHint(request.game)) say(line);
  }
  // Minecraft rolls latest.log at midnight too: SIGHUP does it now, so a host can watch the sidecar follow the roll.
  const rolls = running.rollLog === undefined ? undefined : new SignalQueue(['SIGHUP']);
  if (rolls !== undefined) {
    say(`  kill -HUP ${String(process.pid)} rolls the log (as the game does at midnight)`);
    // After close() the queue's next() never settles: the loop just ends there, holding nothing open.
    void (async () => {
      for (;;) {
        await rolls.next();
        running.rollLog?.();
        say('  [log] rolled; a new log file begins');
      }
    })();
  }
  say('Ctrl-C stops it.');
  const chat =
    request.chatEverySeconds > 0
      ? startScriptedChat(running, {
          everyMs: request.chatEverySeconds * 1000,
          onStep: (step) => {
            say(`  [chat] ${describeStep(request.game, step)}`);
          },
        })
      : undefined;
  try {
    await shutdownSignal();
  } finally {
    rolls?.close();
    chat?.stop();
    await running.close();
  }
  say('stopped.');
  return EXIT_OK;
}
