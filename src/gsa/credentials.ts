// Holds the API key pair so that the secret can be used to build requests but cannot leak by accident:
// it lives in a private field, which JSON.stringify, util.inspect and pino all skip.
// Never add a getter, toJSON or toString that returns the secret.

import { inspect } from 'node:util';

export class Credentials {
  readonly clientId: string;
  readonly #clientSecret: string;

  constructor(clientId: string, clientSecret: string) {
    this.clientId = clientId;
    this.#clientSecret = clientSecret;
  }

  /** Lends the secret to a request builder; the only way to read it. */
  useSecret<T>(build: (secret: string) => T): T {
    return build(this.#clientSecret);
  }

  /** Replaces every occurrence of the secret in text that came from elsewhere (a service message may echo input). */
  scrub(text: string): string {
    return this.#clientSecret.length === 0 ? text : text.split(this.#clientSecret).join('***');
  }

  toJSON(): { clientId: string; clientSecret: string } {
    return { clientId: this.clientId, clientSecret: '***' };
  }

  [inspect.custom](): string {
    return `Credentials { clientId: ${JSON.stringify(this.clientId)}, clientSecret: '***' }`;
  }
}
