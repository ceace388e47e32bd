// The sidecar's durable review outbox, wired into the running sidecar: it sends through whichever service client is
// current (a reload may replace it) by the one id the review's server asks GSA by, and routes each result to the
// current bridge of the review's server, publishing every fate as an event first. It must never pick a client or a
// bridge once and keep it (both are read at each send and each result), and never start sending by itself: the
// assembly calls start() once the adapters run.

import type { Logger } from 'pino';
import type { BridgeEvents } from '../bridge/events.js';
import { DEFAULT_LOOKUP_IDS, reviewIdOf } from '../bridge/lookupIds.js';
import type { ServerBridge } from '../bridge/serverBridge.js';
import { reviewConcurrency } from '../gsa/index.js';
import { ReviewOutbox } from '../reviews/reviewOutbox.js';
import type { BridgeConfig } from './config.js';
import type { ServiceConnection } from './serviceConnection.js';

export interface SidecarOutboxParts {
  readonly logger: Logger;
  readonly events: BridgeEvents;
  /** Where the API credentials came from, for the line a refusal logs. */
  readonly credentialSources: string;
  readonly service: ServiceConnection;
  /** The running bridges by server name, as the last reload left them. */
  readonly bridges: ReadonlyMap<string, ServerBridge>;
}

/** The durable review outbox, sending through whichever client is current and routing results to the current bridges. */
export async function openSidecarOutbox(config: BridgeConfig, parts: SidecarOutboxParts): Promise<ReviewOutbox> {
  const { logger, events, credentialSources, service, bridges } = parts;
  // Results arrive only once it is open (start() comes later), so `opened.outbox` is set by then.
  const opened: { outbox?: ReviewOutbox } = {};
  opened.outbox = await ReviewOutbox.open({
    dataDir: config.reviews.dataDir,
    // Read at each send: a reload may have replaced the client. GSA's receipt goes into the delivered history.
    // GSA takes one id: the first its server's lookupIds asks by, so a review reaches the record the mute lookups
    // read (the journal keeps every id the player had).
    send: (review) => {
      const rule = bridges.get(review.server)?.settings.server.lookupIds ?? DEFAULT_LOOKUP_IDS;
      return service.client.submitReview(review.server, reviewIdOf(review.player, rule) ?? review.player, review.stars, review.comment);
    },
    onResult: (review, outcome) => {
      // Published before routing, so a listener sees the fate even when no bridge takes the result any more.
      events.emit('review', {
        server: review.server,
        review: review.id,
        ...(outcome.ok ? { result: 'delivered' } : { result: outcome.error.code === 'unconfirmed' ? 'unconfirmed' : 'refused', code: outcome.error.code }),
      });
      events.emit('outbox', { pending: opened.outbox?.pending ?? 0 });
      const bridge = bridges.get(review.server);
      if (bridge === undefined) logger.warn({ review: review.id, server: review.server }, 'review result for a server no longer in the config');
      else bridge.deliverReviewResult(review.origin, outcome, review.player);
    },
    onResend: (review) => {
      events.emit('reviewResent', { server: review.server, review: review.id });
    },
    onDamaged: (lines) => {
      events.emit('reviewsDamaged', { lines });
    },
    logger: logger.child({ component: 'outbox' }),
    // Enough reviews waiting in the client to use the review share of every window under full chat load (api-budget.md).
    concurrency: reviewConcurrency(config.api.rateLimit.requests),
    // Finished reviews stay in the journal while they count for their player's cooldown, so it survives a restart.
    retainAcceptedMs: config.reviews.cooldownMs,
    // The host fixes these in the config file, so the log names its keys.
    describeHostFix: (error, server) =>
      error.code === 'unauthorized' || error.code === 'credentials_refused'
        ? `GSA refused the API credentials: check ${credentialSources} (and that the server is bound to these keys)`
        : `GSA does not know server ${server}: check servers[].name (the GSA container name) and api.baseUrl`,
  });
  return opened.outbox;
}
