// GSA's Mod API v2 beyond the mute check and the review (reference/gsa-api.md, "Mod API v2, the rest of it"): the
// access check, the report form and reports, the shop, token spends and the dashboard's UI settings. Pure: builds
// each request (always /mod-api/v2 with x-client-id / x-client-secret headers, whatever the client's flavor: v1 has
// none of these) and reads each answer into its typed result or the error it means. It never sends, retries or logs;
// the requests it builds carry the secret in a header and must never be logged. Every text from the service passes
// through `scrub` before it reaches a result or an error.

import type { Credentials } from '../client/credentials.js';
import { errorFromResponse, parseJson, quotedBody, serviceMessageOf } from '../client/responses.js';
import type { RawResponse } from '../client/rawResponse.js';
import { BadResponseError, NotFoundError, RefusedError, type GsaError } from '../errors.js';
import type { AccessAnswer, Endpoint, OnePlayerId, OrderReceipt, ReportFields, ReportReceipt, ReportSettingsAnswer, ShopSearch, TokenReceipt } from '../types.js';
import type { ApiRequest, ClassifyFailure, Scrub } from './dialect.js';
import {
  ACCESS_IDENTIFIER,
  accessBody,
  ORDER_IDENTIFIER,
  orderBody,
  REPORT_IDENTIFIER,
  REPORT_SETTINGS_IDENTIFIER,
  reportBody,
  reportSettingsBody,
  tokenBody,
} from './modApiFeatureBodies.js';

/** What every feature request needs: the key pair and the base URL's path prefix ('' for the service's root). */
export interface FeatureContext {
  readonly credentials: Credentials;
  readonly basePath: string;
}

const PREFIX = '/mod-api/v2';
const FORM = 'application/x-www-form-urlencoded';

function playerFields(player: OnePlayerId): Record<string, string> {
  return player.steamId !== undefined ? { steam_id: player.steamId } : { eos_id: player.eosId };
}

interface FeatureRequestParts {
  readonly endpoint: Endpoint;
  readonly method: 'GET' | 'POST';
  /** Path segments after /mod-api/v2, each percent-encoded here. */
  readonly segments: readonly string[];
  readonly query?: Readonly<Record<string, string>> | undefined;
  /** Form fields of a POST; a POST without any sends an empty form. */
  readonly form?: Readonly<Record<string, string>> | undefined;
}

function featureRequest(context: FeatureContext, parts: FeatureRequestParts): ApiRequest {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (parts.method === 'POST') headers['content-type'] = FORM;
  context.credentials.useSecret((secret) => {
    headers['x-client-id'] = context.credentials.clientId;
    headers['x-client-secret'] = secret;
  });
  const query = parts.query === undefined ? '' : new URLSearchParams(parts.query).toString();
  const path = `${context.basePath}${PREFIX}/${parts.segments.map((segment) => encodeURIComponent(segment)).join('/')}${query === '' ? '' : `?${query}`}`;
  return {
    endpoint: parts.endpoint,
    method: parts.method,
    path,
    headers,
    body: parts.method === 'POST' ? new URLSearchParams(parts.form ?? {}).toString() : undefined,
  };
}

/** `POST gameserver/{name}/integration-mod`, the player in the form. */
export function accessRequest(context: FeatureContext, server: string, player: OnePlayerId): ApiRequest {
  return featureRequest(context, { endpoint: 'access', method: 'POST', segments: ['gameserver', server, 'integration-mod'], form: playerFields(player) });
}

/** `GET gameserver/{name}/report`, the player in the query. */
export function reportSettingsRequest(context: FeatureContext, server: string, player: OnePlayerId): ApiRequest {
  return featureRequest(context, { endpoint: 'report-settings', method: 'GET', segments: ['gameserver', server, 'report'], query: playerFields(player) });
}

/** `POST gameserver/{name}/report`: the fields as given (validated and cleaned by the caller). */
export function reportRequest(context: FeatureContext, server: string, player: OnePlayerId, report: ReportFields): ApiRequest {
  const form: Record<string, string> = {
    ...playerFields(player),
    comment: report.comment,
    character_id: String(report.characterId),
    coords: report.coords,
    type: String(report.type),
  };
  if (report.reportedPlayer !== undefined) form.reported_player = String(report.reportedPlayer);
  return featureRequest(context, { endpoint: 'report', method: 'POST', segments: ['gameserver', server, 'report'], form });
}

/** `GET game-shop/{name}`, the player, and the search and filter when given, in the query. */
export function shopIndexRequest(context: FeatureContext, server: string, player: OnePlayerId, search: ShopSearch): ApiRequest {
  const query: Record<string, string> = { ...playerFields(player) };
  if (search.search !== undefined) query.search = search.search;
  if (search.filter !== undefined) query.filter = search.filter;
  return featureRequest(context, { endpoint: 'shop', method: 'GET', segments: ['game-shop', server], query });
}

/** `GET game-shop/{name}/pack/{id}`. */
export function shopPackRequest(context: FeatureContext, server: string, player: OnePlayerId, packId: number): ApiRequest {
  return featureRequest(context, { endpoint: 'shop', method: 'GET', segments: ['game-shop', server, 'pack', String(packId)], query: playerFields(player) });
}

/** `POST game-shop/{name}/pack/{id}/order`: the player in the query (GSA's yaml), an empty form. */
export function orderRequest(context: FeatureContext, server: string, player: OnePlayerId, packId: number): ApiRequest {
  return featureRequest(context, {
    endpoint: 'shop-order',
    method: 'POST',
    segments: ['game-shop', server, 'pack', String(packId), 'order'],
    query: playerFields(player),
  });
}

/** `POST gameserver/{name}/consume-token`, the player and `token_amount` in the form. */
export function tokenRequest(context: FeatureContext, server: string, player: OnePlayerId, amount: number): ApiRequest {
  return featureRequest(context, {
    endpoint: 'tokens',
    method: 'POST',
    segments: ['gameserver', server, 'consume-token'],
    form: { ...playerFields(player), token_amount: String(amount) },
  });
}

/** `GET gameserver/{name}/settings` or `…/button-modal`: the dashboard's, about no player. */
export function uiRequest(context: FeatureContext, server: string, which: 'settings' | 'button-modal'): ApiRequest {
  return featureRequest(context, { endpoint: 'ui', method: 'GET', segments: ['gameserver', server, which] });
}

/** The body as JSON with every text in it scrubbed; undefined when it is not JSON. Walks it only when the secret is in it. */
function scrubbedJson(text: string, scrub: Scrub): unknown {
  const body = parseJson(text);
  return scrub(text) === text ? body : scrubDeep(body, scrub, 0);
}

/** How deep a scrubbed answer may nest: GSA's answers are a few levels deep; a deeper one is not read. */
const MAX_SCRUB_DEPTH = 64;

function scrubDeep(value: unknown, scrub: Scrub, depth: number): unknown {
  if (typeof value === 'string') return scrub(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_SCRUB_DEPTH) return undefined;
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, scrub, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [scrub(key), scrubDeep(item, scrub, depth + 1)]));
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What was wrong with a body a schema refused: the first field it names, or that it is not a JSON object. */
function problemOf(issues: readonly { readonly path: readonly PropertyKey[] }[]): string {
  const field = issues[0]?.path.map(String).join('.') ?? '';
  return field.length > 0 ? `field "${field}" is missing or has the wrong type` : 'the body is not a JSON object';
}

function unreadable(what: string, response: RawResponse, scrub: Scrub, problem: string, maybeProcessed: boolean): BadResponseError {
  const tail = maybeProcessed ? `; it may or may not have been processed: do not send it again blindly` : '';
  return new BadResponseError(`unreadable ${what} from the service (${response.status}, ${quotedBody(response.text, scrub)}): ${problem}${tail}`, {
    status: response.status,
    maybeProcessed,
  });
}

function wrongIdentifier(got: string, expected: string): string {
  return `identifier ${JSON.stringify(got.slice(0, 40))}, expected "${expected}"; not trusted`;
}

/** How much of GSA's words an error quotes. */
const MAX_WORDS_LENGTH = 500;

/** GSA's words for an error: on one line, cut short (already scrubbed). */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > MAX_WORDS_LENGTH ? `${line.slice(0, MAX_WORDS_LENGTH)}…` : line;
}

function textOrNull(value: string | null | undefined): string | null {
  return value !== undefined && value !== null && value.trim().length > 0 ? value : null;
}

/**
 * The access answer, checked like a mute answer: its identifier must be `gsamod-general`, and an id it names of the
 * asked kind must be the asked one (an answer about another player is not trusted; one that names none is).
 */
export function parseAccessAnswer(response: RawResponse, asked: OnePlayerId, scrub: Scrub): AccessAnswer {
  const parsed = accessBody.safeParse(scrubbedJson(response.text, scrub));
  if (!parsed.success) throw unreadable('access answer', response, scrub, problemOf(parsed.error.issues), false);
  const body = parsed.data;
  if (body.identifier !== ACCESS_IDENTIFIER) {
    throw unreadable('access answer', response, scrub, wrongIdentifier(body.identifier, ACCESS_IDENTIFIER), false);
  }
  const named = asked.steamId !== undefined ? body.steam_id : body.eos_id;
  const askedId = asked.steamId ?? asked.eosId;
  if (typeof named === 'string' && named !== '' && named.toLowerCase() !== askedId.toLowerCase()) {
    throw unreadable('access answer', response, scrub, `it is about another player (asked for ${asked.steamId !== undefined ? 'steam_id' : 'eos_id'} ${askedId}); not trusted`, false);
  }
  const roles = Array.isArray(body.custom_roles) || body.custom_roles === undefined || body.custom_roles === null ? {} : body.custom_roles;
  return {
    allowed: body.allowed,
    usernameAccepted: body.username_accepted ?? true,
    message: textOrNull(body.message),
    roles: Object.fromEntries(Object.entries(roles).map(([role, expiry]) => [role, expiry ?? ''])),
  };
}

/** The report form, its placeholder player (user_id 0, " - Select player - ") left out. */
export function parseReportSettings(response: RawResponse, scrub: Scrub): ReportSettingsAnswer {
  const parsed = reportSettingsBody.safeParse(scrubbedJson(response.text, scrub));
  if (!parsed.success) throw unreadable('report settings', response, scrub, problemOf(parsed.error.issues), false);
  const { data } = parsed.data;
  if (data.identifier !== REPORT_SETTINGS_IDENTIFIER) {
    throw unreadable('report settings', response, scrub, wrongIdentifier(data.identifier, REPORT_SETTINGS_IDENTIFIER), false);
  }
  return {
    title: data.title ?? '',
    description: data.description ?? '',
    players: (data.players ?? []).filter((player) => player.user_id !== 0).map((player) => ({ user_id: player.user_id, name: player.name ?? '' })),
    types: (data.types ?? []).map((type) => ({ id: type.id, name: type.name })),
  };
}

/**
 * A report counts as stored on GSA's `{identifier:"gsamod-general", allowed:true, message}` or a `{data:"…"}`. With
 * `allowed: false` GSA refused it (RefusedError with GSA's message, nothing stored). Any other 2xx is a bad_response
 * with maybeProcessed: it arrived, so it may have been stored.
 */
export function parseReportReceipt(response: RawResponse, scrub: Scrub): ReportReceipt {
  const body = scrubbedJson(response.text, scrub);
  if (!isJsonObject(body)) throw unreadable('report answer', response, scrub, body === undefined ? 'not JSON' : 'JSON that is not an object', true);
  if (typeof body.data === 'string') return { message: body.data };
  const parsed = reportBody.safeParse(body);
  if (!parsed.success) throw unreadable('report answer', response, scrub, `neither "data" text nor ${problemOf(parsed.error.issues)}`, true);
  if (parsed.data.identifier !== REPORT_IDENTIFIER) {
    throw unreadable('report answer', response, scrub, wrongIdentifier(parsed.data.identifier, REPORT_IDENTIFIER), true);
  }
  const message = parsed.data.message ?? '';
  if (!parsed.data.allowed) {
    const words = oneLine(message);
    throw new RefusedError(`GSA refused the report${words === '' ? '' : `: ${words}`}`, { status: response.status, serviceMessage: words, maybeProcessed: false });
  }
  return { message };
}

/** A shop or UI answer as GSA sent it: any JSON object (mods read GSA's fields themselves). */
export function parseJsonObjectAnswer(what: string): (response: RawResponse, scrub: Scrub) => Record<string, unknown> {
  return (response, scrub) => {
    const body = scrubbedJson(response.text, scrub);
    if (!isJsonObject(body)) throw unreadable(what, response, scrub, body === undefined ? 'not JSON' : 'JSON that is not an object', false);
    return body;
  };
}

/**
 * An order's answer: `{identifier:"gameshop-order-response", success, message}`. `success: false` is GSA's refusal,
 * a receipt like any other. Anything else in a 2xx is a bad_response with maybeProcessed: the order may have been paid.
 */
export function parseOrderReceipt(response: RawResponse, scrub: Scrub): OrderReceipt {
  const parsed = orderBody.safeParse(scrubbedJson(response.text, scrub));
  if (!parsed.success) throw unreadable('order answer', response, scrub, problemOf(parsed.error.issues), true);
  if (parsed.data.identifier !== ORDER_IDENTIFIER) {
    throw unreadable('order answer', response, scrub, wrongIdentifier(parsed.data.identifier, ORDER_IDENTIFIER), true);
  }
  return { success: parsed.data.success, message: parsed.data.message ?? '' };
}

/** A token spend's answer: `{data:"Done!"}`; anything else in a 2xx is a bad_response with maybeProcessed. */
export function parseTokenReceipt(response: RawResponse, scrub: Scrub): TokenReceipt {
  const parsed = tokenBody.safeParse(scrubbedJson(response.text, scrub));
  if (!parsed.success) throw unreadable('token answer', response, scrub, `${problemOf(parsed.error.issues)} (expected {"data":"Done!"})`, true);
  return { message: parsed.data.data };
}

/** The failures of a call about a pack: a 404 may mean the pack as well as the server. */
export const classifyPackFailure: ClassifyFailure = (response, scrub, nowMs): GsaError => {
  if (response.status !== 404) return errorFromResponse(response, scrub, nowMs);
  const serviceMessage = serviceMessageOf(response.text, scrub);
  return new NotFoundError(
    `GSA does not know this server or this pack (404): check the server name and the pack id${serviceMessage === '' ? '' : `: ${serviceMessage}`}`,
    { status: 404, serviceMessage },
  );
};
