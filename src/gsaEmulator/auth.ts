/**
 * Checks the client id and secret a request presents against the emulator's keys (and the System API key a
 * `Authorization: Bearer` header presents), and holds the one answer every failure gets.
 * Must never reveal a secret, nor which of the two was wrong: every failure looks the same.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { messageReply } from './httpIo.js';

/** Laravel's answer to failed API authentication; the same for a wrong id, a wrong secret, or an unbound server. */
export const UNAUTHENTICATED_REPLY = messageReply(401, 'Unauthenticated.');

export class AcceptedCredentials {
  readonly #idDigest: Buffer;
  readonly #secretDigest: Buffer;

  constructor(clientId: string, clientSecret: string) {
    this.#idDigest = digest(clientId);
    this.#secretDigest = digest(clientSecret);
  }

  /** Missing values never match. Both digests are compared every time so timing says nothing about which failed. */
  matches(clientId: string | undefined, clientSecret: string | undefined): boolean {
    // Hashing first gives equal-length buffers, which timingSafeEqual needs, and hides the secret's length.
    const idOk = timingSafeEqual(digest(clientId ?? ''), this.#idDigest);
    const secretOk = timingSafeEqual(digest(clientSecret ?? ''), this.#secretDigest);
    return clientId !== undefined && clientSecret !== undefined && idOk && secretOk;
  }
}

/** The one System API v2 key the emulator accepts, presented as `Authorization: Bearer <key>`. */
export class AcceptedSystemKey {
  readonly #digest: Buffer;

  constructor(key: string) {
    this.#digest = digest(key);
  }

  /** A missing header, another scheme or an empty key never match; the scheme is case-insensitive as in RFC 9110. */
  matches(authorization: string | undefined): boolean {
    const match = /^bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
    const presented = match?.[1];
    const ok = timingSafeEqual(digest(presented ?? ''), this.#digest);
    return presented !== undefined && ok;
  }
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
