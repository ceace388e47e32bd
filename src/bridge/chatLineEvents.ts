// The chatLine events of one source (a server's adapter, or the bridge called directly), made once: every chat-like
// line an adapter reads is published, so the line costs a lookup, never an allocation, even while metrics listen.
// It only builds events; the bridge decides whether anyone listens, and it never sees a player or a line's text.

import { UNATTRIBUTED_REASONS, type UnattributedReason } from './chatAttribution.js';
import type { ChatLineEvent } from './events.js';

export class ChatLineEvents {
  readonly #attributed: ChatLineEvent;
  /** A Map, not an object: a caller's "__proto__" or "constructor" is just an unknown reason. */
  readonly #unattributed: ReadonlyMap<string, ChatLineEvent>;
  readonly #unreadable: ChatLineEvent;

  constructor(server: string, adapter: string | undefined) {
    this.#attributed = Object.freeze({ server, adapter });
    const unattributed = new Map(UNATTRIBUTED_REASONS.map((reason): [string, ChatLineEvent] => [reason, Object.freeze({ server, adapter, unattributed: reason })]));
    this.#unattributed = unattributed;
    this.#unreadable = unattributed.get('unreadable') ?? Object.freeze({ server, adapter, unattributed: 'unreadable' });
  }

  /**
   * The event for one line. A reason outside UNATTRIBUTED_REASONS (an adapter's bug, or a caller without types)
   * counts as `unreadable`: the line is still counted as unattributed, and the metric's label set stays closed.
   */
  of(unattributed: UnattributedReason | undefined): ChatLineEvent {
    if (unattributed === undefined) return this.#attributed;
    return this.#unattributed.get(unattributed) ?? this.#unreadable;
  }
}
