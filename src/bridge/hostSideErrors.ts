// Keeps the host's setup problems away from players: when GSA refuses a call because of the host's config (401:
// the API keys, or a server not bound to them; 404: an unknown server), a mod and its player get a generic line,
// while the sidecar's log names the key to fix (src/ops/serviceHealth.ts). A player's own refusals (403 not
// eligible, 422) still carry the service's words. It never hides the error code, only the service's text.

/** The service's codes that mean the host's configuration is wrong, not the player's request. */
const HOST_SIDE_CODES: ReadonlySet<string> = new Set(['unauthorized', 'credentials_refused', 'not_found']);

export const HOST_SIDE_MESSAGE = "the server's GSA connection is misconfigured; an admin has been told (details are in the sidecar's log)";

export function isHostSideCode(code: string): boolean {
  return HOST_SIDE_CODES.has(code);
}

/** The message a mod may show for a failure with this code: the generic line for host-side codes, else `message`. */
export function messageForPlayers(code: string, message: string): string {
  return isHostSideCode(code) ? HOST_SIDE_MESSAGE : message;
}
