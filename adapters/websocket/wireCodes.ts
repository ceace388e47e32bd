// The mod protocol owns the codes a mod sees. This is the one explicit mapping from the bridge's refusal codes
// and the service's error codes onto them (docs/mod-protocol.md, "Wire codes"): the core may add or rename its own
// codes without a mod noticing, and two different causes never share one wire code. Must never pass a code
// through unmapped: an unknown code becomes `internal` (refusals) or `service_error` (results).
import type { BridgeRefusalCode } from '../../src/bridge/errors.js';
import type { ProtocolErrorCode } from './protocol.js';

/** The `error` frame's code for each bridge refusal. */
export const REFUSAL_WIRE_CODES: { readonly [Code in BridgeRefusalCode]: ProtocolErrorCode } = {
  bad_input: 'bad_message',
  cooldown: 'rate_limited',
  // The host did not allow it: `forbidden` means exactly this and nothing else on the wire.
  action_not_allowed: 'forbidden',
  no_gameserver_id: 'unavailable',
  unavailable: 'unavailable',
};

/** The `error.code` of a `review.result` or `server.action.result` with `ok: false`. */
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
 * The service's codes (src/gsa/errors.ts, plus the outbox's `unconfirmed`) as a mod sees them. GSA's 403 is
 * `not_eligible` (the player may not do this yet), never `forbidden`, which is the host's refusal above.
 */
const SERVICE_WIRE_CODES: Readonly<Record<string, ResultWireCode>> = {
  forbidden: 'not_eligible',
  invalid: 'invalid',
  invalid_input: 'invalid',
  refused: 'refused',
  unauthorized: 'unauthorized',
  not_found: 'not_found',
  rate_limited: 'rate_limited',
  unavailable: 'unavailable',
  server_error: 'server_error',
  network: 'network',
  timeout: 'timeout',
  bad_response: 'bad_response',
  unconfirmed: 'unconfirmed',
};

export function refusalWireCode(code: BridgeRefusalCode): ProtocolErrorCode {
  return REFUSAL_WIRE_CODES[code];
}

export function resultWireCode(serviceCode: string): ResultWireCode {
  return Object.hasOwn(SERVICE_WIRE_CODES, serviceCode) ? (SERVICE_WIRE_CODES[serviceCode] ?? 'service_error') : 'service_error';
}
