// Holds the API key pair so that the secret can be used to build requests but cannot leak by accident:
// it lives in a private field, which JSON.stringify, util.inspect and pino all skip.
// Never add a getter, toJSON or toString that returns the secret.

import { inspect } from 'node:util';
import { replaceForms, scrubbableForms } from '../../log/secretForms.js';

export class Credentials {
  readonly clientId: string;
  readonly #clientSecret: string;
  /** The secret raw, JSON-escaped, form- and percent-encoded: a service or proxy may echo any of them. */
  readonly #forms: readonly string[];

  constructor(clientId: string, clientSecret: string) {
    this.clientId = clientId;
    this.#clientSecret = clientSecret;
    this.#forms = scrubbableForms([clientSecret]);
  }

  /** Lends the secret to a request builder; the only way to read it. */
  useSecret<T>(build: (secret: string) => T): T {
    return build(this.#clientSecret);
  }

  /** Replaces every occurrence of the secret, in any encoding, in text that came from elsewhere (a service message may echo input). */
  scrub(text: string): string {
    return replaceForms(text, this.#forms, '***');
  }

  toJSON(): { clientId: string; clientSecret: string } {
    return { clientId: this.clientId, clientSecret: '***' };
  }

  [inspect.custom](): string {
    return `Credentials { clientId: ${JSON.stringify(this.clientId)}, clientSecret: '***' }`;
  }
}

/**
 * The System API key (a bearer token), held like Credentials' secret: a private field that JSON.stringify,
 * util.inspect and pino skip. Never add a getter, toJSON or toString that returns it.
 */
export class SecretKey {
  readonly #key: string;
  readonly #forms: readonly string[];

  constructor(key: string) {
    this.#key = key;
    this.#forms = scrubbableForms([key]);
  }

  /** Lends the key to a request builder; the only way to read it. */
  useSecret<T>(build: (key: string) => T): T {
    return build(this.#key);
  }

  /** Replaces every occurrence of the key, in any encoding, in text that came from elsewhere. */
  scrub(text: string): string {
    return replaceForms(text, this.#forms, '***');
  }

  toJSON(): string {
    return '***';
  }

  [inspect.custom](): string {
    return "SecretKey { '***' }";
  }
}
