// The mod protocol's wire codes: every bridge refusal and every service error code maps onto one, GSA's 403 is
// never `forbidden` (that is the host's refusal), and a code the mapping does not know never leaks through.
import { describe, expect, it } from 'vitest';
import { REFUSAL_WIRE_CODES, refusalWireCode, resultWireCode } from '../../adapters/websocket/wireCodes.js';
import {
  ActionNotAllowedRefusal,
  BadInputRefusal,
  CooldownRefusal,
  NoGameserverIdRefusal,
  RequestNotAllowedRefusal,
  UnavailableRefusal,
  type BridgeRefusal,
} from '../../src/bridge/errors.js';
import type { GsaErrorCode } from '../../src/gsa/errors.js';

describe('refusals → error frame codes', () => {
  it.each<[BridgeRefusal, string]>([
    [new BadInputRefusal('stars must be 1–5', 'stars'), 'bad_message'],
    [new CooldownRefusal('try again in 5 s'), 'rate_limited'],
    [new ActionNotAllowedRefusal('not allowed', 'action'), 'forbidden'],
    [new RequestNotAllowedRefusal('shop requests are not allowed'), 'forbidden'],
    [new NoGameserverIdRefusal('no id'), 'unavailable'],
    [new UnavailableRefusal('shutting down'), 'unavailable'],
  ])('%s → %s', (refusal, wire) => {
    expect(refusalWireCode(refusal.code)).toBe(wire);
  });

  it('gives forbidden to the host refusing an action or a Mod API request (allowRequests) and to nothing else', () => {
    expect(Object.entries(REFUSAL_WIRE_CODES).filter(([, wire]) => wire === 'forbidden')).toEqual([
      ['action_not_allowed', 'forbidden'],
      ['request_not_allowed', 'forbidden'],
    ]);
  });

  it('each refusal class carries its own code', () => {
    const codes = [new BadInputRefusal('x'), new CooldownRefusal('x'), new ActionNotAllowedRefusal('x'), new NoGameserverIdRefusal('x'), new UnavailableRefusal('x')].map(
      (refusal) => refusal.code,
    );
    expect(new Set(codes).size).toBe(codes.length);
  });
});

describe('service codes → result codes', () => {
  const every: Record<GsaErrorCode, string> = {
    forbidden: 'not_eligible',
    invalid_input: 'invalid',
    invalid: 'invalid',
    unauthorized: 'unauthorized',
    // Calls paused after a 401: the same cause to a mod, who cannot tell the two apart anyway.
    credentials_refused: 'unauthorized',
    not_found: 'not_found',
    refused: 'refused',
    rate_limited: 'rate_limited',
    cooldown: 'rate_limited',
    unavailable: 'unavailable',
    server_error: 'server_error',
    network: 'network',
    timeout: 'timeout',
    bad_response: 'bad_response',
  };

  it.each(Object.entries(every))('%s → %s', (service, wire) => {
    expect(resultWireCode(service)).toBe(wire);
  });

  it('never answers forbidden for a service refusal: GSA\'s 403 is not_eligible', () => {
    for (const service of Object.keys(every)) expect(resultWireCode(service)).not.toBe('forbidden');
  });

  it('maps the outbox\'s unconfirmed, and an unknown code to service_error rather than passing it through', () => {
    expect(resultWireCode('unconfirmed')).toBe('unconfirmed');
    expect(resultWireCode('teapot')).toBe('service_error');
    expect(resultWireCode('__proto__')).toBe('service_error');
    expect(resultWireCode('toString')).toBe('service_error');
  });
});
