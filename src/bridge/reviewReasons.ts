// The word a finished review's reason is stored and listed under (reviews.jsonl, the letter files, `reviews list`):
// the mod protocol's `review.result` code for the same cause (docs/mod-protocol.md, "Wire codes"), so a host reading
// the listing and a mod author reading the wire see one word for one cause. GSA's 403 is `not_eligible` there;
// `forbidden` on the wire is only the host's refusal of a server action. The GSA client keeps its own codes
// (src/gsa/errors.ts); this is where a review's reason leaves them. The wire's mapping (adapters/websocket/wireCodes.ts)
// takes its words from here, through port.ts, so the two cannot drift apart.

/** Client codes whose word on the wire differs; every other code is the same word. */
const RENAMED: Readonly<Record<string, string>> = {
  forbidden: 'not_eligible',
  invalid_input: 'invalid',
  // A System API per-player or per-server cooldown: to a mod, the same "come back later" as a rate limit.
  cooldown: 'rate_limited',
  // Not sent because GSA refused the credentials a moment ago (credentialsBreaker.ts): the same cause as a 401.
  credentials_refused: 'unauthorized',
};

/**
 * The stored and listed word for a reason code: a GSA client code when a review finishes, or a code read back from a
 * file an older version wrote (which stored the client's codes: `forbidden` for a 403). Unknown codes pass unchanged.
 */
export function reviewReasonCode(code: string): string {
  return Object.hasOwn(RENAMED, code) ? (RENAMED[code] ?? code) : code;
}
