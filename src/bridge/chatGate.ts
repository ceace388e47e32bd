// Decides whether a chat line may be shown, and answers mute checks, within the decision timeout: from the
// mute cache when it can, else by asking GSA, and when GSA is slow or down by the configured policy
// (reason "unknown") while the lookup goes on in the background to warm the cache.
// It never blocks past mute.decisionTimeoutMs (it answers a margin before it, see policyAnswerAfterMs) and never rejects.

import { withDeadline } from '../time/deadline.js';
import type { MuteCache, MuteEntry } from './muteCache.js';
import type { MuteOptions } from './options.js';
import type { ChatVerdict, MuteVerdict, PlayerIdentity } from './port.js';

export type ChatGateOptions = Pick<MuteOptions, 'decisionTimeoutMs' | 'onUnknown' | 'defaultAlert'>;

const ALLOW: ChatVerdict = Object.freeze({ allow: true, reason: 'ok' });

/** The most the policy's answer is brought forward, whatever the decision timeout. */
const MAX_DEADLINE_MARGIN_MS = 30;

/**
 * When the policy answers a line the service has not decided: a little before `decisionTimeoutMs` (10% of it, at
 * most 30 ms; 270 ms of the default 300). The timer starts when the sidecar reads the line, which can be some ms
 * after the mod sent it (the event loop was busy, a GC ran), and the verdict still has to be written; the margin
 * keeps the mod's wait within `decisionTimeoutMs` through that. A lookup that answers later still warms the cache.
 */
export function policyAnswerAfterMs(decisionTimeoutMs: number): number {
  return decisionTimeoutMs - Math.min(MAX_DEADLINE_MARGIN_MS, Math.floor(decisionTimeoutMs / 10));
}

export class ChatGate {
  readonly #cache: MuteCache;
  readonly #options: ChatGateOptions;
  readonly #unknownVerdict: ChatVerdict;
  readonly #unknownStatus: MuteVerdict;
  readonly #policyAfterMs: number;

  constructor(cache: MuteCache, options: ChatGateOptions) {
    this.#cache = cache;
    this.#options = options;
    this.#policyAfterMs = policyAnswerAfterMs(options.decisionTimeoutMs);
    const block = options.onUnknown === 'block';
    this.#unknownVerdict = Object.freeze(
      block ? { allow: false, reason: 'unknown', alert: options.defaultAlert } : { allow: true, reason: 'unknown' },
    );
    this.#unknownStatus = Object.freeze(block ? { muted: true, alert: options.defaultAlert, source: 'policy' } : { muted: false, source: 'policy' });
  }

  /**
   * The verdict for one chat line. Resolves within the decision timeout, whatever GSA does. `source`: the chat source
   * the line came from, for its turn in the API budget when the service must be asked.
   */
  decide(player: PlayerIdentity, source?: string): Promise<ChatVerdict> {
    const known = this.decideNow(player);
    if (known !== undefined) return Promise.resolve(known);
    return this.#withinDeadline(player, (entry) => this.#verdictFor(entry), this.#unknownVerdict, source);
  }

  /**
   * The verdict at once when the cache knows the player (fresh or stale; a stale one refreshes in the
   * background), else undefined and nothing is asked: the caller then uses decide(). Lets an adapter answer a
   * cache hit in the same tick, with no promise.
   */
  decideNow(player: PlayerIdentity): ChatVerdict | undefined {
    const cached = this.#cache.peek(player);
    return cached === undefined ? undefined : this.#verdictFor(cached);
  }

  /** The player's mute status, saying where it came from. Resolves within the decision timeout. `source` as for decide(). */
  status(player: PlayerIdentity, source?: string): Promise<MuteVerdict> {
    const cached = this.#cache.peek(player);
    if (cached !== undefined) return Promise.resolve(this.#statusFor(cached, 'cache'));
    return this.#withinDeadline(player, (entry) => this.#statusFor(entry, 'service'), this.#unknownStatus, source);
  }

  #verdictFor(entry: MuteEntry): ChatVerdict {
    return entry.muted ? { allow: false, reason: 'muted', alert: entry.alert ?? this.#options.defaultAlert } : ALLOW;
  }

  #statusFor(entry: MuteEntry, source: 'cache' | 'service'): MuteVerdict {
    return entry.muted ? { muted: true, alert: entry.alert ?? this.#options.defaultAlert, source } : { muted: false, source };
  }

  /**
   * Races the (shared) lookup against the decision timeout; the lookup keeps running to warm the cache. A failed
   * lookup answers with the policy at once rather than at the deadline.
   */
  #withinDeadline<T>(player: PlayerIdentity, answer: (entry: MuteEntry) => T, fallback: T, source: string | undefined): Promise<T> {
    const answered = this.#cache.lookup(player, source).then(answer, () => fallback);
    return withDeadline(answered, this.#policyAfterMs, () => fallback);
  }
}
