// The GameServerApp service client: one object per API key covering every documented call (mute check,
// review, the six server webhooks) in the v1 or v2 flavour, and the Mod API v2 features (access, reports, shop,
// tokens, UI settings: always v2, modFeatureCalls.ts). Each call is validated, rate-limited, sent, retried by the
// policy for its kind, and answered with a typed result or a GsaError with a stable code.
// It knows nothing of games, chat or adapters, and never logs or throws a credential.

import { Credentials } from './credentials.js';
import { CredentialsBreaker } from './credentialsBreaker.js';
import { TimeoutError, UnauthorizedError } from '../errors.js';
import type { BudgetState, CallKind } from '../budget/rateLimiter.js';
import { CallPipeline, type CallOptions, type PlannedCall, type ServiceCallOptions } from './callPipeline.js';
import { modApiDialectOf, type ModApiContext, type ModApiDialect } from '../dialects/modApi.js';
import { serviceMessageOf } from './responses.js';
import { ModFeatureCalls } from './modFeatureCalls.js';
import type {
  AccessAnswer,
  ApiFlavor,
  MuteLookupKind,
  MuteStatus,
  OnePlayerId,
  OrderReceipt,
  PlayerIds,
  ReportFields,
  ReportReceipt,
  ReportSettingsAnswer,
  ReviewReceipt,
  ServerAction,
  ServerActionResult,
  ShopSearch,
  TokenReceipt,
} from '../types.js';
import { DEFAULT_REVIEW_LIMITS, cleanComment, validateMuteCheck, validateReview, validateServerAction, describePlayerId, type ReviewLimits } from './validation.js';
import { LocalWebhookSpacing, webhookKey, type WebhookSpacing } from '../spacing/webhookSpacing.js';

export type { CallOptions, RetryNotice } from './callPipeline.js';

export interface GsaClientOptions extends ServiceCallOptions {
  /** v1: /api/v1 with credentials in the form body; v2: /mod-api/v2 with x-client-id / x-client-secret headers. Default 'v1'. */
  readonly flavor?: ApiFlavor | undefined;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Path segment of the wipe webhook. Default 'wipe'. */
  readonly wipePath?: string | undefined;
  readonly reviewLimits?: Partial<ReviewLimits> | undefined;
  /**
   * Keeps two calls of one webhook (same action, same server) at least 3 s apart, GSA's rule. Default a
   * LocalWebhookSpacing on `clock`, for this client alone; a shared one spaces calls across processes.
   */
  readonly webhookSpacing?: WebhookSpacing | undefined;
}

/** While GSA refuses the credentials: mute lookups and reviews fail at once with `credentials_refused`, nothing sent. */
export interface CredentialsPause {
  /** Ms until the next lookup or review goes through as the probe; 0 when it is due or on its way. */
  readonly nextProbeInMs: number;
}

export interface CheckMutedOptions extends CallOptions {
  /**
   * `first` (default): nobody has an answer for this player yet, so a chat line may be waiting on it.
   * `refresh`: renews an answer already cached; it waits behind every first lookup for the budget and is the
   * first to give way when the mute queue is full (the cached answer stays in use meanwhile).
   */
  readonly kind?: MuteLookupKind | undefined;
  /**
   * Where the lookup comes from, as an opaque key the caller chooses (one per independent stream of lookups): first
   * lookups of different sources take turns in the mute share, and each source has its own bound (`maxQueuedPerSource`), so
   * one busy source cannot fill the queue. Default: one unnamed source shared by every caller that gives none.
   */
  readonly source?: string | undefined;
}

export class GsaClient {
  readonly #context: ModApiContext;
  readonly #dialect: ModApiDialect;
  readonly #credentials: Credentials;
  readonly #pipeline: CallPipeline;
  readonly #reviewLimits: ReviewLimits;
  readonly #webhookSpacing: WebhookSpacing;
  /** Pauses lookups and reviews after a 401 (one probe a minute); webhooks pass, their 401 may mean an unbound server. */
  readonly #breaker: CredentialsBreaker;
  /** The Mod API v2 feature calls (access, reports, shop, tokens, ui), on this client's pipeline and breaker. */
  readonly #features: ModFeatureCalls;
  /** Masks the secret in text that came from the service before it reaches a result or an error. */
  readonly #scrub = (text: string): string => this.#credentials.scrub(text);

  constructor(options: GsaClientOptions) {
    this.#credentials = new Credentials(options.clientId, options.clientSecret);
    this.#dialect = modApiDialectOf(options.flavor ?? 'v1');
    this.#pipeline = new CallPipeline({ ...options, scrub: this.#scrub });
    this.#context = { credentials: this.#credentials, basePath: this.#pipeline.basePath, wipePath: options.wipePath ?? 'wipe' };
    this.#reviewLimits = { ...DEFAULT_REVIEW_LIMITS, ...options.reviewLimits };
    this.#webhookSpacing = options.webhookSpacing ?? new LocalWebhookSpacing({ clock: this.#pipeline.clock });
    this.#breaker = new CredentialsBreaker({ clock: this.#pipeline.clock });
    this.#features = new ModFeatureCalls({
      context: this.#context,
      breaker: this.#breaker,
      scrub: this.#scrub,
      call: (call) => this.#call(call),
    });
  }

  /**
   * Asks whether a player is muted on a server, by the one id given: a Steam64 or an EOS id, never both (GSA takes
   * one; invalid_input otherwise, nothing sent). A player known by both is asked by the id the caller chooses (the
   * sidecar's bridge chooses by servers[].lookupIds). Retried on transient failures. A `refresh` waits behind first
   * lookups for the API budget (see CheckMutedOptions).
   */
  async checkMuted(server: string, player: PlayerIds, options: CheckMutedOptions = {}): Promise<MuteStatus> {
    const asked = validateMuteCheck(server, player);
    const kind: CallKind = options.kind === 'refresh' ? 'refresh' : 'lookup';
    return this.#call({
      request: this.#dialect.muteCheckRequest(this.#context, server, asked),
      kind,
      what: `mute check ${server}/${describePlayerId(asked)}`,
      parse: (response) => this.#dialect.parseMuteStatus(response, asked),
      classify: this.#dialect.classify,
      target: server,
      options,
      breaker: this.#breaker,
    });
  }

  /**
   * Sends a player's review as given, by the one id given (a Steam64 or an EOS id, never both, as for checkMuted),
   * its comment passed through `cleanComment` (idempotent). Re-sent only when the
   * service surely did not store it; when a failure leaves that unknown, the error has `maybeProcessed: true` and
   * the caller must not send it blindly again.
   */
  async submitReview(server: string, player: PlayerIds, stars: number, comment: string, options: CallOptions = {}): Promise<ReviewReceipt> {
    // The same control-character rule as the outbox's admission, so the CLI and the library send what a mod would.
    const cleaned = cleanComment(comment);
    const asked = validateReview(server, player, stars, cleaned, this.#reviewLimits);
    return this.#call({
      request: this.#dialect.reviewRequest(this.#context, server, asked, stars, cleaned),
      kind: 'review',
      what: `review ${server}/${describePlayerId(asked)}`,
      parse: (response) => this.#dialect.parseReviewReceipt(response, this.#scrub),
      classify: this.#dialect.classify,
      target: server,
      options,
      breaker: this.#breaker,
    });
  }

  /**
   * One webhook call. `countdownMinutes` applies to `update` only (the service defaults it to 30). A second call of
   * the same action on the same server waits until 3 s after the previous one left (webhookSpacing).
   */
  async serverAction(serverId: number, action: ServerAction, countdownMinutes?: number, options: CallOptions = {}): Promise<ServerActionResult> {
    validateServerAction(serverId, countdownMinutes);
    return this.#call({
      request: this.#dialect.serverActionRequest(this.#context, serverId, action, countdownMinutes),
      kind: 'action',
      what: `${action} server ${serverId}`,
      parse: (response) => ({
        action,
        status: response.status,
        body: this.#scrub(response.text.trim()),
        message: serviceMessageOf(response.text, this.#scrub),
      }),
      // GSA answers 401 alike for a wrong secret and for a server id not bound to the key: the message names both.
      classify: (response, scrub, nowMs) => {
        const error = this.#dialect.classify(response, scrub, nowMs);
        if (error.code !== 'unauthorized') return error;
        const words = error.serviceMessage === undefined || error.serviceMessage === '' ? '' : ` (GSA said: ${error.serviceMessage})`;
        return new UnauthorizedError(
          `GSA refused the server action for server id ${serverId} (401): either this server is not bound to these API keys in the GSA dashboard, or the client id and secret are wrong${words}`,
          { status: error.status, serviceMessage: error.serviceMessage },
        );
      },
      target: String(serverId),
      options,
      spacedBy: {
        spacing: this.#webhookSpacing,
        key: webhookKey(serverId, action),
        gaveUp: () =>
          Promise.resolve(
            new TimeoutError(`${action} server ${serverId}: given up while waiting for 3 s to pass since the previous ${action} server ${serverId} (GSA's webhook spacing); nothing was sent`, {
              maybeProcessed: false,
            }),
          ),
      },
    });
  }

  // GSA's Mod API v2, the rest of it (reference/gsa-api.md). Always /mod-api/v2 with header credentials, whatever
  // `flavor` says: v1 has none of these. Reads are mute-class lookups (`kind`, `source` as for checkMuted); a report is
  // a review-class call, re-sent only when surely not processed; an order or a token spend is an action-class call
  // sent once and never retried (an ambiguous failure has maybeProcessed: true).

  /**
   * `POST …/integration-mod`: whether the player may play on the server (whitelist, bans) and their custom roles. Its
   * identifier must be `gsamod-general` (else bad_response). A lookup like checkMuted (`kind`, `source`), retried alike.
   */
  async checkAccess(server: string, player: OnePlayerId, options: CheckMutedOptions = {}): Promise<AccessAnswer> {
    return this.#features.checkAccess(server, player, options);
  }

  /** `GET …/report`: the report form, GSA's " - Select player - " placeholder (user_id 0) left out. A lookup. */
  async reportSettings(server: string, player: OnePlayerId, options: CheckMutedOptions = {}): Promise<ReportSettingsAnswer> {
    return this.#features.reportSettings(server, player, options);
  }

  /**
   * `POST …/report`: not idempotent, sent like a review (re-sent only when surely not processed; an ambiguous failure
   * has maybeProcessed: true). The comment is cleaned by `cleanComment` and must be 1 to 1000 characters; `coords`
   * must read `X_<n> Y_<n> Z_<n>`. GSA's `allowed: false` is a `refused` error carrying GSA's message.
   */
  async submitReport(server: string, player: OnePlayerId, report: ReportFields, options: CallOptions = {}): Promise<ReportReceipt> {
    return this.#features.submitReport(server, player, report, options);
  }

  /** `GET game-shop/{name}`: GSA's answer as parsed JSON (a JSON object, else bad_response). A lookup. */
  async shopIndex(server: string, player: OnePlayerId, search: ShopSearch, options: CheckMutedOptions = {}): Promise<unknown> {
    return this.#features.shopIndex(server, player, search, options);
  }

  /** `GET game-shop/{name}/pack/{id}`: GSA's answer as parsed JSON. `packId` a positive whole number. A lookup. */
  async shopPack(server: string, player: OnePlayerId, packId: number, options: CheckMutedOptions = {}): Promise<unknown> {
    return this.#features.shopPack(server, player, packId, options);
  }

  /**
   * `POST game-shop/{name}/pack/{id}/order`: spends the player's credit. Sent once and never retried, whatever the
   * failure; one that may have reached GSA has maybeProcessed: true. `success: false` is GSA's refusal (a receipt).
   * Refused at once (`credentials_refused`, nothing sent) while GSA refuses the credentials: never the probe.
   */
  async orderPack(server: string, player: OnePlayerId, packId: number, options: CallOptions = {}): Promise<OrderReceipt> {
    return this.#features.orderPack(server, player, packId, options);
  }

  /** `POST …/consume-token`: spends `amount` tokens (a whole number, 1 or more). Sent once and never retried, as orderPack. */
  async consumeTokens(server: string, player: OnePlayerId, amount: number, options: CallOptions = {}): Promise<TokenReceipt> {
    return this.#features.consumeTokens(server, player, amount, options);
  }

  /** `GET …/settings`: the dashboard's mod settings, as parsed JSON. A lookup; caching them is the caller's. */
  async modSettings(server: string, options: CheckMutedOptions = {}): Promise<unknown> {
    return this.#features.modSettings(server, options);
  }

  /** `GET …/button-modal`: the vote screen, as parsed JSON. A lookup; caching it is the caller's. */
  async buttonModal(server: string, options: CheckMutedOptions = {}): Promise<unknown> {
    return this.#features.buttonModal(server, options);
  }

  start(serverId: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'start');
  }

  stop(serverId: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'stop');
  }

  restart(serverId: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'restart');
  }

  update(serverId: number, countdownMinutes?: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'update', countdownMinutes);
  }

  wipe(serverId: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'wipe');
  }

  cancelScheduled(serverId: number): Promise<ServerActionResult> {
    return this.serverAction(serverId, 'cancel-scheduled');
  }

  /** Calls waiting for the rate limit. */
  get queuedCalls(): number {
    return this.#pipeline.queuedCalls;
  }

  /** Ms no call on the key may start for (a Retry-After hold, this client's or shared by another sidecar); 0 when none. */
  get heldForMs(): number {
    return this.#pipeline.heldForMs;
  }

  /** Calls waiting for the budget per class, and the starts the window has room for now: read-only, for the gauges. */
  budgetState(): BudgetState {
    return this.#pipeline.budgetState;
  }

  /**
   * Set while GSA refuses these credentials: after a 401 on a mute lookup or a review, lookups and reviews fail at once
   * with `credentials_refused` and spend no budget, but for one a minute that goes through as the probe; the first
   * answer that passes the credential check ends the pause. Undefined while calls go normally.
   */
  get credentialsPause(): CredentialsPause | undefined {
    return this.#breaker.open ? { nextProbeInMs: this.#breaker.nextProbeInMs } : undefined;
  }

  /**
   * Lets the next lookup or review go as the probe at once (a reload that kept this client: the host may have fixed
   * the key in the dashboard). True when the credentials were paused, so a caller knows a check is worth making.
   */
  probeCredentialsNow(): boolean {
    return this.#breaker.probeNow();
  }

  /**
   * Refuses the calls still waiting for the budget (`rate_limited`, nothing sent), ends retry waits, and closes the
   * connection pool the client opened (not an injected dispatcher).
   */
  async close(): Promise<void> {
    await this.#pipeline.close();
  }

  #call<T>(call: PlannedCall<T>): Promise<T> {
    return this.#pipeline.call(call);
  }
}
