// The bridge for one game server: what its adapters call (BridgeSink) and what pushes news back to them.
// It gates chat through the ChatGate, admits reviews into the shared durable outbox, runs allowed server
// actions, and routes mute changes and review results to the adapters. It imports no adapter: adapters
// attach themselves through the AdapterPushes interface.

import type { Logger } from 'pino';
import type { MuteConfig, ReviewsConfig, ServerConfig } from '../config/index.js';
import type { GsaClient } from '../gsa/index.js';
import { ChatGate } from './chatGate.js';
import { MuteCache, type MuteEntry } from './muteCache.js';
import {
  BridgeRefusal,
  type Adapter,
  type BridgeSink,
  type ChatVerdict,
  type MuteVerdict,
  type PlayerIdentity,
  type ReviewOrigin,
  type ReviewOutcome,
  type ReviewRequest,
  type ServerActionName,
  type ServerActionOutcome,
} from './port.js';
import { ReviewOutboxError, type OutboxReview, type ReviewOutbox } from './reviewOutbox.js';
import { ReviewPolicy } from './reviewPolicy.js';
import { ServerActions } from './serverActions.js';

export interface ServerBridgeOptions {
  readonly server: ServerConfig;
  /** Where this server sits in the config file, e.g. 'servers[0]', for messages hosts can act on. */
  readonly configPath: string;
  readonly mute: MuteConfig;
  readonly reviews: ReviewsConfig;
  readonly client: GsaClient;
  readonly outbox: ReviewOutbox;
  readonly logger: Logger;
  /** Most players the mute cache remembers. Default 200 000. */
  readonly maxCachedPlayers?: number | undefined;
}

function describePlayer(player: PlayerIdentity): string {
  return player.steamId ?? player.eosId ?? '?';
}

export class ServerBridge implements BridgeSink {
  readonly serverName: string;
  readonly #cache: MuteCache;
  readonly #gate: ChatGate;
  readonly #policy: ReviewPolicy;
  readonly #actions: ServerActions;
  readonly #outbox: ReviewOutbox;
  readonly #logger: Logger;
  readonly #defaultAlert: string;
  readonly #adapters: Adapter[] = [];
  #closed = false;

  constructor(options: ServerBridgeOptions) {
    const { server, client } = options;
    this.serverName = server.name;
    this.#logger = options.logger.child({ server: server.name });
    this.#outbox = options.outbox;
    this.#defaultAlert = options.mute.defaultAlert;
    this.#cache = new MuteCache({
      mutedTtlMs: options.mute.mutedTtlMs,
      unmutedTtlMs: options.mute.unmutedTtlMs,
      maxEntries: options.maxCachedPlayers,
      lookup: (player) => client.checkMuted(server.name, player),
      onChange: (player, entry) => {
        this.#muteChanged(player, entry);
      },
    });
    this.#gate = new ChatGate(this.#cache, options.mute);
    this.#policy = new ReviewPolicy(options.reviews);
    this.#actions = new ServerActions(server, options.configPath, client);
  }

  /** Players in the mute cache (for metrics and the memory benchmark). */
  get cachedPlayers(): number {
    return this.#cache.size;
  }

  /** An adapter of this server that wants pushes (mute changes, review results). */
  attach(adapter: Adapter): void {
    this.#adapters.push(adapter);
  }

  chat(player: PlayerIdentity, _channel: string, _text: string): Promise<ChatVerdict> {
    return this.#gate.decide(player);
  }

  chatNow(player: PlayerIdentity, _channel: string, _text: string): ChatVerdict | undefined {
    return this.#gate.decideNow(player);
  }

  checkMute(player: PlayerIdentity): Promise<MuteVerdict> {
    return this.#gate.status(player);
  }

  async submitReview(review: ReviewRequest): Promise<void> {
    if (this.#closed) throw new BridgeRefusal('unavailable', 'the sidecar is shutting down; send the review again after it restarts');
    const comment = this.#policy.admit(review.player, review.stars, review.comment);
    let queued: OutboxReview;
    try {
      queued = await this.#outbox.enqueue({ server: this.serverName, player: review.player, stars: review.stars, comment, origin: review.origin });
    } catch (error) {
      if (!(error instanceof ReviewOutboxError)) throw error;
      // The host's problem (disk full, shutting down), not the mod's: say it was not stored, so it is sent again.
      this.#logger.error({ err: error }, 'a review could not be stored');
      throw new BridgeRefusal('unavailable', 'the review could not be stored right now; send it again later');
    }
    this.#policy.recordAccepted(review.player);
    this.#logger.info({ review: queued.id, player: describePlayer(review.player), stars: review.stars }, 'review queued');
  }

  playerJoined(player: PlayerIdentity): void {
    this.#cache.refresh(player);
  }

  playerLeft(player: PlayerIdentity): void {
    this.#logger.debug({ player: describePlayer(player) }, 'player left');
  }

  serverAction(action: ServerActionName, countdownMinutes?: number): Promise<ServerActionOutcome> {
    if (this.#closed) return Promise.reject(new BridgeRefusal('unavailable', 'the sidecar is shutting down'));
    this.#logger.info({ action, countdownMinutes }, 'server action requested by a mod');
    return this.#actions.run(action, countdownMinutes);
  }

  /**
   * The outbox learned a review's fate: tell the one adapter that received it, or, when the config changed
   * since, the server's first adapter (a mod reconnecting there still gets its result).
   */
  deliverReviewResult(origin: ReviewOrigin, outcome: ReviewOutcome): void {
    const adapter = this.#adapters.find((candidate) => candidate.id === origin.adapter) ?? this.#adapters[0];
    if (adapter === undefined) {
      this.#logger.warn({ adapter: origin.adapter }, 'review result has no adapter to go to; the review itself was handled');
      return;
    }
    adapter.reviewResult(origin, outcome);
  }

  /** Refuses new reviews and actions (chat keeps being answered until the adapters stop). */
  close(): void {
    this.#closed = true;
  }

  #muteChanged(player: PlayerIdentity, entry: MuteEntry): void {
    this.#logger.info({ player: describePlayer(player), muted: entry.muted }, 'mute status changed');
    const alert = entry.muted ? (entry.alert ?? this.#defaultAlert) : undefined;
    for (const adapter of this.#adapters) adapter.muteChanged(player, entry.muted, alert);
  }
}
