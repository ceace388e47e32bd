// Chat that could not be tied to a player, made visible, for every adapter type alike: each such line is counted
// through the bridge (gsa_bridge_chat_unattributed_total{server,adapter,reason}), and the host is warned at most once
// per 10 minutes per adapter, with one sample and the fix the adapter type names (a `chatPattern`, the player list,
// the mod). A line that looks like chat is never dropped in silence.
// It must never log more than one sample per warning, never print a control character or more than a short
// sample of what a player typed, and never decide anything about the line (the adapter already has).

import type { UnattributedReason } from '../../src/bridge/port.js';
import { printableText } from '../../src/text/printableText.js';

/** The two levels it writes at (pino's logger is one). */
export interface UnattributedChatLogger {
  warn(bindings: Record<string, unknown>, message: string): void;
  debug(bindings: Record<string, unknown>, message: string): void;
}

export interface UnattributedChatOptions {
  readonly logger: UnattributedChatLogger;
  /** How the warning names the adapter, e.g. `rcon adapter ark-main`. */
  readonly label: string;
  /** What the host can do about a line of this reason, in the adapter type's terms. */
  readonly fix: (reason: UnattributedReason) => string;
  /** Counts the line (BridgeSink.chatLineRead); absent before the adapter has started. */
  readonly count: (reason: UnattributedReason) => void;
  /** Wall or fake time in ms. */
  readonly now: () => number;
  /** At most one warning per this period. @default 600000 (10 minutes) */
  readonly warnEveryMs?: number | undefined;
}

/** The sample a warning shows: enough to recognise the format, not a transcript. */
const SAMPLE_LENGTH = 160;
const TEN_MINUTES_MS = 600_000;

export class UnattributedChat {
  readonly #options: UnattributedChatOptions;
  readonly #everyMs: number;
  #warnedAt = Number.NEGATIVE_INFINITY;
  /** Lines since the last warning, by reason. */
  readonly #since = new Map<UnattributedReason, number>();

  constructor(options: UnattributedChatOptions) {
    this.#options = options;
    this.#everyMs = options.warnEveryMs ?? TEN_MINUTES_MS;
  }

  /** One chat-like line that could not be tied to a player; `sample`: the line as read (hostile text). */
  note(reason: UnattributedReason, sample: string): void {
    this.#options.count(reason);
    this.#since.set(reason, (this.#since.get(reason) ?? 0) + 1);
    const now = this.#options.now();
    if (now - this.#warnedAt < this.#everyMs) {
      this.#options.logger.debug({ reason }, 'a chat-like line was not tied to a player');
      return;
    }
    const counts = [...this.#since].map(([why, count]) => `${why} ${String(count)}`).join(', ');
    const total = [...this.#since.values()].reduce((sum, count) => sum + count, 0);
    const period = Number.isFinite(this.#warnedAt) ? `in the last ${String(Math.round((now - this.#warnedAt) / 60_000))} min` : 'so far';
    this.#warnedAt = now;
    this.#since.clear();
    const lines = total === 1 ? '1 chat-like line' : `${String(total)} chat-like lines`;
    this.#options.logger.warn(
      { reason, unattributed: total },
      `${this.#options.label}: ${lines} ${period} could not be tied to a player and ${total === 1 ? 'was' : 'were'} not gated (${counts}); ` +
        `one (${reason}): "${printableText(sample, SAMPLE_LENGTH)}". ${this.#options.fix(reason)} (at most one such warning per ${String(Math.round(this.#everyMs / 60_000))} min)`,
    );
  }
}
