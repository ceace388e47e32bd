// The sidecar's one chat filter (moderation.filter), for the life of the process: strikes count across servers and
// across reloads. It is opened on the first config whose filter has words (strikes and records in reviews.dataDir) and
// reconfigured in place by every later one; `active` is what the config in force asks for, undefined when it has no
// words (the opened filter then stays open and idle, so its strikes survive a reload that turns it back on).
// It must never gate a line itself (the bridges do, with `active`) and never open a second filter.

import type { Logger } from 'pino';
import type { BridgeEvents } from '../bridge/events.js';
import type { ChatFilter, MuteApplier, PlayerMuting } from '../moderation/chatFilter.js';
import { ladderSteps, openChatFilter } from '../moderation/openChatFilter.js';
import type { BridgeConfig } from './config.js';

export interface ChatFilterSlotOptions {
  readonly events: BridgeEvents;
  /** How a ladder's mute step reaches GSA (CorePorts.playerMuting). */
  readonly muting: PlayerMuting;
  /** Where a mute GSA accepted is applied at once (CorePorts.muteApplier). */
  readonly muteApplier: MuteApplier;
}

export class ChatFilterSlot {
  readonly #options: ChatFilterSlotOptions;
  /** Opened once, on the first config with words; kept until close(). */
  #opened: ChatFilter | undefined;
  /** What the config followed last asks for. */
  #active: ChatFilter | undefined;

  constructor(options: ChatFilterSlotOptions) {
    this.#options = options;
  }

  /** The filter the bridges check gated lines against now; undefined when the config in force has none. */
  get active(): ChatFilter | undefined {
    return this.#active;
  }

  /**
   * Follows `config`'s moderation.filter: reconfigures the open filter (every bridge sharing it sees the new settings
   * at once) or opens it. Returns the filter the config asks for, `active` from now on; a failure changes nothing.
   */
  async follow(config: BridgeConfig, logger: Logger): Promise<ChatFilter | undefined> {
    this.#active = await this.#filterFor(config, logger);
    return this.#active;
  }

  /** Waits for the ladder steps in flight (their records reach the disk), then writes the log lines still summed. */
  async close(): Promise<void> {
    await this.#opened?.settled();
    this.#opened?.flushLogSummaries();
  }

  async #filterFor(config: BridgeConfig, logger: Logger): Promise<ChatFilter | undefined> {
    const settings = config.moderation.filter;
    if (settings === undefined || settings.words.length === 0) return undefined;
    if (this.#opened !== undefined) {
      this.#opened.reconfigure({ words: settings.words, ladder: ladderSteps(settings.ladder), dryRun: settings.dryRun, strikeMemoryMs: settings.strikeMemoryMs });
      return this.#opened;
    }
    this.#opened = await openChatFilter({
      dataDir: config.reviews.dataDir,
      words: settings.words,
      ladder: settings.ladder,
      strikeMemoryMs: settings.strikeMemoryMs,
      dryRun: settings.dryRun,
      logger: logger.child({ component: 'moderation' }),
      events: this.#options.events,
      muting: this.#options.muting,
      // GSA took the mute: every server this sidecar gates blocks the player's next line at once.
      muteApplier: this.#options.muteApplier,
    });
    return this.#opened;
  }
}
