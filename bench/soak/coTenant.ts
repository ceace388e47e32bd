// The hostile co-tenant of the three-node soak (issue 19): another program that can write under the sidecars' prefix
// in their Redis, through its own connection. It forges a hold 10 years ahead and deletes it a few seconds later,
// forges a hold within the sidecars' cap and deletes it early, forges claims on every class of calls that live 10
// years, and wipes Redis (FLUSHALL) under load. Each act is recorded with its times on the soak's clock.
// It judges nothing (multiNodeRows.ts does) and never writes a key outside the shared budget's name, except by
// FLUSHALL, which is the point. It never prints the Redis URL: it may carry the password.
import { connectSharedRedis, redisErrorText, redisUrlSecrets, type SharedRedis } from '../../src/gsa/redis/sharedRedis.js';

/** What the co-tenant does; each act is one of these. */
export type CoTenantActKind = 'FLUSHALL' | 'forged claims' | 'forged hold 10 years ahead' | 'forged hold within the cap';

export interface CoTenantAct {
  readonly kind: CoTenantActKind;
  /** When Redis had answered the write (soak clock). */
  readonly at: number;
  /** A forged hold: when Redis had answered its DEL. */
  readonly deletedAt?: number;
  /** A forged hold: the end it named, on the soak clock. */
  readonly endsAt?: number;
  /**
   * A forged hold, when `window` was given: when the shared window as Redis held it at the delete had room again, if
   * nobody started meanwhile (soak clock; the delete itself when it had room then). The sidecars decide on that
   * window, not on what reached GSA: a start Redis counted and nobody used still takes its place.
   */
  readonly roomAt?: number;
  /** Forged claims: how long after the write the sidecars had removed every one of them (undefined: not within the poll). */
  readonly removedAfterMs?: number;
  /** What Redis or the connection said when the act failed. */
  readonly error?: string;
}

/** The node id the forged claims name: none of the sidecars'. */
export const GHOST_NODE = 'cotenant';
const CLAIM_KINDS = ['lookup', 'refresh', 'review', 'action'] as const;
export const TEN_YEARS_MS = 10 * 365 * 24 * 60 * 60 * 1000;
const CONNECT_TIMEOUT_MS = 5000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const silent = { debug: (): void => undefined };

export class CoTenant {
  readonly acts: CoTenantAct[] = [];
  readonly #client: SharedRedis;
  readonly #keyName: string;
  readonly #now: () => number;
  readonly #secrets: readonly string[];

  private constructor(client: SharedRedis, keyName: string, now: () => number, secrets: readonly string[]) {
    this.#client = client;
    this.#keyName = keyName;
    this.#now = now;
    this.#secrets = secrets;
  }

  /** @param keyName sharedKeyName(prefix, clientId): the name the sidecars keep their budget under. */
  static async connect(url: string, keyName: string, now: () => number): Promise<CoTenant> {
    const client = connectSharedRedis(url, silent, { connectTimeoutMs: 1000 });
    const deadline = now() + CONNECT_TIMEOUT_MS;
    while (!client.isReady) {
      if (now() > deadline) {
        client.destroy();
        throw new Error(`the co-tenant could not connect to Redis within ${CONNECT_TIMEOUT_MS} ms`);
      }
      await sleep(20);
    }
    return new CoTenant(client, keyName, now, redisUrlSecrets(url));
  }

  /** Redis's own clock (TIME), in ms: the sidecars' scripts read the same. */
  async #redisNow(): Promise<number> {
    const time = await this.#client.sendCommand<unknown>(['TIME']);
    if (!Array.isArray(time)) throw new Error('TIME did not answer an array');
    return Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
  }

  /** Wipes every key of every program on this Redis, the sidecars' too. */
  async flushAll(): Promise<CoTenantAct> {
    return this.#record('FLUSHALL', async () => {
      await this.#client.sendCommand(['FLUSHALL']);
      return { at: this.#now() };
    });
  }

  /** A claim on every class for a node that does not exist, each living 10 years, in one write. */
  async forgeClaims(pollEveryMs: number, pollForMs: number): Promise<CoTenantAct> {
    return this.#record('forged claims', async () => {
      const key = `${this.#keyName}:demand`;
      const fields = CLAIM_KINDS.map((kind) => `${GHOST_NODE}:${kind}`);
      const until = String((await this.#redisNow()) + TEN_YEARS_MS);
      await this.#client.sendCommand(['HSET', key, ...fields.flatMap((field) => [field, until])]);
      const at = this.#now();
      for (;;) {
        const left = await this.#client.sendCommand<unknown>(['HMGET', key, ...fields]);
        if (Array.isArray(left) && left.every((value) => value === null)) return { at, removedAfterMs: this.#now() - at };
        if (this.#now() - at > pollForMs) return { at };
        await sleep(pollEveryMs);
      }
    });
  }

  /**
   * Sets the hold `aheadMs` from Redis's now (with an expiry of as long when `expires`, as a sidecar writes it; none
   * otherwise), keeps it `keepMs`, then deletes it; with `window`, then reads when the window has room again.
   */
  async forgeHold(
    kind: 'forged hold 10 years ahead' | 'forged hold within the cap',
    aheadMs: number,
    keepMs: number,
    expires: boolean,
    window?: { readonly requests: number; readonly spanMs: number },
  ): Promise<CoTenantAct> {
    return this.#record(kind, async () => {
      const key = `${this.#keyName}:hold`;
      const value = String((await this.#redisNow()) + aheadMs);
      await this.#client.sendCommand(['SET', key, value, ...(expires ? ['PX', String(aheadMs)] : [])]);
      const at = this.#now();
      await sleep(keepMs);
      await this.#client.sendCommand(['DEL', key]);
      const deletedAt = this.#now();
      if (window === undefined) return { at, endsAt: at + aheadMs, deletedAt };
      return { at, endsAt: at + aheadMs, deletedAt, roomAt: deletedAt + (await this.#roomInMs(window.requests, window.spanMs)) };
    });
  }

  /** Ms until the window as Redis holds it has fewer than `requests` starts younger than `spanMs`, if nobody starts. */
  async #roomInMs(requests: number, spanMs: number): Promise<number> {
    const now = await this.#redisNow();
    const reply = await this.#client.sendCommand<unknown>(['ZRANGEBYSCORE', `${this.#keyName}:window`, `(${now - spanMs}`, '+inf', 'WITHSCORES']);
    // RESP3 answers [member, score] pairs, RESP2 one flat list.
    const flat: unknown[] = Array.isArray(reply) ? reply.flatMap((entry: unknown) => (Array.isArray(entry) ? (entry as unknown[]) : [entry])) : [];
    const scores = flat.filter((_, index) => index % 2 === 1).map(Number);
    if (scores.length < requests) return 0;
    return Math.max(0, (scores[scores.length - requests] ?? now) + spanMs - now);
  }

  /**
   * Whether the shared window, as Redis holds it now, will have room `inMs` from now if nobody starts meanwhile: fewer
   * than `requests` starts younger than `spanMs` then. A co-tenant choosing its moment: sidecars waiting on a full
   * window ask again only when it has room, so a hold written just before that is met.
   */
  async roomIn(inMs: number, requests: number, spanMs: number): Promise<boolean> {
    try {
      const now = await this.#redisNow();
      const count = await this.#client.sendCommand<unknown>(['ZCOUNT', `${this.#keyName}:window`, `(${now + inMs - spanMs}`, '+inf']);
      return typeof count === 'number' && count < requests;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    this.#client.destroy();
    return Promise.resolve();
  }

  async #record(kind: CoTenantActKind, act: () => Promise<Omit<CoTenantAct, 'kind'>>): Promise<CoTenantAct> {
    let recorded: CoTenantAct;
    try {
      recorded = { kind, ...(await act()) };
    } catch (error) {
      recorded = { kind, at: this.#now(), error: redisErrorText(error, this.#secrets) };
    }
    this.acts.push(recorded);
    return recorded;
  }
}
