// How each of GSA's Mod API v2 feature calls goes through the call pipeline: which budget class it spends, which
// retry rule its endpoint has, whether the credentials breaker covers it, and how its answer is read. GsaClient's
// feature methods delegate here, so the façade stays thin. Reads are lookups (mute class, `kind` and `source` as for
// a mute check); a report is a review-class call; an order and a token spend are action-class calls sent once, never
// retried and never the breaker's probe. It never builds a request by hand (the feature dialect does), never logs,
// and never puts a credential into an error.

import type { CallKind } from '../budget/rateLimiter.js';
import type { CallOptions, PlannedCall } from './callPipeline.js';
import type { CredentialsBreaker } from './credentialsBreaker.js';
import type { Scrub } from '../dialects/dialect.js';
import { errorFromResponse } from './responses.js';
import {
  accessRequest,
  classifyPackFailure,
  orderRequest,
  parseAccessAnswer,
  parseJsonObjectAnswer,
  parseOrderReceipt,
  parseReportReceipt,
  parseReportSettings,
  parseTokenReceipt,
  reportRequest,
  reportSettingsRequest,
  shopIndexRequest,
  shopPackRequest,
  tokenRequest,
  uiRequest,
  type FeatureContext,
} from '../dialects/modApiFeatures.js';
import type { AccessAnswer, MuteLookupKind, OnePlayerId, OrderReceipt, ReportFields, ReportReceipt, ReportSettingsAnswer, ShopSearch, TokenReceipt } from '../types.js';
import { describePlayerId, validatePackCall, validatePlayerCall, validateReport, validateServer, validateShopSearch, validateTokenSpend } from './validation.js';

/** The read options every feature read takes: as a mute check's (CheckMutedOptions), declared here to avoid a cycle. */
export interface FeatureReadOptions extends CallOptions {
  readonly kind?: MuteLookupKind | undefined;
  readonly source?: string | undefined;
}

export interface ModFeatureCallsOptions {
  readonly context: FeatureContext;
  readonly breaker: CredentialsBreaker;
  readonly scrub: Scrub;
  /** The client's pipeline. */
  readonly call: <T>(call: PlannedCall<T>) => Promise<T>;
}

function readKind(options: FeatureReadOptions): CallKind {
  return options.kind === 'refresh' ? 'refresh' : 'lookup';
}

const parseShopIndex = parseJsonObjectAnswer('shop index');
const parseShopPack = parseJsonObjectAnswer('shop pack');
const parseModSettings = parseJsonObjectAnswer('mod settings');
const parseButtonModal = parseJsonObjectAnswer('button modal');

export class ModFeatureCalls {
  readonly #context: FeatureContext;
  readonly #breaker: CredentialsBreaker;
  readonly #scrub: Scrub;
  readonly #call: <T>(call: PlannedCall<T>) => Promise<T>;

  constructor(options: ModFeatureCallsOptions) {
    this.#context = options.context;
    this.#breaker = options.breaker;
    this.#scrub = options.scrub;
    this.#call = options.call;
  }

  async checkAccess(server: string, player: OnePlayerId, options: FeatureReadOptions): Promise<AccessAnswer> {
    const asked = validatePlayerCall(server, player);
    return this.#call({
      request: accessRequest(this.#context, server, asked),
      kind: readKind(options),
      what: `access check ${server}/${describePlayerId(asked)}`,
      parse: (response) => parseAccessAnswer(response, asked, this.#scrub),
      classify: errorFromResponse,
      target: server,
      options,
      breaker: this.#breaker,
    });
  }

  async reportSettings(server: string, player: OnePlayerId, options: FeatureReadOptions): Promise<ReportSettingsAnswer> {
    const asked = validatePlayerCall(server, player);
    return this.#call({
      request: reportSettingsRequest(this.#context, server, asked),
      kind: readKind(options),
      what: `report settings ${server}/${describePlayerId(asked)}`,
      parse: (response) => parseReportSettings(response, this.#scrub),
      classify: errorFromResponse,
      target: server,
      options,
      breaker: this.#breaker,
    });
  }

  async submitReport(server: string, player: OnePlayerId, report: ReportFields, options: CallOptions): Promise<ReportReceipt> {
    const { asked, report: cleaned } = validateReport(server, player, report);
    return this.#call({
      request: reportRequest(this.#context, server, asked, cleaned),
      kind: 'review',
      what: `report ${server}/${describePlayerId(asked)}`,
      parse: (response) => parseReportReceipt(response, this.#scrub),
      classify: errorFromResponse,
      target: server,
      options,
      breaker: this.#breaker,
    });
  }

  async shopIndex(server: string, player: OnePlayerId, search: ShopSearch, options: FeatureReadOptions): Promise<unknown> {
    const asked = validateShopSearch(server, player, search);
    return this.#call({
      request: shopIndexRequest(this.#context, server, asked, search),
      kind: readKind(options),
      what: `shop index ${server}/${describePlayerId(asked)}`,
      parse: (response) => parseShopIndex(response, this.#scrub),
      classify: errorFromResponse,
      target: server,
      options,
      breaker: this.#breaker,
    });
  }

  async shopPack(server: string, player: OnePlayerId, packId: number, options: FeatureReadOptions): Promise<unknown> {
    const asked = validatePackCall(server, player, packId);
    return this.#call({
      request: shopPackRequest(this.#context, server, asked, packId),
      kind: readKind(options),
      what: `shop pack ${packId} ${server}/${describePlayerId(asked)}`,
      parse: (response) => parseShopPack(response, this.#scrub),
      classify: classifyPackFailure,
      target: server,
      options,
      breaker: this.#breaker,
    });
  }

  async orderPack(server: string, player: OnePlayerId, packId: number, options: CallOptions): Promise<OrderReceipt> {
    const asked = validatePackCall(server, player, packId);
    return this.#call({
      request: orderRequest(this.#context, server, asked, packId),
      kind: 'action',
      what: `shop order of pack ${packId} ${server}/${describePlayerId(asked)}`,
      parse: (response) => parseOrderReceipt(response, this.#scrub),
      classify: classifyPackFailure,
      target: server,
      // Never retried (isRetryable's 'shop-order'), whatever `retries` asks: money moves at most once.
      options,
      breaker: this.#breaker,
      mayProbe: false,
    });
  }

  async consumeTokens(server: string, player: OnePlayerId, amount: number, options: CallOptions): Promise<TokenReceipt> {
    const asked = validateTokenSpend(server, player, amount);
    return this.#call({
      request: tokenRequest(this.#context, server, asked, amount),
      kind: 'action',
      what: `token spend of ${amount} ${server}/${describePlayerId(asked)}`,
      parse: (response) => parseTokenReceipt(response, this.#scrub),
      classify: errorFromResponse,
      target: server,
      options,
      breaker: this.#breaker,
      mayProbe: false,
    });
  }

  async modSettings(server: string, options: FeatureReadOptions): Promise<unknown> {
    validateServer(server);
    return this.#call({
      request: uiRequest(this.#context, server, 'settings'),
      kind: readKind(options),
      what: `mod settings ${server}`,
      parse: (response) => parseModSettings(response, this.#scrub),
      classify: errorFromResponse,
      target: server,
      options,
      breaker: this.#breaker,
    });
  }

  async buttonModal(server: string, options: FeatureReadOptions): Promise<unknown> {
    validateServer(server);
    return this.#call({
      request: uiRequest(this.#context, server, 'button-modal'),
      kind: readKind(options),
      what: `button modal ${server}`,
      parse: (response) => parseButtonModal(response, this.#scrub),
      classify: errorFromResponse,
      target: server,
      options,
      breaker: this.#breaker,
    });
  }
}
