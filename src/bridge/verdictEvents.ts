// How one server's bridge publishes what it decided about a chat line: the verdict event (with where it came from
// and what a block could do) and the mute cache's hit or miss, built only when someone listens, from events made
// once per server so a cache-hot line allocates nothing. It never decides a verdict and never reads the line's text.

import type { AskedId } from './lookupIds.js';
import { canTellPlayers } from './attachedAdapters.js';
import type { BridgeEvents, MuteCacheEvent } from './events.js';
import type { Adapter, ChatVerdict, PlayerIdentity } from './port.js';

export type VerdictSource = 'cache' | 'service' | 'policy' | 'filter';

export class VerdictEvents {
  readonly #server: string;
  /** The id GSA was asked by whose answer said muted (the mute cache's). */
  readonly #mutedBy: (player: PlayerIdentity) => AskedId | undefined;
  readonly cacheHit: MuteCacheEvent;
  readonly cacheMiss: MuteCacheEvent;

  constructor(server: string, mutedBy: (player: PlayerIdentity) => AskedId | undefined) {
    this.#server = server;
    this.#mutedBy = mutedBy;
    this.cacheHit = Object.freeze({ server, hit: true });
    this.cacheMiss = Object.freeze({ server, hit: false });
  }

  /** A line on a channel that is not gated (no cache event: the cache was not read). */
  notGated(events: BridgeEvents | undefined, player: PlayerIdentity, adapter: Adapter | undefined): void {
    if (events?.chatHeard === true && events.listens('verdict')) {
      events.emit('verdict', { server: this.#server, adapter: adapter?.id, player, verdict: 'allow', reason: 'not_gated', source: 'channel', durationMs: 0 });
    }
  }

  /** `adapter`: the one whose line it was, when it came through its sink, so a listener can say what a block did. */
  publish(events: BridgeEvents, player: PlayerIdentity, verdict: ChatVerdict, source: VerdictSource, durationMs: number, adapter: Adapter | undefined): void {
    // The filter decided without reading the mute cache: no hit or miss to count.
    if (source !== 'filter' && events.listens('muteCache')) events.emit('muteCache', source === 'cache' ? this.cacheHit : this.cacheMiss);
    if (!events.listens('verdict')) return;
    events.emit('verdict', {
      server: this.#server,
      adapter: adapter?.id,
      alreadyShown: adapter?.chatAlreadyShown === true,
      tellsSpeaker: adapter !== undefined && canTellPlayers(adapter),
      player,
      verdict: verdict.allow ? 'allow' : 'block',
      reason: verdict.reason,
      source,
      durationMs,
      alert: verdict.allow ? undefined : verdict.alert,
      // Only a mute GSA called has an id it was asked by (read from the cache: muted lines are few).
      asked: verdict.reason === 'muted' ? this.#mutedBy(player) : undefined,
    });
  }
}
