// Keeps GSA's webhook spacing across sidecars and one-shot commands on one API key: two calls of the same action on
// the same server leave at least `spacingMs` apart whichever process sends them, measured on Redis's clock (TIME),
// never the machines'. Inside one process calls queue on the LocalWebhookSpacing as before; the one whose turn comes
// then waits for the connection (a one-shot command has only just opened it), takes a lease on the key in Redis (one
// atomic script per decision), renews it while it waits for the budget, and on leaving records when it left and
// drops the lease. A holder killed with kill -9 blocks its key for one lease TTL at most; close() sends what is still
// pending first, so a one-shot command that exits right after its call leaves its departure in Redis.
// Redis is never a single point of failure: no connection within `connectTimeoutMs`, an error, or no answer within
// `commandTimeoutMs` lets the call go on with the local spacing only (one warning per outage, one line when Redis
// answers again). Redis is also a place others can write to: every value read is checked in the script (a number,
// not beyond Redis's now plus one spacing or one lease TTL); a bad one is dropped and logged once, and no turn waits
// longer than `longestTurnMs` in total (what an honest holder can take), whatever Redis holds or however its clock steps.
// It stores nothing but a random lease token and times, under a name made from a hash of the client id; it never
// sends a webhook and never decides whether a call is allowed, only when.

import { randomUUID } from 'node:crypto';
import { systemClock, type Clock } from '../../time/clock.js';
import { steadyClock } from '../../time/steadyClock.js';
import { NoAnswerError, redisScript, runRedisScript, type RedisCommander, type RedisScript } from '../redis/redisScript.js';
import { sharedKeyName } from '../redis/sharedKeyName.js';
import { redisErrorText } from '../redis/sharedRedis.js';
import { delay, LocalWebhookSpacing, waitFor, WEBHOOK_SPACING_MS, type WebhookSpacing, type WebhookTurn } from './webhookSpacing.js';

/**
 * What the spacing takes from a Redis connection (node-redis's client has it as is); the connection's owner connects,
 * reconnects and closes it. `isReady` and the 'ready' and 'error' events let a call wait for a connection still
 * being made instead of deciding "Redis is away" before it had a chance.
 */
export interface WebhookSpacingRedis extends RedisCommander {
  readonly isReady: boolean;
  on(event: 'ready' | 'error', listener: (error?: unknown) => void): unknown;
  off(event: 'ready' | 'error', listener: (error?: unknown) => void): unknown;
}

/** Where the lines about Redis going and coming back, and about bad values found in it, are written; pino satisfies it. */
export interface WebhookSpacingLogger {
  warn(bindings: Record<string, unknown>, message: string): void;
  info(bindings: Record<string, unknown>, message: string): void;
}

export interface RedisWebhookSpacingOptions {
  /** The shared connection; better created with `disableOfflineQueue: true`, so calls fail at once while it is down. */
  readonly redis: WebhookSpacingRedis;
  /** `api.rateLimit.shared.prefix`: the first part of every Redis key. @example 'gsa-bridge' */
  readonly prefix: string;
  /** The API key's client id; only a hash of it reaches Redis (sharedKeyName.ts). */
  readonly clientId: string;
  /** Minimum time between two calls with one key leaving, in ms, across sidecars. Default WEBHOOK_SPACING_MS (3250). */
  readonly spacingMs?: number | undefined;
  /**
   * How long a lease lives in Redis unless its holder renews it (every third of it while waiting for the budget):
   * the longest a killed sidecar blocks a key. Default 30000; at least twice `commandTimeoutMs`.
   */
  readonly leaseTtlMs?: number | undefined;
  /**
   * The longest a call waits, in all, for the turn of a key another process holds: the longest an honest holder can
   * wait for the budget after taking its lease, plus one spacing. A lease held longer (renewed by a co-tenant, say)
   * is not waited for any more: the call goes on with the local spacing and one line. Default one spacing plus one
   * lease TTL; SharedApiKey gives it the budget's window, claim grace and Retry-After cap.
   */
  readonly longestTurnMs?: number | undefined;
  /** How long one Redis call may take before the call goes on with the local spacing. Default 250. */
  readonly commandTimeoutMs?: number | undefined;
  /** How long a call waits for a connection that is not up yet (a process that has just started). Default 1000. */
  readonly connectTimeoutMs?: number | undefined;
  /** How lines name the Redis: its URL without user or password (sharedRedis.ts redisLabel). Default none: "Redis". */
  readonly redisLabel?: string | undefined;
  /** Texts scrubbed from every reason before it is logged or told (the URL's password, as written and decoded). */
  readonly secrets?: readonly string[] | undefined;
  /**
   * Told, instead of the warning line, when calls start being spaced within this process only (once per outage),
   * with the reason, already scrubbed: a one-shot command writes its own line for a person. Default none.
   */
  readonly reportLocalOnly?: ((reason: string) => void) | undefined;
  /** Default none (silent). */
  readonly logger?: WebhookSpacingLogger | undefined;
  /** Time source of the local spacing and of the bound on one turn's wait; default the system clock, made steady. Redis's times are Redis's own. */
  readonly clock?: Clock | undefined;
}

/** Default lease TTL: long enough that renewing every 10 s costs nothing, short enough that a killed holder is soon forgotten. */
export const WEBHOOK_LEASE_TTL_MS = 30_000;
/** Default wait for one Redis answer before going on without it. */
export const WEBHOOK_REDIS_TIMEOUT_MS = 250;
/** Default wait for a connection that is still being made. */
export const WEBHOOK_CONNECT_TIMEOUT_MS = 1000;
/** How many spacings the time a call left is kept after it left: one is needed, the rest is margin. */
const KEEP_LEFT_SPACINGS = 2;

// Every script reads Redis's clock itself, so no machine's clock takes part. The key is a hash:
// holder (a random token per turn), heldUntil (ms, Redis clock), left (ms, Redis clock, when the last call left).
// Anything else there (another type, a field that is not a whole number of ms, a time further ahead than an honest
// writer could have put it) is dropped and named in the reply ("field:garbage", "field:future"), so the sidecar logs
// it once. A `left` ahead of now but within one spacing is what a clock stepped back looks like ("left:ahead"): it is
// taken as now, so the wait it causes is one spacing.
const PREAMBLE = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local problems = {}
local function checked(name, value, latest)
  local n = tonumber(value)
  if n == nil or n ~= n or n < 0 or n ~= math.floor(n) then
    problems[#problems + 1] = name .. ':garbage'
    return nil
  end
  if n > latest then
    problems[#problems + 1] = name .. ':future'
    return nil
  end
  return n
end
local kind = redis.call('TYPE', KEYS[1])['ok']
if kind ~= 'hash' and kind ~= 'none' then
  redis.call('DEL', KEYS[1])
  problems[#problems + 1] = 'key:garbage'
end
`;

/**
 * ARGV: token, spacingMs, leaseTtlMs. {0, problems} when the lease is taken, else {ms to wait before asking again,
 * problems}. While another holds the lease, the answer is at most one spacing: its call may leave at any moment, and
 * asking again within a spacing of that moment costs the next call no time (it must wait that spacing anyway).
 */
const CLAIM = `${PREAMBLE}local spacing = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
local f = redis.call('HMGET', KEYS[1], 'holder', 'heldUntil', 'left')
local wait = 0
if f[1] and f[1] ~= ARGV[1] then
  local held = checked('heldUntil', f[2] or '', now + ttl)
  if held == nil then
    redis.call('HDEL', KEYS[1], 'holder', 'heldUntil')
  elseif held > now then
    wait = math.min(held - now, spacing)
  end
end
if f[3] then
  local left = checked('left', f[3], now + spacing)
  if left == nil then
    redis.call('HDEL', KEYS[1], 'left')
  else
    if left > now then
      -- Taken as now, and kept so: the next ask must not wait for the same step again.
      problems[#problems + 1] = 'left:ahead'
      left = now
      redis.call('HSET', KEYS[1], 'left', now)
    end
    local spaced = left + spacing - now
    if spaced > wait then wait = spaced end
  end
end
if wait > 0 then return {wait, table.concat(problems, ' ')} end
redis.call('HSET', KEYS[1], 'holder', ARGV[1], 'heldUntil', now + ttl)
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return {0, table.concat(problems, ' ')}`;

/** ARGV: token, leaseTtlMs. 1 when the lease is still this token's and now lasts another TTL, else 0. */
const RENEW = `if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' or redis.call('HGET', KEYS[1], 'holder') ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'heldUntil', now + ttl)
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return 1`;

/**
 * ARGV: token, keepMs, leaseTtlMs. Records when a call left (also one that held no lease: Redis was away) and drops
 * its lease; the key then lives keepMs, or as long as another holder's lease if that is longer. {1, problems}.
 */
const LEAVE = `${PREAMBLE}redis.call('HSET', KEYS[1], 'left', now)
local f = redis.call('HMGET', KEYS[1], 'holder', 'heldUntil')
local keep = tonumber(ARGV[2])
if f[1] == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'holder', 'heldUntil')
elseif f[1] then
  local held = checked('heldUntil', f[2] or '', now + tonumber(ARGV[3]))
  if held == nil then
    redis.call('HDEL', KEYS[1], 'holder', 'heldUntil')
  elseif held - now > keep then
    keep = held - now
  end
end
redis.call('PEXPIRE', KEYS[1], keep)
return {1, table.concat(problems, ' ')}`;

/** ARGV: token. Drops the lease if it is still this token's (a hash left empty is deleted by Redis). */
const RELEASE = `if redis.call('TYPE', KEYS[1])['ok'] == 'hash' and redis.call('HGET', KEYS[1], 'holder') == ARGV[1] then
  redis.call('HDEL', KEYS[1], 'holder', 'heldUntil')
  return 1
end
return 0`;

/** ARGV: spacingMs. Ms until a call may leave by the last departure alone (0 when now); a bad value counts as none. */
const FREE_IN = `if redis.call('TYPE', KEYS[1])['ok'] ~= 'hash' then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local spacing = tonumber(ARGV[1])
local left = tonumber(redis.call('HGET', KEYS[1], 'left') or '')
if left == nil or left ~= left or left > now + spacing then return 0 end
local wait = left + spacing - now
if wait < 0 then return 0 end
if wait > spacing then return spacing end
return math.floor(wait)`;

const SCRIPTS = { freeIn: redisScript(FREE_IN), claim: redisScript(CLAIM), renew: redisScript(RENEW), leave: redisScript(LEAVE), release: redisScript(RELEASE) };

/** What a problem named by a script means, for the one line logged about it. */
const PROBLEMS: Readonly<Record<string, string>> = {
  'key:garbage': 'the key is not a hash; it was deleted',
  'heldUntil:garbage': 'a lease without a whole number of ms as its end; it was dropped',
  'heldUntil:future': "a lease ending more than one lease TTL after Redis's clock; it was dropped",
  'left:garbage': 'the time the last call left is not a whole number of ms; it was dropped',
  'left:future': "the time the last call left is more than one spacing ahead of Redis's clock; it was dropped",
  'left:ahead': "the time the last call left is ahead of Redis's clock (its clock stepped back: a failover?); taken as now, so the next call waits one spacing",
};

/** A script's reply, understood: its number and the problems it found in what Redis held. */
interface ScriptReply {
  readonly value: number;
  readonly problems: readonly string[];
}

function replyOf(reply: unknown): ScriptReply | undefined {
  if (typeof reply === 'number') return { value: reply, problems: [] };
  if (!Array.isArray(reply) || typeof reply[0] !== 'number') return undefined;
  const named: unknown = reply[1];
  return { value: reply[0], problems: typeof named === 'string' && named !== '' ? named.split(' ') : [] };
}

function wholeNumber(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be a whole number of 1 or more, got ${String(value)}`);
  return value;
}

function nonEmpty(name: string, value: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} must be a non-empty string`);
  return value;
}

/** Webhook spacing shared by every sidecar and one-shot command on one API key through one Redis. */
export class RedisWebhookSpacing implements WebhookSpacing {
  readonly #redis: WebhookSpacingRedis;
  readonly #base: string;
  readonly #spacingMs: number;
  readonly #leaseTtlMs: number;
  readonly #longestTurnMs: number;
  readonly #timeoutMs: number;
  readonly #connectTimeoutMs: number;
  /** "Redis at redis://host:port/db", or "Redis" without a label. */
  readonly #named: string;
  readonly #secrets: readonly string[];
  readonly #reportLocalOnly: ((reason: string) => void) | undefined;
  readonly #logger: WebhookSpacingLogger | undefined;
  readonly #clock: Clock;
  readonly #local: LocalWebhookSpacing;
  /** Scripts sent for a call that has gone on (a departure, a lease given back): close() waits for them. */
  readonly #pending = new Set<Promise<unknown>>();
  /** What was logged about bad values, by key and problem: each is logged once. Bounded by the keys used × 7 problems. */
  readonly #reported = new Set<string>();
  #connecting: Promise<string | undefined> | undefined;
  #shared = true;
  #closed = false;

  constructor(options: RedisWebhookSpacingOptions) {
    this.#redis = options.redis;
    this.#base = `${sharedKeyName(nonEmpty('prefix', options.prefix), nonEmpty('clientId', options.clientId))}:webhook:`;
    this.#spacingMs = wholeNumber('spacingMs', options.spacingMs ?? WEBHOOK_SPACING_MS);
    this.#leaseTtlMs = wholeNumber('leaseTtlMs', options.leaseTtlMs ?? WEBHOOK_LEASE_TTL_MS);
    this.#longestTurnMs = wholeNumber('longestTurnMs', Math.ceil(options.longestTurnMs ?? this.#spacingMs + this.#leaseTtlMs));
    this.#timeoutMs = wholeNumber('commandTimeoutMs', options.commandTimeoutMs ?? WEBHOOK_REDIS_TIMEOUT_MS);
    this.#connectTimeoutMs = wholeNumber('connectTimeoutMs', options.connectTimeoutMs ?? WEBHOOK_CONNECT_TIMEOUT_MS);
    if (this.#leaseTtlMs < 2 * this.#timeoutMs) {
      throw new RangeError(`leaseTtlMs (${this.#leaseTtlMs}) must be at least twice commandTimeoutMs (${this.#timeoutMs}): a renewal must land before the lease lapses`);
    }
    this.#named = options.redisLabel === undefined ? 'Redis' : `Redis at ${options.redisLabel}`;
    this.#secrets = options.secrets ?? [];
    this.#reportLocalOnly = options.reportLocalOnly;
    this.#logger = options.logger;
    const clock = options.clock ?? systemClock;
    this.#clock = steadyClock(clock);
    this.#local = new LocalWebhookSpacing({ spacingMs: this.#spacingMs, clock });
  }

  /** True while Redis answers (the spacing holds across sidecars); false on the local fallback. */
  get shared(): boolean {
    return this.#shared;
  }

  /**
   * The later of this process's own answer and the key's last departure in Redis (measured on Redis's clock, turned
   * into a wait, then added to this process's now): another sidecar's call counts too. Redis away (or not connected
   * within connectTimeoutMs): the local answer.
   */
  async freeAt(key: string): Promise<number | undefined> {
    const local = await this.#local.freeAt(key);
    // A one-shot command asks first thing: a connection still being made is waited for (at most connectTimeoutMs).
    if (!(await this.#connected(new AbortController().signal))) return local;
    const wait = await this.#ask(key, SCRIPTS.freeIn, this.#base + key, [String(this.#spacingMs)]);
    if (wait === undefined || wait <= 0) return local;
    const shared = this.#clock.now() + wait;
    return local === undefined || shared > local ? shared : local;
  }

  async turn(key: string, signal: AbortSignal): Promise<WebhookTurn> {
    const local = await this.#local.turn(key, signal);
    const name = this.#base + key;
    const token = randomUUID();
    let leased: boolean;
    try {
      leased = (await this.#connected(signal)) && (await this.#claim(key, name, token, signal));
    } catch (error) {
      local.release();
      throw error;
    }
    let renewal: NodeJS.Timeout | undefined;
    if (leased) {
      // Renewed while the call waits for the budget, which may take longer than one TTL under a full window.
      renewal = setInterval(() => {
        void this.#ask(key, SCRIPTS.renew, name, [token, String(this.#leaseTtlMs)]);
      }, Math.max(1, Math.floor(this.#leaseTtlMs / 3)));
      renewal.unref();
    }
    let left = false;
    let released = false;
    return {
      leaving: () => {
        if (left || released) return;
        left = true;
        clearInterval(renewal);
        local.leaving();
        // Recorded on Redis's clock when the script runs, a moment after the call left: the next one waits that
        // much longer, never less. While it is on its way the lease stands for it: nobody else goes. Sent even
        // without a lease, so sidecars that do reach Redis see it.
        this.#inBackground(this.#ask(key, SCRIPTS.leave, name, [token, String(KEEP_LEFT_SPACINGS * this.#spacingMs), String(this.#leaseTtlMs)]));
      },
      release: () => {
        if (released) return;
        released = true;
        clearInterval(renewal);
        local.release();
        if (leased && !left) this.#inBackground(this.#ask(key, SCRIPTS.release, name, [token]));
      },
    };
  }

  /**
   * Waits until what is still on its way to Redis (a call's departure, a lease given back) has been answered or has
   * timed out (`commandTimeoutMs`), so the connection's owner can destroy it without losing them: a one-shot
   * command exits right after its call, and the next one must see when it left. Later turns go on locally. Idempotent.
   */
  async close(): Promise<void> {
    // From now on a failure is the connection closing, not Redis going away: nothing more is logged.
    this.#closed = true;
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  #inBackground(work: Promise<unknown>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }

  /**
   * True once the connection is up. A connection still being made (a process that has just started, or Redis
   * coming back) is waited for, at most `connectTimeoutMs`, until its first failed attempt, or until the signal
   * aborts (rejects with its reason); during an outage already reported, not at all.
   */
  async #connected(signal: AbortSignal): Promise<boolean> {
    if (this.#closed) return false;
    if (this.#redis.isReady || !this.#shared) return true;
    const reason = await waitFor(this.#connection(), signal);
    if (reason === undefined) return true;
    this.#failed(reason);
    return false;
  }

  /** One wait for the connection, shared by every call that needs it: undefined when it is up, else why not. */
  #connection(): Promise<string | undefined> {
    this.#connecting ??= new Promise<string | undefined>((resolve) => {
      const redis = this.#redis;
      const settle = (reason: string | undefined): void => {
        clearTimeout(timer);
        redis.off('ready', onReady);
        redis.off('error', onError);
        this.#connecting = undefined;
        resolve(reason);
      };
      const onReady = (): void => {
        settle(undefined);
      };
      const onError = (error?: unknown): void => {
        settle(this.#reason(error));
      };
      const timer = setTimeout(() => {
        settle(`no connection within ${this.#connectTimeoutMs} ms`);
      }, this.#connectTimeoutMs);
      redis.on('ready', onReady);
      redis.on('error', onError);
      // Ready between the caller's look and now: no event will come.
      if (redis.isReady) settle(undefined);
    });
    return this.#connecting;
  }

  /**
   * Waits until this token holds the lease (true) or the call must go on without it (false): Redis cannot be asked,
   * or longestTurnMs has passed (another's lease renewed that long, or a value nobody removes).
   */
  async #claim(key: string, name: string, token: string, signal: AbortSignal): Promise<boolean> {
    const args = [token, String(this.#spacingMs), String(this.#leaseTtlMs)];
    const boundMs = this.#longestTurnMs;
    const giveUpAt = this.#clock.now() + boundMs;
    // A claim given up on (timed out, or the caller gave up) may still be granted later: give that lease back at once.
    const giveBack = (answer: number): void => {
      if (answer === 0) this.#inBackground(this.#ask(key, SCRIPTS.release, name, [token]));
    };
    for (;;) {
      const wait = await this.#ask(key, SCRIPTS.claim, name, args, signal, giveBack);
      if (wait === undefined) return false;
      if (wait <= 0) return true;
      const left = giveUpAt - this.#clock.now();
      if (left <= 0) {
        this.#reportOnce(key, 'waited', `webhook spacing: the turn of ${key} was held in Redis for ${boundMs} ms, longer than an honest holder waits for the budget; this call goes on with the spacing within this process only`);
        return false;
      }
      // The script never asks for more than a spacing; whatever the reply, never wait past the bound.
      await delay(Math.min(wait, this.#spacingMs, left), signal);
    }
  }

  /**
   * Runs one script with the timeout. Its answer, or undefined when Redis failed or was too slow. Rejects with
   * `signal.reason` when the signal aborts first. `late` is told an answer that came after the call gave up.
   */
  async #ask(key: string, script: RedisScript, name: string, args: readonly string[], signal?: AbortSignal, late?: (answer: number) => void): Promise<number | undefined> {
    let raw: unknown;
    try {
      raw = await runRedisScript(this.#redis, script, [name], args, {
        timeoutMs: this.#timeoutMs,
        signal,
        late: late === undefined ? undefined : (value) => {
          const reply = replyOf(value);
          if (reply !== undefined) late(reply.value);
        },
      });
    } catch (error) {
      if (signal?.aborted === true && error === signal.reason) throw error;
      this.#failed(this.#reason(error));
      return undefined;
    }
    const reply = replyOf(raw);
    if (reply === undefined) {
      this.#failed(`unexpected reply to a webhook spacing script: ${typeof raw}`);
      return undefined;
    }
    this.#answered();
    for (const problem of reply.problems) {
      this.#reportOnce(key, problem, `webhook spacing: a bad value in Redis for ${key}: ${PROBLEMS[problem] ?? problem}`);
    }
    return reply.value;
  }

  #reportOnce(key: string, problem: string, message: string): void {
    const seen = `${key} ${problem}`;
    if (this.#reported.has(seen)) return;
    this.#reported.add(seen);
    this.#logger?.warn({ key, problem }, message);
  }

  #reason(error: unknown): string {
    if (error instanceof NoAnswerError) return error.message;
    const text = redisErrorText(error, this.#secrets);
    return text === '' ? 'unknown error' : text.slice(0, 200);
  }

  #failed(reason: string): void {
    if (!this.#shared || this.#closed) return;
    this.#shared = false;
    if (this.#reportLocalOnly !== undefined) {
      this.#reportLocalOnly(reason);
      return;
    }
    this.#logger?.warn({ reason }, `webhook spacing: ${this.#named} did not answer (${reason}); webhook calls are spaced within this sidecar only until it does`);
  }

  #answered(): void {
    if (this.#shared) return;
    this.#shared = true;
    this.#logger?.info({}, `webhook spacing: ${this.#named} answers again; webhook calls are spaced across sidecars again`);
  }
}
