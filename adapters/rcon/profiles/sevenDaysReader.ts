// One 7 Days to Die console session's (or one log file's) reader: each pushed line in the adapter's terms, and the
// one piece of state reading needs: a chat mod that leaves both the game's plain line and its own
// `Chat handled by mod '<mod>': Chat (from …` line for one message (CSMM Patrons with hccp, PrismaCore) must give one
// verdict and one alert, so the second line of such a pair is `ignored`.
// It pairs by the lines' own clock (the log prefix's uptime and timestamp), never by wall time: the live adapter and
// an offline `log check` of the same file read alike, and tests need no timers. It must never keep more than a few
// recent lines, never fold two lines of one kind (two identical plain lines are two messages, each gated), and never
// let a server line (`-non-player-`, a mod's re-broadcast) pair with or stand in for a player's line.
import type { RconChatLine, RconLineReader } from './profile.js';
import { parseSevenDaysChat, parseSevenDaysPresence, splitSevenDaysLogLine, type SevenDaysLogLine, type SevenDaysPlayerChat } from './sevenDaysLines.js';

/** Two lines of one message come a few ms apart; 2 s leaves room for a busy server and nothing more. */
const PAIR_WINDOW_MS = 2_000;
/** The timestamp has whole seconds only: two lines 2 s apart by uptime may be 3 s apart by it. */
const STAMP_SLACK_MS = 1_000;
/** At most this many recent chat lines are kept (a busy server's last 2 s of chat fit well). */
const MAX_REMEMBERED = 32;

/** When a line was written, by the server's own clock. */
interface LineClock {
  /** The uptime, in ms: the one clock with ms precision; it starts again at 0 when the server restarts. */
  readonly uptimeMs: number;
  /** The local timestamp as if it were UTC, in ms: only differences are used (it tells a restart apart). */
  readonly stampMs: number;
}

interface RememberedChat {
  readonly handled: boolean;
  readonly key: string;
  readonly clock: LineClock;
}

/**
 * A reader that keeps its own memory of the last chat lines (one per console session, one per `log check` run).
 * A line without the log prefix is never chat (the console prefixes every log line it pushes; an unprefixed line is
 * a command's answer), so nothing without a clock is ever paired.
 */
export function newSevenDaysReader(): RconLineReader {
  let recent: RememberedChat[] = [];

  /** True when `chat` is the second line of a plain + handled pair already read; else it is remembered. */
  const isSecondOfPair = (chat: SevenDaysPlayerChat, clock: LineClock): boolean => {
    recent = recent.filter((seen) => within(seen.clock, clock));
    const handled = chat.handledBy !== undefined;
    const key = pairKey(chat);
    const pairedAt = recent.findIndex((seen) => seen.handled !== handled && seen.key === key);
    if (pairedAt >= 0) {
      // Used up: a third line of the same message is read again (never folded twice into one verdict).
      recent.splice(pairedAt, 1);
      return true;
    }
    recent.push({ handled, key, clock });
    if (recent.length > MAX_REMEMBERED) recent.shift();
    return false;
  };

  return (line, knownNames) => {
    const log = splitSevenDaysLogLine(line);
    if (log === undefined) return { kind: 'ignored' };
    const parsed = parseSevenDaysChat(line, undefined, knownNames);
    switch (parsed.kind) {
      case 'player':
        if (isSecondOfPair(parsed, clockOf(log))) return { kind: 'ignored', echo: true, reason: 'the second line of one message a chat mod logged twice (read once)' };
        return playerLine(parsed);
      case 'server':
        return { kind: 'server', text: parsed.text };
      case 'unparsed':
        return { kind: 'unparsed', reason: parsed.reason };
      case 'other':
        return presenceLine(line);
    }
  };
}

function playerLine(parsed: SevenDaysPlayerChat): RconChatLine {
  return {
    kind: 'player',
    channel: parsed.channel,
    name: parsed.name,
    steamId: parsed.steamId,
    eosId: parsed.eosId,
    platformId: parsed.platformId,
    entityId: parsed.entityId,
    text: parsed.text,
    ...(parsed.handledBy === undefined ? {} : { readAs: `handled by ${parsed.handledBy}` }),
  };
}

/** A join or leave is news for the player list (and, for `log check`, says who); every other log line is nothing. */
function presenceLine(line: string): RconChatLine {
  const presence = parseSevenDaysPresence(line);
  if (presence.kind === 'other') return { kind: 'ignored' };
  return {
    kind: 'roster',
    presence: {
      kind: presence.kind,
      name: presence.name,
      steamId: presence.steamId,
      eosId: presence.eosId,
      platformId: presence.platformId,
      entityId: presence.entityId,
    },
  };
}

/**
 * One message, as both lines of a pair print it: the speaker's ids (never the name, which a mod may colour) and the
 * channel, and the text without the spaces a mod's re-send may add or drop around it.
 */
function pairKey(chat: SevenDaysPlayerChat): string {
  return JSON.stringify([chat.platformId, chat.entityId, chat.gameChannel, chat.text.trim()]);
}

function clockOf(log: SevenDaysLogLine): LineClock {
  const [date = '', time = ''] = log.timestamp.split('T');
  const [year = 0, month = 1, day = 1] = date.split('-').map(Number);
  const [hours = 0, minutes = 0, seconds = 0] = time.split(':').map(Number);
  return { uptimeMs: Math.round(log.uptimeSeconds * 1_000), stampMs: Date.UTC(year, month - 1, day, hours, minutes, seconds) };
}

/** `earlier` is at most the pair window before `later` by both clocks (a restart sets the uptime back: never a pair). */
function within(earlier: LineClock, later: LineClock): boolean {
  const uptimeGap = later.uptimeMs - earlier.uptimeMs;
  const stampGap = Math.abs(later.stampMs - earlier.stampMs);
  return uptimeGap >= 0 && uptimeGap <= PAIR_WINDOW_MS && stampGap <= PAIR_WINDOW_MS + STAMP_SLACK_MS;
}
