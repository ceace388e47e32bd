// `gsa-bridge review --server NAME (--steam-id ID | --eos-id ID) --stars N --comment TEXT`: one review,
// sent directly (no outbox). When the outcome is unknown it says so rather than sending it twice.

import { GsaError } from '../gsa/index.js';
import type { CliContext } from './context.js';
import { EXIT_OK } from './exitCodes.js';
import { CONFIG_OPTION, PLAYER_OPTIONS, PRETTY_OPTION, TIMEOUT_OPTION, defineCommand, parseCommandLine, playerOf } from './options.js';
import { withServiceSession } from './serviceSession.js';

export const REVIEW_COMMAND = defineCommand({
  name: 'review',
  synopsis: '--server NAME (--steam-id ID | --eos-id ID) --stars N --comment TEXT [--timeout SECONDS] [--config FILE] [--pretty]',
  summary: 'one review, sent directly (not through the outbox)',
  details: ['Exit 0 delivered, 1 refused or not delivered (it says when the service may have stored it anyway), 2 on a usage or config error.'],
  options: {
    server: { type: 'string', value: 'NAME', required: true, description: 'the GSA container name, as in the config' },
    ...PLAYER_OPTIONS,
    stars: { type: 'integer', value: 'N', required: true, description: 'the rating (reviews.minStars to reviews.maxStars)' },
    // Required, as in the contract: a review sent without one by mistake cannot be taken back.
    comment: { type: 'string', value: 'TEXT', required: true, description: 'what the player wrote; "" for none' },
    ...TIMEOUT_OPTION,
    ...CONFIG_OPTION,
    ...PRETTY_OPTION,
  },
});

export async function reviewCommand(args: readonly string[], context: CliContext): Promise<number> {
  const { options } = parseCommandLine(REVIEW_COMMAND, args);
  const server = options.server;
  const player = playerOf(options);
  const { stars } = options;
  return withServiceSession(context, { configPath: options.config, pretty: options.pretty, timeoutSeconds: options.timeout }, async ({ client, callOptions }) => {
    try {
      const receipt = await client.submitReview(server, player, stars, options.comment, callOptions('review'));
      context.stdout.write(`review delivered: ${receipt.message}\n`);
      return EXIT_OK;
    } catch (error) {
      if (error instanceof GsaError && error.maybeProcessed) {
        context.stderr.write('note: the service may have stored this review before the failure; check the dashboard before sending it again\n');
      }
      throw error;
    }
  });
}
