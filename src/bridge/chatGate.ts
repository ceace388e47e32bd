// Decides whether a chat line may be shown, and answers mute checks, within the decision timeout: from the
// mute cache when it can, else by asking GSA, and when GSA is slow or down by the configured policy
// (reason "unknown") while the lookup goes on in the background to warm the cache.
// It never blocks past mute.decisionTimeoutMs and never rejects.

import type { MuteConfig } from '../config/index.js';
import type { MuteCache, MuteEntry } from './muteCache.js';
import type { ChatVerdict, MuteVerdict, PlayerIdentity } from './port.js';

export type ChatGateOptions = Pick<MuteConfig, 'decisionTimeoutMs' | 'onUnknown' | 'defaultAlert'>;

const ALLOW: ChatVerdict = Object.freeze({ allow: true, reason: 'ok' });

export class ChatGate {
  readonly #cache: MuteCache;
  readonly #options: ChatGateOptions;
  readonly #unknownVerdict: ChatVerdict;
  readonly #unknownStatus: MuteVerdict;

  constructor(cache: MuteCache, options: ChatGateOptions) {
    this.#cache = cache;
    this.#options = options;
    const block = options.onUnknown === 'block';
    this.#unknownVerdict = Object.freeze(
      block ? { allow: false, reason: 'unknown', alert: options.defaultAlert } : { allow: true, reason: 'unknown' },
    );
    this.#unknownStatus = Object.freeze(block ? { muted: true, alert: options.defaultAlert, source: 'policy' } : { muted: false, source: 'policy' });
  }

  /** The verdict for one chat line. Resolves within the decision timeout, whatever GSA does. */
  decide(player: PlayerIdentity): Promise<ChatVerdict> {
    const cached = this.#cache.peek(player);
    if (cached !== undefined) return Promise.resolve(this.#verdictFor(cached));
    return this.#withinDeadline(player, (entry) => this.#verdictFor(entry), this.#unknownVerdict);
  }

  /** The player's mute status, saying where it came from. Resolves within the decision timeout. */
  status(player: PlayerIdentity): Promise<MuteVerdict> {
    const cached = this.#cache.peek(player);
    if (cached !== undefined) return Promise.resolve(this.#statusFor(cached, 'cache'));
    return this.#withinDeadline(player, (entry) => this.#statusFor(entry, 'service'), this.#unknownStatus);
  }

  #verdictFor(entry: MuteEntry): ChatVerdict {
    return entry.muted ? { allow: false, reason: 'muted', alert: entry.alert ?? this.#options.defaultAlert } : ALLOW;
  }

  #statusFor(entry: MuteEntry, source: 'cache' | 'service'): MuteVerdict {
    return entry.muted ? { muted: true, alert: entry.alert ?? this.#options.defaultAlert, source } : { muted: false, source };
  }

  /** Races the (shared) lookup against the decision timeout; the lookup keeps running to warm the cache. */
  #withinDeadline<T>(player: PlayerIdentity, answer: (entry: MuteEntry) => T, fallback: T): Promise<T> {
    const lookup = this.#cache.lookup(player);
    return new Promise<T>((resolve) => {
      const timer = setTimeout(() => {
        resolve(fallback);
      }, this.#options.decisionTimeoutMs);
      lookup.then(
        (entry) => {
          clearTimeout(timer);
          resolve(answer(entry));
        },
        () => {
          clearTimeout(timer);
          resolve(fallback);
        },
      );
    });
  }
}
