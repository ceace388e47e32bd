// Opens the chat filter of a sidecar from its settings: the strike book and the moderation log in the data
// directory (read back, corrupt lines skipped), and the ladder's period codes checked, so the composition root maps
// moderation.filter onto one call and hands the result to every ServerBridge (options.filter, or useFilter on a
// reload). It must never import src/config (the app layer maps the file) and never start a step by itself.

import type { BridgeEvents } from '../bridge/events.js';
import { isPeriodCode } from '../gsa/system/periods.js';
import type { Clock } from '../time/clock.js';
import { ChatFilter, type FilterStep, type MuteApplier, type PlayerMuting } from './chatFilter.js';
import { ModerationLog } from './moderationLog.js';
import { StrikeBook, type ModerationLogger } from './strikeBook.js';

/** A ladder step as the config file gives it (its period a string the schema checked). */
export type ConfiguredStep =
  | { readonly action: 'warn'; readonly message?: string | undefined }
  | { readonly action: 'mute'; readonly period: string; readonly note?: string | undefined };

export interface OpenChatFilterOptions {
  /** reviews.dataDir: the strikes and the moderation log live under `moderation/` in it. */
  readonly dataDir: string;
  readonly words: readonly string[];
  readonly ladder: readonly ConfiguredStep[];
  readonly strikeMemoryMs: number;
  readonly dryRun: boolean;
  readonly logger: ModerationLogger;
  /** The System API's mute (find the player's uuid, then mute); absent without api.system. */
  readonly muting?: PlayerMuting | undefined;
  /** Applies a mute GSA accepted on every ServerBridge of the process. */
  readonly muteApplier?: MuteApplier | undefined;
  readonly events?: BridgeEvents | undefined;
  /** Wall-clock time for strikes and records. @default the system clock */
  readonly clock?: Clock | undefined;
}

/** The ladder with its periods typed; throws naming the step when a period is not one of GSA's codes. */
export function ladderSteps(ladder: readonly ConfiguredStep[]): FilterStep[] {
  return ladder.map((step, index): FilterStep => {
    if (step.action === 'warn') return step;
    if (!isPeriodCode(step.period)) throw new Error(`moderation.filter.ladder[${index}].period "${step.period}" is not one of GSA's period codes`);
    return { action: 'mute', period: step.period, note: step.note };
  });
}

export async function openChatFilter(options: OpenChatFilterOptions): Promise<ChatFilter> {
  const { dataDir, logger, clock } = options;
  const [strikes, log] = await Promise.all([StrikeBook.open({ dataDir, memoryMs: options.strikeMemoryMs, logger, clock }), ModerationLog.open(dataDir, logger)]);
  return new ChatFilter({
    words: options.words,
    ladder: ladderSteps(options.ladder),
    dryRun: options.dryRun,
    strikes,
    log,
    logger,
    muting: options.muting,
    muteApplier: options.muteApplier,
    events: options.events,
    clock,
  });
}
