// What a mod is told when GSA's Mod API could not answer one of its requests: the service's error mapped onto the
// bridge's refusals (errors.ts), so each adapter maps them onto its own wire codes as it does for reviews. A player's
// own mistake (GSA's 422, an unknown shop pack) is `bad_input` with the field; the host's setup problem (401, an
// unknown server) is `unavailable` with the generic line, never GSA's words (hostSideErrors.ts); a busy budget is
// `cooldown` (the wire's `rate_limited`); anything else is `unavailable`.
// It never logs, retries or decides whether to ask: it only translates.

import { GsaError, InvalidInputError } from '../gsa/index.js';
import { BadInputRefusal, BridgeRefusal, CooldownRefusal, UnavailableRefusal } from './errors.js';
import { HOST_SIDE_MESSAGE, isHostSideCode } from './hostSideErrors.js';

/**
 * The refusal for a failed Mod API request. `what`: the request for people ("the shop"); `fieldOf404`: the field an
 * unknown-resource answer blames (a shop pack's `item`), when the request names one.
 */
export function refusalOf(error: unknown, what: string, fieldOf404?: string): BridgeRefusal {
  if (error instanceof BridgeRefusal) return error;
  if (!(error instanceof GsaError)) return new UnavailableRefusal(`${what} could not be asked of GSA right now; try again later`);
  if (error instanceof InvalidInputError) {
    const [field] = Object.keys(error.fieldErrors);
    return new BadInputRefusal(error.message, field);
  }
  const words = error.serviceMessage !== undefined && error.serviceMessage !== '' ? error.serviceMessage : error.message;
  if (error.code === 'not_found' && fieldOf404 !== undefined) return new BadInputRefusal(`GSA does not know it: ${words}`, fieldOf404);
  if (isHostSideCode(error.code)) return new UnavailableRefusal(HOST_SIDE_MESSAGE);
  switch (error.code) {
    case 'invalid':
    case 'refused':
    case 'forbidden':
      return new BadInputRefusal(`GSA refused it: ${words}`);
    case 'rate_limited':
    case 'cooldown':
      return new CooldownRefusal(`GSA's API budget is busy; try ${what} again in a little while`);
    default:
      return new UnavailableRefusal(`${what} could not be asked of GSA right now (${error.code}); try again later`);
  }
}
