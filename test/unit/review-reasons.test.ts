// One vocabulary: the word a finished review's reason is stored and listed under is the mod protocol's word for the
// same cause, for every code the GSA client has (and `unconfirmed`), and files an older version wrote read the same.
import { describe, expect, it } from 'vitest';
import { resultWireCode } from '../../adapters/websocket/wireCodes.js';
import { reviewReasonCode } from '../../src/bridge/reviewReasons.js';
import type { GsaErrorCode } from '../../src/gsa/errors.js';

// A Record keyed by the type: a new client code fails to compile here until it is given its word.
const CLIENT_CODES: Record<GsaErrorCode, true> = {
  invalid_input: true,
  unauthorized: true,
  credentials_refused: true,
  forbidden: true,
  not_found: true,
  invalid: true,
  refused: true,
  rate_limited: true,
  cooldown: true,
  unavailable: true,
  server_error: true,
  network: true,
  timeout: true,
  bad_response: true,
};

describe('review reason codes', () => {
  it.each([...Object.keys(CLIENT_CODES), 'unconfirmed'])('%s is listed under the wire\'s word', (code) => {
    expect(reviewReasonCode(code)).toBe(resultWireCode(code));
  });

  it('reads GSA\'s 403 as not_eligible, never forbidden, and leaves today\'s words and unknown codes alone', () => {
    expect(reviewReasonCode('forbidden')).toBe('not_eligible');
    expect(reviewReasonCode('not_eligible')).toBe('not_eligible');
    expect(reviewReasonCode('invalid')).toBe('invalid');
    expect(reviewReasonCode('written-by-hand')).toBe('written-by-hand');
    expect(reviewReasonCode('toString')).toBe('toString');
  });
});
