// `gsa-bridge mutes [--json]`: who the running sidecar has seen muted (src/ops/mutedPlayers.ts), asked through the
// data directory's control channel: player ids and name, the id GSA was asked by (servers[].lookupIds chose it),
// server, since when, GSA's alert, and how many of their lines were blocked in the last hour. Also the "mutes" control op the sidecar serves (see runCommand).
// It never shows a chat line's text (the sidecar keeps none), never asks GSA, and prints GSA's and the game's text
// only quoted and stripped of control characters, so neither can fake a column, a line or a terminal escape.

import { ASKED_ID_FIELDS, askedFields } from '../bridge/lookupIds.js';
import { RECENT_BLOCKS_WINDOW_MS, type MutedPlayer, type MutedPlayers } from '../ops/mutedPlayers.js';
import { printableText } from '../text/printableText.js';
import type { ControlHandler } from '../datadir/dataDirLock.js';
import type { CliContext } from './context.js';
import { EXIT_OK, EXIT_REFUSED } from './exitCodes.js';
import { CONFIG_OPTION, defineCommand, parseCommandLine } from './options.js';
import { askRunningSidecar, controlDataDir } from './sidecarControl.js';

/** The control op, on the wire: `{"op":"mutes"}` → `{"ok":true,"window_ms":3600000,"players":[MutesJsonRow…]}`. */
export const MUTES_OP = 'mutes';

export const MUTES_COMMAND = defineCommand({
  name: 'mutes',
  synopsis: '[--json] [--config FILE]',
  summary: 'who the running sidecar has seen muted (player, name, server, since, GSA\'s alert) and their lines blocked in the last hour',
  details: [
    'Asks the sidecar running on the config\'s reviews.dataDir. It lists players whose chat GSA called muted since the sidecar started,',
    'with the id GSA was asked by (ASKED BY: steam_id, eos_id or mojang_id; "-" for a mute the chat filter made);',
    'a player later seen unmuted leaves the list. Lines are counted, never shown. Exit 0; 1 when no sidecar runs on the data directory.',
  ],
  options: {
    json: { type: 'boolean', description: 'one JSON array of objects, for scripts' },
    ...CONFIG_OPTION,
  },
});

/** One player in `mutes --json` and on the wire: every key always present (null when unknown). */
export interface MutesJsonRow {
  readonly server: string;
  readonly steam_id: string | null;
  readonly eos_id: string | null;
  readonly mojang_id: string | null;
  readonly name: string | null;
  /** ISO 8601: the first line seen muted since the sidecar started. */
  readonly since: string;
  /** ISO 8601: the last line seen muted. */
  readonly last_blocked_at: string;
  readonly alert: string | null;
  /** Lines decided muted in the last hour (window_ms of the answer). */
  readonly blocked_last_hour: number;
  /**
   * The id GSA was asked by whose answer said muted, one key named as GSA names it (`{"steam_id":"…"}`); null for a
   * mute the sidecar made itself (the chat filter's), which asked nobody. Absent from an older sidecar's answer.
   */
  readonly asked: AskedJson | null;
}

/** `{"steam_id":"…"}`, `{"eos_id":"…"}` or `{"mojang_id":"…"}`. */
type AskedJson = Partial<Record<(typeof ASKED_ID_FIELDS)[keyof typeof ASKED_ID_FIELDS], string>>;

const ASKED_KEYS: readonly string[] = Object.values(ASKED_ID_FIELDS);

function jsonRow(player: MutedPlayer): MutesJsonRow {
  return {
    server: player.server,
    steam_id: player.steamId ?? null,
    eos_id: player.eosId ?? null,
    mojang_id: player.mojangId ?? null,
    name: player.name ?? null,
    since: new Date(player.since).toISOString(),
    last_blocked_at: new Date(player.lastBlockedAt).toISOString(),
    alert: player.alert ?? null,
    blocked_last_hour: player.blockedRecently,
    asked: player.asked === undefined ? null : askedFields([player.asked]),
  };
}

/** An answer's `asked`: one known key with a printable id, else null (an older sidecar sends none). */
function parseAsked(value: unknown): AskedJson | null {
  if (typeof value !== 'object' || value === null) return null;
  const [entry] = Object.entries(value as Record<string, unknown>).filter(([key, id]) => ASKED_KEYS.includes(key) && typeof id === 'string');
  if (entry === undefined) return null;
  return { [entry[0]]: printableText(String(entry[1]), 100) };
}

/** Serves `mutes` inside the running sidecar: the tracker's list as it is now. */
export function mutesControlHandler(tracker: () => MutedPlayers): ControlHandler {
  return () => Promise.resolve({ ok: true, window_ms: RECENT_BLOCKS_WINDOW_MS, players: tracker().list().map(jsonRow) });
}

function optionalText(value: unknown, max: number): string | null {
  return typeof value === 'string' ? printableText(value, max) : null;
}

/** An answer's row as this version understands it, or undefined; text cleaned again (the answer crossed a socket). */
function parseRow(value: unknown): MutesJsonRow | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const row = value as Record<string, unknown>;
  const { server, since, last_blocked_at: last, blocked_last_hour: blocked } = row;
  if (typeof server !== 'string' || typeof since !== 'string' || typeof last !== 'string' || typeof blocked !== 'number') return undefined;
  return {
    server: printableText(server, 100),
    steam_id: optionalText(row.steam_id, 100),
    eos_id: optionalText(row.eos_id, 100),
    mojang_id: optionalText(row.mojang_id, 100),
    name: optionalText(row.name, 100),
    since: printableText(since, 40),
    last_blocked_at: printableText(last, 40),
    alert: optionalText(row.alert, 300),
    blocked_last_hour: blocked,
    asked: parseAsked(row.asked),
  };
}

const HEADER = ['SERVER', 'PLAYER', 'ASKED BY', 'NAME', 'SINCE', 'BLOCKED (1 h)', 'ALERT'] as const;

function textTable(rows: readonly MutesJsonRow[]): string {
  // The name and the alert are quoted: nothing in them can fake a column.
  const cells = rows.map((row) => {
    // The id GSA was asked by leads: it is the one whose mute blocks the player (the others are shown by --json).
    const [asked] = Object.entries(row.asked ?? {});
    return [
      row.server,
      asked?.[1] ?? row.steam_id ?? row.eos_id ?? row.mojang_id ?? '?',
      asked?.[0] ?? '-',
      row.name === null ? '-' : JSON.stringify(row.name),
      row.since,
      String(row.blocked_last_hour),
      row.alert === null ? '-' : JSON.stringify(row.alert),
    ];
  });
  const widths = HEADER.map((title, column) => Math.max(title.length, ...cells.map((cell) => (cell[column] ?? '').length)));
  const line = (cell: readonly string[]): string =>
    cell
      .map((text, column) => (column === cell.length - 1 ? text : text.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(HEADER), ...cells.map(line)].map((text) => `${text}\n`).join('');
}

export async function mutesCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(MUTES_COMMAND, args);
  const dataDir = await controlDataDir(context, options.config, false);
  if (typeof dataDir === 'number') return dataDir;
  const reply = await askRunningSidecar(context, dataDir, { op: MUTES_OP }, 'list the players seen muted');
  if (typeof reply === 'number') return reply;
  const players = Array.isArray(reply.players) ? reply.players.map(parseRow) : undefined;
  if (players === undefined || players.some((row) => row === undefined)) {
    context.stderr.write('error: the running sidecar sent an answer this version does not understand (is it another version of gsa-bridge?)\n');
    return EXIT_REFUSED;
  }
  const rows = players as MutesJsonRow[];
  if (options.json) {
    context.stdout.write(`${JSON.stringify(rows)}\n`);
    return EXIT_OK;
  }
  const window = `${String(Math.round((typeof reply.window_ms === 'number' ? reply.window_ms : RECENT_BLOCKS_WINDOW_MS) / 60_000))} min`;
  if (rows.length === 0) {
    context.stderr.write('no player seen muted since the sidecar started (a player is listed once GSA calls a line of theirs muted, and leaves the list when seen unmuted)\n');
    return EXIT_OK;
  }
  context.stdout.write(textTable(rows));
  context.stderr.write(`${rows.length} ${rows.length === 1 ? 'player' : 'players'} seen muted and not seen unmuted since; BLOCKED counts their lines decided muted in the last ${window}, most recent first; chat text is never kept\n`);
  return EXIT_OK;
}
