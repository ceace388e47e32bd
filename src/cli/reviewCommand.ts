// `gsa-bridge review --server NAME (--steam-id ID | --eos-id ID) --stars N --comment TEXT`: one review,
// sent directly (no outbox). When the outcome is unknown it says so rather than sending it twice.

import { CONFIG_OPTION, PLAYER_OPTIONS, integerFlag, parseCommandArguments, playerFlags, requiredFlag, stringFlag } from './arguments.js';
import type { CliContext } from './context.js';
import { EXIT_OK } from './exitCodes.js';
import { withServiceSession } from './serviceSession.js';
import { GsaError } from '../gsa/index.js';
import { UsageError } from './usageError.js';

export const REVIEW_USAGE = 'gsa-bridge review --server NAME (--steam-id ID | --eos-id ID) --stars N --comment TEXT [--config FILE]';

export async function reviewCommand(args: readonly string[], context: CliContext): Promise<number> {
  const parsed = parseCommandArguments(args, {
    ...CONFIG_OPTION,
    ...PLAYER_OPTIONS,
    server: { type: 'string' },
    stars: { type: 'string' },
    comment: { type: 'string' },
  });
  const server = requiredFlag(parsed, 'server');
  const player = playerFlags(parsed);
  const stars = integerFlag(parsed, 'stars');
  if (stars === undefined) throw new UsageError('--stars is required');
  const comment = stringFlag(parsed, 'comment') ?? '';
  return withServiceSession(context, stringFlag(parsed, 'config'), async ({ client }) => {
    try {
      const receipt = await client.submitReview(server, player, stars, comment);
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
