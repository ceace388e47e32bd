// `gsa-bridge log check --profile NAME [--chat-pattern RE] [--json] FILE`: replays a host's own log file offline
// through the readers the live adapter uses (adapters/rcon/reading/logReplay.ts over the profile's line source and
// LineReading), so a host can see, before trusting gating, which lines are read as whose chat and which chat-like
// lines nothing reads (and would need `chatPattern`). The file is decoded as the live tail decodes it (UTF-8 with or
// without a BOM, UTF-16, CRLF, over-long lines cut), and a gzipped file (Minecraft's rolled logs) is inflated first.
// It needs no console, no GSA and no config file: it never opens a socket and never reads config.json.
// Exit 0 when the file was read; 2 on a usage error or a file that cannot be read.

import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { RCON_PROFILE_TABLE, RCON_PROFILES, type RconProfileName } from '../../adapters/rcon/profiles/index.js';
import type { RconLineSource } from '../../adapters/rcon/profiles/profile.js';
import { compileChatPattern, type ChatPattern } from '../../adapters/rcon/reading/chatPattern.js';
import { LogReplay, MAX_SAMPLES, type LogReplayResult } from '../../adapters/rcon/reading/logReplay.js';
import { isRconError } from '../../adapters/rcon/errors.js';
import { LogLineDecoder } from '../../adapters/rcon/sources/logLineDecoder.js';
import { printableText } from '../text/printableText.js';
import type { CliContext } from './context.js';
import { UsageError } from './errors.js';
import { EXIT_OK, EXIT_USAGE } from './exitCodes.js';
import { defineCommand, parseCommandLine, type CommandGroupSpec } from './options.js';

/** The profiles whose chat is written as log lines: a file of theirs can be replayed. */
const LOG_PROFILES = RCON_PROFILES.filter((name) => lineSourceOf(name) !== undefined);

export const LOG_CHECK_COMMAND = defineCommand({
  name: 'log check',
  synopsis: '--profile NAME [--chat-pattern RE] [--json] FILE',
  summary: 'replays a game log offline through the readers the sidecar uses: chat read, server lines, joins, unreadable chat',
  details: [
    'Reads FILE (plain, .gz, UTF-8 or UTF-16, with or without a BOM) as the running sidecar would, with no console, no',
    'GameServerApp and no config file, and prints what each kind of line was read as: chat (speaker name, the ids the',
    "line carries, channel), the server's lines, joins and leaves, and chat-like lines nothing could read, with up to",
    `${String(MAX_SAMPLES)} samples. Names map to players through the game's player list only in the running sidecar.`,
    'Run it on yesterday\'s log before trusting gating; add --chat-pattern to try a chat plugin\'s format.',
    'Exit 0 when the file was read; 2 on a usage error or a file that cannot be read.',
  ],
  options: {
    profile: { type: 'string', value: 'NAME', required: true, choices: LOG_PROFILES, description: `the game (${LOG_PROFILES.join(', ')})` },
    'chat-pattern': { type: 'string', value: 'RE', description: "a chat plugin's line format, as the adapter's chatPattern (RE2 syntax, groups name and message)" },
    json: { type: 'boolean', description: 'one JSON object: lines, chat, server, presence, unattributed, ignored, samples' },
  },
  maxPositionals: 1,
});

export const LOG_COMMANDS: CommandGroupSpec = {
  name: 'log',
  summary: 'check how a game log is read',
  subcommands: [LOG_CHECK_COMMAND],
};

function lineSourceOf(name: RconProfileName): RconLineSource | undefined {
  const chat = RCON_PROFILE_TABLE[name].chat;
  return chat.logFile ?? (chat.console?.kind === 'stream' ? chat.console : undefined);
}

const GZIP_MAGIC = [0x1f, 0x8b] as const;

/** Whether the file starts like a gzip stream (Minecraft's `logs/2026-11-27-1.log.gz`), whatever its name. */
async function isGzip(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    const head = Buffer.alloc(2);
    const { bytesRead } = await file.read(head, 0, 2, 0);
    return bytesRead === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  } finally {
    await file.close();
  }
}

/** Every line of the file into `replay`, decoded as the live tail decodes it. */
async function replayFile(path: string, replay: LogReplay): Promise<void> {
  const decoder = new LogLineDecoder();
  // Opened (and sniffed) before the stream exists, so a missing file is one rejection, not a stray 'error' event.
  const gzipped = await isGzip(path);
  const raw = createReadStream(path);
  const stream = gzipped ? raw.pipe(createGunzip()) : raw;
  // A read error on the file stream is not passed along a pipe: end the inflater with it.
  raw.on('error', (error) => stream.destroy(error));
  for await (const chunk of stream) {
    for (const line of decoder.write(chunk as Buffer)) replay.line(line);
  }
  for (const line of decoder.end()) replay.line(line);
}

function chatPatternOf(source: string | undefined): ChatPattern | undefined {
  if (source === undefined) return undefined;
  try {
    return compileChatPattern(source);
  } catch (error) {
    if (isRconError(error)) throw new UsageError(`--chat-pattern: ${error.message}`);
    throw error;
  }
}

function idsOf(entry: { steamId?: string | undefined; eosId?: string | undefined; mojangId?: string | undefined; platformId?: string | undefined }): string {
  const ids = [
    entry.platformId === undefined ? undefined : `platform ${entry.platformId}`,
    entry.steamId === undefined ? undefined : `steam_id ${entry.steamId}`,
    entry.eosId === undefined ? undefined : `eos_id ${entry.eosId}`,
    entry.mojangId === undefined ? undefined : `mojang ${entry.mojangId}`,
  ].filter((id) => id !== undefined);
  return ids.length === 0 ? 'no id on the line' : ids.join(', ');
}

/** How many chat lines the text report lists one by one. */
const LISTED_CHAT = 20;

function textReport(profile: string, path: string, result: LogReplayResult): string {
  const speakers = new Set(result.chat.map((chat) => chat.name)).size;
  const unattributed = Object.entries(result.unattributed).map(([reason, count]) => `${reason} ${String(count)}`).join(', ');
  const out = [
    `log check: profile ${profile}, ${printableText(path, 300)}`,
    `  lines read       ${String(result.lines)}`,
    `  chat read        ${String(result.counts.chat)}${result.counts.chat > 0 ? ` (${String(speakers)} ${speakers === 1 ? 'speaker name' : 'speaker names'})` : ''}`,
    `  server lines     ${String(result.counts.server)}`,
    `  joins and leaves ${String(result.counts.presence)}`,
    `  unattributed     ${String(result.counts.unattributed)}${unattributed === '' ? '' : ` (${unattributed})`}`,
    `  other lines      ${String(result.ignored)} (not chat: the engine's own lines, or a chat mod's copy of a line already read)`,
  ];
  if (result.chat.length > 0) {
    out.push('', `chat read${result.chat.length > LISTED_CHAT ? ` (the first ${String(LISTED_CHAT)})` : ''}:`);
    for (const chat of result.chat.slice(0, LISTED_CHAT)) {
      const how = chat.readAs === undefined ? '' : `, ${printableText(chat.readAs, 80)}`;
      const splits = chat.readings === undefined ? '' : `, ${String(chat.readings)} ways to split the name: the player list decides`;
      out.push(`  line ${String(chat.line)}: ${JSON.stringify(printableText(chat.name, 80))} (${idsOf(chat)}), channel ${chat.channel}${how}${splits}`);
    }
  }
  if (result.samples.length > 0) {
    out.push('', `chat-like lines nothing could read (up to ${String(MAX_SAMPLES)}):`);
    for (const sample of result.samples) out.push(`  line ${String(sample.line)}: ${sample.why}`, `    ${JSON.stringify(sample.text)}`);
    out.push(
      '',
      'If a chat mod or plugin writes these lines, give the adapter a "chatPattern" for its format (docs/configuration.md)',
      `and try it here first: gsa-bridge log check --profile ${profile} --chat-pattern '<pattern>' <file>`,
    );
  }
  if (result.truncated) out.push('', 'Lists stopped at 10,000 entries; the counts above are complete.');
  out.push('', "Speakers map to players (and a name's ids are confirmed) through the game's player list in the running sidecar.");
  return `${out.join('\n')}\n`;
}

async function checkCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options, positionals } = parseCommandLine(LOG_CHECK_COMMAND, args);
  const [path] = positionals;
  if (path === undefined) throw new UsageError('say which log file to read: gsa-bridge log check --profile NAME FILE');
  const profile = options.profile as RconProfileName;
  const source = lineSourceOf(profile);
  // The choices allow only log-reading profiles; kept for the type.
  if (source === undefined) throw new UsageError(`--profile ${profile} does not read chat from a log`);
  const replay = new LogReplay(source, chatPatternOf(options['chat-pattern']));
  try {
    await replayFile(path, replay);
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : code === 'Z_DATA_ERROR' ? 'it is not a valid gzip file' : (code ?? 'it cannot be read');
    context.stderr.write(`error: cannot read ${printableText(path, 300)}: ${why}\n`);
    return EXIT_USAGE;
  }
  const result = replay.result();
  context.stdout.write(options.json ? `${JSON.stringify({ profile, file: path, ...result })}\n` : textReport(profile, path, result));
  return EXIT_OK;
}

export async function logCommand(args: readonly string[], context: CliContext): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'check') return checkCommand(rest, context);
  throw new UsageError(sub === undefined ? 'say what to do: check' : `unknown log command "${sub}" (check)`);
}
