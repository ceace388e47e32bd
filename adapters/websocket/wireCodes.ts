// The mod protocol owns the codes a mod sees. This is the one explicit mapping from the bridge's refusal codes
// and the service's error codes onto them (docs/mod-protocol.md, "Wire codes"): the core may add or rename its own
// codes without a mod noticing, and two different causes never share one wire code. Must never pass a code
// through unmapped: an unknown code becomes `internal` (refusals) or `service_error` (results).
import type { BridgeRefusalCode } from '../../src/bridge/errors.js';
import { serviceCodeWord } from '../../src/bridge/port.js';
import type { ProtocolErrorCode } from './protocol.js';

/** The `error` frame's code for each bridge refusal. */
export const REFUSAL_WIRE_CODES: { readonly [Code in BridgeRefusalCode]: ProtocolErrorCode } = {
  bad_input: 'bad_message',
  cooldown: 'rate_limited',
  // The host did not allow it: `forbidden` means exactly this and nothing else on the wire.
  action_not_allowed: 'forbidden',
  // A Mod API request outside the server's allowRequests: the host did not allow it either.
  request_not_allowed: 'forbidden',
  no_gameserver_id: 'unavailable',
  unavailable: 'unavailable',
};

/** The `error.code` of a `review.result`, `report.result` or `server.action.result` with `ok: false`. */
export type ResultWireCode =
  | 'not_eligible'
  | 'invalid'
  | 'refused'
  | 'unauthorized'
  | 'not_found'
  | 'rate_limited'
  | 'unavailable'
  | 'server_error'
  | 'network'
  | 'timeout'
  | 'bad_response'
  | 'unconfirmed'
  | 'service_error';

/**
 * Every word a result may carry. The service's codes (src/gsa/errors.ts, plus the outbox's `unconfirmed`) take the
 * bridge's one word for each (serviceCodeWord: GSA's 403 is `not_eligible`, never `forbidden`, which is the host's
 * refusal above), the same word `reviews list` shows; a word not listed here reaches a mod as `service_error`.
 */
const RESULT_WIRE_CODES: ReadonlySet<string> = new Set<ResultWireCode>([
  'not_eligible',
  'invalid',
  'refused',
  'unauthorized',
  'not_found',
  'rate_limited',
  'unavailable',
  'server_error',
  'network',
  'timeout',
  'bad_response',
  'unconfirmed',
]);

export function refusalWireCode(code: BridgeRefusalCode): ProtocolErrorCode {
  return REFUSAL_WIRE_CODES[code];
}

export function resultWireCode(serviceCode: string): ResultWireCode {
  const word = serviceCodeWord(serviceCode);
  return RESULT_WIRE_CODES.has(word) ? (word as ResultWireCode) : 'service_error';
}
