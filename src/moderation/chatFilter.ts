// The chat filter (moderation.filter): a gated line containing a listed word is blocked with reason "filtered" and
// counts a strike for its speaker; the n-th strike takes the n-th step of the ladder (past its end, the last):
// `warn` tells the player privately through the bridge the line came from (where the game cannot, the step is
// recorded `not_supported`), `mute` asks GSA through the PlayerMuting port and, once GSA accepted, applies the mute
// to the sidecar's own caches at once (MuteApplier: the app layer fans it out to every bridge of the process).
// dryRun: the line is allowed, and what would have been done is logged, listed and counted, with nothing called.
// check() is synchronous and allocates nothing for a clean line; the steps run in the background and the verdict
// never waits for them. Every step is recorded in the moderation log and published as a `moderation` event.
// It never stores or logs the chat text (only the listed word's index), and never throws into the chat path.
// Its log lines about one player are summed: the first of a kind (and of each ladder step) in full, then one line every
// FILTER_LOG_SUMMARY_MS while more come (a flood of 20,000 filtered lines is a few log lines, not 40,000); every
// step is still recorded in the moderation log and counted in the metrics.

import type { BridgeEvents } from '../bridge/events.js';
import type { FilterSite, LineFilter } from '../bridge/lineFilter.js';
import type { ChatVerdict, PlayerIdentity } from '../bridge/port.js';
import { playerKeyOf } from '../ids/playerIds.js';
import type { PeriodCode } from '../gsa/system/periods.js';
import { resultOfCode, type ModerationAction, type ModerationLog, type ModerationResult } from './moderationLog.js';
import type { ModerationLogger, StrikeBook } from './strikeBook.js';
import { WORK_LIMIT, WordFilter } from './wordFilter.js';
import { RepeatSummary, type RepeatSummaryReport } from '../log/repeatSummary.js';
import { systemClock, type Clock } from '../time/clock.js';

/** What a mute asked of GSA came to. `code`: the service client's error code (cooldown, not_found, …). */
export type MuteOutcome = { readonly ok: true; readonly message: string } | { readonly ok: false; readonly code: string; readonly message: string };

/**
 * How the ladder mutes a player on GSA: the app layer implements it with the System API client (find the player's
 * uuid, then POST /player/{uuid}/mute). Resolves with the outcome: `{ok:false}` with a code of no answer (network,
 * timeout, unavailable, server_error, bad_response) is recorded `failed`, any other code `refused`; a rejection
 * counts as `failed`.
 */
export interface PlayerMuting {
  mute(player: PlayerIdentity, period: PeriodCode, note: string): Promise<MuteOutcome>;
}

/**
 * The port a mute GSA accepted is applied through at once, wherever the sidecar gates chat: the app layer calls
 * rememberMuteStatus on every ServerBridge of the process (src/app/corePorts.ts). Must not throw.
 */
export interface MuteApplier {
  applyMute(player: PlayerIdentity): void;
}

/** One ladder step (config's moderation.filter.ladder, periods checked there). */
export type FilterStep =
  | { readonly action: 'warn'; readonly message?: string | undefined }
  | { readonly action: 'mute'; readonly period: PeriodCode; readonly note?: string | undefined };

/** What a reload may change. */
export interface ChatFilterSettings {
  readonly words: readonly string[];
  /** At least one step. */
  readonly ladder: readonly FilterStep[];
  readonly dryRun: boolean;
  /** How long a strike counts; absent: the strike book's own (StrikeBookOptions.memoryMs) stays. */
  readonly strikeMemoryMs?: number | undefined;
  /** Text of the verdict's alert when the step is not a warn with its own message. @default BLOCKED_ALERT */
  readonly alert?: string | undefined;
}

export interface ChatFilterOptions extends ChatFilterSettings {
  readonly strikes: StrikeBook;
  readonly log: ModerationLog;
  readonly logger: ModerationLogger;
  /** Absent: a mute step is recorded `not_supported` (config refuses a mute step without api.system). */
  readonly muting?: PlayerMuting | undefined;
  /** Where a mute GSA accepted is applied at once. @default none */
  readonly muteApplier?: MuteApplier | undefined;
  readonly events?: BridgeEvents | undefined;
  /** The moderation log's times (wall clock: they are persisted). @default the system clock */
  readonly clock?: Clock | undefined;
}

export const BLOCKED_ALERT = 'Your message was blocked by the chat filter.';

/** The note sent with a mute when its step has none. */
export const DEFAULT_MUTE_NOTE = 'gsa-bridge chat filter';

/** How often the repeats of one player's filter log line are summed up in the log, after the first in full. */
export const FILTER_LOG_SUMMARY_MS = 10_000;
/** Players whose repeats are summed at once; a line about one more player is logged in full. */
const FILTER_LOG_PLAYERS = 1_000;

/** A filter log line: summed per player and kind when it repeats. */
interface FilterLogLine {
  readonly level: 'info' | 'warn';
  readonly fields: Readonly<Record<string, unknown>>;
  readonly message: string;
}


function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class ChatFilter implements LineFilter {
  readonly #strikes: StrikeBook;
  readonly #log: ModerationLog;
  readonly #logger: ModerationLogger;
  readonly #muting: PlayerMuting | undefined;
  readonly #muteApplier: MuteApplier | undefined;
  readonly #events: BridgeEvents | undefined;
  readonly #clock: Clock;
  #settings!: ChatFilterSettings;
  #words!: WordFilter;
  #wordList: readonly string[] | undefined;
  /** One frozen verdict per ladder step (the warn's message is its alert): a filtered line allocates none. */
  #verdicts: ChatVerdict[] = [];
  /** Steps in flight, so tests and a shutdown can wait for them. */
  readonly #running = new Set<Promise<void>>();
  /** Per player and kind of line: the repeats of a log line, summed (see FILTER_LOG_SUMMARY_MS). */
  readonly #repeats: RepeatSummary<string, FilterLogLine>;

  constructor(options: ChatFilterOptions) {
    this.#strikes = options.strikes;
    this.#log = options.log;
    this.#logger = options.logger;
    this.#muting = options.muting;
    this.#muteApplier = options.muteApplier;
    this.#events = options.events;
    this.#clock = options.clock ?? systemClock;
    this.#repeats = new RepeatSummary({
      intervalMs: FILTER_LOG_SUMMARY_MS,
      maxKinds: FILTER_LOG_PLAYERS,
      clock: this.#clock,
      onSummary: (report) => {
        this.#logSummary(report);
      },
    });
    this.reconfigure(options);
  }

  /** A reload: new words, ladder, dry run. Strikes are kept. */
  reconfigure(settings: ChatFilterSettings): void {
    if (settings.ladder.length === 0) throw new Error('moderation.filter.ladder needs at least one step');
    this.#settings = settings;
    if (settings.strikeMemoryMs !== undefined) this.#strikes.setMemory(settings.strikeMemoryMs);
    // The same list (a reload that changed something else) keeps the built matcher.
    if (settings.words !== this.#wordList) this.#words = new WordFilter(settings.words, { onOverBudget: this.#overBudgetWarning() });
    this.#wordList = settings.words;
    const alert = settings.alert ?? BLOCKED_ALERT;
    this.#verdicts = settings.ladder.map((step) =>
      Object.freeze({ allow: false as const, reason: 'filtered' as const, alert: step.action === 'warn' ? (step.message ?? alert) : alert }),
    );
    if (this.#words.ignored.length > 0) {
      this.#logger.warn({ words: this.#words.ignored }, 'moderation.filter.words: these entries (by index) hold no letter after folding and are ignored');
    }
  }

  /** Warns, once per list, that a line cost the matcher its bound (the line itself is never logged). */
  #overBudgetWarning(): (length: number) => void {
    let warned = false;
    return (length) => {
      if (warned) return;
      warned = true;
      this.#logger.warn(
        { length, steps: WORK_LIMIT },
        'moderation.filter.words: a chat line cost the matcher its bound, so the rest of the line was not examined; the list has many words that differ only by look-alikes (such as i and l, which 1, ! and | stand for): drop those words (said once per list)',
      );
    };
  }

  /** Whether dry run is on. */
  get dryRun(): boolean {
    return this.#settings.dryRun;
  }

  /**
   * The verdict for a gated line: undefined when the line is clean, or in dry run (then the steps are only
   * recorded); else a block with reason "filtered", and the strike's step starts in the background.
   * `adapterId`: the adapter the line came through, so a warning goes back the same way. `alertDelivered`: whether
   * that adapter shows the verdict's alert to the speaker itself (a mod shows it; an RCON adapter tells it where the
   * game has private messages): then a warn step is that alert, and is not sent twice; undefined (no adapter
   * named): the warning is sent with site.tellPlayer.
   */
  check(player: PlayerIdentity, text: string, site: FilterSite, adapterId?: string, alertDelivered?: boolean): ChatVerdict | undefined {
    const rule = this.#words.matchIndex(text);
    if (rule < 0) return undefined;
    try {
      return this.#filtered(player, rule, site, adapterId, alertDelivered);
    } catch (error) {
      // A bug in the steps must not turn a chat line into a crash: the line is still blocked.
      this.#logger.error({ err: error }, 'the chat filter could not take its step');
      return this.#settings.dryRun ? undefined : this.#verdicts[0];
    }
  }

  /** Logs the repeats still counted (a shutdown): nothing counted goes untold. The filter may still be used. */
  flushLogSummaries(): void {
    this.#repeats.close();
  }

  /** Resolves when every step started so far has finished (and its records are written). */
  async settled(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running]);
    await this.#log.settled();
    await this.#strikes.settled();
  }

  #filtered(player: PlayerIdentity, rule: number, site: FilterSite, adapterId: string | undefined, alertDelivered: boolean | undefined): ChatVerdict | undefined {
    const id = playerKeyOf(player);
    const { ladder, dryRun } = this.#settings;
    const strike = id === undefined ? 1 : this.#strikes.strike(id, rule);
    const stepIndex = Math.min(strike, ladder.length) - 1;
    const step = ladder[stepIndex] ?? ladder[ladder.length - 1];
    const verdict = this.#verdicts[stepIndex];
    if (step === undefined || verdict === undefined || verdict.allow) return undefined;
    const base = { server: site.serverName, id: id ?? '?', player, rule, strike };
    // Each step of the ladder a player reaches is news; the last step repeating is what is summed.
    this.#logRepeated(`block\u0000${String(stepIndex)}\u0000${site.serverName}\u0000${id ?? '?'}`, {
      level: 'info',
      fields: { server: site.serverName, player: id, rule, strike, step: step.action, dryRun },
      message: dryRun ? 'chat filter (dry run): a line would be blocked' : 'chat filter blocked a line',
    });
    this.#record(base, 'block', null, dryRun ? 'dry_run' : 'ok', null);
    this.#run(this.#takeStep(base, step, verdict.alert, site, adapterId, alertDelivered));
    return dryRun ? undefined : verdict;
  }

  async #takeStep(base: StepBase, step: FilterStep, alert: string, site: FilterSite, adapterId: string | undefined, alertDelivered: boolean | undefined): Promise<void> {
    if (step.action === 'warn') {
      if (this.#settings.dryRun) {
        this.#record(base, 'warn', null, 'dry_run', null);
        return;
      }
      const told = alertDelivered ?? (await site.tellPlayer(base.player, alert, adapterId));
      this.#record(base, 'warn', null, told ? 'ok' : 'not_supported', told ? null : 'no adapter of this server can message a player privately');
      return;
    }
    if (this.#settings.dryRun) {
      this.#record(base, 'mute', step.period, 'dry_run', null);
      return;
    }
    const muting = this.#muting;
    if (muting === undefined) {
      this.#record(base, 'mute', step.period, 'not_supported', 'no System API key (api.system) to mute with');
      return;
    }
    let outcome: MuteOutcome;
    try {
      outcome = await muting.mute(base.player, step.period, step.note ?? DEFAULT_MUTE_NOTE);
    } catch (error) {
      this.#record(base, 'mute', step.period, 'failed', describeFailure(error));
      return;
    }
    if (outcome.ok) {
      try {
        this.#muteApplier?.applyMute(base.player);
      } catch (error) {
        this.#logger.error({ err: error }, 'could not apply a mute to the mute caches');
      }
      this.#record(base, 'mute', step.period, 'ok', outcome.message);
    } else {
      this.#record(base, 'mute', step.period, resultOfCode(outcome.code), `${outcome.code}: ${outcome.message}`);
    }
  }

  #record(base: StepBase, action: ModerationAction, period: string | null, result: ModerationResult, answer: string | null): void {
    this.#log.append({
      at: new Date(this.#clock.now()).toISOString(),
      server: base.server,
      player: base.id,
      ...(base.player.name === undefined ? {} : { player_name: base.player.name }),
      rule: base.rule,
      strike: base.strike,
      action,
      period,
      result,
      answer,
      by: 'filter',
    });
    if (action !== 'block' && result !== 'ok' && result !== 'dry_run') {
      this.#logRepeated(`${action}\u0000${result}\u0000${base.server}\u0000${base.id}`, {
        level: 'warn',
        fields: { server: base.server, player: base.id, action, result, answer },
        message: `chat filter: the ${action} step was not done (${result})`,
      });
    }
    // Who, never what they wrote: a notification names the player, and the line's text stays out of every record.
    if (this.#events?.listens('moderation') === true) this.#events.emit('moderation', { server: base.server, action, result, player: base.id, playerName: base.player.name });
  }

  /** The first of its kind for this player in full; a repeat only counted, for the summary. */
  #logRepeated(kind: string, line: FilterLogLine): void {
    if (this.#repeats.first(kind, line)) this.#logger[line.level](line.fields, line.message);
  }

  #logSummary({ latest, repeats, sinceMs }: RepeatSummaryReport<string, FilterLogLine>): void {
    if (latest === undefined) return;
    const seconds = Math.max(1, Math.round(sinceMs / 1000));
    this.#logger[latest.level]({ ...latest.fields, repeats, sinceMs }, `${latest.message}: ${String(repeats)} more for this player in the last ${String(seconds)} s (the fields are the latest one's; gsa_bridge_moderation_actions_total counts every one)`);
  }

  #run(step: Promise<void>): void {
    const running = step.catch((error: unknown) => {
      this.#logger.error({ err: error }, 'a chat filter step failed');
    });
    this.#running.add(running);
    void running.finally(() => this.#running.delete(running));
  }
}

interface StepBase {
  readonly server: string;
  readonly id: string;
  readonly player: PlayerIdentity;
  readonly rule: number;
  readonly strike: number;
}
