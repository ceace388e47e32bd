// The chat filter and the System API in the single-node soak (issue 21): a few dedicated players of the mod fleet
// who now and then say the filtered word in disguise (leetspeak, spacing, repeats, look-alikes), and the rows that
// judge what came of it: every disguised line blocked `filtered`, no clean line `filtered`, a player who struck
// twice muted on GSA through the System API and their later clean lines blocked `muted`, the System API's own
// budget and GSA's cooldowns kept.
// Pure: the schedule of lines, and rows from what the mods heard and what the emulator logged. Must never judge a
// line by the sidecar's account of it: verdicts as the mod got them, mutes and calls as the emulator saw them.
import { fmt, type InvariantRow } from './invariants.js';

/** The listed word: distinctive, so that no clean line of the soak holds it by chance. */
export const FILTER_WORD = 'zorblax';
/** The ladder: a warning at the first strike, a 15-minute mute through the System API from the second. */
export const FILTER_LADDER = [{ action: 'warn' }, { action: 'mute', period: '15m' }] as const;
/** How many dedicated players say the word in disguise. */
export const FILTER_PLAYERS = 6;
/** One line from one of them (in turn) this often: 2 a second, 1% of the default chat load. */
export const FILTER_LINE_EVERY_MS = 500;

/** The word in disguise: each folds to the listed word (wordFilter.ts). */
const DISGUISES = ['z0rbl4x', 'z o r b l a x', 'ZZZorrrbbblaaaxxx!', 'z.o.r.b.l.a.x', 'get ż0rblаx now', 'Z0RBL@X lol'];
/** Clean lines of the same players, near misses among them: not the word as a whole word, so never `filtered`. */
const CLEAN = ['zorblaxian', 'zorb lax', 'zorbla', 'gg all', 'xalbroz', 'zor blax'];

/** The filter's players, a range of their own. */
export const filterPlayer = (index: number): string => `765611970${String(index).padStart(8, '0')}`;

export interface FilterLine {
  readonly player: number;
  readonly disguised: boolean;
  readonly text: string;
  readonly sentAt: number;
  reason?: string;
  verdictAt?: number;
}

/**
 * The n-th line of a player: disguised at n = 0 and 2 (strikes one and two: the warning, then the mute), and for
 * every other player also at n = 4 (a third strike while the mute's 120 s cooldown runs: the sidecar must space
 * the second mute, never meet GSA's 429); clean otherwise.
 */
export function filterLineText(player: number, n: number): { readonly disguised: boolean; readonly text: string } {
  const disguised = n === 0 || n === 2 || (n === 4 && player % 2 === 0);
  const pick = (list: readonly string[]): string => list[(player + n) % list.length] ?? '';
  return { disguised, text: disguised ? pick(DISGUISES) : pick(CLEAN) };
}

/** The emulator's call log, as much of it as these rows read. */
export interface SystemCall {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly endpoint: string;
  readonly status: number;
}

/** A 429 fault the soak armed (any endpoint): a 429 answered then is the fault's, not GSA's cooldown or budget. */
export interface Armed429 {
  readonly armedAt: number;
  readonly clearedAt: number;
}

const MUTE_PATH = /^\/system-api\/v2\/player\/([^/]+)\/mute$/;

export interface FilterJudgement {
  readonly lines: readonly FilterLine[];
  /** uuid of each filter player on the emulator (seeded). */
  readonly uuids: readonly string[];
  /** uuids muted on the emulator at the end. */
  readonly mutedAtEnd: ReadonlySet<string>;
  readonly calls: readonly SystemCall[];
  /** Every verdict of the mod fleet, by reason. */
  readonly fleetReasons: ReadonlyMap<string, number>;
  /** A clean line sent this long after GSA took the player's mute must be blocked `muted` (one request timeout). */
  readonly graceMs: number;
}

export function filterRows(j: FilterJudgement): InvariantRow[] {
  const disguised = j.lines.filter((line) => line.disguised);
  const answered = disguised.filter((line) => line.reason !== undefined);
  const notFiltered = answered.filter((line) => line.reason !== 'filtered');
  const byReason = (lines: readonly FilterLine[]): string =>
    [...lines.reduce((m, line) => m.set(line.reason ?? '?', (m.get(line.reason ?? '?') ?? 0) + 1), new Map<string, number>())].map(([r, n]) => `${r} ${n}`).join(', ') || 'none';

  const allFiltered = j.fleetReasons.get('filtered') ?? 0;
  const allVerdicts = [...j.fleetReasons.values()].reduce((a, b) => a + b, 0);
  const cleanFiltered = allFiltered - (answered.length - notFiltered.length);
  const cleanOwn = j.lines.filter((line) => !line.disguised && line.reason !== undefined);

  // Players with two strikes heard by their mod, and the mute GSA took for each (the first accepted mute call).
  const strikes = new Map<number, FilterLine[]>();
  for (const line of answered) if (line.reason === 'filtered') strikes.set(line.player, [...(strikes.get(line.player) ?? []), line]);
  const acceptedMutes = new Map<string, number>();
  for (const call of j.calls) {
    const uuid = call.method === 'POST' && call.status >= 200 && call.status < 300 ? MUTE_PATH.exec(call.path)?.[1] : undefined;
    if (uuid !== undefined && !acceptedMutes.has(uuid)) acceptedMutes.set(uuid, call.at);
  }
  let struckTwice = 0;
  let mutedOnGsa = 0;
  let notMuted = 0;
  let latencyMax = 0;
  const lateLines: FilterLine[] = [];
  let judgedLines = 0;
  for (const [player, struck] of strikes) {
    const second = struck[1];
    const uuid = j.uuids[player];
    if (second === undefined || uuid === undefined) continue;
    struckTwice += 1;
    const muteAt = acceptedMutes.get(uuid);
    if (muteAt === undefined || !j.mutedAtEnd.has(uuid)) {
      notMuted += 1;
      continue;
    }
    mutedOnGsa += 1;
    latencyMax = Math.max(latencyMax, muteAt - (second.verdictAt ?? second.sentAt));
    for (const line of j.lines) {
      if (line.player !== player || line.disguised || line.reason === undefined || line.sentAt < muteAt + j.graceMs) continue;
      judgedLines += 1;
      if (line.reason !== 'muted') lateLines.push(line);
    }
  }

  return [
    {
      name: 'every disguised line of the filtered word is blocked `filtered`',
      ok: answered.length > 0 && notFiltered.length === 0,
      measured:
        `${disguised.length} sent by ${new Set(disguised.map((l) => l.player)).size} players: ${answered.length - notFiltered.length} filtered, ` +
        `${notFiltered.length} not (${byReason(notFiltered)}); ${disguised.length - answered.length} without a verdict (connection closed)`,
      bound: 'all filtered, none allowed',
    },
    {
      name: 'no clean line is blocked `filtered`',
      ok: cleanFiltered === 0 && cleanOwn.length > 0,
      measured: `${allVerdicts - answered.length} clean verdicts (${cleanOwn.length} from the filter's players, near misses such as "zorblaxian" and "zorb lax" among them): ${cleanFiltered} filtered`,
      bound: '0 filtered',
    },
    {
      name: 'a player who struck twice is muted on GSA, their later clean lines blocked `muted`',
      ok: struckTwice > 0 && notMuted === 0 && lateLines.length === 0 && judgedLines > 0,
      measured:
        `${struckTwice} struck twice: ${mutedOnGsa} muted through the System API (at the emulator at the end), ${notMuted} not; ` +
        `second strike → GSA took the mute: max ${fmt(latencyMax)}; ${judgedLines} clean lines after the mute: ${judgedLines - lateLines.length} muted, ` +
        `${lateLines.length} not (${byReason(lateLines)})`,
      bound: `every one muted; every clean line sent ${fmt(j.graceMs)} after GSA took the mute blocked \`muted\``,
    },
  ];
}

/** The most arrivals in any `intervalMs` (both ends on arrival). */
export function peakInWindow(times: readonly number[], intervalMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let peak = 0;
  let from = 0;
  for (let to = 0; to < sorted.length; to += 1) {
    while ((sorted[to] ?? 0) - (sorted[from] ?? 0) >= intervalMs) from += 1;
    peak = Math.max(peak, to - from + 1);
  }
  return peak;
}

/**
 * The System API's calls kept within its own key's budget (counted from the call log: the single-node soak does not
 * make the emulator enforce budgets) and no 429 of GSA's own cooldowns (per player 120 s, per game server 60 s): a
 * 429 on a System API call answered while no 429 fault was armed.
 */
export function systemBudgetRow(calls: readonly SystemCall[], armed429s: readonly Armed429[], budget: { readonly requests: number; readonly intervalMs: number }): InvariantRow {
  const system = calls.filter((call) => call.endpoint === 'system');
  const peak = peakInWindow(system.map((call) => call.at), budget.intervalMs);
  const faulted = (at: number): boolean => armed429s.some((fault) => at >= fault.armedAt && at <= fault.clearedAt);
  const gsa429s = system.filter((call) => call.status === 429 && !faulted(call.at));
  const kinds = new Map<string, number>();
  for (const call of system) {
    const kind = /\/mute$/.test(call.path) ? 'mute' : /players\/find$/.test(call.path) ? 'find' : /\/gameserver\/[^/]+\/[a-z]+$/.test(call.path) ? 'server action' : 'other';
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  return {
    name: "System API calls within its key's budget, GSA's cooldowns never hit",
    ok: system.length > 0 && peak <= budget.requests && gsa429s.length === 0,
    measured:
      `${system.length} calls (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}): peak ${peak} in any ${budget.intervalMs} ms; ` +
      `${gsa429s.length} 429s not from an injected fault (${gsa429s.map((c) => c.path.replace(/^\/system-api\/v2\//, '')).slice(0, 3).join(', ') || 'none'})`,
    bound: `≤ ${budget.requests} per ${budget.intervalMs} ms (api.system.rateLimit), 0 "You cannot do this yet" 429s`,
  };
}
