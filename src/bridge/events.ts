// What the core tells whoever listens, as typed events: each request to GSA, each chat verdict, each mute cache
// hit or miss, each change of the review outbox, each chat-like line an adapter read (and why it could not be tied to
// a player, when it could not). Metrics, readiness and the host's log lines subscribe (src/ops);
// the core publishes and never knows who listens, so it never imports prom-client or anything of src/ops.
// One emitter per sidecar, made by the composition root and handed down as an option, so a reload that rebuilds
// bridges keeps its subscribers (and several sidecars in one test process keep theirs apart).
// It must cost next to nothing when nobody listens: publishers ask listens() before building an event, and an
// emit with no listener is one array-length check. A listener that throws is ignored: it never changes an outcome.

import type { RequestEvent } from '../gsa/client/requestEvent.js';
import type { AskedId } from './lookupIds.js';
import type { UnattributedReason } from './chatAttribution.js';
import type { PlayerIdentity } from './port.js';

export type { RequestEvent } from '../gsa/client/requestEvent.js';

/** One chat line decided. */
export interface VerdictEvent {
  /** The GSA container name of the game server. */
  readonly server: string;
  /** The adapter's id, when the publisher knows it. */
  readonly adapter?: string | undefined;
  /** The adapter reads chat the game already showed (RCON): a block could not withhold this line (Adapter.chatAlreadyShown). */
  readonly alreadyShown?: boolean | undefined;
  /** The adapter can message the speaker privately (its "tell this player" capability): how a muted speaker is answered. */
  readonly tellsSpeaker?: boolean | undefined;
  /** For the host's log only (never a metric label); the message text is never part of an event. */
  readonly player: PlayerIdentity;
  readonly verdict: 'allow' | 'block';
  /**
   * ok: not muted; muted: muted; unknown: the service did not answer in time, the policy decided; not_gated: the
   * line's channel is not in mute.gatedChannels, so it was allowed unchecked; filtered: the chat filter blocked it.
   */
  readonly reason: 'ok' | 'muted' | 'unknown' | 'not_gated' | 'filtered';
  /**
   * cache: the mute cache knew; service: asked just now; policy: mute.onUnknown decided; channel: not gated, nothing
   * was asked; filter: the chat filter decided, nothing was asked.
   */
  readonly source: 'cache' | 'service' | 'policy' | 'channel' | 'filter';
  /** From the line reaching the bridge to its verdict; 0 when it was decided in the same tick (a cache hit). */
  readonly durationMs: number;
  /** A block's alert to the player (GSA's text for a mute, or mute.defaultAlert): hostile text, print it with care. */
  readonly alert?: string | undefined;
  /**
   * A `muted` verdict's: the id GSA was asked by whose answer said muted (servers[].lookupIds chose it). Undefined
   * for other verdicts, and for a mute the sidecar made itself (the chat filter's), which asked nobody.
   */
  readonly asked?: AskedId | undefined;
}

/** One look into a server's mute cache for a chat line or a mute check: answered from it (hit) or not (miss). */
export interface MuteCacheEvent {
  readonly server: string;
  readonly hit: boolean;
}

/** The number of reviews accepted and not yet finished changed. */
export interface OutboxEvent {
  readonly pending: number;
}

/** A review was queued, or its fate is known. */
export interface ReviewEvent {
  readonly server: string;
  /** The outbox's id of the review. */
  readonly review: string;
  /** delivered: GSA stored it; refused: GSA refused it (dead letter); unconfirmed: GSA may have stored it. */
  readonly result: 'queued' | 'delivered' | 'refused' | 'unconfirmed';
  /** The refusal's code; undefined when queued or delivered. */
  readonly code?: string | undefined;
}

/**
 * A review was sent again after a restart although the journal showed it in flight when the previous process
 * stopped (sent, no answer journaled): GSA may have stored it twice. Once per review and restart.
 */
export interface ReviewResentEvent {
  readonly server: string;
  /** The outbox's id of the review. */
  readonly review: string;
}

/**
 * The review journal held whole lines that no longer read as a record when it was opened: each was moved byte for
 * byte to reviews.damaged.jsonl for a person (`reviews list --state damaged`). Only the count: a line may hold
 * player text. It feeds gsa_bridge_reviews_damaged_total.
 */
export interface ReviewsDamagedEvent {
  readonly lines: number;
}

/**
 * One step the chat filter took (moderation.filter): the line's block, a warning, a mute; or what a dry run would
 * have done. No player: it feeds gsa_bridge_moderation_actions_total{action,result}.
 */
export interface ModerationEvent {
  readonly server: string;
  readonly action: 'block' | 'warn' | 'mute' | 'unmute';
  readonly result: 'ok' | 'refused' | 'failed' | 'dry_run' | 'not_supported';
  /** The player's id as the moderation log keeps it (a Steam64, an EOS id, `mojang:<uuid>`); never the line's text. */
  readonly player?: string | undefined;
  /** The player's name as the game gave it (outside text: a reader cleans it), when known. */
  readonly playerName?: string | undefined;
}

/**
 * A line that looks like chat was read by an adapter (BridgeSink.chatLineRead), whether or not it could be tied to a
 * listed player. No player and no text: it feeds gsa_bridge_chat_lines_total{server,adapter} and
 * gsa_bridge_chat_unattributed_total{server,adapter,reason}. Publishers may hand out the same frozen object for
 * every line of one adapter and reason.
 */
export interface ChatLineEvent {
  readonly server: string;
  /** The adapter's id; undefined when the bridge was called directly (no adapter's sink). */
  readonly adapter?: string | undefined;
  /** Why the line could not be tied to a listed player; undefined: it was. */
  readonly unattributed?: UnattributedReason | undefined;
}

/**
 * A join checked against GSA's access list (access.enforce), or a mod's `player.access`: what was decided. No player:
 * it feeds gsa_bridge_access_decisions_total{server,decision}. `allow`/`deny`: GSA's answer (cached or fresh);
 * `unknown_admit`/`unknown_deny`: GSA could not be asked and access.onUnknown (or a transport error) decided.
 */
export interface AccessEvent {
  readonly server: string;
  readonly decision: 'allow' | 'deny' | 'unknown_admit' | 'unknown_deny';
}

/** A shop order or token spend settled: it feeds gsa_bridge_money_requests_total{kind,state}. No player, no item. */
export interface MoneyEvent {
  readonly server: string;
  readonly kind: 'order' | 'tokens';
  readonly state: 'done' | 'refused' | 'unconfirmed';
}

export interface BridgeEventMap {
  readonly request: RequestEvent;
  readonly verdict: VerdictEvent;
  readonly muteCache: MuteCacheEvent;
  readonly outbox: OutboxEvent;
  readonly review: ReviewEvent;
  readonly reviewResent: ReviewResentEvent;
  readonly reviewsDamaged: ReviewsDamagedEvent;
  readonly moderation: ModerationEvent;
  readonly chatLine: ChatLineEvent;
  readonly access: AccessEvent;
  readonly money: MoneyEvent;
}

export type BridgeEventName = keyof BridgeEventMap;

export type BridgeEventListener<K extends BridgeEventName> = (event: BridgeEventMap[K]) => void;

type ListenerLists = { [K in BridgeEventName]: BridgeEventListener<K>[] };

export class BridgeEvents {
  readonly #listeners: ListenerLists = { request: [], verdict: [], muteCache: [], outbox: [], review: [], reviewResent: [], reviewsDamaged: [], moderation: [], chatLine: [], access: [], money: [] };
  /** Anyone listening to verdicts or cache hits: the one field a cache-hot chat line reads when nobody does. */
  #chatHeard = false;

  /** Subscribes; returns the function that unsubscribes. A listener must return at once. */
  on<K extends BridgeEventName>(name: K, listener: BridgeEventListener<K>): () => void {
    // A fresh array on every change, so an emit in progress keeps iterating the list it started with.
    this.#listeners[name] = [...this.#listeners[name], listener] as ListenerLists[K];
    this.#chatHeard = this.listens('verdict') || this.listens('muteCache');
    return () => {
      this.#listeners[name] = this.#listeners[name].filter((known) => known !== listener) as ListenerLists[K];
      this.#chatHeard = this.listens('verdict') || this.listens('muteCache');
    };
  }

  /** Whether anyone listens to verdicts or mute cache hits and misses (the chat path's events). */
  get chatHeard(): boolean {
    return this.#chatHeard;
  }

  /** Whether anyone listens: publishers check it before measuring time or building an event. */
  listens(name: BridgeEventName): boolean {
    return this.#listeners[name].length > 0;
  }

  emit<K extends BridgeEventName>(name: K, event: BridgeEventMap[K]): void {
    const listeners = this.#listeners[name] as readonly BridgeEventListener<K>[];
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A subscriber's bug must not turn a verdict or a delivery into a failure.
      }
    }
  }
}
