// The credentials breaker: after a 401, calls fail at once with credentials_refused; one call a minute goes through
// as the probe; an answer that passed the credential check closes it; a reload's probeNow lets the next call go.
// Driven by a hand-set clock.
import { describe, expect, it } from 'vitest';
import { CredentialsBreaker, CredentialsRefusedError } from '../../src/gsa/index.js';

function breakerAt(): { breaker: CredentialsBreaker; advance: (ms: number) => void } {
  let now = 1_000_000;
  const breaker = new CredentialsBreaker({ clock: { now: () => now } });
  return {
    breaker,
    advance: (ms) => {
      now += ms;
    },
  };
}

describe('CredentialsBreaker', () => {
  it('lets every call go while closed', () => {
    const { breaker } = breakerAt();
    for (let index = 0; index < 5; index++) expect(breaker.admit()).toEqual({ pass: true, probe: false });
    expect(breaker.open).toBe(false);
    expect(breaker.nextProbeInMs).toBe(0);
  });

  it('after a 401 refuses calls with credentials_refused, and lets one through as the probe a minute later', () => {
    const { breaker, advance } = breakerAt();
    breaker.observe(401, false);
    expect(breaker.open).toBe(true);
    const refused = breaker.admit();
    expect(refused.pass).toBe(false);
    if (refused.pass) return;
    expect(refused.error).toBeInstanceOf(CredentialsRefusedError);
    expect(refused.error.code).toBe('credentials_refused');
    expect(refused.error.status).toBeUndefined();
    expect(refused.error.maybeProcessed).toBe(false);
    expect(refused.error.message).toMatch(/^not sent: GSA refused these API credentials \(401\) at .*; the next call goes through as a probe in 60 s/);
    advance(59_999);
    expect(breaker.nextProbeInMs).toBe(1);
    expect(breaker.admit().pass).toBe(false);
    advance(1);
    expect(breaker.admit()).toEqual({ pass: true, probe: true });
    // Only one probe at a time: the others are refused while it is on its way.
    const meanwhile = breaker.admit();
    expect(meanwhile.pass).toBe(false);
    if (!meanwhile.pass) expect(meanwhile.error.message).toMatch(/a probe is on its way/);
  });

  it('a probe answered 401 waits a full minute again; one answered 2xx closes it', () => {
    const { breaker, advance } = breakerAt();
    breaker.observe(401, false);
    advance(60_000);
    expect(breaker.admit()).toEqual({ pass: true, probe: true });
    advance(300);
    breaker.observe(401, true);
    expect(breaker.nextProbeInMs).toBe(60_000);
    expect(breaker.admit().pass).toBe(false);
    advance(60_000);
    expect(breaker.admit()).toEqual({ pass: true, probe: true });
    breaker.observe(200, true);
    expect(breaker.open).toBe(false);
    expect(breaker.admit()).toEqual({ pass: true, probe: false });
  });

  it('a probe answered 404, 403 or 422 passed the credential check and closes it; a 429 or a 5xx does not', () => {
    for (const status of [403, 404, 422]) {
      const { breaker, advance } = breakerAt();
      breaker.observe(401, false);
      advance(60_000);
      breaker.admit();
      breaker.observe(status, true);
      expect(breaker.open).toBe(false);
    }
    for (const status of [429, 500, 503]) {
      const { breaker, advance } = breakerAt();
      breaker.observe(401, false);
      advance(60_000);
      breaker.admit();
      breaker.observe(status, true);
      expect(breaker.open).toBe(true);
      expect(breaker.nextProbeInMs).toBe(60_000);
    }
  });

  it('a probe that got no answer gives its turn back only after a full interval', () => {
    const { breaker, advance } = breakerAt();
    breaker.observe(401, false);
    advance(60_000);
    expect(breaker.admit().pass).toBe(true);
    breaker.probeEnded();
    expect(breaker.nextProbeInMs).toBe(60_000);
    expect(breaker.admit().pass).toBe(false);
  });

  it('probeNow lets the next call go at once while open, and says whether it was open', () => {
    const { breaker } = breakerAt();
    expect(breaker.probeNow()).toBe(false);
    breaker.observe(401, false);
    expect(breaker.admit().pass).toBe(false);
    expect(breaker.probeNow()).toBe(true);
    expect(breaker.nextProbeInMs).toBe(0);
    expect(breaker.admit()).toEqual({ pass: true, probe: true });
  });

  it('takes its interval as an option', () => {
    let now = 0;
    const breaker = new CredentialsBreaker({ clock: { now: () => now }, probeIntervalMs: 5000 });
    breaker.observe(401, false);
    now = 4999;
    expect(breaker.admit().pass).toBe(false);
    now = 5000;
    expect(breaker.admit().pass).toBe(true);
  });
});
