// `run`'s check of the API credentials: once at start, and again after a reload that gave the sidecar a new service
// client (new keys, another address). Without it a wrong secret starts quietly and /readyz says ready until the
// first player speaks. It is config check --connect's harmless call (lookupProbePlayer), made through the sidecar's
// own client: it counts in the api.rateLimit budget like any mute lookup, and ServiceHealth sees its answer, so a
// refusal is ServiceHealth's one error line (naming where the secret came from) and a /readyz reason at once.
// It never retries, never holds the adapters back (the caller does not await it before they start), never stops the
// sidecar (an unreachable service is a warning; readiness follows its usual rules), and never rejects.

import type { Logger } from 'pino';
import type { Sidecar } from '../sidecar.js';
import { lookupProbePlayer, passedCredentials } from './connectionChecks.js';

/** accepted: GSA let the call past its credential check; refused: 401; unchecked: no usable answer (or no server). */
export type CredentialsCheckResult = 'accepted' | 'refused' | 'unchecked';

/** The lookup's source in the budget's turns (see CheckMutedOptions.source): apart from every adapter's. */
const CHECK_SOURCE = 'credentials-check';

/**
 * One mute lookup for a player no account has, on the first configured server; what it showed is logged. `stopping`
 * aborts it (the process is stopping): it then ends quietly.
 */
export async function checkCredentialsOnce(sidecar: Sidecar, logger: Logger, when: 'start' | 'reload', stopping?: AbortSignal): Promise<CredentialsCheckResult> {
  const { config } = sidecar;
  const [first] = config.servers;
  if (first === undefined) {
    logger.info(`API credentials not checked at ${when}: the check asks about a server, and none is configured`);
    return 'unchecked';
  }
  const where = `${config.api.baseUrl} (${config.api.flavor})`;
  try {
    const failure = await lookupProbePlayer(sidecar.client, first.name, { source: CHECK_SOURCE, signal: stopping });
    // A stop ends the lookup (the client closes): that is no news about the credentials.
    if (stopping?.aborted === true) return 'unchecked';
    if (passedCredentials(failure)) {
      // A server GSA does not know (404) passed the credential check; ServiceHealth reports the name on its own line.
      logger.info(`API credentials accepted by ${where} (checked at ${when} with one mute lookup)`);
      return 'accepted';
    }
    // ServiceHealth has logged the refusal (error, with where the secret came from) and /readyz reports it.
    // credentials_refused: the sidecar's calls are paused after a 401 and no probe was due; the same news.
    if (failure?.code === 'unauthorized' || failure?.code === 'credentials_refused') return 'refused';
    const answer = failure === undefined ? '' : `${failure.code}${failure.status === undefined ? '' : ` ${String(failure.status)}`}: ${failure.message}`;
    logger.warn(
      { code: failure?.code },
      `API credentials not checked at ${when}: no usable answer from ${where} (${answer}). Serving on: chat is decided by mute.onUnknown and reviews wait on disk until GSA answers; check api.baseUrl and the network if this lasts`,
    );
    return 'unchecked';
  } catch (error) {
    // lookupProbePlayer rethrows only what is not a service answer (a bug): the check must still not end the process.
    logger.error({ err: error }, `the API credentials check at ${when} failed`);
    return 'unchecked';
  }
}
