// The System API's façade (SystemApi, types.ts): one object per System API key. Each call is checked, planned with
// the systemApiV2 dialect, and run through the same pipeline as the mod API's client (retry → spacing → budget →
// transport) with the key's own budget, so a System API call never spends the mod API key's window. The documented
// per-target cooldowns are kept before sending (cooldowns.ts). It never logs, throws or caches the key: the key lives
// in a SecretKey and every text from the service is scrubbed of it.
//
// Budget classes: players/find and player() are the mute lookup class ('lookup', or 'refresh' with source turns, as
// GsaClient.checkMuted), mute and unmute the 'review' class, server actions and broadcast the 'action' class. The
// shares of the budget cycle (budgetShares.ts) then keep a chat flood's lookups from starving a moderator's mute or
// a host's restart: each class keeps its places in every cycle.

import { CallPipeline, type CallOptions, type ServiceCallOptions } from '../client/callPipeline.js';
import type { CheckMutedOptions } from '../client/client.js';
import { SecretKey } from '../client/credentials.js';
import { CredentialsBreaker } from '../client/credentialsBreaker.js';
import type { ApiRequest } from '../dialects/dialect.js';
import { classifySystemFailure, cooldownMessage, isUnknownPlayerAnswer, systemApiV2, type SystemApiContext, type SystemSubject } from '../dialects/systemApiV2.js';
import { CooldownError, InvalidInputError, NotFoundError, type GsaError } from '../errors.js';
import type { CallKind } from '../budget/rateLimiter.js';
import type { MuteStatus } from '../types.js';
import type { WebhookSpacing } from '../spacing/webhookSpacing.js';
import { COOLDOWN_MARGIN_MS, PLAYER_COOLDOWN_MS, SERVER_COOLDOWN_MS, localSystemCooldowns, playerCooldownKey, serverCooldownKey, type SystemCooldowns } from './cooldowns.js';
import { isPeriodCode, type MuteDuration } from './periods.js';
import {
  BROADCAST_TYPES,
  SYSTEM_SERVER_ACTIONS,
  type BroadcastType,
  type SystemActionOptions,
  type SystemApi,
  type SystemPlayerRef,
  type SystemPlayerState,
  type SystemReceipt,
  type SystemServerAction,
} from './types.js';

/** `rateLimit` is the key's own window (api.system.rateLimit); `budget` a shared one comes from SharedSystemApiKey. */
export interface SystemApiClientOptions extends ServiceCallOptions {
  /** The System API key (api.system.key): a secret, sent only as `Authorization: Bearer`. */
  readonly key: string;
  /** GSA's id for publicly distributed tools, sent as the GSA-ID header. Default none. */
  readonly gsaId?: string | undefined;
  /** The per-player and per-server spacings. Default local ones (PLAYER_COOLDOWN_MS, SERVER_COOLDOWN_MS) on `clock`. */
  readonly cooldowns?: SystemCooldowns | undefined;
  /** Most players/find answers kept. Default 10 000 (a uuid and a name each). */
  readonly findCacheSize?: number | undefined;
  /**
   * How long a players/find 404 is remembered, in ms: a player unknown now may link an account in a minute, so a 404
   * is never kept for the process's life, but a chat flood from one unknown id must not spend a lookup a line.
   * Default 60 000.
   */
  readonly notFoundTtlMs?: number | undefined;
}

const DEFAULT_FIND_CACHE_SIZE = 10_000;
const DEFAULT_NOT_FOUND_TTL_MS = 60_000;
const UUID_LIKE = /^[A-Za-z0-9-]{1,64}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_TEXT = 2000;

type FindEntry = { readonly player: SystemPlayerRef } | { readonly notFoundUntil: number; readonly error: GsaError };

function check(problems: Record<string, string[]>): void {
  if (Object.keys(problems).length > 0) throw new InvalidInputError(problems);
}

function checkUuid(uuid: string): void {
  if (!UUID_LIKE.test(uuid)) check({ uuid: ['must be a GSA player uuid (letters, digits and dashes)'] });
}

function checkServerId(gameServerId: number): void {
  if (!Number.isSafeInteger(gameServerId) || gameServerId < 1) check({ gameServerId: ['must be a whole number of 1 or more'] });
}

function checkText(field: string, text: string | undefined, required: boolean): void {
  if (text === undefined) {
    if (required) check({ [field]: ['is required'] });
    return;
  }
  if (required && text.trim() === '') check({ [field]: ['must not be empty'] });
  if (text.length > MAX_TEXT) check({ [field]: [`must be at most ${MAX_TEXT} characters`] });
}

export class SystemApiClient implements SystemApi {
  readonly #key: SecretKey;
  readonly #context: SystemApiContext;
  readonly #pipeline: CallPipeline;
  /** After a 401 (the key refused) every call fails at once, spending none of the key's budget, but one probe a minute. */
  readonly #breaker: CredentialsBreaker;
  readonly #cooldowns: SystemCooldowns;
  readonly #findCache = new Map<string, FindEntry>();
  readonly #finding = new Map<string, Promise<SystemPlayerRef>>();
  readonly #findCacheSize: number;
  readonly #notFoundTtlMs: number;
  readonly #scrub = (text: string): string => this.#key.scrub(text);

  constructor(options: SystemApiClientOptions) {
    this.#key = new SecretKey(options.key);
    this.#pipeline = new CallPipeline({ ...options, scrub: this.#scrub });
    this.#context = { key: this.#key, basePath: this.#pipeline.basePath, gsaId: options.gsaId };
    const clock = this.#pipeline.clock;
    this.#breaker = new CredentialsBreaker({ clock });
    this.#cooldowns = options.cooldowns ?? localSystemCooldowns(clock);
    this.#findCacheSize = Math.max(1, options.findCacheSize ?? DEFAULT_FIND_CACHE_SIZE);
    this.#notFoundTtlMs = Math.max(0, options.notFoundTtlMs ?? DEFAULT_NOT_FOUND_TTL_MS);
  }

  async findPlayer(serviceId: string, options: CallOptions = {}): Promise<SystemPlayerRef> {
    return this.#find(serviceId, 'lookup', options);
  }

  async player(uuid: string, options: CallOptions = {}): Promise<SystemPlayerState> {
    return this.#player(uuid, 'lookup', options);
  }

  /**
   * One read-only call that proves the key works (`config check --connect`): GET game/available, never retried by
   * the caller's choice. Resolves with how many games GSA lists; rejects as any call (401: the key is refused).
   */
  async checkKey(options: CallOptions = {}): Promise<number> {
    return this.#pipeline.call({
      request: systemApiV2.availableGamesRequest(this.#context),
      kind: 'lookup',
      what: 'the System API key check (game/available)',
      parse: (response) => systemApiV2.parseAvailableGames(response),
      classify: classifySystemFailure({ kind: 'player' }),
      target: 'game/available',
      options,
      breaker: this.#breaker,
    });
  }

  async checkMuted(serviceId: string, options: CheckMutedOptions = {}): Promise<MuteStatus> {
    const kind: CallKind = options.kind === 'refresh' ? 'refresh' : 'lookup';
    try {
      const found = await this.#find(serviceId, kind, options);
      const state = await this.#player(found.uuid, kind, options);
      return { muted: state.muted, alert: null, steamId: null, eosId: null };
    } catch (error) {
      // GSA says it has no such player: nobody can have muted them there, as the mod API answers "not muted" for a
      // player it never saw. Anything else (a 404 without GSA's words included) stays an error: the policy decides.
      if (isUnknownPlayerAnswer(error)) return { muted: false, alert: null, steamId: null, eosId: null };
      throw error;
    }
  }

  async mute(uuid: string, duration: MuteDuration, note?: string, options: CallOptions = {}): Promise<SystemReceipt> {
    checkUuid(uuid);
    checkText('note', note, false);
    if (duration.type === 'period' && !isPeriodCode(duration.period)) check({ period: ["is not one of GSA's period codes"] });
    if (duration.type === 'date' && !DATE.test(duration.date)) check({ date: ['must be YYYY-MM-DD'] });
    const subject: SystemSubject = { kind: 'player', uuid, period: duration.type === 'period' ? duration.period : duration.type === 'date' ? duration.date : undefined };
    return this.#playerAction(uuid, subject, systemApiV2.muteRequest(this.#context, uuid, duration, note), `mute of player ${uuid}`, options);
  }

  async unmute(uuid: string, note?: string, options: CallOptions = {}): Promise<SystemReceipt> {
    checkUuid(uuid);
    checkText('note', note, false);
    return this.#playerAction(uuid, { kind: 'player', uuid }, systemApiV2.unmuteRequest(this.#context, uuid, note), `unmute of player ${uuid}`, options);
  }

  async serverAction(gameServerId: number, action: SystemServerAction, details: SystemActionOptions = {}, options: CallOptions = {}): Promise<SystemReceipt> {
    checkServerId(gameServerId);
    if (!(SYSTEM_SERVER_ACTIONS as readonly string[]).includes(action)) check({ action: [`must be one of ${SYSTEM_SERVER_ACTIONS.join(', ')}`] });
    const { countdown } = details;
    if (countdown !== undefined && (!Number.isSafeInteger(countdown) || countdown < 0 || countdown > 90)) check({ countdown: ['must be a whole number from 0 to 90'] });
    checkText('message', details.message, false);
    checkText('name', details.name, action === 'backup');
    return this.#serverCall(gameServerId, systemApiV2.serverActionRequest(this.#context, gameServerId, action, details), `${action} of game server ${gameServerId}`, options);
  }

  async broadcast(gameServerId: number, message: string, type?: BroadcastType, options: CallOptions = {}): Promise<SystemReceipt> {
    checkServerId(gameServerId);
    checkText('message', message, true);
    if (type !== undefined && !(BROADCAST_TYPES as readonly string[]).includes(type)) check({ type: [`must be one of ${BROADCAST_TYPES.join(', ')}`] });
    return this.#serverCall(gameServerId, systemApiV2.broadcastRequest(this.#context, gameServerId, message, type), `broadcast to game server ${gameServerId}`, options);
  }

  serverFreeAt(gameServerId: number): Promise<number | undefined> {
    return this.#cooldowns.servers.freeAt(serverCooldownKey(gameServerId));
  }

  /** When a mute or unmute of `uuid` may next go by the sidecar's own spacing (epoch ms); undefined when now. */
  playerFreeAt(uuid: string): Promise<number | undefined> {
    return this.#cooldowns.players.freeAt(playerCooldownKey(uuid));
  }

  /** Calls waiting for the key's budget. */
  get queuedCalls(): number {
    return this.#pipeline.queuedCalls;
  }

  /** Ms no call on the key may start for (a Retry-After hold); 0 when none. A cooldown never holds the key. */
  get heldForMs(): number {
    return this.#pipeline.heldForMs;
  }

  /**
   * Set while GSA refuses the key: after a 401 every call fails at once with `credentials_refused`, spending no budget,
   * but for one a minute that goes as the probe; undefined while calls go normally.
   */
  get credentialsPause(): { readonly nextProbeInMs: number } | undefined {
    return this.#breaker.open ? { nextProbeInMs: this.#breaker.nextProbeInMs } : undefined;
  }

  /** Lets the next call go as the probe at once (a reload that kept this client). True when the key was paused. */
  probeCredentialsNow(): boolean {
    return this.#breaker.probeNow();
  }

  async close(): Promise<void> {
    await this.#pipeline.close();
  }

  /** Cached for the process's life (bounded, oldest first out); a 404 for notFoundTtlMs; one call per id at a time. */
  #find(serviceId: string, kind: CallKind, options: CallOptions & { readonly source?: string | undefined }): Promise<SystemPlayerRef> {
    checkText('serviceId', serviceId, true);
    const cached = this.#findCache.get(serviceId);
    if (cached !== undefined) {
      if ('player' in cached) {
        // Recently used moves to the back: the map's order is the eviction order.
        this.#findCache.delete(serviceId);
        this.#findCache.set(serviceId, cached);
        return Promise.resolve(cached.player);
      }
      if (cached.notFoundUntil > this.#pipeline.clock.now()) return Promise.reject(cached.error);
      this.#findCache.delete(serviceId);
    }
    const waiting = this.#finding.get(serviceId);
    if (waiting !== undefined) return waiting;
    const found = this.#pipeline
      .call({
        request: systemApiV2.findPlayerRequest(this.#context, serviceId),
        kind,
        what: `players/find ${serviceId}`,
        parse: (response) => systemApiV2.parseFoundPlayer(response, serviceId),
        classify: classifySystemFailure({ kind: 'player' }),
        target: serviceId,
        options,
        breaker: this.#breaker,
      })
      .then(
        (player) => {
          this.#remember(serviceId, { player });
          return player;
        },
        (error: unknown) => {
          if (error instanceof NotFoundError && this.#notFoundTtlMs > 0) {
            this.#remember(serviceId, { notFoundUntil: this.#pipeline.clock.now() + this.#notFoundTtlMs, error });
          }
          throw error;
        },
      )
      .finally(() => this.#finding.delete(serviceId));
    this.#finding.set(serviceId, found);
    return found;
  }

  #remember(serviceId: string, entry: FindEntry): void {
    this.#findCache.delete(serviceId);
    this.#findCache.set(serviceId, entry);
    while (this.#findCache.size > this.#findCacheSize) {
      const oldest = this.#findCache.keys().next().value;
      if (oldest === undefined) break;
      this.#findCache.delete(oldest);
    }
  }

  #player(uuid: string, kind: CallKind, options: CallOptions & { readonly source?: string | undefined }): Promise<SystemPlayerState> {
    checkUuid(uuid);
    return this.#pipeline.call({
      request: systemApiV2.playerRequest(this.#context, uuid),
      kind,
      what: `player ${uuid}`,
      parse: (response) => systemApiV2.parsePlayer(response),
      classify: classifySystemFailure({ kind: 'player', uuid }),
      target: uuid,
      options,
      breaker: this.#breaker,
    });
  }

  #playerAction(uuid: string, subject: SystemSubject, request: ApiRequest, what: string, options: CallOptions): Promise<SystemReceipt> {
    const spacing = this.#cooldowns.players;
    const key = playerCooldownKey(uuid);
    return this.#pipeline.call({
      request,
      kind: 'review',
      what,
      parse: (response) => systemApiV2.parseReceipt(response, this.#scrub),
      classify: classifySystemFailure(subject),
      target: uuid,
      options,
      breaker: this.#breaker,
      spacedBy: { spacing, key, gaveUp: () => this.#cooldownError(subject, spacing, key, PLAYER_COOLDOWN_MS) },
    });
  }

  #serverCall(gameServerId: number, request: ApiRequest, what: string, options: CallOptions): Promise<SystemReceipt> {
    const spacing = this.#cooldowns.servers;
    const key = serverCooldownKey(gameServerId);
    const subject: SystemSubject = { kind: 'server', gameServerId };
    return this.#pipeline.call({
      request,
      kind: 'action',
      what,
      parse: (response) => systemApiV2.parseReceipt(response, this.#scrub),
      classify: classifySystemFailure(subject),
      target: String(gameServerId),
      options,
      breaker: this.#breaker,
      spacedBy: { spacing, key, gaveUp: () => this.#cooldownError(subject, spacing, key, SERVER_COOLDOWN_MS) },
    });
  }

  /** A call given up while it waited for its target's cooldown: when it could have gone; nothing was sent. */
  async #cooldownError(subject: SystemSubject, spacing: WebhookSpacing, key: string, cooldownMs: number): Promise<GsaError> {
    const now = this.#pipeline.clock.now();
    const availableAt = (await spacing.freeAt(key)) ?? now;
    return new CooldownError(`${cooldownMessage(subject, cooldownMs - COOLDOWN_MARGIN_MS, availableAt)}; nothing was sent`, Math.max(0, availableAt - now), availableAt, { maybeProcessed: false });
  }
}
