// A review typed in game chat, from the parsed command to the player's answer: submitted to the bridge (its durable
// outbox and policy), and the player told privately that it was queued, why it was refused, or, later, its fate.
// The words the player reads live here so the adapter stays the composition it is.
// It must never judge or clean the review itself (the bridge's policy does), and never throw: a chat line must go on.

import type { Logger } from 'pino';
import { BridgeRefusal, type BridgeSink, type PlayerIdentity, type ReviewOutcome } from '../../src/bridge/port.js';

/** What the player is told after typing the review command. Short: a chat box shows a line or two. */
const REVIEW_QUEUED = 'Thanks! Your review was received and will be sent to GameServerApp.';
const REVIEW_DELIVERED = 'Your review was delivered. Thank you!';

function refusalText(error: BridgeRefusal): string {
  switch (error.code) {
    case 'bad_input':
      return `Review not taken: ${error.message}.`;
    case 'cooldown':
      return `Review not taken: you reviewed recently (${error.message.replace(/^this player reviewed recently; /, '')}).`;
    case 'unavailable':
      return 'Review not taken right now; please try again later.';
    default:
      return 'Review not taken.';
  }
}

/** What the reviewer is told when the review's fate is known (AdapterPushes.reviewResult). */
export function reviewResultText(outcome: ReviewOutcome): string {
  return outcome.ok ? REVIEW_DELIVERED : `Your review was not accepted: ${outcome.error.message}`;
}

export interface ChatReview {
  readonly sink: BridgeSink;
  readonly adapterId: string;
  readonly player: PlayerIdentity;
  readonly stars: number;
  readonly comment: string;
  /** Tells the player privately where the game can; never rejects. */
  readonly tell: (player: PlayerIdentity, text: string) => Promise<void>;
  readonly logger: Logger;
}

/** Submits the review and tells the player it was queued, or why not. Never rejects. */
export async function submitChatReview(review: ChatReview): Promise<void> {
  const { sink, player, tell } = review;
  const ref = player.steamId ?? player.eosId ?? player.mojangId ?? '';
  try {
    await sink.submitReview({ player, stars: review.stars, comment: review.comment, origin: { adapter: review.adapterId, ref } });
  } catch (error) {
    if (error instanceof BridgeRefusal) {
      await tell(player, refusalText(error));
      return;
    }
    review.logger.error({ err: error }, 'a chat review could not be submitted');
    await tell(player, 'Review not taken right now; please try again later.');
    return;
  }
  await tell(player, REVIEW_QUEUED);
}
