// The bridge's port for the chat filter (src/moderation): what the bridge asks of a filter about a gated line, and
// what a filter may ask of the bridge back, so the core names no moderation module. The filter satisfies it.
// It must never carry the filter's rules, ladders or strike books: those are the filter's own.

import type { ChatVerdict, PlayerIdentity } from './port.js';

/** Where a filtered line was heard: its bridge, which can tell the speaker privately (ServerBridge satisfies it). */
export interface FilterSite {
  readonly serverName: string;
  /** False when no adapter can tell this player (a websocket mod shows the verdict itself); never rejects. */
  tellPlayer(player: PlayerIdentity, text: string, adapterId?: string): Promise<boolean>;
}

export interface LineFilter {
  /** True when the filter only reports what it would do: every line is let through, and checked once decided. */
  readonly dryRun: boolean;
  /**
   * The filter's verdict for one gated line, or undefined when it lets the line through. Synchronous, bounded work
   * per line. `alertDelivered`: whether the speaker can be told (undefined when no adapter heard the line).
   */
  check(player: PlayerIdentity, text: string, site: FilterSite, adapterId?: string, alertDelivered?: boolean): ChatVerdict | undefined;
}
