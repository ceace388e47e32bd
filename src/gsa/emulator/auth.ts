/**
 * Checks the client id and secret a request presents against the emulator's keys, and holds the one
 * answer every failure gets.
 * Must never reveal the secret, nor which of the two was wrong: every failure looks the same.
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

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}
